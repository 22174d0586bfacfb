#!/usr/bin/env python3
"""module_files.py — independent computations for tests/t-module-files.sh.

Each subcommand builds a second route to the same Ext as a module file, through code of
extflow that the first route does not use, or computes Ext from other tables:

  fp-over-a SRC OUT        change of rings: a module M over a sub-Hopf-algebra B (key
                           "profile") becomes the finitely presented A-module A (x)_B M, whose
                           Ext over A is Ext_B(M). Its generators are M's classes; its relations
                           say b.x = (the action of b on x) for a set of generators b of B:
                           Sq^(2^k) for k < h_1 when B is A(n)-like (truncated profile), else
                           (one class, no action) every Milnor basis element of B of positive
                           degree <= 64 (enough below the degrees a stem-40 run reads).
  rp-finite MIN TOP OUT [SRC]  the stunted projective space RP_MIN^TOP as a finite dimensional
                           module with explicit actions Sq^(2^k) x^e = binom(e, 2^k) x^(e+2^k)
                           (binomials of negative e from (1 + y)^e), so the module's own
                           solver, not the projective-space code, derives the rest; with SRC,
                           over SRC's profile (only its Sq^(2^k) written).
  cofiber-les EXT PROD NAME N0 S0 MAXN MAXS
                           Ext of the cofiber of the class x at (stem N0, s S0) of Ext(F2),
                           from Ext(F2) (EXT, an ext.csv) and x's products (the rows of class
                           NAME in PROD, a products.csv of `extflow products`): dim Ext^{s,n}(C_x) = dim coker(.x into
                           Ext^{s,n}) + dim ker(.x on Ext^{s-S0+1, n-N0-1}); printed as an
                           ext.csv (s,n,dim, non-zero, s then n) for n <= MAXN, s <= MAXS.
  restrict CSV MAXN MAXS   the rows of an ext.csv with n <= MAXN and s <= MAXS.
  les-ranks TMAX A B C     the dims of a long exact sequence 0 -> A_0 -> B_0 -> C_0 -> A_1 ->
                           B_1 -> C_1 -> A_2 -> ... (s = 0, 1, ..., one internal degree t at a
                           time) admit ranks: each of A, B, C is an ext.csv, optionally with
                           ":DS,DT" (its dims taken at (s - DS, t - DT)). The rank r_s of
                           A_s -> B_s follows from exactness, r_0 = a_0 and r_{s+1} = a_{s+1} -
                           (c_s - b_s + r_s), and must satisfy 0 <= r_s <= min(a_s, b_s),
                           b_s - r_s <= c_s, and end at 0; checked for every t <= TMAX (the
                           tables must hold every s <= t there). Prints one line; exit 1 on a
                           violation. For the cofiber C of a class x in Ext^{S,T}(M): A = M
                           shifted by (S, T), B = M, C; for 0 -> M' -> M -> M'' -> 0: A = M'',
                           B = M, C = M'.
"""
import json
import sys


def milnor_elements(max_degree, allowed):
    """Milnor basis elements R (tuples, no trailing zeros) of degree 1..max_degree with
    allowed(i, r_i) for every entry; degree of R = sum r_i (2^i - 1)."""
    out = []

    def rec(i, prefix, deg):
        w = (1 << i) - 1
        if w > max_degree - deg:
            if any(prefix) and deg > 0:
                r = list(prefix)
                while r and r[-1] == 0:
                    r.pop()
                out.append(tuple(r))
            return
        r = 0
        while deg + r * w <= max_degree:
            if allowed(i, r):
                rec(i + 1, prefix + [r], deg + r * w)
            r += 1

    rec(1, [], 0)
    return sorted(set(out))


def fp_over_a(src, dst):
    m = json.load(open(src))
    prof = m.get("profile", {})
    pp = prof.get("p_part", [])
    trunc = prof.get("truncated", False)
    gens = m["gens"]
    rels = []
    if trunc:
        actions = {}
        for a in m.get("actions", []):
            lhs, rhs = a.split("=")
            op, x = lhs.split()
            terms = [t for t in rhs.replace("+", " ").split() if t != "0"]
            actions[(int(op[2:]), x)] = terms
        for x in gens:
            for k in range(pp[0] if pp else 0):
                terms = actions.get((1 << k, x), [])
                rels.append(" + ".join(["Sq%d %s" % (1 << k, x)] + terms))
    else:
        if len(gens) != 1 or m.get("actions"):
            sys.exit("fp-over-a: an untruncated profile needs one class and no action")
        (x,) = gens
        bound = [((1 << h) if i < len(pp) else None) for i, h in enumerate(pp)]

        def allowed(i, r):
            return i > len(bound) or bound[i - 1] is None or r < bound[i - 1]

        for R in milnor_elements(64, allowed):
            rels.append("P(%s) %s" % (", ".join(map(str, R)), x))
    json.dump({"p": 2, "type": "finitely presented module", "gens": gens, "milnor_relations": rels},
              open(dst, "w"), indent=1)


def binom_odd(e, i):
    """binom(e, i) mod 2 for any integer e (negative e: the coefficient of y^i in (1 + y)^e)."""
    if e < 0:
        e = i - e - 1           # binom(e, i) = (-1)^i binom(i - e - 1, i)
    return (i & ~e) == 0


def rp_finite(lo, hi, dst, profile_src=None):
    """profile_src: a module file whose (truncated) profile the result takes; then only the
    Sq^(2^k) of that algebra (k < h_1) are written."""
    profile = json.load(open(profile_src)).get("profile") if profile_src else None
    kmax = profile["p_part"][0] if profile else 64
    name = lambda e: ("xm%d" % -e) if e < 0 else ("x%d" % e)
    gens = {name(e): e for e in range(lo, hi + 1)}
    actions = []
    for e in range(lo, hi + 1):
        k = 1
        while e + k <= hi and k < (1 << kmax):
            if binom_odd(e, k):
                actions.append("Sq%d %s = %s" % (k, name(e), name(e + k)))
            k <<= 1
    m = {"p": 2, "type": "finite dimensional module", "gens": gens, "actions": actions}
    if profile:
        m["profile"] = profile
    json.dump(m, open(dst, "w"), indent=1)


def read_ext(path):
    d = {}
    for line in open(path).read().split("\n")[1:]:
        if line:
            s, n, k = map(int, line.split(","))
            d[(s, n)] = k
    return d


def rank_f2(rows):
    rows = [r for r in rows if r]
    rank = 0
    while rows:
        r = rows.pop()
        if not r:
            continue
        low = r & -r
        rows = [x ^ r if x & low else x for x in rows]
        rank += 1
    return rank


def cofiber_les(ext_path, prod_path, name, n0, s0, maxn, maxs):
    ext = read_ext(ext_path)
    img = {}     # (s, n) of the source -> {i: bits over the target's classes}
    lines = open(prod_path).read().split("\n")
    for line in lines[1:]:
        if not line:
            continue
        f = line.split(",")
        if f[0] != name:
            continue
        n, s, i, k = int(f[3]), int(f[4]), int(f[5]), int(f[6])
        img.setdefault((s, n), {}).setdefault(i, 0)
        img[(s, n)][i] |= 1 << k

    def rank(s, n):        # rank of .x on Ext^{s, stem n}
        return rank_f2(list(img.get((s, n), {}).values()))

    out = []
    for s in range(0, maxs + 1):
        for n in range(-1, maxn + 1):
            coker = ext.get((s, n), 0) - (rank(s - s0, n - n0) if s >= s0 else 0)
            a = s - s0 + 1
            ker = (ext.get((a, n - n0 - 1), 0) - rank(a, n - n0 - 1)) if a >= 0 else 0
            if coker + ker:
                out.append("%d,%d,%d" % (s, n, coker + ker))
    print("s,n,dim")
    print("\n".join(out))


def restrict(path, maxn, maxs):
    lines = open(path).read().split("\n")
    print(lines[0])
    for line in lines[1:]:
        if line:
            s, n, _ = map(int, line.split(","))
            if n <= maxn and s <= maxs:
                print(line)


def num_gens(path, maxn, maxs):
    """sseq's num_gens text (tests/ref/oddprimes/: a line of arguments, then n,s,dim) as an
    ext.csv (s,n,dim, non-zero dims, by s then n) for n <= maxn, s <= maxs."""
    rows = []
    for line in open(path).read().split("\n")[1:]:
        if line:
            n, s, d = map(int, line.split(","))
            if d and n <= maxn and s <= maxs:
                rows.append((s, n, d))
    print("s,n,dim")
    for s, n, d in sorted(rows):
        print("%d,%d,%d" % (s, n, d))


def les_ranks(tmax, specs):
    tables = []
    for spec in specs:
        path, _, shift = spec.partition(":")
        ds, dt = map(int, shift.split(",")) if shift else (0, 0)
        d = {}
        for (s, n), k in read_ext(path).items():
            d[(s + ds, n + s + dt)] = k        # keyed by (s, t) after the shift
        tables.append(d)
    a, b, c = [lambda s, t, d=d: d.get((s, t), 0) for d in tables]
    checked = 0
    for t in range(tmax + 1):
        r = a(0, t)
        for s in range(t + 3):
            bad = None
            if not (0 <= r <= min(a(s, t), b(s, t))):
                bad = "rank %d of A -> B outside 0..min(%d, %d)" % (r, a(s, t), b(s, t))
            elif b(s, t) - r > c(s, t):
                bad = "B/im = %d exceeds C = %d" % (b(s, t) - r, c(s, t))
            if bad:
                print("not exact at (s, t) = (%d, %d): %s" % (s, t, bad))
                sys.exit(1)
            r = a(s + 1, t) - (c(s, t) - b(s, t) + r)
            checked += 1
        if r != 0:
            print("not exact at t = %d: the sequence does not end (rank %d)" % (t, r))
            sys.exit(1)
    print("exact ranks exist at all %d (s, t) with t <= %d" % (checked, tmax))


def main():
    cmd, a = sys.argv[1], sys.argv[2:]
    if cmd == "fp-over-a":
        fp_over_a(a[0], a[1])
    elif cmd == "num-gens":
        num_gens(a[0], int(a[1]), int(a[2]))
    elif cmd == "rp-finite":
        rp_finite(int(a[0]), int(a[1]), a[2], a[3] if len(a) > 3 else None)
    elif cmd == "cofiber-les":
        cofiber_les(a[0], a[1], a[2], int(a[3]), int(a[4]), int(a[5]), int(a[6]))
    elif cmd == "les-ranks":
        les_ranks(int(a[0]), a[1:4])
    elif cmd == "restrict":
        restrict(a[0], int(a[1]), int(a[2]))
    else:
        sys.exit("module_files.py: unknown command " + cmd)


if __name__ == "__main__":
    main()

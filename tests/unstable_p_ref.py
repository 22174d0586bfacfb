#!/usr/bin/env python3
"""unstable_p_ref.py — a slow, exact reference for Ext over the unstable mod p Steenrod algebra,
p odd, written apart from the C code (algebra/excess.c, stages/resolve/standard_p.c), for
tests/t-unstable-p.sh.

Maths. A_p has the Milnor basis Q(E)P(R), dual to the monomials tau(E) xi(R) of
A_* = E(tau_0, tau_1, ...) (x) F_p[xi_1, xi_2, ...], |tau_k| = 2p^k - 1, |xi_i| = 2(p^i - 1). Its
product is dual to the coproduct (Milnor 1958)
    psi(xi_n) = sum_{i=0..n} xi_{n-i}^{p^i} (x) xi_i,   psi(tau_n) = tau_n (x) 1 + sum_i xi_{n-i}^{p^i} (x) tau_i,
so the coefficient of Z in X.Y is that of X* (x) Y* in psi(Z*), computed here by expanding psi of
every monomial (signs: (a (x) b)(c (x) d) = (-1)^{|b||c|} ac (x) bd, the tau's anticommute). The
excess of Q(E)P(R) is #E + 2 sum r_i. An admissible monomial b^e0 P^s1 b^e1 ... P^sk b^ek (b the
Bockstein, s_i >= p s_{i+1} + e_i, s_i >= 1) has excess 2 s1 + e0 - (e1 + ... + ek) -
2(p - 1)(s2 + ... + sk): on a class of degree n, b^e0 P^s1 acts on one of degree
n + |b^e1 P^s2 ...|, and vanishes in an unstable module when 2 s1 + e0 is larger, i.e. excess > n.

`kraines P D`: for every degree d <= D and every n, (a) the admissible monomials of excess > n
span the same subspace of A_p as the Milnor elements of excess > n; (b) that span is a left ideal
(x.y has no term of excess <= n when y has excess > n); (c) the quotient A_p / span is unstable:
b^e P^i y lies in the span when y has excess <= n and 2i + e > n + |y|. So the free unstable module
F(n) = A_p / (the span of admissibles of excess > n) has the Milnor basis of excess <= n.
Exit status 1 with a line on the first failure.

`ext P MODULE S T`: a minimal resolution F_s -> ... -> F_0 -> M by free unstable modules through
t <= T, s <= S, over F_p (Gaussian elimination on Python integers); MODULE one of sphere:n (F_p in
degree n), moore:n (x in degree n, b x in degree n + 1: the mod p Moore space's cohomology) and
calpha:n (x in degree n, P^1 x in degree n + 2(p - 1): the cone of alpha_1).
Prints ext.csv's lines (s,n,dim, n = t - s). `dims P N D`: dim F(N) in degrees 0..D ("d,dim").
"""
import sys
from functools import lru_cache

P = 3
NQ = 8


def setp(p):
    global P
    P = p


def tau(k):
    return 2 * P**k - 1


def xi(i):
    return 2 * (P**i - 1)


def trim(R):
    R = list(R)
    while R and R[-1] == 0:
        R.pop()
    return tuple(R)


def degree(m):
    E, R = m
    return sum(tau(k) for k in range(NQ) if E >> k & 1) + sum(r * xi(i + 1) for i, r in enumerate(R))


def excess(m):
    E, R = m
    return bin(E).count("1") + 2 * sum(R)


def pparts(d, slot):
    """R with entries in slots >= slot and sum r_i |xi_i| = d."""
    if d == 0:
        yield ()
        return
    if xi(slot + 1) > d:
        return
    for r in range(d // xi(slot + 1) + 1):
        for rest in pparts(d - r * xi(slot + 1), slot + 1):
            yield trim((r,) + rest)


@lru_cache(maxsize=None)
def basis(d):
    out = set()
    for E in range(1 << NQ):
        qd = sum(tau(k) for k in range(NQ) if E >> k & 1)
        if qd <= d and (d - qd) % (2 * (P - 1)) == 0:
            out.update((E, R) for R in pparts(d - qd, 0))
    return sorted(out)


ONE = (0, ())


def mono_mul(a, b):
    """a b in A_*: (sign, monomial), or None when a tau repeats."""
    (E1, R1), (E2, R2) = a, b
    if E1 & E2:
        return None
    inv = sum(bin(E1 >> (k + 1)).count("1") for k in range(NQ) if E2 >> k & 1)
    n = max(len(R1), len(R2))
    R = tuple((R1[i] if i < len(R1) else 0) + (R2[i] if i < len(R2) else 0) for i in range(n))
    return (-1) ** inv, (E1 | E2, trim(R))


def tensor_mul(x, y):
    out = {}
    for (a, b), c1 in x.items():
        for (c, d), c2 in y.items():
            ac, bd = mono_mul(a, c), mono_mul(b, d)
            if ac is None or bd is None:
                continue
            sign = ac[0] * bd[0] * (-1 if degree(b) % 2 and degree(c) % 2 else 1)
            key = (ac[1], bd[1])
            out[key] = (out.get(key, 0) + sign * c1 * c2) % P
    return {k: v for k, v in out.items() if v}


def xi_pow(i, e):
    return ONE if i == 0 or e == 0 else (0, tuple([0] * (i - 1) + [e]))


@lru_cache(maxsize=None)
def psi_gen(kind, n):
    if kind == "xi":
        return {(xi_pow(n - i, P**i), xi_pow(i, 1)): 1 for i in range(n + 1)}
    t = {((1 << n, ()), ONE): 1}
    for i in range(n + 1):
        t[(xi_pow(n - i, P**i), (1 << i, ()))] = 1
    return t


def psi(m):
    E, R = m
    out = {(ONE, ONE): 1}
    for k in range(NQ):
        if E >> k & 1:
            out = tensor_mul(out, psi_gen("tau", k))
    for i, r in enumerate(R):
        for _ in range(r):
            out = tensor_mul(out, psi_gen("xi", i + 1))
    return out


@lru_cache(maxsize=None)
def products_of_degree(n):
    """{(X, Y): [(c, Z)]} for |X| + |Y| = n."""
    table = {}
    for Z in basis(n):
        for (x, y), c in psi(Z).items():
            table.setdefault((x, y), []).append((c, Z))
    return table


def mul(X, Y):
    """X.Y as {Z: c}."""
    out = {}
    for c, Z in products_of_degree(degree(X) + degree(Y)).get((X, Y), []):
        out[Z] = (out.get(Z, 0) + c) % P
    return {k: v for k, v in out.items() if v}


def mul_elt(a, b):
    out = {}
    for X, c1 in a.items():
        for Y, c2 in b.items():
            for Z, c in mul(X, Y).items():
                out[Z] = (out.get(Z, 0) + c * c1 * c2) % P
    return {k: v for k, v in out.items() if v}


BETA = {(1, ()): 1}


def P_(s):
    return {(0, (s,)): 1}


def admissibles(d):
    """(sequence (e0, s1, e1, ..., sk, ek), excess) of every admissible monomial of degree d."""
    q = 2 * (P - 1)
    out = []

    def grow(left, seq):        # seq = (e0, s1, ..., s_j) or (): choose e_j, then maybe s_{j+1}
        for e in (0, 1):
            if e > left:
                continue
            if left == e:
                out.append(seq + (e,))
            for s in range(1, (left - e) // q + 1):
                if seq and seq[-1] < P * s + e:      # s_j >= p s_{j+1} + e_j
                    continue
                grow(left - e - q * s, seq + (e, s))
    grow(d, ())
    res = []
    for seq in out:
        e, s = seq[0::2], seq[1::2]
        res.append((seq, 2 * s[0] + e[0] - sum(e[1:]) - q * sum(s[1:]) if s else e[0]))
    return res


def monomial(seq):
    out = {ONE: 1}
    for i, x in enumerate(seq):
        if i % 2 == 0:
            if x:
                out = mul_elt(out, BETA)
        else:
            out = mul_elt(out, P_(x))
    return out


def rank(vectors):
    """Rank mod P of vectors given as {key: c}."""
    rows, piv = [], {}
    r = 0
    for v in vectors:
        v = dict(v)
        while v:
            k = max(v)
            if k in piv:
                w = piv[k]
                f = v[k] * pow(w[k], P - 2, P) % P
                for kk, c in w.items():
                    v[kk] = (v.get(kk, 0) - f * c) % P
                    if not v[kk]:
                        del v[kk]
            else:
                piv[k] = v
                r += 1
                break
    return r


def kraines(D):
    for d in range(D + 1):
        B = basis(d)
        adm = admissibles(d)
        if len(adm) != len(B):
            print("degree %d: %d admissible monomials, %d Milnor elements" % (d, len(adm), len(B)))
            return False
        mons = [(monomial(seq), ex) for seq, ex in adm]
        for n in range(d + 1):
            big = [m for m, ex in mons if ex > n]
            mil = [{Z: 1} for Z in B if excess(Z) > n]
            if len(big) != len(mil) or rank(big) != len(mil) or rank(big + mil) != len(mil):
                print("degree %d, n = %d: admissibles of excess > n do not span the Milnor elements of excess > n" % (d, n))
                return False
        for a in range(1, D - d + 1):          # (b) left ideal: X.Y, |X| = a, |Y| = d
            for X in basis(a):
                for Y in B:
                    low = [Z for Z in mul(X, Y) if excess(Z) < excess(Y)]
                    if low:
                        print("%s . %s has %s of excess below %d" % (X, Y, low[0], excess(Y)))
                        return False
        q = 2 * (P - 1)                        # (c) the quotient is unstable
        for Y in B:
            for n in range(excess(Y), d + 1):
                for e in (0, 1):
                    for i in range(0, (D - d - e) // q + 1):
                        if 2 * i + e <= n + d or (e == 0 and i == 0):
                            continue
                        op = mul_elt(BETA, P_(i)) if e else P_(i)
                        low = [Z for Z in mul_elt(op, {Y: 1}) if excess(Z) <= n]
                        if low:
                            print("b^%d P^%d . %s has %s of excess <= %d" % (e, i, Y, low[0], n))
                            return False
    return True


def module_of(spec):
    """(classes {degree: count}, act(X, degree, i) -> {(degree', j): c})"""
    kind, *args = spec.split(":")
    n = int(args[0])
    if kind == "sphere":
        return {n: 1}, lambda X, d, i: {(d, 0): 1} if X == ONE else {}
    if kind == "moore":
        def act(X, d, i):
            if X == ONE:
                return {(d, 0): 1}
            if X == (1, ()) and d == n:
                return {(n + 1, 0): 1}
            return {}
        return {n: 1, n + 1: 1}, act
    if kind == "calpha":        # x in degree n, P^1 x in degree n + 2(p - 1): the cone of alpha_1
        def act(X, d, i):
            if X == ONE:
                return {(d, 0): 1}
            if X == (0, (1,)) and d == n:
                return {(n + 2 * (P - 1), 0): 1}
            return {}
        return {n: 1, n + 2 * (P - 1): 1}, act
    sys.exit("unknown module " + spec)


def ext(spec, S, T):
    classes, act = module_of(spec)
    gens = [[] for _ in range(S + 1)]     # gens[s] = [(degree, image {key: c})]

    def fbasis(s, t):
        out = []
        for gi, (u, _) in enumerate(gens[s]):
            if u <= t:
                out += [(gi, X) for X in basis(t - u) if excess(X) <= u]
        return out

    def d(s, key):
        g, X = key
        out = {}
        for k, c in gens[s][g][1].items():
            if s == 0:
                terms = act(X, k[0], k[1])
            else:
                h, Y = k
                u = gens[s - 1][h][0]
                terms = {(h, Z): c2 for Z, c2 in mul(X, Y).items() if excess(Z) <= u}
            for kk, c2 in terms.items():
                out[kk] = (out.get(kk, 0) + c * c2) % P
        return {k: v for k, v in out.items() if v}

    def target(s, t):
        if s == 0:
            return [(t, i) for i in range(classes.get(t, 0))]
        return fbasis(s - 1, t)

    def echelon(rows, width):
        """rows: lists mod P; returns {pivot column: normalised row} (pivot = first nonzero)."""
        piv = {}
        for v in rows:
            v = list(v)
            for c in range(width):
                if v[c] and c in piv:
                    f = v[c]
                    w = piv[c]
                    v = [(a - f * b) % P for a, b in zip(v, w)]
                elif v[c]:
                    inv = pow(v[c], P - 2, P)
                    piv[c] = [a * inv % P for a in v]
                    break
        return piv

    def reduce_by(piv, v, width):
        v = list(v)
        for c in range(width):
            if v[c] and c in piv:
                f = v[c]
                v = [(a - f * b) % P for a, b in zip(v, piv[c])]
        return v

    for t in range(T + 1):
        kernel_prev = None
        for s in range(S + 1):
            tgt = target(s, t)
            pos = {k: i for i, k in enumerate(tgt)}
            width = len(tgt)

            def vec(img):
                v = [0] * width
                for k, c in img.items():
                    v[pos[k]] = c
                return v
            src = fbasis(s, t)
            image = echelon([vec(d(s, k)) for k in src], width)
            need = [[1 if j == i else 0 for j in range(width)] for i in range(width)] if s == 0 else kernel_prev
            for v in need:
                w = reduce_by(image, v, width)
                if any(w):
                    gens[s].append((t, {tgt[j]: v[j] for j in range(width) if v[j]}))
                    image = echelon(list(image.values()) + [w], width)
            src = fbasis(s, t)
            n = len(src)
            aug = echelon([vec(d(s, k)) + [1 if j == i else 0 for j in range(n)] for i, k in enumerate(src)], width + n)
            kernel_prev = [row[width:] for c, row in aug.items() if c >= width]
    for s in range(S + 1):
        count = {}
        for u, _ in gens[s]:
            count[u - s] = count.get(u - s, 0) + 1
        for n in sorted(count):
            print("%d,%d,%d" % (s, n, count[n]))


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "kraines":
        setp(int(sys.argv[2]))
        sys.exit(0 if kraines(int(sys.argv[3])) else 1)
    if cmd == "dims":
        setp(int(sys.argv[2]))
        N, D = int(sys.argv[3]), int(sys.argv[4])
        for d in range(D + 1):
            print("%d,%d" % (d, sum(1 for X in basis(d) if excess(X) <= N)))
        return
    if cmd == "ext":
        setp(int(sys.argv[2]))
        print("s,n,dim")
        ext(sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
        return
    sys.exit(__doc__)


if __name__ == "__main__":
    main()

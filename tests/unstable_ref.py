#!/usr/bin/env python3
"""unstable_ref.py — a slow, exact reference for Ext over the unstable mod 2 Steenrod algebra,
written apart from the C code (algebra/excess.c, stages/resolve/standard.c), for tests/t-unstable.sh.

Maths. Milnor basis Sq(R) of A, |Sq(R)| = sum r_i (2^i - 1), excess e(R) = sum r_i. The free
unstable module F(n) on a class i_n of degree n is A.i_n modulo the elements of excess > n:
F(n) has basis Sq(R).i_n with e(R) <= n (Kraines, "On excess in the Milnor basis", Bull. LMS 3
(1971)). `kraines D` checks that statement here from its definition, degree by degree up to D:
the kernel of A -> F(n) is the span of the admissible monomials Sq^I = Sq^i1 ... Sq^ik
(i_j >= 2 i_{j+1}) of excess i1 - i2 - ... - ik > n, and that span (Milnor products) equals the
span of the Sq(R) with e(R) > n.

Products: Sq(R).Sq(S) = sum over Milnor matrices X (row i >= 1: sum_j 2^j x_ij = r_i; column
j >= 1: sum_i x_ij = s_j) of Sq(T), t_n = sum_{i+j=n} x_ij, with coefficient the product of the
multinomials (x_n0, x_{n-1,1}, ..., x_0n), odd iff their binary digits are disjoint.

`ext MODULE S T`: a minimal resolution F_s -> ... -> F_0 -> M by free unstable modules, M one
of sphere:n (F2 in degree n) or rp:a:b (x^a .. x^b of RP^inf, Sq(R) x^k = (k; k - e(R), r1,
r2, ...) x^{k+|R|}), through t <= T and s <= S; prints ext.csv's lines (s,n,dim with n = t - s,
nonzero dims, ordered by s then n). `dims N D`: dim F(N) in degrees 0..D, counted from the
Milnor basis ("d,dim" lines).
"""
import sys
from functools import lru_cache

XI = [2**i - 1 for i in range(1, 12)]


def degree(R):
    return sum(r * XI[i] for i, r in enumerate(R))


def excess(R):
    return sum(R)


@lru_cache(maxsize=None)
def basis(d):
    """Every R of degree d (as tuples without trailing zeros), in a fixed order."""
    out = []

    def rec(rest, i, cur):
        if rest == 0:
            R = list(cur)
            while R and R[-1] == 0:
                R.pop()
            out.append(tuple(R))
            return
        if i < 0:
            return
        for r in range(rest // XI[i], -1, -1):
            rec(rest - r * XI[i], i - 1, cur[:i] + [r] + cur[i + 1:])

    top = 0
    while top + 1 < len(XI) and XI[top + 1] <= d:
        top += 1
    rec(d, top, [0] * (top + 1))
    return sorted(set(out))


def disjoint(xs):
    acc = 0
    for x in xs:
        if acc & x:
            return False
        acc |= x
    return True


@lru_cache(maxsize=None)
def mul(R, S):
    """Sq(R).Sq(S) as a frozenset of the R's with odd coefficient."""
    m, n = len(R), len(S)
    res = {}
    rows = []   # rows[i-1] = (x_i1 .. x_in) for i = 1..m

    def rec_row(i):
        if i > m:
            cols = [S[j - 1] - sum(rows[k][j - 1] for k in range(m)) for j in range(1, n + 1)]
            if any(c < 0 for c in cols):
                return
            X = [[None] * (n + 1) for _ in range(m + 1)]
            for j in range(1, n + 1):
                X[0][j] = cols[j - 1]
            for a in range(1, m + 1):
                X[a][0] = R[a - 1] - sum(2**j * rows[a - 1][j - 1] for j in range(1, n + 1))
                for j in range(1, n + 1):
                    X[a][j] = rows[a - 1][j - 1]
            T = []
            for k in range(1, m + n + 1):
                diag = [X[a][k - a] for a in range(max(0, k - n), min(m, k) + 1)]
                if not disjoint(diag):
                    return
                T.append(sum(diag))
            while T and T[-1] == 0:
                T.pop()
            T = tuple(T)
            res[T] = res.get(T, 0) ^ 1
            return
        r = R[i - 1]

        def rec_entry(j, left, cur):
            if j > n:
                rows.append(cur)
                rec_row(i + 1)
                rows.pop()
                return
            for x in range(left // 2**j + 1):
                if x > S[j - 1]:
                    break
                rec_entry(j + 1, left - 2**j * x, cur + [x])

        rec_entry(1, r, [])

    rec_row(1)
    return frozenset(T for T, c in res.items() if c)


def mul_elt(a, b):
    """Products of sums (frozensets of R)."""
    out = set()
    for R in a:
        for S in b:
            out ^= mul(R, S)
    return frozenset(out)


def admissibles(d):
    """Admissible sequences I (i_j >= 2 i_{j+1}, i_k >= 1) of degree d."""
    out = []

    def rec(rest, cap, cur):
        if rest == 0:
            out.append(tuple(cur))
            return
        for i in range(1, min(rest, cap) + 1):
            rec(rest - i, i // 2, cur + [i])

    rec(d, d, [])
    return out


def rank(vectors):
    """Rank over F2 of python ints."""
    pivots = {}
    for v in vectors:
        while v:
            h = v.bit_length() - 1
            if h in pivots:
                v ^= pivots[h]
            else:
                pivots[h] = v
                break
    return len(pivots)


def kraines(D):
    bad = 0
    for d in range(D + 1):
        B = basis(d)
        pos = {R: i for i, R in enumerate(B)}

        def vec(elt):
            v = 0
            for R in elt:
                v |= 1 << pos[R]
            return v

        mono = {}
        for I in admissibles(d):
            e = frozenset([()])
            for i in I:
                e = mul_elt(e, frozenset([(i,)]))
            mono[I] = vec(e)
        for n in range(d + 1):
            adm = [mono[I] for I in mono if I and I[0] - sum(I[1:]) > n]
            mil = [1 << pos[R] for R in B if excess(R) > n]
            ok = rank(adm) == len(adm) == len(mil) == rank(adm + mil)
            print("%s degree %d n %d: %d admissibles of excess > n span the %d Sq(R) of excess > n"
                  % ("ok" if ok else "BAD", d, n, len(adm), len(mil)))
            bad += not ok
    return bad


def binom2(n, k):
    return 0 <= k <= n and (k & (n - k)) == 0


def module_of(spec):
    """(classes {degree: [names]}, action(R, degree, i) -> list of (degree', j))"""
    kind, *args = spec.split(":")
    if kind == "sphere":
        n = int(args[0])
        return {n: [0]}, lambda R, d, i: [(d, 0)] if R == () else []
    if kind == "rp":
        a, b = int(args[0]), int(args[1])

        def act(R, k, i):
            e = excess(R)
            if e > k or k + degree(R) > b:
                return []
            # multinomial (k; k - e, r1, r2, ...) mod 2: the parts' digits are disjoint
            return [(k + degree(R), 0)] if disjoint([k - e] + list(R)) else []
        return {k: [0] for k in range(a, b + 1)}, act
    sys.exit("unknown module " + spec)


def ext(spec, S, T):
    classes, act = module_of(spec)
    # gens[s] = list of (degree u, image) ; image: dict key -> 1 as a set of keys
    #   s = 0: keys (degree, i) of M;  s >= 1: keys (generator index, R) of F_{s-1}
    gens = [[] for _ in range(S + 1)]

    def fbasis(s, t):
        """basis of F_s in degree t: (g, R) with e(R) <= |g|"""
        out = []
        for gi, (u, _) in enumerate(gens[s]):
            if u <= t:
                out += [(gi, R) for R in basis(t - u) if excess(R) <= u]
        return out

    def apply(s, R, img):
        """Sq(R) applied to an element of F_{s-1} (s >= 1) or M (s = 0), as a set of keys."""
        out = set()
        for key in img:
            if s == 0:
                d, i = key
                for k in act(R, d, i):
                    out ^= {k}
            else:
                g, Sx = key
                u = gens[s - 1][g][0]
                for Tm in mul(R, Sx):
                    if excess(Tm) <= u:
                        out ^= {(g, Tm)}
        return out

    def d(s, key):
        g, R = key
        return apply(s, R, gens[s][g][1])

    def target(s, t):
        if s == 0:
            return [(t, i) for i in classes.get(t, [])]
        return fbasis(s - 1, t)

    def as_int(keys, pos):
        v = 0
        for k in keys:
            v |= 1 << pos[k]
        return v

    def reduce(rows):
        """RREF-ish echelon: dict pivot -> row (highest bit as pivot)."""
        piv = {}
        for v in rows:
            while v:
                h = v.bit_length() - 1
                if h in piv:
                    v ^= piv[h]
                else:
                    piv[h] = v
                    break
        return piv

    for t in range(T + 1):
        kernel_prev = None     # kernel of d_{s-1} in degree t, as vectors over target(s, t)
        for s in range(S + 1):
            tgt = target(s, t)
            tpos = {k: i for i, k in enumerate(tgt)}
            src = fbasis(s, t)
            imgs = [as_int(d(s, k), tpos) for k in src]
            width = len(tgt)
            image = reduce([v for v in imgs if v])
            # the space the new generators must hit: kernel of d_{s-1} (s >= 1) or M_t (s = 0)
            need = [1 << i for i in range(width)] if s == 0 else kernel_prev
            new = []
            cur = dict(image)
            for v in need:
                w = v
                while w:
                    h = w.bit_length() - 1
                    if h in cur:
                        w ^= cur[h]
                    else:
                        break
                if w:
                    cur[w.bit_length() - 1] = w
                    new.append(v)
            for v in new:
                keys = {tgt[i] for i in range(width) if v >> i & 1}
                gens[s].append((t, keys))
            # kernel of d_s in degree t over the whole F_{s,t} (new generators map onto the rest)
            src = fbasis(s, t)
            imgs = [as_int(d(s, k), tpos) for k in src]
            # echelon form of (image | identity), the image's columns leading: the rows whose
            # image part is zero are a basis of the kernel
            n = len(src)
            aug = reduce([(v << n) | (1 << i) for i, v in enumerate(imgs)])
            kernel_prev = [v for h, v in aug.items() if h < n]
    for s in range(S + 1):
        count = {}
        for u, _ in gens[s]:
            count[u - s] = count.get(u - s, 0) + 1
        for n in sorted(count):
            print("%d,%d,%d" % (s, n, count[n]))


def main():
    cmd = sys.argv[1]
    if cmd == "kraines":
        sys.exit(1 if kraines(int(sys.argv[2])) else 0)
    if cmd == "dims":
        N, D = int(sys.argv[2]), int(sys.argv[3])
        for d in range(D + 1):
            print("%d,%d" % (d, sum(1 for R in basis(d) if excess(R) <= N)))
        return
    if cmd == "ext":
        print("s,n,dim")
        ext(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    sys.exit(__doc__)


if __name__ == "__main__":
    main()

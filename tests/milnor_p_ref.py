#!/usr/bin/env python3
"""milnor_p_ref.py P N — a slow, exact reference for the mod p Steenrod algebra A_p (p odd),
written apart from algebra/milnor_p.c: products come from the coproduct of the dual algebra.

A_* = E(tau_0, tau_1, ...) (x) F_p[xi_1, xi_2, ...], |tau_k| = 2p^k - 1, |xi_i| = 2(p^i - 1),
    psi(xi_n)  = sum_{i=0..n} xi_{n-i}^{p^i} (x) xi_i            (xi_0 = 1)
    psi(tau_n) = tau_n (x) 1 + sum_{i=0..n} xi_{n-i}^{p^i} (x) tau_i
(Milnor 1958). Q(E)P(R) is the basis dual to the monomials tau(E) xi(R) (tau's in increasing
order), and the product of A_p is dual to psi: the coefficient of Q(E)P(R) in
Q(E1)P(R1) . Q(E2)P(R2) is that of tau(E1)xi(R1) (x) tau(E2)xi(R2) in psi(tau(E)xi(R)), products
in A_* (x) A_* taken with the sign (a (x) b)(c (x) d) = (-1)^{|b||c|} ac (x) bd.
The basis of each degree is listed by brute force and sorted by a key that states sseq's order
directly (docs/algorithms.md §9.2): Q part as a bit mask, then the sequence of lengths met when
taking 1 from the top entry of R again and again.

Output, for every degree n <= N:
    B n X X ...          the basis of degree n in order
    M X Y c@Z c@Z ...    for every X, Y with |X| + |Y| = n: X.Y = sum c Z (c in 1..p-1; none: 0)
An element is written E:r1,r2,... (E the Q part's bit mask; the unit is 0:).
"""
import sys


def main():
    p, N = int(sys.argv[1]), int(sys.argv[2])
    q = 2 * (p - 1)
    tau = [2 * p**k - 1 for k in range(12)]
    xi = [2 * (p**i - 1) for i in range(12)]        # xi[0] = 0: xi_0 = 1

    def degree(m):
        E, R = m
        return sum(tau[k] for k in range(12) if E >> k & 1) + sum(r * xi[i + 1] for i, r in enumerate(R))

    def trim(R):
        R = list(R)
        while R and R[-1] == 0:
            R.pop()
        return tuple(R)

    # --- the basis, by brute force, in sseq's order
    def pparts(d, slot):                             # R with entries in slots >= slot, sum r_i |xi_i| = d
        if d == 0:
            yield ()
            return
        if xi[slot + 1] > d:
            return
        for r in range(d // xi[slot + 1] + 1):
            for rest in pparts(d - r * xi[slot + 1], slot + 1):
                yield trim((r,) + rest)

    def peel_key(R):
        out, R = [], list(R)
        while R:
            out.append(len(R))
            R[-1] -= 1
            R = list(trim(R))
        return tuple(out)

    def basis(d):
        out = []
        for E in range(1 << 12):
            qd = sum(tau[k] for k in range(12) if E >> k & 1)
            if qd > d or (d - qd) % q:
                continue
            for R in pparts(d - qd, 0):
                out.append((E, R))
        out = sorted(set(out), key=lambda m: (m[0], peel_key(m[1])))
        assert all(degree(m) == d for m in out)
        return out

    # --- A_* and A_* (x) A_*: monomials (E, R), tensors {(m1, m2): c}
    def mono_mul(a, b):                              # (sign, monomial) or None
        (E1, R1), (E2, R2) = a, b
        if E1 & E2:
            return None
        inv = sum(bin(E1 >> (k + 1)).count("1") for k in range(12) if E2 >> k & 1)
        n = max(len(R1), len(R2))
        R = tuple((R1[i] if i < len(R1) else 0) + (R2[i] if i < len(R2) else 0) for i in range(n))
        return (-1) ** inv, (E1 | E2, trim(R))

    def odd(m):
        return bin(m[0]).count("1") & 1

    def tensor_mul(x, y):
        out = {}
        for (a, b), c1 in x.items():
            for (cc, d), c2 in y.items():
                ac, bd = mono_mul(a, cc), mono_mul(b, d)
                if ac is None or bd is None:
                    continue
                s = ac[0] * bd[0] * (-1 if odd(b) and odd(cc) else 1)
                key = (ac[1], bd[1])
                out[key] = (out.get(key, 0) + s * c1 * c2) % p
        return {k: v for k, v in out.items() if v}

    ONE = (0, ())

    def xi_mono(i, e):                               # xi_i^e
        if i == 0 or e == 0:
            return ONE
        return (0, tuple([0] * (i - 1) + [e]))

    def psi_xi(n):
        return {(xi_mono(n - i, p**i), xi_mono(i, 1)): 1 for i in range(n + 1)}

    def psi_tau(n):
        t = {((1 << n, ()), ONE): 1}
        for i in range(n + 1):
            t[(xi_mono(n - i, p**i), (1 << i, ()))] = 1
        return t

    def psi(m):
        E, R = m
        out = {(ONE, ONE): 1}
        for k in range(12):
            if E >> k & 1:
                out = tensor_mul(out, psi_tau(k))
        for i, r in enumerate(R):
            for _ in range(r):
                out = tensor_mul(out, psi_xi(i + 1))
        return out

    def fmt(m):
        return "%d:%s" % (m[0], ",".join(str(r) for r in m[1]))

    bases = [basis(d) for d in range(N + 1)]
    w = sys.stdout.write
    for n in range(N + 1):
        w("B %d %s\n" % (n, " ".join(fmt(m) for m in bases[n])))
        prod = {}
        for Z in bases[n]:
            for (x, y), c in psi(Z).items():
                prod.setdefault((x, y), []).append((c, Z))
        for a in range(n + 1):
            for X in bases[a]:
                for Y in bases[n - a]:
                    terms = prod.get((X, Y), [])
                    w("M %s %s %s\n" % (fmt(X), fmt(Y), " ".join("%d@%s" % (c, fmt(Z)) for c, Z in terms)))


if __name__ == "__main__":
    main()

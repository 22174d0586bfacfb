#!/usr/bin/env python3
"""lift_p_ref.py EXTFLOW DIR N S NAME=n,s[,digits] ... — products at an odd prime by lifting
classes to chain maps, naively and apart from stages/lift_p.c, printed as products.csv's rows.

Input: DIR, a resolution at an odd prime p finished through stem >= N, s >= S (its differentials
are read through `EXTFLOW inspect`, one digit per entry); the algebra A_p and its product come
from tests/milnor_p_ref.py (the product dual to the coproduct of A_*, written apart from
algebra/milnor_p.c). Nothing of extflow's lifting, products or F_p elimination is used.

Maths (docs/products.md). A class x at (s0, t0), a vector over the generators of F_{s0} in
degree t0, lifts to f_i : F_{s0+i} -> F_i with d f = f d and f_0(z_k) = x_k·1 (k-th generator
of degree t0). f_i(z) for a generator z: y = f_{i-1}(d z), each term c·a·g' of d z giving
c·a·f(g') (a product in A_p for each term of f(g')), then any x with d_i(x) = y, found here by
Gaussian elimination over F_p on the matrix of d_i in degree t (a row a·d(h) per basis element
a·h). <x·y_j, z_k> is the coefficient of the unit on y_j in f_i(z_k). Printed for every class y_j
at (n, s) with n + n0 <= N and s + s0 <= S: "NAME,n0,s0,n,s,j,k,c" for each non-zero c, in the
order of products.csv (classes in argument order, then n, s, j, k).
"""
import subprocess
import sys


def main():
    extflow, d, N, S = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    classes = []
    for arg in sys.argv[5:]:
        name, rest = arg.split("=")
        parts = rest.split(",")
        vec = [int(ch) for ch in parts[2]] if len(parts) > 2 else [1]
        classes.append((name, int(parts[0]), int(parts[1]), vec))
    T = N + S + 1

    # --- A_p from the reference: basis per degree, products as dicts
    p = None
    for line in open(d + "/run.json"):
        if '"prime"' in line:
            p = int(line.split(":")[1].strip().rstrip(","))
    out = subprocess.run([sys.executable, "tests/milnor_p_ref.py", str(p), str(T)], capture_output=True, text=True,
                         check=True).stdout
    basis, index, mul = {}, {}, {}
    for line in out.splitlines():
        w = line.split()
        if w[0] == "B":
            n = int(w[1])
            basis[n] = w[2:]
            for i, e in enumerate(w[2:]):
                index[e] = (n, i)
        elif w[0] == "M":
            mul[(w[1], w[2])] = [(int(cz.split("@")[0]), cz.split("@")[1]) for cz in w[3:]]
    dim = lambda n: len(basis.get(n, [])) if n >= 0 else 0

    # --- the resolution: ngens[s][t], images d(g) as vectors over F_{s-1} in degree t
    ngens, img = {}, {}
    for s in range(S + 1):
        for t in range(s, s + N + 2):
            path = "%s/stages/differential/%d_%d.zst" % (d, s, t)
            try:
                txt = subprocess.run([extflow, "inspect", path], capture_output=True, text=True, check=True).stdout
            except subprocess.CalledProcessError:
                ngens[(s, t)] = 0
                continue
            lines = txt.splitlines()
            rows = int([l for l in lines if l.startswith("rows:")][0].split()[1])
            mat = [[int(ch) for ch in l] for l in lines[-rows:]] if rows else []
            ngens[(s, t)] = rows
            for k, row in enumerate(mat):
                img[(s, t, k)] = row

    def gens(s, t):     # the generators of F_s of degree <= t, in freemod's order: (u, k)
        return [(u, k) for u in range(s, t + 1) for k in range(ngens.get((s, u), 0))]

    def offsets(s, t):  # block offset of each generator of F_s in degree t, and the dimension
        off, o = {}, 0
        for (u, k) in gens(s, t):
            off[(u, k)] = o
            o += dim(t - u)
        return off, o

    def times(a, vec, s, v, t):
        """a (an element of degree t - v) times vec (an element of F_s in degree v): F_s in degree t."""
        offv, _ = offsets(s, v)
        offt, n = offsets(s, t)
        res = [0] * n
        for (u, k), o in offv.items():
            for e in range(dim(v - u)):
                c = vec[o + e] if o + e < len(vec) else 0
                if not c:
                    continue
                for (c2, z) in mul.get((a, basis[v - u][e]), []):
                    res[offt[(u, k)] + index[z][1]] = (res[offt[(u, k)] + index[z][1]] + c * c2) % p
        return res

    def d_of(s, u, k, t):   # d(g) for generator k of F_s in degree u, over F_{s-1} in degree t = u
        _, n = offsets(s - 1, t)
        row = img[(s, u, k)]
        return (row + [0] * n)[:n]

    def solve(s, t, y):     # x over F_s in degree t with d x = y, by elimination mod p
        off, n = offsets(s, t)
        rows = []
        for (u, k) in gens(s, t):
            dg = d_of(s, u, k, u)
            for e in range(dim(t - u)):
                rows.append(times(basis[t - u][e], dg, s - 1, u, t))
        m = len(y)
        # columns: the rows of D as unknowns; Gaussian elimination on the transposed system
        A = [[rows[r][c] if c < len(rows[r]) else 0 for r in range(n)] + [y[c]] for c in range(m)]
        piv, r = [], 0
        for c in range(n):
            pr = next((i for i in range(r, m) if A[i][c]), None)
            if pr is None:
                continue
            A[r], A[pr] = A[pr], A[r]
            inv = pow(A[r][c], p - 2, p)
            A[r] = [v * inv % p for v in A[r]]
            for i in range(m):
                if i != r and A[i][c]:
                    f = A[i][c]
                    A[i] = [(a - f * b) % p for a, b in zip(A[i], A[r])]
            piv.append(c)
            r += 1
        if any(A[i][n] for i in range(r, m)):
            sys.exit("y not in the image at (%d, %d)" % (s, t))
        x = [0] * n
        for i, c in enumerate(piv):
            x[c] = A[i][n]
        return x

    for (name, n0, s0, vec) in classes:
        t0 = n0 + s0
        f = {}      # f[(i, T, k)]: f_i of generator k of F_{s0+i} in degree T, over F_i in degree T - t0
        for i in range(0, S - s0 + 1):
            for T in range(t0 + i, t0 + i + N - n0 + 1):
                t = T - t0
                for k in range(ngens.get((s0 + i, T), 0)):
                    _, ncol = offsets(i, t)
                    if i == 0:
                        v = [0] * ncol
                        if t == 0 and ncol:
                            v[0] = vec[k] % p
                        f[(i, T, k)] = v
                        continue
                    _, ny = offsets(i - 1, t)
                    y = [0] * ny
                    dz = d_of(s0 + i, T, k, T)
                    offs, _ = offsets(s0 + i - 1, T)
                    for (u, g), o in offs.items():
                        if u == T:
                            continue
                        fg = f.get((i - 1, u, g))
                        if fg is None:
                            continue
                        for e in range(dim(T - u)):
                            c = dz[o + e] if o + e < len(dz) else 0
                            if c:
                                prod = times(basis[T - u][e], fg, i - 1, u - t0, t)
                                y = [(a + c * b) % p for a, b in zip(y, prod)]
                    f[(i, T, k)] = solve(i, t, y) if any(y) else [0] * ncol
        for n in range(0, N - n0 + 1):
            for s in range(0, S - s0 + 1):
                t = n + s
                off, _ = offsets(s, t)
                for j in range(ngens.get((s, t), 0)):
                    for k in range(ngens.get((s + s0, t + t0), 0)):
                        c = f[(s, t + t0, k)][off[(t, j)]]
                        if c:
                            print("%s,%d,%d,%d,%d,%d,%d,%d" % (name, n0, s0, n, s, j, k, c))


main()

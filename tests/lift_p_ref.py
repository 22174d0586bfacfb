#!/usr/bin/env python3
"""lift_p_ref.py EXTFLOW DIR N S NAME=n,s[,digits] ... — products at an odd prime by lifting
classes to chain maps, naively and apart from stages/products/lift.c, printed as products.csv's rows.

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

lift_p_ref.py --massey L EXTFLOW DIR N S A=n,s B=n,s checks DIR/massey-A-B.csv instead: for each
row with c_n <= L, f_a, f_b, f_c and the null-homotopy h of f_b f_c (d h + h d = f_b f_c: each
y = f_b f_c(z) - h(d z)) are lifted here, the representative a∘h read at level s_a, the
indeterminacy a·Ext + Ext·c put in RREF mod p and the representative reduced by it; both must
equal the row's. Prints a summary line; exit status 1 when a row differs.
"""
import subprocess
import sys


def main():
    args = sys.argv[1:]
    massey, massey_limit = False, 0
    if args[0] == "--massey":
        massey, massey_limit, args = True, int(args[1]), args[2:]
    extflow, d, N, S = args[0], args[1], int(args[2]), int(args[3])
    classes = []
    for arg in args[4:]:
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

    def apply(f, s0, t0, j, T, v):
        """f_j(v), v over source F_{s0+j} in degree T: over F_j in degree T - t0."""
        t = T - t0
        _, ny = offsets(j, t)
        y = [0] * ny
        offs, _ = offsets(s0 + j, T)
        for (u, g), o in offs.items():
            fg = f.get((j, u, g))
            if fg is None or u == T:
                continue
            for e in range(dim(T - u)):
                c = v[o + e] if o + e < len(v) else 0
                if c:
                    prod = times(basis[T - u][e], fg, j, u - t0, t)
                    y = [(a + c * b) % p for a, b in zip(y, prod)]
        return y

    def lift(n0, s0, vec, max_i=99, extra=None):
        """f[(i, T, k)]: f_i of generator k of F_{s0+i} in degree T, over F_i in degree T - t0.
        extra: a null-homotopy of F, y = F(z) - f(d z), extra(i, T, k) = F(z) over F_{i-1}."""
        t0 = n0 + s0
        f = {}
        for i in range(0, min(S - s0, max_i) + 1):
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
                    y = apply(f, s0, t0, i - 1, T, d_of(s0 + i, T, k, T))
                    if extra:
                        y = [(e - a) % p for a, e in zip(y, extra(i, T, k))]
                    f[(i, T, k)] = solve(i, t, y) if any(y) else [0] * ncol
        return f

    def coef(f, i, T, j, t, k):
        """<x·y_j, z_k>: the unit of generator j of F_i in degree t in f_i(z_k), z_k at degree T."""
        v = f.get((i, T, k))
        off, _ = offsets(i, t)
        return v[off[(t, j)]] if v is not None and off[(t, j)] < len(v) else 0

    def rref(rows):
        rows, piv, r = [list(x) for x in rows], [], 0
        for c in range(len(rows[0]) if rows else 0):
            pr = next((i for i in range(r, len(rows)) if rows[i][c]), None)
            if pr is None:
                continue
            rows[r], rows[pr] = rows[pr], rows[r]
            inv = pow(rows[r][c], p - 2, p)
            rows[r] = [x * inv % p for x in rows[r]]
            for i in range(len(rows)):
                if i != r and rows[i][c]:
                    fc = rows[i][c]
                    rows[i] = [(x - fc * y) % p for x, y in zip(rows[i], rows[r])]
            piv.append(c)
            r += 1
        return rows[:r], piv

    if massey:      # check DIR/massey-A-B.csv's rows with c_n <= the limit against a naive bracket
        (an, na, sa, va), (bn, nb, sb, vb) = classes[0], classes[1]
        ta, tb = na + sa, nb + sb
        fa, fb = lift(na, sa, va), lift(nb, sb, vb)
        checked = bad = 0
        for line in open("%s/massey-%s-%s.csv" % (d, an, bn)).readlines()[1:]:
            w = line.rstrip("\n").split(",")
            cn, cs, cv, n, s, value, indet = int(w[2]), int(w[3]), [int(x) for x in w[4]], int(w[5]), int(w[6]), w[7], w[8]
            if cn > massey_limit:
                continue
            tc, sc = cn + cs, cs
            fc = lift(cn, cs, cv)
            def extra(i, T, k, fc=fc, tc=tc):
                ic = sb - 1 + i
                v = fc.get((ic, T, k))
                if v is None:
                    return [0] * offsets(i - 1, T - tb - tc)[1]
                return apply(fb, sb, tb, i - 1, T - tc, v)
            h = lift(nb + cn + 1, sb + cs - 1, [0] * 99, max_i=sa, extra=extra)
            ts, tt = s, n + s
            nz = ngens.get((ts, tt), 0)
            rep = [sum(va[j] * coef(h, sa, tt, j, ta, z) for j in range(len(va))) % p for z in range(nz)]
            rows = [[coef(fa, ts - sa, tt, j, tt - ta, z) for z in range(nz)] for j in range(ngens.get((ts - sa, tt - ta), 0))]
            rows += [[coef(fc, ts - sc, tt, j, tt - tc, z) for z in range(nz)] for j in range(ngens.get((ts - sc, tt - tc), 0))]
            red, piv = rref(rows)
            for r, c in zip(red, piv):
                f0 = rep[c]
                rep = [(x - f0 * y) % p for x, y in zip(rep, r)]
            want_ind = " ".join("".join(map(str, r)) for r in red)
            checked += 1
            if "".join(map(str, rep)) != value or want_ind != indet:
                bad += 1
                print("# c = %s at (%d, %d): naive %s + {%s}, table %s + {%s}" % (w[4], cn, cs, "".join(map(str, rep)), want_ind, value, indet))
        print("# %d brackets checked, %d differ" % (checked, bad))
        sys.exit(1 if bad or not checked else 0)

    for (name, n0, s0, vec) in classes:
        t0 = n0 + s0
        f = lift(n0, s0, vec)
        for n in range(0, N - n0 + 1):
            for s in range(0, S - s0 + 1):
                t = n + s
                for j in range(ngens.get((s, t), 0)):
                    for k in range(ngens.get((s + s0, t + t0), 0)):
                        c = coef(f, s, t + t0, j, t, k)
                        if c:
                            print("%s,%d,%d,%d,%d,%d,%d,%d" % (name, n0, s0, n, s, j, k, c))

main()

#!/usr/bin/env python3
"""Checks of products --map at an odd prime (tests/t-maps-p.sh), on the tables alone.

A map of modules phi : M -> N of degree d induces phi* : Ext(N) -> Ext(M); DIR/maps.csv (M's
directory) holds it as rows NAME,-d,0,n,s,i,k,c: the class x_(n,s,i) of Ext(N) goes to the sum
over k of c times M's k-th class at (n - d, s). ext.csv gives the dimensions (s,n,dim). Ranks and
products of matrices are taken over F_p here, by plain Gaussian elimination.

  maps_p.py identity P DIR NAME          NAME is the identity on every class of DIR's ext.csv
  maps_p.py exact P MDIR SDIR Q I D      0 -> S^d -> M -> S^0 -> 0: the collapse q (NAME Q in
                                         MDIR/maps.csv) and the inclusion of the top cell i (NAME I
                                         in SDIR/maps.csv, degree D): i* q* = 0 and
                                         rank q* + rank i* = dim Ext(M) at every bidegree
  maps_p.py compose P AB BC AC N1 N2 N3  the map A -> C (NAME N3 in AC) induces BC's N2 after AB's N1
  maps_p.py compat P SDIR MDIR Q I D     phi* commutes with the products of SDIR/products.csv's classes a
                                         (F_p's Ext, lifted by --class): for the collapse q : M -> F_p
                                         (NAME Q in MDIR/maps.csv) q*(a y) = (q* y) a, and for the top
                                         cell's inclusion i of degree D (NAME I in SDIR/maps.csv)
                                         i*(x a) = (i* x) a, x y_(n,s) read off MDIR/module-products.csv
                                         (M's classes x_n_s_j lifted into SDIR by --unit --class), up to
                                         the graded sign (-1)^(s s' + t t') of a y against y a
  maps_p.py stable P N F EN EN1 MAPS     E: Ext(S^N) -> Ext(S^(N+1)) (MAPS, NAME E) is an isomorphism
                                         at relative stem k and filtration s with k + s < F
"""
import sys


def ext(path, shift=0):
    d = {}
    for line in open(path).read().split()[1:]:
        s, n, v = map(int, line.split(","))
        d[(n - shift, s)] = v
    return d


def maps(path, name):
    """{(n, s): {i: {k: c}}} for the rows of NAME, and d (name_n = -d)."""
    m, deg = {}, None
    for line in open(path).read().split()[1:]:
        f = line.split(",")
        if f[0] != name:
            continue
        deg = -int(f[1])
        n, s, i, k, c = map(int, f[3:8])
        m.setdefault((n, s), {}).setdefault(i, {})[k] = c
    return m, deg


def matrix(m, key, rows, cols):
    a = [[0] * cols for _ in range(rows)]
    for i, row in m.get(key, {}).items():
        for k, c in row.items():
            if i >= rows or k >= cols:
                raise SystemExit("row %s %d,%d outside %dx%d" % (key, i, k, rows, cols))
            a[i][k] = c
    return a


def rank(a, p):
    a = [r[:] for r in a]
    r = 0
    cols = len(a[0]) if a else 0
    for c in range(cols):
        piv = next((i for i in range(r, len(a)) if a[i][c] % p), None)
        if piv is None:
            continue
        a[r], a[piv] = a[piv], a[r]
        inv = pow(a[r][c], p - 2, p)
        a[r] = [x * inv % p for x in a[r]]
        for i in range(len(a)):
            if i != r and a[i][c] % p:
                f = a[i][c]
                a[i] = [(x - f * y) % p for x, y in zip(a[i], a[r])]
        r += 1
    return r


def mul(a, b, p):
    return [[sum(x * y for x, y in zip(row, col)) % p for col in zip(*b)] for row in a] if a and b else []


def main():
    cmd, p = sys.argv[1], int(sys.argv[2])
    bad = checked = 0
    if cmd == "identity":
        d, name = sys.argv[3], sys.argv[4]
        e = ext(d + "/ext.csv")
        m, deg = maps(d + "/maps.csv", name)
        for key, dim in e.items():
            checked += 1
            bad += matrix(m, key, dim, dim) != [[int(i == k) for k in range(dim)] for i in range(dim)]
        bad += deg != 0 or set(m) - set(e) != set()
        print("%d classes at %d bidegrees" % (sum(e.values()), checked), end="")
    elif cmd == "exact":
        mdir, sdir, qn, iname, d = sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6], int(sys.argv[7])
        em, es = ext(mdir + "/ext.csv"), ext(sdir + "/ext.csv")
        q, _ = maps(mdir + "/maps.csv", qn)          # Ext(S^0) -> Ext(M), same stems
        i, di = maps(sdir + "/maps.csv", iname)      # Ext(M) -> Ext(S^0), stems lowered by d
        bad += di != d
        for (n, s), dm in em.items():
            ds, dt = es.get((n, s), 0), es.get((n - d, s), 0)
            Q = matrix(q, (n, s), ds, dm)          # rows: S^0's classes at (n, s), over M's
            I = matrix(i, (n, s), dm, dt)          # rows: M's classes at (n, s), over S^0's at (n - d, s)
            rq = rank(Q, p) if ds and dm else 0
            ri = rank(I, p) if dm and dt else 0
            zero = not Q or not I or all(x == 0 for row in mul(Q, I, p) for x in row)
            checked += 1
            bad += not zero or rq + ri != dm
        print("%d bidegrees of Ext(M)" % checked, end="")
    elif cmd == "compose":
        ab, bc, ac = maps(sys.argv[3], sys.argv[6]), maps(sys.argv[4], sys.argv[7]), maps(sys.argv[5], sys.argv[8])
        (f1, d1), (f2, d2), (f3, d3) = ab, bc, ac
        # phi : B -> A of degree d1 (AB, rows over Ext(A)), psi : C -> B of degree d2 (BC): the
        # composite C -> A has degree d1 + d2 and (phi psi)* x = psi*(phi* x)
        comp = {}
        for (n, s), rows in f1.items():
            for i, row in rows.items():
                out = {}
                for k, c in row.items():
                    for kk, cc in f2.get((n - d1, s), {}).get(k, {}).items():
                        out[kk] = (out.get(kk, 0) + c * cc) % p
                out = {k: c for k, c in out.items() if c}
                if out:
                    comp[(n, s, i)] = out
        want = {(n, s, i): {k: c for k, c in row.items() if c % p}
                for (n, s), rows in f3.items() for i, row in rows.items() if any(c % p for c in row.values())}
        checked = len(want)
        bad = (comp != want) + (not comp) + (d3 != d1 + d2)
        print("%d nonzero images" % len(comp), end="")
    elif cmd == "compat":
        sdir, mdir, qn, iname, d = sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6], int(sys.argv[7])
        prod = {}                                   # name -> ((na, sa), {(n, s, i): {k: c}})
        for line in open(sdir + "/products.csv").read().split()[1:]:
            f = line.split(",")
            na, sa, n, s, i, k, c = map(int, f[1:8])
            prod.setdefault(f[0], [(na, sa), {}])[1].setdefault((n, s, i), {})[k] = c
        mp = {}                                     # M's class x_n_s_j -> {(n, s, i) of F_p's Ext: {k: c}}
        for line in open(mdir + "/module-products.csv").read().split()[1:]:
            f = line.split(",")
            n, s, i, k, c = map(int, f[3:8])
            mp.setdefault(f[0], {}).setdefault((n, s, i), {})[k] = c
        q, _ = maps(mdir + "/maps.csv", qn)
        i_, di = maps(sdir + "/maps.csv", iname)
        bad += di != d
        es, em = ext(sdir + "/ext.csv"), ext(mdir + "/ext.csv")

        def apply(m, key, vec):                     # sum of c * m's row (key[0], key[1], k)
            out = {}
            for k, c in vec.items():
                for kk, cc in m.get(key, {}).get(k, {}).items():
                    out[kk] = (out.get(kk, 0) + c * cc) % p
            return {k: v for k, v in out.items() if v}

        def same(lhs, rhs, sign):
            return lhs == {k: v * sign % p for k, v in rhs.items() if v * sign % p}

        top_n, top_s = max(n for n, _ in em), max(s for _, s in em)   # M's region (the smaller)
        nonzero = 0
        for a, ((na, sa), rows) in prod.items():
            ta = na + sa
            for (n, s), dim in es.items():           # q*(a y) = ± (q* y) a, y in F_p's Ext
                for i in range(dim):
                    if "x_%d_%d_0" % (n, s) not in mp or (n + na, s + sa) not in em:
                        continue
                    sign = -1 if (sa * s + ta * (n + s)) % 2 else 1
                    lhs = apply(q, (n + na, s + sa), rows.get((n, s, i), {}))
                    rhs = {}
                    for j, c in q.get((n, s), {}).get(i, {}).items():
                        for k, cc in mp["x_%d_%d_%d" % (n, s, j)].get((na, sa, 0), {}).items():
                            rhs[k] = (rhs.get(k, 0) + c * cc) % p
                    checked += 1
                    nonzero += bool(lhs or rhs)
                    bad += not same(lhs, rhs, sign)
            for (n, s), dim in em.items():           # i*(x a) = ± (i* x) a, x in Ext(M)
                for j in range(dim):
                    xa = mp.get("x_%d_%d_%d" % (n, s, j))
                    if xa is None or (n + na - d, s + sa) not in es or s + sa > top_s or n + na > top_n:
                        continue
                    sign = -1 if (sa * s + ta * (n - d + s)) % 2 else 1
                    lhs = apply(i_, (n + na, s + sa), {k: c for k, c in xa.get((na, sa, 0), {}).items()})
                    ix = {k: c for k, c in i_.get((n, s), {}).get(j, {}).items()}
                    rhs = {}
                    for k, c in ix.items():
                        for kk, cc in rows.get((n - d, s, k), {}).items():
                            rhs[kk] = (rhs.get(kk, 0) + c * cc) % p
                    checked += 1
                    nonzero += bool(lhs or rhs)
                    bad += not same(lhs, rhs, sign)
        bad += nonzero < 10
        print("%d products of %s checked, %d nonzero" % (checked, ", ".join(sorted(prod)), nonzero), end="")
    elif cmd == "stable":
        n, f, en, en1, mp = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6], sys.argv[7]
        a, b = ext(en, n), ext(en1, n + 1)
        m, d = maps(mp, "E")
        bad += d != -1
        for (k, s), dim in a.items():
            if k + s >= f or k < 0:
                continue
            checked += 1
            E = matrix(m, (k + n, s), dim, b.get((k, s), 0))
            bad += b.get((k, s), 0) != dim or rank(E, p) != dim
        print("%d bidegrees with k + s < %d" % (checked, f), end="")
    else:
        raise SystemExit("unknown check " + cmd)
    print(", %d bad" % bad)
    sys.exit(1 if bad or not checked else 0)


main()

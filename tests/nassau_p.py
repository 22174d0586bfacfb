#!/usr/bin/env python3
"""nassau_p.py — Nassau's algorithm at an odd prime p: a slow, exact prototype of
docs/algorithms.md §11.1, written apart from extflow's C code (its algebra, its elimination, its
resolution), to show that the odd-prime form of the algorithm gives the right Ext.

    nassau_p.py resolve P N [S] [--standard] [--relax K]   the minimal resolution of F_p (the
        sphere S_P) through stem N and s <= S (default N/2 + 2, as `extflow resolve`), rows
        s >= 2 by Nassau's step (or all by the standard step); prints ext.csv's rows "s,n,dim"
        (sorted as extflow writes them) and, on stderr, "# ..." lines: the steps by subalgebra,
        the rows built and an elimination cost proxy. --relax K uses each B K degrees past the
        range where it is exact: a wrong table or a failed check (exit 1) must follow.
    nassau_p.py check-algebra P N              every product X.Y with |X| + |Y| <= N against
        tests/milnor_p_ref.py (products dual to the coproduct of A_*); prints a count, exit 1
        on a difference.
    nassau_p.py subalgebras P                  the sub-Hopf-algebras B it chooses among, with
        their dimension, top degree and slope.

Maths (docs/algorithms.md §9, §11.1). A_p has the Milnor basis Q(E)P(R), E a set of k >= 0, R a
finite sequence. A sub-Hopf-algebra B is given by a set QB of k (its Q_k) and a profile
h = (h_1, h_2, ...): B is spanned by the Q(E)P(R) with E in QB and r_i < p^{h_i}. The signature
of Q(E)P(R) is (E & QB, (r_i mod p^{h_i})_i); the zero-signature elements span a complement of
B-bar.A, so the zero-signature coordinates of F_s are F_p (x)_B F_s. We use only B that satisfy
    (P) h_m <= h_{m+1} + 1 for every m      (E) k not in QB  =>  h_m <= k - m for every m <= k,
which make the zero-signature monomials of the dual exactly the dual of F_p (x)_B A, and B a
sub-Hopf-algebra. Ext_B^{s,t}(F_p, F_p) is zero for t > slope(B)·s, slope(B) the largest of
2p^k - 1 (k in QB) and p^{h_i} (p^i - 1) (h_i > 0): the step at (s, t) may use B when
t > slope·s and t - top(B) > slope·(s - 2).

Data. An element of A_p is (E, R): E a bit mask, R a tuple without trailing zeros. An element
of F_s is a dict {(j, X): c}, c in 1..p-1, j the index of a generator of F_s. Matrices are lists
of rows, each a list of ints mod p.
"""
import math
import subprocess
import sys
from functools import lru_cache

P = 3
RELAX = 0          # --relax K: use B K degrees outside its range (a run that must fail)


def trim(R):
    R = list(R)
    while R and R[-1] == 0:
        R.pop()
    return tuple(R)


def qdeg(k):
    return 2 * P ** k - 1


def xideg(i):          # |xi_i| = |P(0,..,0,1)| with the 1 in slot i (1-based)
    return 2 * (P ** i - 1)


def degree(X):
    E, R = X
    return sum(qdeg(k) for k in range(E.bit_length()) if E >> k & 1) + sum(r * xideg(i + 1) for i, r in enumerate(R))


@lru_cache(maxsize=None)
def pparts(d, slot):
    """The R with entries only in slots >= slot and sum r_i |xi_i| = d."""
    if d == 0:
        return ((),)
    if xideg(slot + 1) > d:
        return ()
    out = []
    for r in range(d // xideg(slot + 1) + 1):
        for rest in pparts(d - r * xideg(slot + 1), slot + 1):
            out.append(trim((r,) + rest))
    return tuple(out)


@lru_cache(maxsize=None)
def basis(d):
    """The Milnor basis of degree d (any fixed order: only Ext is compared)."""
    if d < 0:
        return ()
    out = []
    for E in range(1 << 8):
        qd = degree((E, ()))
        if qd > d:
            continue
        for R in pparts(d - qd, 0):
            out.append((E, R))
    return tuple(sorted(out))


@lru_cache(maxsize=None)
def pmul(R, S):
    """P(R).P(S) = sum over Milnor matrices x (sum_j p^j x_ij = r_i, sum_i x_ij = s_j) of
    prod_n multinomial(t_n; x_ij on the diagonal i + j = n) P(T), mod p."""
    nr, ns = len(R), len(S)
    cells = [(i, j) for i in range(1, nr + 1) for j in range(1, ns + 1)]
    out = {}
    x = {}

    def leaf():
        diag = {}
        for i in range(1, nr + 1):
            xi0 = R[i - 1] - sum(P ** j * x[(i, j)] for j in range(1, ns + 1))
            diag.setdefault(i, []).append(xi0)
        for j in range(1, ns + 1):
            x0j = S[j - 1] - sum(x[(i, j)] for i in range(1, nr + 1))
            diag.setdefault(j, []).append(x0j)
        for (i, j) in cells:
            diag.setdefault(i + j, []).append(x[(i, j)])
        c = 1
        T = [0] * (nr + ns)
        for n, parts in diag.items():
            tn = sum(parts)
            m = math.factorial(tn)
            for v in parts:
                m //= math.factorial(v)
            c = c * m % P
            T[n - 1] = tn
        if c:
            key = trim(T)
            out[key] = (out.get(key, 0) + c) % P

    def rec(k):
        if k == len(cells):
            leaf()
            return
        i, j = cells[k]
        row_left = R[i - 1] - sum(P ** jj * x[(i, jj)] for jj in range(1, j))
        col_left = S[j - 1] - sum(x[(ii, j)] for ii in range(1, i))
        for v in range(min(row_left // P ** j, col_left) + 1):
            x[(i, j)] = v
            rec(k + 1)
        del x[(i, j)]

    rec(0)
    return {k: v for k, v in out.items() if v}


def popcount(x):
    return bin(x).count("1")


@lru_cache(maxsize=None)
def mul(X, Y):
    """Q(E)P(R) . Q(F)P(S) as a dict {(G, T): c}. First the Q_k of F, smallest k first, move
    left past P(R) by P(R) Q_k = Q_k P(R) + sum_i Q_{k+i} P(R - p^k e_i) (a term left out when
    r_i < p^k), each new Q sorted into those on its left (sign (-1)^(number of larger ones it
    passes), zero if already there); then Q(G) P(R') P(S) by the matrices of pmul."""
    (E, R), (F, S) = X, Y
    terms = {(E, R): 1}
    for k in range(F.bit_length()):
        if not F >> k & 1:
            continue
        new = {}
        for (G, R1), c in terms.items():
            opts = [(k, R1)]
            for i in range(1, len(R1) + 1):
                if R1[i - 1] >= P ** k:
                    R2 = list(R1)
                    R2[i - 1] -= P ** k
                    opts.append((k + i, trim(R2)))
            for j, R2 in opts:
                if G >> j & 1:
                    continue
                sign = -1 if popcount(G >> (j + 1)) & 1 else 1
                key = (G | 1 << j, R2)
                new[key] = (new.get(key, 0) + sign * c) % P
        terms = {key: v for key, v in new.items() if v}
    out = {}
    for (G, R1), c in terms.items():
        for T, c2 in pmul(R1, S).items():
            key = (G, T)
            out[key] = (out.get(key, 0) + c * c2) % P
    return {key: v for key, v in out.items() if v}


# --- linear algebra mod p -------------------------------------------------------------------

def rref(rows, ncols):
    """Reduced row echelon form of rows (lists of length ncols) mod p: (rows, pivot columns)."""
    rows = [list(r) for r in rows]
    piv, rank = [], 0
    for c in range(ncols):
        pr = next((i for i in range(rank, len(rows)) if rows[i][c]), None)
        if pr is None:
            continue
        rows[rank], rows[pr] = rows[pr], rows[rank]
        inv = pow(rows[rank][c], P - 2, P)
        rows[rank] = [v * inv % P for v in rows[rank]]
        pivot = rows[rank]
        for i in range(len(rows)):
            f = rows[i][c]
            if i != rank and f:
                rows[i] = [(a - f * b) % P for a, b in zip(rows[i], pivot)]
        piv.append(c)
        rank += 1
    return rows[:rank], piv


def kernel_and_lifts(D, ncols):
    """From the RREF of [D | I]: the kernel of x -> x.D in RREF (vectors over D's rows), and
    for each image pivot column c the vector whose image is 1 at c and 0 at the other pivots."""
    n = len(D)
    aug = [list(r) + [1 if i == k else 0 for k in range(n)] for i, r in enumerate(D)]
    red, piv = rref(aug, ncols + n)
    kernel, lifts = [], {}
    for r, c in zip(red, piv):
        if c >= ncols:
            kernel.append(r[ncols:])
        else:
            lifts[c] = r[ncols:]
    return kernel, lifts


# --- sub-Hopf-algebras and signatures --------------------------------------------------------

class Sub:
    """B = (QB, h): Q(E)P(R) with E in QB and r_i < p^{h_i}."""

    def __init__(self, qb, h):
        self.qb, self.h = qb, tuple(h)
        self.slope = max([qdeg(k) for k in range(qb.bit_length()) if qb >> k & 1] +
                         [P ** e * (P ** (i + 1) - 1) for i, e in enumerate(self.h) if e] + [0])
        self.top = degree((qb, tuple(P ** e - 1 for e in self.h)))
        self.dim = 2 ** popcount(qb) * math.prod(P ** e for e in self.h)

    def sig(self, X):
        E, R = X
        return (E & self.qb, tuple((R[i] if i < len(R) else 0) % P ** e for i, e in enumerate(self.h)))

    def sigs(self):
        """Every signature (= every basis element of B), by degree, then E, then R."""
        out = []
        for E in range(self.qb + 1):
            if E & ~self.qb:
                continue
            R = [0] * len(self.h)
            while True:
                out.append((E, tuple(R)))
                for i, e in enumerate(self.h):
                    R[i] += 1
                    if R[i] < P ** e:
                        break
                    R[i] = 0
                else:
                    break
        return sorted(out, key=lambda sg: (degree((sg[0], trim(sg[1]))), sg))

    def usable(self, s, t, top_module=0):
        """(C) and (L) of docs/algorithms.md §11.1 (each moved by RELAX to show they matter)."""
        return (t > self.slope * s + top_module - RELAX and
                t - self.top > self.slope * (s - 2) + top_module - RELAX)

    def __str__(self):
        q = ",".join("Q%d" % k for k in range(self.qb.bit_length()) if self.qb >> k & 1)
        return "B(%s; h=(%s))" % (q, ",".join(map(str, self.h)))


def valid(qb, h):
    """(P) and (E) of the header, for the slots and Q's that can matter below degree 4096."""
    hh = list(h) + [0] * 12

    def hm(m):            # h_m, 1-based
        return hh[m - 1] if m >= 1 else 0
    if any(hm(m) > hm(m + 1) + 1 for m in range(1, 9)):
        return False
    for k in range(9):
        if not qb >> k & 1 and any(hm(m) > k - m for m in range(1, k + 1)):
            return False
    return True


def subalgebras():
    out = []
    for qb in range(1, 1 << 4):
        for h1 in range(4):
            for h2 in range(4):
                for h3 in range(3):
                    h = trim((h1, h2, h3))
                    if valid(qb, h):
                        out.append(Sub(qb, h))
    return sorted(out, key=lambda b: (-b.dim, b.top, str(b)))


# --- the resolution -------------------------------------------------------------------------

class Resolution:
    """The minimal resolution of F_p over A_p: gens[s] the degrees of F_s's generators,
    dg[s][j] the image of generator j (an element of F_{s-1}; for s = 0 the augmentation)."""

    def __init__(self, nassau):
        self.nassau = nassau
        self.gens, self.dg = {}, {}
        self.subs = subalgebras()
        self.stats = {}

    def fbasis(self, s, t, bound):
        """The basis of F_s in degree t on the generators of degree < bound: [(j, X)]."""
        return [(j, X) for j, g in enumerate(self.gens.get(s, [])) if g < bound for X in basis(t - g)]

    @lru_cache(maxsize=None)
    def d_basis(self, s, j, X):
        """d(X.g_j) for g_j a generator of F_s: X . d(g_j), an element of F_{s-1}."""
        out = {}
        for (k, Y), c in self.dg[s][j].items():
            for Z, c2 in mul(X, Y).items():
                key = (k, Z)
                out[key] = (out.get(key, 0) + c * c2) % P
        return {key: v for key, v in out.items() if v}

    def d_of(self, s, x):
        out = {}
        for (j, X), c in x.items():
            for key, c2 in self.d_basis(s, j, X).items():
                out[key] = (out.get(key, 0) + c * c2) % P
        return {key: v for key, v in out.items() if v}

    def matrix(self, s, rows, cols, reduced=True):
        """The rows d(X.g_j) of d_s for (j, X) in rows, restricted to the columns cols; counts
        the rows built and, when the matrix is reduced, rows x cols x min(rows, cols) (a proxy
        for the elimination's cost) in the statistics."""
        self.count("rows built", len(rows))
        if reduced:
            self.count("elimination r*c*min(r,c)", len(rows) * len(cols) * min(len(rows), len(cols)))
        idx = {c: i for i, c in enumerate(cols)}
        out = []
        for j, X in rows:
            v = [0] * len(cols)
            for key, c in self.d_basis(s, j, X).items():
                if key in idx:
                    v[idx[key]] = c
            out.append(v)
        return out

    def count(self, key, n):
        self.stats[key] = self.stats.get(key, 0) + n

    def add(self, s, t, images):
        self.gens.setdefault(s, []).extend([t] * len(images))
        self.dg.setdefault(s, []).extend(images)

    def step(self, s, t):
        if s == 0:
            if t == 0:
                self.add(0, 0, [{}])
            return
        if self.nassau and s >= 2:
            b = next((b for b in self.subs if b.usable(s, t)), None)
            if b is not None:
                self.count("steps over " + str(b), 1)
                return self.nassau_step(s, t, b)
        self.count("standard steps", 1)
        self.standard_step(s, t)

    def standard_step(self, s, t):
        """Kernel of d_{s-1} in degree t minus the image of d_s (docs/algorithms.md §4.2)."""
        rows = self.fbasis(s - 1, t, t)
        if s == 1:
            kernel = [[1 if i == k else 0 for k in range(len(rows))] for i in range(len(rows))] if t > 0 else []
        else:
            # (extflow keeps this kernel from the reduction of step (s - 1, t): not counted)
            cols = self.fbasis(s - 2, t, t)
            kernel, _ = kernel_and_lifts(self.matrix(s - 1, rows, cols, False), len(cols))
        self.add(s, t, self.homology(s, rows, kernel, self.fbasis(s, t, t)))

    def homology(self, s, rows, kernel, image_rows):
        """The kernel vectors (RREF, over rows) whose pivot is no pivot of the image of d_s on
        image_rows (written over rows): a basis of kernel / image, as elements of F_{s-1}."""
        _, ipiv = rref(self.matrix(s, image_rows, rows), len(rows))
        ipiv = set(ipiv)
        out = []
        for v in kernel:
            lead = next(i for i, c in enumerate(v) if c)
            if lead not in ipiv:
                out.append({rows[i]: c for i, c in enumerate(v) if c})
        return out

    def nassau_step(self, s, t, b):
        """docs/algorithms.md §11.1: count on the zero-signature part, then correct."""
        zero = b.sig((0, ()))
        bucket = lambda basis_, sg: [e for e in basis_ if b.sig(e[1]) == sg]
        full1, full2 = self.fbasis(s - 1, t, t), self.fbasis(s - 2, t, t)
        rows, cols = bucket(full1, zero), bucket(full2, zero)
        kernel, _ = kernel_and_lifts(self.matrix(s - 1, rows, cols), len(cols))
        xs = self.homology(s, rows, kernel, bucket(self.fbasis(s, t, t), zero))
        if not xs:
            return
        self.count("steps corrected", 1)
        dxs = [self.d_of(s - 1, x) for x in xs]
        for x, dx in zip(xs, dxs):
            assert not any(key in dx for key in cols), "a zero-signature cycle is not one"
        for sg in b.sigs():
            if sg == zero or degree((sg[0], trim(sg[1]))) > t:
                continue
            rows, cols = bucket(full1, sg), bucket(full2, sg)
            if not cols:
                continue
            _, lifts = kernel_and_lifts(self.matrix(s - 1, rows, cols), len(cols))
            for a in range(len(xs)):
                y = [dxs[a].get(c, 0) for c in cols]
                lift = [0] * len(rows)
                for c, pre in lifts.items():
                    if y[c]:
                        lift = [(u + y[c] * w) % P for u, w in zip(lift, pre)]
                delta = {rows[i]: (P - c) % P for i, c in enumerate(lift) if c}
                for key, c in delta.items():
                    xs[a][key] = (xs[a].get(key, 0) + c) % P
                for key, c in self.d_of(s - 1, delta).items():
                    dxs[a][key] = (dxs[a].get(key, 0) + c) % P
                dxs[a] = {key: v for key, v in dxs[a].items() if v}
                xs[a] = {key: v for key, v in xs[a].items() if v}
                assert not any(c in dxs[a] for c in cols), \
                    "%s at (%d, %d): signature %s's part of d(x) is not in its block's image" % (b, s, t, sg)
        assert not any(dxs), "%s at (%d, %d): d(x) is not zero after the correction" % (b, s, t)
        self.add(s, t, xs)


def resolve(n_max, s_max, nassau):
    res = Resolution(nassau)
    for t in range(n_max + s_max + 1):
        for s in range(min(t, s_max) + 1):
            if t - s <= n_max:
                res.step(s, t)
    table = {}
    for s, gs in res.gens.items():
        for g in gs:
            table[(s, g - s)] = table.get((s, g - s), 0) + 1
    return table, res.stats


def check_algebra(n_max):
    """Every product with |X| + |Y| <= n_max against tests/milnor_p_ref.py."""
    ref = subprocess.run([sys.executable, "tests/milnor_p_ref.py", str(P), str(n_max)], capture_output=True,
                         text=True, check=True).stdout

    def parse(w):
        e, r = w.split(":")
        return (int(e), trim(int(x) for x in r.split(",")) if r else ())
    checked = bad = 0
    for line in ref.splitlines():
        w = line.split()
        if w[0] == "B":
            if sorted(parse(x) for x in w[2:]) != list(basis(int(w[1]))):
                print("# basis of degree %s differs" % w[1])
                bad += 1
            continue
        want = {parse(cz.split("@")[1]): int(cz.split("@")[0]) for cz in w[3:]}
        got = mul(parse(w[1]), parse(w[2]))
        checked += 1
        if got != want:
            bad += 1
            if bad < 10:
                print("# %s . %s: %s, reference %s" % (w[1], w[2], got, want))
    print("# %d products checked, %d differ" % (checked, bad))
    return 1 if bad or not checked else 0


def main():
    global P, RELAX
    args = sys.argv[1:]
    if len(args) < 2 or args[0] not in ("resolve", "check-algebra", "subalgebras"):
        sys.exit("usage: nassau_p.py resolve P N [S] [--standard] | check-algebra P N | subalgebras P")
    P = int(args[1])
    if P < 3 or any(P % d == 0 for d in range(2, P)):
        sys.exit("nassau_p.py: P must be an odd prime")
    if args[0] == "check-algebra":
        sys.exit(check_algebra(int(args[2])))
    if args[0] == "subalgebras":
        for b in subalgebras():
            print("%s dim %d top %d slope %d" % (b, b.dim, b.top, b.slope))
        return
    standard = "--standard" in args
    if "--relax" in args:
        RELAX = int(args[args.index("--relax") + 1])
        del args[args.index("--relax"):args.index("--relax") + 2]
    nums = [int(a) for a in args[2:] if not a.startswith("--")]
    n_max = nums[0]
    s_max = nums[1] if len(nums) > 1 else n_max // 2 + 2
    try:
        table, stats = resolve(n_max, s_max, not standard)
    except AssertionError as e:
        sys.exit("nassau_p.py: %s" % e)
    print("s,n,dim")
    for (s, n) in sorted(table):
        print("%d,%d,%d" % (s, n, table[(s, n)]))
    for k in sorted(stats):
        sys.stderr.write("# %s: %d\n" % (k, stats[k]))


if __name__ == "__main__":
    main()

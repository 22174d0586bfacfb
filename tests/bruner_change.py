#!/usr/bin/env python3
"""bruner.txt (extflow bruner compare --sseq-formats) checked by identities, independently of
extflow's code: python3 tests/bruner_change.py BRUNER.TXT OURDIR THEIRDIR EXT.CSV

BRUNER.TXT: "sseq_basis | bruner_basis", then per bidegree (n, s) one line per class of ours,
"x_(n,s,i) = [c_0, ...]": the matrix M_(n,s) of the dual of the chain map F' -> F (THEIRDIR's
resolution F' to ours F, OURDIR holding ours in the same layout: bruner save's files). Checked:
one row per class of EXT.CSV (s,n,dim) in each printed bidegree, each M invertible over F2, and
h_i natural: with H(F)[h][g] the coefficient of Sq(2^i) on h in d(g) (h in row s - 1, degree
t - 2^i; g in row s, degree t), H(F) M_(n,s) = M_(n+1-2^i,s-1) H(F') wherever both are printed
(f^* commutes with h_i, and h_i x is read off the Sq(2^i) coefficients: Sq(2^i) is the only
indecomposable Milnor basis element of its degree). Prints what it checked; exits 1 at the first
failure with its bidegree."""
import os
import re
import sys


def fail(why):
    sys.exit(why)


def read_files(d):
    """Diff.s (or hDiff.s) of d: per row s, [(t, [(h, R)])] in file order, blocks to the end."""
    pre = "Diff" if os.path.exists(d + "/Diff.0") else "hDiff"
    rows, s = [], 0
    while os.path.exists("%s/%s.%d" % (d, pre, s)):
        L = [x.strip() for x in open("%s/%s.%d" % (d, pre, s)) if x.strip()]
        gens, p = [], 1
        while p < len(L):
            t, k = int(L[p].split(":")[-1]), int(L[p + 1])
            terms = []
            for line in L[p + 2:p + 2 + k]:
                h = int(line.split()[0])
                for op in re.findall(r"\(([\d,]+)\)", line):
                    terms.append((h, tuple(int(x) for x in op.split(","))))
            gens.append((t, terms))
            p += 2 + k
        rows.append(gens)
        s += 1
    return rows


def at(rows, s, t):
    return [g for g, (u, _) in enumerate(rows[s]) if u == t] if 0 <= s < len(rows) else []


def hmat(rows, s, t, i):
    lo, hi = at(rows, s - 1, t - 2 ** i), at(rows, s, t)
    H = [[0] * len(hi) for _ in lo]
    for j, g in enumerate(hi):
        for h, R in rows[s][g][1]:
            if R == (2 ** i,) and h in lo:
                H[lo.index(h)][j] ^= 1
    return H


def mul(X, Y, cols):
    return [[sum(X[a][c] & Y[c][b] for c in range(len(Y))) % 2 for b in range(cols)] for a in range(len(X))]


def rank(M):
    M, rk = [r[:] for r in M], 0
    for c in range(len(M[0]) if M else 0):
        piv = next((r for r in range(rk, len(M)) if M[r][c]), None)
        if piv is None:
            continue
        M[rk], M[piv] = M[piv], M[rk]
        for r in range(len(M)):
            if r != rk and M[r][c]:
                M[r] = [a ^ b for a, b in zip(M[r], M[rk])]
        rk += 1
    return rk


def main():
    txt, ours, theirs, ext = sys.argv[1:5]
    L = open(txt).read().split("\n")
    if L[0] != "sseq_basis | bruner_basis" or L[-1] != "":
        fail("%s: first or last line" % txt)
    M = {}
    for line in L[1:-1]:
        m = re.fullmatch(r"x_\((\d+),(\d+),(\d+)\) = \[(\d(?:, \d)*)\]", line)
        if not m:
            fail("line %r" % line)
        n, s, i = int(m.group(1)), int(m.group(2)), int(m.group(3))
        M.setdefault((n, s), []).append([int(x) for x in m.group(4).split(", ")])
        if len(M[(n, s)]) != i + 1:
            fail("x_(%d,%d,%d) out of order" % (n, s, i))
    dims = {}
    for row in open(ext).read().split()[1:]:
        s, n, d = (int(x) for x in row.split(","))
        dims[(n, s)] = d
    for (n, s), rows in M.items():
        d = dims.get((n, s), 0)
        if len(rows) != d or any(len(r) != d for r in rows):
            fail("(%d, %d): not %d x %d" % (n, s, d, d))
        if rank(rows) != d:
            fail("(%d, %d): not invertible" % (n, s))
    A, B = read_files(ours), read_files(theirs)
    squares = 0
    for (n, s), Ms in sorted(M.items()):
        t = n + s
        for i in range(12):
            lo = (n + 1 - 2 ** i, s - 1)
            if s == 0 or lo[0] < 0 or lo not in M:
                continue
            Ha, Hb = hmat(A, s, t, i), hmat(B, s, t, i)
            if mul(Ha, Ms, len(Ms)) != mul(M[lo], Hb, len(Ms)):
                fail("(%d, %d): h_%d from (%d, %d) is not carried to the other's" % (n, s, i, lo[0], lo[1]))
            squares += 1
    print("%d bidegrees, %d h_i squares" % (len(M), squares))


main()

#!/usr/bin/env python3
"""lambda_ref.py — Ext of the spheres from the Lambda algebra, a check that shares nothing with a
minimal resolution (tests/t-unstable-sseq.sh).

The mod 2 Lambda algebra has generators lambda_i (i >= 0) of stem i and filtration 1; a monomial
lambda_{i_1} ... lambda_{i_s} is admissible when 2 i_j >= i_{j+1} for every j, and the admissible
ones are a basis. An inadmissible pair lambda_i lambda_{2i+1+n} (n >= 0) rewrites as the sum over
j of binom(n-j-1, j) lambda_{i+n-j} lambda_{2i+1+j}, repeated until admissible. The differential
is the derivation with d(lambda_n) = sum over j >= 1 of binom(n-j, j) lambda_{n-j} lambda_{j-1}
(stem down by one, s up by one). Its homology in filtration s and stem k is Ext_A^{s,s+k}(F2, F2);
the admissible monomials with i_1 < n span a sub-complex Lambda(n) whose homology is Ext_U of
S^n in stem n + k (Bousfield, Curtis, Kan, Quillen, Rector, Schlesinger, Topology 5 (1966)).

Layout: a monomial is a tuple of indices, an element a set of monomials (mod 2); the matrices
of d are lists of Python integers, one bit per admissible monomial of the target.

    lambda_ref.py N S K     "s,stem,dim" of H(Lambda(N)) for s <= S and k <= K, stem = N + k
                            (N > 10^6: the whole of Lambda, stem = k), rows with dim > 0, by s
"""
import functools
import sys
from math import comb


def b(a, c): return comb(a, c) & 1 if 0 <= c <= a else 0

@functools.lru_cache(maxsize=None)
def reduce_mono(m):
    for p in range(len(m) - 1):
        i, k = m[p], m[p + 1]
        if k > 2 * i:
            n = k - 2 * i - 1
            out = set()
            for j in range(n):
                if b(n - j - 1, j):
                    for t in reduce_mono(m[:p] + (i + n - j, 2 * i + 1 + j) + m[p + 2:]):
                        out ^= {t}
            return frozenset(out)
    return frozenset([m])

@functools.lru_cache(maxsize=None)
def d_gen(n):
    out = set()
    for j in range(1, n + 1):
        if b(n - j, j):
            out ^= {(n - j, j - 1)}
    return frozenset(out)

def d_mono(m):
    out = set()
    for p in range(len(m)):
        for t in d_gen(m[p]):
            for r in reduce_mono(m[:p] + t + m[p + 1:]):
                out ^= {r}
    return out

@functools.lru_cache(maxsize=None)
def basis(s, stem, top):   # admissible, first index < top
    if s == 0: return [()] if stem == 0 else []
    res = []
    for i in range(min(top - 1, stem), -1, -1):
        for rest in basis(s - 1, stem - i, 2 * i + 1):
            res.append((i,) + rest)
    return res

def rank(rows):
    rows = [r for r in rows if r]
    piv = {}
    rk = 0
    for r in rows:
        while r:
            h = r.bit_length() - 1
            if h in piv: r ^= piv[h]
            else: piv[h] = r; rk += 1; break
    return rk

def dmat(s, stem, top):
    src, tgt = basis(s, stem, top), basis(s + 1, stem - 1, top)
    idx = {m: q for q, m in enumerate(tgt)}
    rows = []
    for m in src:
        v = 0
        for t in d_mono(m):
            assert t in idx, (m, t)
            v ^= 1 << idx[t]
        rows.append(v)
    return rows

def H(s, stem, top):
    n = len(basis(s, stem, top))
    r_out = rank(dmat(s, stem, top)) if n else 0
    r_in = rank(dmat(s - 1, stem + 1, top)) if s >= 1 and basis(s - 1, stem + 1, top) else 0
    return n - r_out - r_in

if __name__ == "__main__":
    top = int(sys.argv[1]); S = int(sys.argv[2]); K = int(sys.argv[3])
    for s in range(S + 1):
        for k in range(K + 1):
            h = H(s, k, top)
            if h: print("%d,%d,%d" % (s, k + (top if top < 10**6 else 0), h))

#!/usr/bin/env python3
"""Independent checker for `extflow ss DIR --history FILE` (docs/ss.md, schema/ss-csv.md).

    python3 tests/ss_check.py DIR HISTORY

Recomputes, from DIR/run.json, ext.csv, d2.csv, products.csv and the history alone, the
pages E_r (r = 2 .. s_max + 2) of the Adams spectral sequence with Leibniz propagation to a
fixed point, and the bidegrees where E_inf is settled, and compares them with DIR/ss/pages.csv
as `extflow ss` wrote it (the same set of `r,n,s,dim` rows, the same set of `inf` rows).
Where DIR/ss has them it also checks differentials.csv (at every (r, b), its rows span, with
the computed d2, the permanent classes and the boundaries, the same d_r as the checker's
facts) and permanent.csv (the same subspace of permanent classes at every bidegree).
Written from the specification only (not from ss/*.c), in a different style: classes are
Python ints used as bit vectors over F_2 (bit i = coefficient of x_(n,s,i)), subspaces are
echelon dictionaries, and the propagation is a plain "compute the pages, derive every
product of every fact, keep what is new, repeat" loop.  Only p = 2 and run.json regions of
kind "stem".

How it reads docs/ss.md ("The model"), where a choice had to be made:
- d_r at (b, r) is known on the span K of B_r(b), the permanent classes and the sources of the
  facts of page r (computed d2, given, propagated), with their values modulo B_r(b'); on all of
  Z_r(b) when b' = (n - 1, s + r) is below the bottom stem or an E2 zero group; a d_r into
  s + r > s_max is known only on K.  The rest of Z_r(b) is taken as d_r = 0.
- Z_{r+1}(b) is exact when Z_r(b) is, d_r is known on all of Z_r(b), and either B_r(b') is
  exact or d_r(Z_r(b)) lies in B_r(b') (the drawn B is spanned by values of facts, so it lies
  in the true one: then every class of Z_r(b) survives, whatever B_r(b') really is).
  B_{r+1}(b') is exact when B_r(b') is and the source (n, s) of d_r into it has no classes
  (or s < 0), or lies in the region with Z_r exact and d_r known on all of it; a source past
  the top stem is unknown.
- E_inf is settled at b when Z and B are exact on page s_max + 2 and every class there is
  permanent: in the span of the permanent facts and B, or at the bottom stem (where every
  d_r is known to be zero).
- Leibniz acts on facts only (not on the known-zero d_r into zero groups); a derived fact is
  new when it is not in the span of what is known of d_r there (facts, permanent classes,
  boundaries; a derived permanent class: not in the span of those there); products whose
  bidegree leaves the region are unknown.  For a product differential d_rm(m) = q: from x
  permanent, d_rm(m x) = q x; from d_r(x) = y, d_r(m x) = m y if r < rm, q x + m y if r = rm.
- The default product types are h0, h1, h2 where products.csv has their rows (a module's DIR
  has none); their classes are not facts themselves.
- The pages compared are r = 2 .. L + 1, L the largest r of a fact d_r(x) = y with y != 0 over
  E2 (it may be a boundary), and at least 2 (schema/ss-csv.md: "so at least E2 and E3").

Switches for analysing a disagreement (other readings; not the default):
  --zb=strict|perm   Z_{r+1}(b) exact needs B_r(b') exact (strict), or all of Z_r(b) permanent
                     or boundaries (perm)
  --zero-page        an exactly known E_r(b') = 0 also makes d_r known to be zero
  --rule-above       from d_r(x) = y with r > rm also d_rm(m x) = q x

Exit 0: agreement; 1: the tables differ (the first 20 differences are printed), or the
checker finds the history inconsistent (extflow must refuse it); 2: bad input (p != 2, an
unknown action or key, a wrong vector, ...: what docs/ss.md "Histories" refuses).
"""

import csv
import json
import os
import re
import sys


def die(msg, code=2):
    print("ss_check: " + msg, file=sys.stderr)
    sys.exit(code)


# ---------------------------------------------------------------- F_2 linear algebra

class Span:
    """A subspace of F_2^k, vectors as ints, rows keyed by their highest bit."""

    def __init__(self, vecs=()):
        self.rows = {}
        for v in vecs:
            self.add(v)

    def copy(self):
        s = Span()
        s.rows = dict(self.rows)
        return s

    def residue(self, v):
        """v reduced by every row: 0 iff v is in the span; a canonical representative of
        v modulo the span otherwise."""
        for h in sorted(self.rows, reverse=True):
            if (v >> h) & 1:
                v ^= self.rows[h]
        return v

    def contains(self, v):
        return self.residue(v) == 0

    def add(self, v):
        v = self.residue(v)
        if v == 0:
            return False
        self.rows[v.bit_length() - 1] = v
        return True

    def basis(self):
        return [self.rows[h] for h in sorted(self.rows, reverse=True)]

    def dim(self):
        return len(self.rows)

    def contains_span(self, other):
        return all(self.contains(v) for v in other.basis())

    def __eq__(self, other):
        return self.dim() == other.dim() and self.contains_span(other)


def vec_from_list(coeffs):
    v = 0
    for i, c in enumerate(coeffs):
        if c:
            v |= 1 << i
    return v


def vec_from_str(s):
    return vec_from_list([int(ch) for ch in s])


def vec_str(v, k):
    return "".join("1" if (v >> i) & 1 else "0" for i in range(k))


# ---------------------------------------------------------------- the DIR

class Dir:
    def __init__(self, path):
        self.path = path
        try:
            run = json.load(open(os.path.join(path, "run.json")))
        except (OSError, ValueError) as e:
            die("cannot read %s/run.json: %s" % (path, e))
        if run.get("prime", 2) != 2:
            die("only p = 2 is supported (run.json prime %r)" % run.get("prime"))
        comp = run.get("complete")
        if not isinstance(comp, dict) or comp.get("kind") != "stem":
            die("run.json's complete region is not of kind 'stem': %r" % (comp,))
        self.module = run.get("module")
        self.N = int(comp["stem"])
        self.S = int(comp["max_s"])
        self.dim = {}
        with open(os.path.join(path, "ext.csv")) as f:
            rd = csv.reader(f)
            head = next(rd)
            if head != ["s", "n", "dim"]:
                die("ext.csv: unexpected header %r" % head)
            for row in rd:
                s, n, d = int(row[0]), int(row[1]), int(row[2])
                self.dim[(n, s)] = d
        self.bottom = min(n for (n, s) in self.dim)
        # every bidegree of the region (zero groups included)
        self.region = [(n, s) for n in range(self.bottom, self.N + 1) for s in range(0, self.S + 1)]
        self.classes = [b for b in self.region if self.d(b) > 0]
        # d2.csv
        self.d2 = {}  # (n, s) -> {i: value}
        d2file = os.path.join(path, "d2.csv")
        if not os.path.exists(d2file):
            # `extflow d2` refuses some modules: then no d2 is known (docs/ss.md: d2 is a
            # fact only as d2.csv gives it)
            print("# note: %s missing: d2 unknown everywhere" % d2file)
            d2file = os.devnull
        with open(d2file) as f:
            rd = csv.reader(f)
            head = next(rd, ["n", "s", "i", "target_n", "target_s", "value"])
            if head != ["n", "s", "i", "target_n", "target_s", "value"]:
                die("d2.csv: unexpected header %r" % head)
            for row in rd:
                n, s, i, tn, ts = (int(x) for x in row[:5])
                if (tn, ts) != (n - 1, s + 2):
                    die("d2.csv: bad target bidegree in %r" % row)
                val = row[5] if len(row) > 5 else ""
                if len(val) != self.d((tn, ts)):
                    die("d2.csv: value of length %d at (%d,%d)" % (len(val), tn, ts))
                self.d2.setdefault((n, s), {})[i] = vec_from_str(val)
        # products.csv
        self.prod = {}  # name -> [(mn, ms), {(n, s, i): vec}]
        pfile = os.path.join(path, "products.csv")
        if os.path.exists(pfile):
            with open(pfile) as f:
                rd = csv.reader(f)
                head = next(rd)
                if head != ["name", "name_n", "name_s", "n", "s", "i", "k"]:
                    die("products.csv: unexpected header %r" % head)
                for row in rd:
                    name = row[0]
                    mn, ms, n, s, i, k = (int(x) for x in row[1:7])
                    ent = self.prod.setdefault(name, [(mn, ms), {}])
                    if ent[0] != (mn, ms):
                        die("products.csv: %s at two bidegrees" % name)
                    ent[1][(n, s, i)] = ent[1].get((n, s, i), 0) ^ (1 << k)

    def inside(self, b):
        n, s = b
        return self.bottom <= n <= self.N and 0 <= s <= self.S

    def d(self, b):
        return self.dim.get(b, 0) if self.inside(b) else 0

    def mult(self, name, b, v):
        """name * v for v over E2(b): (bidegree, vector), or None where unknown."""
        ent = self.prod.get(name)
        if ent is None:
            return None
        (mn, ms), rows = ent
        t = (b[0] + mn, b[1] + ms)
        if not self.inside(b) or not self.inside(t):
            return None
        out = 0
        i = 0
        while v >> i:
            if (v >> i) & 1:
                out ^= rows.get((b[0], b[1], i), 0)
            i += 1
        return t, out


# ---------------------------------------------------------------- the history

def sanitize(name):
    return re.sub(r"[^A-Za-z0-9_.^+-]", ".", name)


class Hist:
    def __init__(self):
        self.diffs = []  # (r, b, x, y, why)
        self.perms = []  # (b, x, why)
        self.types = {}  # name -> dict(b, cls, perm, diff=(r, qname) or None)


def read_history(path, D):
    H = Hist()
    try:
        lines = open(path).read().split("\n")
    except OSError as e:
        die("cannot read %s: %s" % (path, e))

    def bad(ln, why):
        die("%s line %d: %s" % (path, ln, why))

    def keys(ln, obj, allowed):
        if not isinstance(obj, dict):
            bad(ln, "not an object")
        for k in obj:
            if k not in allowed:
                bad(ln, "unknown key %r" % k)
        for k in allowed:
            if k not in obj:
                bad(ln, "missing key %r" % k)

    def bideg(ln, o):
        keys(ln, o, ["coords"])
        c = o["coords"]
        if not (isinstance(c, list) and len(c) == 2 and all(isinstance(x, int) for x in c)):
            bad(ln, "bad coords")
        return (c[0], c[1])

    def vector(ln, b, v):
        if not isinstance(v, list) or not all(isinstance(c, int) and not isinstance(c, bool) for c in v):
            bad(ln, "bad vector")
        if not D.inside(b):
            bad(ln, "bidegree %r outside DIR's region" % (b,))
        if len(v) != D.d(b):
            bad(ln, "vector of length %d over E2%r of dimension %d" % (len(v), b, D.d(b)))
        if any(c < 0 or c >= 2 for c in v):
            bad(ln, "coefficient outside 0..1")
        return vec_from_list(v)

    def ptype(ln, o):
        keys(ln, o, ["name", "b", "class", "permanent"])
        if not isinstance(o["name"], str) or not isinstance(o["permanent"], bool):
            bad(ln, "bad product type")
        b = bideg(ln, o["b"])
        return o["name"], b, vector(ln, b, o["class"]), o["permanent"]

    for ln0, text in enumerate(lines):
        ln = ln0 + 1
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except ValueError:
            bad(ln, "not JSON")
        if not isinstance(obj, dict):
            bad(ln, "not an object")
        if "version" in obj:
            keys(ln, obj, ["version", "action"])
            if obj["version"] != 1 or isinstance(obj["version"], bool):
                bad(ln, "version %r" % obj["version"])
        else:
            keys(ln, obj, ["recipients", "sseq", "action"])
            if obj["sseq"] != "Main":
                bad(ln, "sseq %r" % obj["sseq"])
        act = obj["action"]
        if not isinstance(act, dict) or len(act) != 1:
            bad(ln, "action must have one key")
        (aname, a), = act.items()
        why = "line %d" % ln
        if aname == "Construct":
            keys(ln, a, ["algebra_name", "module_name"])
            if a["algebra_name"] not in ("milnor", "adem"):
                bad(ln, "algebra %r" % a["algebra_name"])
            if D.module is not None and a["module_name"] != D.module:
                bad(ln, "module %r, DIR is %r" % (a["module_name"], D.module))
        elif aname == "Resolve":
            keys(ln, a, ["max_degree"])
        elif aname == "AddDifferential":
            keys(ln, a, ["r", "b", "source", "target"])
            r = a["r"]
            if not isinstance(r, int) or r < 2:
                bad(ln, "bad r")
            b = bideg(ln, a["b"])
            x = vector(ln, b, a["source"])
            t = (b[0] - 1, b[1] + r)
            y = vector(ln, t, a["target"])
            H.diffs.append((r, b, x, y, why))
        elif aname == "AddPermanentClass":
            keys(ln, a, ["b", "class"])
            b = bideg(ln, a["b"])
            H.perms.append((b, vector(ln, b, a["class"]), why))
        elif aname == "AddProductType":
            name, b, cls, perm = ptype(ln, a)
            old = H.types.get(name, {})
            H.types[name] = dict(b=b, cls=cls, perm=perm, diff=old.get("diff"))
            if perm:
                H.perms.append((b, cls, why))
        elif aname == "AddProductDifferential":
            keys(ln, a, ["source", "target"])
            sn, sb, sc, sp = ptype(ln, a["source"])
            tn, tb, tc, tp = ptype(ln, a["target"])
            r = tb[1] - sb[1]
            if tb[0] != sb[0] - 1 or r < 2:
                bad(ln, "target not at (n - 1, s + r)")
            H.types[sn] = dict(b=sb, cls=sc, perm=sp, diff=(r, tn))
            if tn not in H.types:
                H.types[tn] = dict(b=tb, cls=tc, perm=tp, diff=None)
            else:
                H.types[tn]["perm"] = H.types[tn]["perm"] or tp
            H.diffs.append((r, sb, sc, tc, why))
            for (pb, pc, pp) in ((sb, sc, sp), (tb, tc, tp)):
                if pp:
                    H.perms.append((pb, pc, why))
        else:
            bad(ln, "unknown action %r" % aname)
    return H


# ---------------------------------------------------------------- the model

class Model:
    def __init__(self, D, H, rule_above=False, zb_rule="image", zero_page=False):
        self.zero_page = zero_page
        self.D = D
        self.R = D.S + 2          # the last page
        self.rule_above = rule_above
        self.zb_rule = zb_rule
        self.problems = []
        # product types: name -> dict(pname, b, cls, perm, diff)
        self.types = {}
        for name, b in (("h0", (0, 1)), ("h1", (1, 1)), ("h2", (3, 1))):
            # a DIR that is its own unit has their rows in products.csv; a module's DIR
            # (C2, ...) has none, and no product types (docs/ss.md, "Leibniz")
            if D.d(b) == 1 and name in D.prod:
                self.types[name] = dict(pname=name, b=b, cls=1, perm=True, diff=None)
        for name, t in H.types.items():
            self.types[name] = dict(pname=sanitize(name), b=t["b"], cls=t["cls"],
                                    perm=t["perm"], diff=t["diff"])
        for name, t in self.types.items():
            if t["pname"] not in D.prod:
                self.problems.append("product type %s (%s) has no rows in products.csv"
                                     % (name, t["pname"]))
        # facts
        self.diffs = {}   # (r, b) -> list of (x, y, origin)
        self.seen = set()
        self.nfacts = {"computed": 0, "given": 0, "propagated": 0}
        for b, rows in D.d2.items():
            for i, y in rows.items():
                self.add_diff(2, b, 1 << i, y, "computed")
        for (r, b, x, y, why) in H.diffs:
            self.add_diff(r, b, x, y, "given")
        self.perm = {}    # b -> Span
        self.nperm = {"given": 0, "propagated": 0}
        for (b, x, why) in H.perms:
            self.perm.setdefault(b, Span())
            self.perm[b].add(x)
            self.nperm["given"] += 1

    def add_diff(self, r, b, x, y, origin):
        self.seen.add((r, b, x, y))
        self.diffs.setdefault((r, b), []).append((x, y, origin))
        self.nfacts[origin] += 1

    def target_kind(self, r, b):
        n, s = b
        t = (n - 1, s + r)
        if n - 1 < self.D.bottom:
            return "below", t
        if s + r > self.D.S:
            return "out", t
        if self.D.d(t) == 0:
            return "zero", t
        return "in", t

    def source_kind(self, r, t):
        n, s = t
        b = (n + 1, s - r)
        if s - r < 0:
            return "none", b
        if n + 1 > self.D.N:
            return "out", b
        if self.D.d(b) == 0:
            return "none", b
        return "in", b

    # -- pages from the current facts
    def compute(self):
        D = self.D
        Z = {2: {b: Span(1 << i for i in range(D.d(b))) for b in D.classes}}
        B = {2: {b: Span() for b in D.classes}}
        exZ = {2: {b: True for b in D.classes}}
        exB = {2: {b: True for b in D.classes}}
        self.G = {}
        self.known = {}
        self.changed = set()
        problems = []
        for r in range(2, self.R):
            Z[r + 1], B[r + 1], exZ[r + 1], exB[r + 1] = {}, {}, {}, {}
            image = {}
            full = {}
            allperm = {}
            for b in D.classes:
                kind, t = self.target_kind(r, b)
                dt = D.d(t) if kind == "in" else 0
                Zb, Bb = Z[r][b], B[r][b]
                Bt = B[r][t] if kind == "in" else Span()
                G = Span()
                for v in Bt.basis():
                    G.add(v)
                pure0 = G.dim()
                for v in Bb.basis():
                    G.add(v << dt)
                P = self.perm.get(b, Span())
                for p in P.basis():
                    if not Zb.contains(p):
                        problems.append("permanent class %s at %r is not in Z_%d"
                                        % (vec_str(p, D.d(b)), b, r))
                        continue
                    G.add(p << dt)
                allperm[b] = Span(P.basis() + Bb.basis()).contains_span(Zb)
                if G.dim() - sum(1 for h in G.rows if h >= dt) != pure0:
                    problems.append("a permanent class or boundary at %r supports a non-zero d_%d" % (b, r))
                for (x, y, origin) in self.diffs.get((r, b), []):
                    if kind != "in" and y != 0:
                        problems.append("d_%d at %r: non-zero target outside the groups" % (r, b))
                        continue
                    if not Zb.contains(x):
                        problems.append("d_%d(%s) at %r (%s): source not in Z_%d"
                                        % (r, vec_str(x, D.d(b)), b, origin, r))
                        continue
                    if kind == "in" and not Z[r][t].contains(y):
                        problems.append("d_%d(%s) at %r (%s): target %s not in Z_%d%r"
                                        % (r, vec_str(x, D.d(b)), b, origin, vec_str(y, dt), r, t))
                        continue
                    Gt = G.copy()
                    Gt.add((x << dt) | y)
                    if sum(1 for h in Gt.rows if h < dt) != pure0:
                        problems.append("d_%d(%s) at %r (%s) contradicts the known d_%d there"
                                        % (r, vec_str(x, D.d(b)), b, origin, r))
                        continue
                    G = Gt
                self.G[(r, b)] = (G, dt)
                # the known part of d_r: rows of G with a pivot in the source part
                K = Span()
                W = []  # (x, value mod Bt)
                for v in G.basis():
                    if v.bit_length() - 1 >= dt:
                        x = v >> dt
                        if K.add(x):
                            W.append((x, Bt.residue(v & ((1 << dt) - 1))))
                if kind in ("below", "zero"):
                    fk = True
                elif (self.zero_page and kind == "in" and exZ[r][t] and exB[r][t]
                      and Z[r][t].dim() == B[r][t].dim()):
                    fk = True   # E_r(t) = 0, exactly: d_r is zero
                else:
                    fk = K.contains_span(Zb)
                full[b] = fk
                self.known[(r, b)] = K
                for z in Zb.basis():
                    if K.add(z):
                        W.append((z, 0))   # unknown: taken as zero
                # kernel and image of d_r on Z_r(b), values modulo B_r(t)
                rows = [(val, x) for (x, val) in W]
                img = Span()
                ker = Span()
                piv = {}
                for val, x in rows:
                    for h in sorted(piv, reverse=True):
                        if (val >> h) & 1:
                            val ^= piv[h][0]
                            x ^= piv[h][1]
                    if val == 0:
                        ker.add(x)
                    else:
                        piv[val.bit_length() - 1] = (val, x)
                        img.add(val)
                Z[r + 1][b] = ker
                if img.dim():
                    self.changed.add(r)
                if kind == "in":
                    image[t] = img
            # B_{r+1}
            for t in D.classes:
                nb = B[r][t].copy()
                for v in image.get(t, Span()).basis():
                    nb.add(v)
                B[r + 1][t] = nb
            # exactness
            for b in D.classes:
                kind, t = self.target_kind(r, b)
                e = exZ[r][b] and full[b]
                if e and kind == "in" and not exB[r][t]:
                    if self.zb_rule == "strict":
                        e = False
                    elif self.zb_rule == "perm":
                        e = allperm[b]
                    elif self.zb_rule == "image":
                        e = image.get(t, Span()).dim() == 0
                exZ[r + 1][b] = e
                skind, sb = self.source_kind(r, b)
                e = exB[r][b]
                if skind == "out":
                    e = False
                elif skind == "in":
                    e = e and exZ[r][sb] and full[sb]
                exB[r + 1][b] = e
        self.Z, self.B, self.exZ, self.exB = Z, B, exZ, exB
        self.problems_pages = problems

    # -- one round of the Leibniz rule; returns how many new facts were kept
    def derive(self):
        D = self.D
        new = 0
        perm_types = []
        diff_types = []
        for name, t in self.types.items():
            isperm = t["perm"] or self.perm.get(t["b"], Span()).contains(t["cls"])
            if t["diff"] is not None:
                diff_types.append((name, t))
            elif isperm:
                perm_types.append((name, t))
        cands_perm = []
        cands_diff = []
        perm_list = [(b, p) for b, sp in self.perm.items() for p in sp.basis()]
        diff_list = [(r, b, x, y) for (r, b), l in self.diffs.items() for (x, y, o) in l]
        for name, t in perm_types:
            pn = t["pname"]
            for b, p in perm_list:
                m = D.mult(pn, b, p)
                if m is not None and m[1]:
                    cands_perm.append(m)
            for r, b, x, y in diff_list:
                mx = D.mult(pn, b, x)
                my = D.mult(pn, (b[0] - 1, b[1] + r), y)
                if mx is None or my is None or mx[1] == 0:
                    continue
                cands_diff.append((r, mx[0], mx[1], my[1]))
        for name, t in diff_types:
            rm, qname = t["diff"]
            pn = t["pname"]
            qn = self.types[qname]["pname"]
            for b, p in perm_list:
                mx = D.mult(pn, b, p)
                qx = D.mult(qn, b, p)
                if mx is None or qx is None or mx[1] == 0:
                    continue
                cands_diff.append((rm, mx[0], mx[1], qx[1]))
            for r, b, x, y in diff_list:
                mx = D.mult(pn, b, x)
                if mx is None or mx[1] == 0:
                    continue
                if r < rm:
                    my = D.mult(pn, (b[0] - 1, b[1] + r), y)
                    if my is None:
                        continue
                    cands_diff.append((r, mx[0], mx[1], my[1]))
                elif r == rm:
                    my = D.mult(pn, (b[0] - 1, b[1] + r), y)
                    qx = D.mult(qn, b, x)
                    if my is None or qx is None:
                        continue
                    cands_diff.append((r, mx[0], mx[1], my[1] ^ qx[1]))
                elif self.rule_above:
                    qx = D.mult(qn, b, x)
                    if qx is None:
                        continue
                    cands_diff.append((rm, mx[0], mx[1], qx[1]))
        for b, v in cands_perm:
            sp = self.perm.setdefault(b, Span())
            if sp.add(v):
                self.nperm["propagated"] += 1
                new += 1
        for r, b, x, y in cands_diff:
            if r >= self.R:
                continue
            kind, t = self.target_kind(r, b)
            if kind in ("out", "below", "zero"):
                continue    # unknown, or known to be zero already: nothing new
            G, dt = self.G[(r, b)]
            if (r, b, x, y) in self.seen:
                continue    # refused before (see self.problems): not again
            if G.add((x << dt) | y):
                self.add_diff(r, b, x, y, "propagated")
                new += 1
        return new

    def run(self):
        rounds = 0
        while True:
            self.compute()
            rounds += 1
            if rounds > 200:
                die("no fixed point after 200 rounds", 1)
            if self.derive() == 0:
                break
        self.rounds = rounds
        self.problems += self.problems_pages

    def tables(self):
        D = self.D
        # L: the largest r of a non-zero differential, read as schema/ss-csv.md's facts read
        # it: a held fact d_r(x) = y with y != 0 over E2 (y may be a boundary, so that E_{L+1}
        # can equal E_L); at least 2, so that E2 and E3 are written.
        L = max([r for (r, b), l in self.diffs.items() for (x, y, o) in l
                 if y and r < self.R] + [2])
        Lpage = max([r for r in self.changed] + [2])
        if Lpage != L:
            print("# note: the last d_r that is non-zero on E_r is a d%d; the "
                  "last non-zero fact is a d%d: pages E2..E%d are compared" % (Lpage, L, L + 1))
        pages = set()
        for r in range(2, L + 2):
            for b in D.classes:
                pages.add((str(r), b[0], b[1], self.Z[r][b].dim() - self.B[r][b].dim()))
        inf = set()
        R = self.R
        for b in D.classes:
            if not (self.exZ[R][b] and self.exB[R][b]):
                continue
            # every class of E_R must be permanent: d_r = 0 on every page r >= R.  Those d_r
            # leave the region (unknown: only the permanent classes and the boundaries are
            # known there), except at the bottom stem, where they are known to be zero.
            sp = Span(self.perm.get(b, Span()).basis() + self.B[R][b].basis())
            if b[0] - 1 >= D.bottom and not sp.contains_span(self.Z[R][b]):
                continue
            inf.add(("inf", b[0], b[1], self.Z[R][b].dim() - self.B[R][b].dim()))
        return pages, inf, L


def read_pages(path):
    pages, inf = set(), set()
    with open(path) as f:
        rd = csv.reader(f)
        head = next(rd)
        if head != ["r", "n", "s", "dim"]:
            die("%s: unexpected header %r" % (path, head), 1)
        for row in rd:
            key = (row[0], int(row[1]), int(row[2]), int(row[3]))
            (inf if row[0] == "inf" else pages).add(key)
    return pages, inf


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    opts = [a for a in argv if a.startswith("--")]
    for o in opts:
        if o not in ("--rule-above", "--zb=strict", "--zb=perm", "--zb=image",
                     "--zero-page"):
            die("unknown option %s" % o)
    if len(args) != 2:
        die("usage: ss_check.py DIR HISTORY [--zb=strict|perm] [--zero-page] [--rule-above]")
    zb = "image"
    for o in opts:
        if o.startswith("--zb="):
            zb = o[5:]
    D = Dir(args[0])
    H = read_history(args[1], D)
    M = Model(D, H, rule_above="--rule-above" in opts, zb_rule=zb,
              zero_page="--zero-page" in opts)
    M.run()
    pages, inf, L = M.tables()
    print("# checker: %d computed, %d given, %d propagated differentials; %d given, %d propagated "
          "permanent classes; %d rounds; pages E2..E%d; E_inf settled in %d of %d bidegrees"
          % (M.nfacts["computed"], M.nfacts["given"], M.nfacts["propagated"],
             M.nperm["given"], M.nperm["propagated"], M.rounds, L + 1, len(inf), len(D.classes)))
    failed = False
    n = 0
    if M.problems:
        n += 1
        failed = True
        print("not ok %d - the checker finds the history inconsistent (extflow must refuse it: exit 2, nothing written)" % n)
        for p in M.problems[:20]:
            print("#   " + p)
    pfile = os.path.join(args[0], "ss", "pages.csv")
    if not os.path.exists(pfile):
        die("%s missing" % pfile, 1)
    xpages, xinf = read_pages(pfile)
    for what, mine, theirs in (("pages", pages, xpages), ("inf rows", inf, xinf)):
        n += 1
        if mine == theirs:
            print("ok %d - %s agree (%d rows)" % (n, what, len(mine)))
            continue
        failed = True
        print("not ok %d - %s differ (checker %d rows, extflow %d)" % (n, what, len(mine), len(theirs)))
        diffs = sorted([("checker only", k) for k in mine - theirs] +
                       [("extflow only", k) for k in theirs - mine],
                       key=lambda d: (d[1][0] != "inf", int(d[1][0]) if d[1][0] != "inf" else 0,
                                      d[1][1], d[1][2], d[0]))
        for who, k in diffs[:20]:
            print("#   %-12s %s,%d,%d,%d" % ((who,) + k))
        if len(diffs) > 20:
            print("#   ... %d more" % (len(diffs) - 20))
    # the differentials: what DIR/ss/differentials.csv says of d_r at each (r, b) spans, with
    # the computed d2, the permanent classes and the boundaries, what the checker's facts do
    dfile = os.path.join(args[0], "ss", "differentials.csv")
    if os.path.exists(dfile):
        theirs = {}
        with open(dfile) as f:
            for row in csv.DictReader(f):
                r, b = int(row["r"]), (int(row["n"]), int(row["s"]))
                theirs.setdefault((r, b), []).append((vec_from_str(row["source"]),
                                                      vec_from_str(row["target"])))
        bad = []
        for (r, b) in sorted(set(theirs) | set(M.diffs)):
            kind, t = M.target_kind(r, b)
            if r >= M.R or kind != "in":
                continue
            dt = D.d(t)
            base = Span(M.B[r][t].basis() + [v << dt for v in M.B[r][b].basis()] +
                        [v << dt for v in M.perm.get(b, Span()).basis()])
            mine, their = base.copy(), base.copy()
            for (x, y, o) in M.diffs.get((r, b), []):
                mine.add((x << dt) | y)
                if o == "computed":
                    their.add((x << dt) | y)
            for (x, y) in theirs.get((r, b), []):
                their.add((x << dt) | y)
            if not mine == their:
                bad.append((r, b, mine, their, dt))
        n += 1
        if not bad:
            print("ok %d - the known d_r agree (%d (r, b) with facts)" % (n, len(theirs)))
        else:
            failed = True
            print("not ok %d - the known d_r differ at %d (r, b)" % (n, len(bad)))
            for (r, b, mine, their, dt) in bad[:20]:
                k = D.d(b)
                show = lambda sp: ["%s->%s" % (vec_str(v >> dt, k), vec_str(v & ((1 << dt) - 1), dt))
                                   for v in sp.basis()]
                print("#   d_%d at (%d,%d): checker %s, extflow %s" % (r, b[0], b[1], show(mine), show(their)))

    # the permanent classes: the same subspace at every bidegree as DIR/ss/permanent.csv's
    permfile = os.path.join(args[0], "ss", "permanent.csv")
    if os.path.exists(permfile):
        theirs = {}
        with open(permfile) as f:
            for row in csv.DictReader(f):
                b = (int(row["n"]), int(row["s"]))
                theirs.setdefault(b, Span()).add(vec_from_str(row["class"]))
        bad = [b for b in sorted(set(theirs) | set(M.perm))
               if not theirs.get(b, Span()) == M.perm.get(b, Span())]
        n += 1
        if not bad:
            print("ok %d - permanent classes agree (%d bidegrees)" % (n, len(theirs)))
        else:
            failed = True
            print("not ok %d - permanent classes differ at %d bidegrees" % (n, len(bad)))
            for b in bad[:20]:
                print("#   (%d,%d): checker %s, extflow %s" % (
                    b[0], b[1],
                    [vec_str(v, D.d(b)) for v in M.perm.get(b, Span()).basis()],
                    [vec_str(v, D.d(b)) for v in theirs.get(b, Span()).basis()]))
    print("1..%d" % n)
    print("# ss_check: %s (pages E2..E%d, E_inf settled in %d of %d bidegrees)"
          % ("DIFFERENT" if failed else "agree", L + 1, len(inf), len(D.classes)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

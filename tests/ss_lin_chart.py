#!/usr/bin/env python3
"""A published Adams chart of the sphere as a test reference for `extflow ss` (docs/ss.md).

    python3 tests/ss_lin_chart.py history CHART DIR [BASIS] > HISTORY  # the chart's facts in DIR's basis
    python3 tests/ss_lin_chart.py shorten HISTORY DIR [SS-OPTIONS] > SHORT  # only the facts Leibniz cannot give
    python3 tests/ss_lin_chart.py einf CHART STEM               # n,s,dim where the chart settles E_inf
    python3 tests/ss_lin_chart.py compare CHART DIR STEM        # DIR's d2 and DIR/ss/pages.csv against it

CHART is tests/ref/ss/S0-lin-chart.txt (its header says what the columns mean and where they come
from): one row per class of E2(n, s) in the chart's own basis, with the page where it dies, as
the source or the target of which d_r.  BASIS is tests/ref/ss/S0-lin-basis.txt, the chart's
classes of t <= 44 as monomials in its generators.  DIR is an extflow resolution of S_2 with d2
computed, and with DIR/products.csv holding the products by h0, h1, h2 and d0 (`extflow
products DIR --class h0 --class h1 --class h2 --class d0=14,4`) when BASIS is given.

`history` computes the pages E_r = Z_r / B_r of DIR in DIR's basis as it goes (d2 from d2.csv,
then the facts it has entered; F_2 vectors are ints, bit i the coefficient of x_(n,s,i)) and
enters, page by page, first the facts that do not depend on the basis:
- at page r >= 3, a bidegree where none of the chart's classes still alive supports a d_r, now
  or later, holds only permanent cycles (a boundary is one too): every class of Z_r there is
  entered permanent (AddPermanentClass, a basis of Z_r modulo B_r);
- where none supports a d_r but one does on a later page: d_r = 0 on Z_r (AddDifferential with
  the zero target, a basis of Z_r modulo B_r), unless E2 is zero at the target;
- where the chart has one class alive at (n, s) on E_r, and it supports a d_r into a bidegree
  that also has one class alive on E_r, the differential is the only one possible between the
  two: d_r(v) = w, v and w any classes of Z_r outside B_r at each end.
A d_r out of or into a group of several classes depends on the basis.  With BASIS it is
entered on the chart's own classes, translated into DIR's basis by a computed dictionary
(class Dictionary: a monomial alone in its bidegree is DIR's class there; g * y for g among
h0, h1, h2, d0 is DIR's product of the image of y), and where a class has no image (an
indecomposable in a group of two, as n at (31,5)), through an injective product: the classes
of Z_r that h in {h0, h1, h2} sends to zero on E_r have d_r = 0 when h is injective on E_r at
the target (by_name).  Anything else is left to the Leibniz rule and said on stderr, with
where the chart itself leaves d_r undetermined.  With BASIS the history also declares the
chart's permanent generators that are alone in their bidegree (h3, c0, Ph1, d0, g, ...) as
permanent product types, so that `ss` carries facts along their products too.
Before each page it checks that DIR's E_r has as many classes as the chart's at every
bidegree it knows (d2 from DIR, so also the d2 ranks); a disagreement is an error, exit 1.

`shorten` keeps of HISTORY only what the Leibniz rule cannot give: from the last line to the
first, an entry (fact or product type) is dropped when `extflow ss DIR --history` over the
others ($EXTFLOW, default bin/extflow; SS-OPTIONS passed on) still writes the same pages
(DIR/ss/pages.csv: every E_r and the E_inf rows).

`einf` prints, for the stems <= STEM, the E_inf dimension of every bidegree the chart settles:
no class there with an undetermined d_r, and none that an undetermined d_r out of stem n + 1
could hit; E_inf is the number of its permanent classes that are no boundaries (level 9800 or
the unit).  `compare` checks DIR's computed d2 (its rank at every source against the chart's
number of d2 sources, where the chart knows them) and DIR/ss/pages.csv's inf rows against
`einf` at every bidegree the chart settles (one that ss leaves open is a failure too), prints
one line saying how many agree and where ss settles what the chart leaves open, and exits 1
on any disagreement.
Exit 2: bad input.
"""

import csv
import json
import os
import subprocess
import sys

INF = 1 << 30


def die(msg, code=2):
    sys.stderr.write("ss_lin_chart: %s\n" % msg)
    sys.exit(code)


# ---------------------------------------------------------------- the chart

def read_chart(path):
    """{id: row}, each row a dict: n, s, b, l, j, d, kind, r, death."""
    rows = {}
    try:
        f = open(path)
    except OSError as e:
        die("%s: %s" % (path, e.strerror))
    for no, line in enumerate(f, 1):
        if line.startswith("#") or not line.strip():
            continue
        p = line.split()
        if len(p) != 7:
            die("%s:%d: 7 fields expected, %d found" % (path, no, len(p)))
        try:
            x = dict(id=int(p[0]), n=int(p[1]), s=int(p[2]), b=p[3], l=int(p[4]), j=int(p[5]), d=p[6])
        except ValueError:
            die("%s:%d: a number expected" % (path, no))
        l = x["l"]
        if l in (9800, 5000):
            x["kind"], x["r"], x["death"] = "perm", None, INF
        elif 9800 < l < 10000:
            x["r"] = 10000 - l
            x["kind"] = "src" if x["d"] != "-" else "unknown"
            x["death"] = x["r"] if x["d"] != "-" else INF
        elif 2 <= l < 200:
            x["r"] = l
            x["kind"] = "tgt" if x["d"] != "-" else "unknown"
            x["death"] = x["r"] if x["d"] != "-" else INF
        else:
            die("%s:%d: level %d is none of 9800, 5000, 10000-r, r" % (path, no, l))
        if x["id"] in rows:
            die("%s:%d: id %d twice" % (path, no, x["id"]))
        rows[x["id"]] = x
    return rows


def by_bidegree(rows):
    bd = {}
    for x in rows.values():
        bd.setdefault((x["n"], x["s"]), []).append(x)
    return bd


def check_pairs(rows, bd, nmax):
    """Every d_r's source and target name each other (the target's j is the first id of the
    source's bidegree, its d the source's b, and the other way round)."""
    first = {k: min(x["id"] for x in v) for k, v in bd.items()}
    for x in rows.values():
        if x["kind"] != "src":
            continue
        t = (x["n"] - 1, x["s"] + x["r"])
        ys = [y for y in bd.get(t, []) if y["kind"] == "tgt" and y["r"] == x["r"] and
              y["j"] == first[(x["n"], x["s"])] and y["d"] == x["b"] and x["d"] == y["b"]]
        if first.get(t) != x["j"] or len(ys) != 1:
            die("chart: the d%d of class %d at (%d,%d) has no target at (%d,%d)" %
                (x["r"], x["id"], x["n"], x["s"], t[0], t[1]), 1)
    for y in rows.values():
        if y["kind"] == "tgt" and y["n"] + 1 <= nmax:
            src = [x for x in bd.get((y["n"] + 1, y["s"] - y["r"]), []) if x["kind"] == "src" and x["r"] == y["r"]]
            if not src:
                die("chart: class %d at (%d,%d) is the target of a d%d without a source" %
                    (y["id"], y["n"], y["s"], y["r"]), 1)


def chart_open(bd):
    """Bidegrees whose E_inf the chart leaves open: a class there with an undetermined d_r, or
    one that an undetermined d_r (of page r0 or later) out of stem n + 1 could hit."""
    op = {}
    for (n, s), xs in bd.items():
        for x in xs:
            if x["kind"] != "unknown":
                continue
            op.setdefault((n, s), "d%d of class %d undetermined" % (x["r"], x["id"]))
            if x["l"] > 9800:
                for (n2, s2) in bd:
                    if n2 == n - 1 and s2 >= s + x["r"]:
                        op.setdefault((n2, s2), "may be hit by the undetermined d_r (r >= %d) of class %d at (%d,%d)" %
                                      (x["r"], x["id"], n, s))
    return op


def chart_until(bd):
    """Per bidegree: (zu, cu): the chart knows every d_r of its classes for r < zu, and the
    number of its classes alive on E_r for r <= cu (an undetermined d_r of page r0 at or
    into it, or one that could hit it on page r, stops it there)."""
    zu, cu = {}, {}
    for (n, s), xs in bd.items():
        for x in xs:
            if x["kind"] != "unknown":
                continue
            r0 = x["r"]
            cu[(n, s)] = min(cu.get((n, s), INF), r0)
            if x["l"] > 9800:
                zu[(n, s)] = min(zu.get((n, s), INF), r0)
                for (n2, s2) in bd:
                    if n2 == n - 1 and s2 - s >= r0:
                        cu[(n2, s2)] = min(cu.get((n2, s2), INF), s2 - s)
    return zu, cu


def chart_einf(bd, stem):
    op = chart_open(bd)
    return {k: sum(1 for x in xs if x["kind"] == "perm") for k, xs in bd.items()
            if k[0] <= stem and k not in op}, op


# ---------------------------------------------------------------- F_2 linear algebra on ints

def reduce(v, basis):
    """basis: {pivot bit: vector} in echelon form (each pivot the highest bit of its vector)."""
    while v:
        p = v.bit_length() - 1
        if p not in basis:
            return v
        v ^= basis[p]
    return 0


def add(basis, v):
    v = reduce(v, basis)
    if v:
        basis[v.bit_length() - 1] = v
    return bool(v)


def span(vs):
    b = {}
    for v in vs:
        add(b, v)
    return b


def complement(Z, B):
    """A basis of Z modulo B (vectors of Z reduced by B)."""
    seen = dict(B)
    out = []
    for p in sorted(Z):
        v = reduce(Z[p], seen)
        if v:
            add(seen, v)
            out.append(v)
    return out


def vec(v, k):
    return [(v >> i) & 1 for i in range(k)]


# ---------------------------------------------------------------- DIR

def read_dir(d):
    try:
        run = json.load(open(os.path.join(d, "run.json")))
        dims = {}
        for r in csv.DictReader(open(os.path.join(d, "ext.csv"))):
            dims[(int(r["n"]), int(r["s"]))] = int(r["dim"])
        d2 = {}
        for r in csv.DictReader(open(os.path.join(d, "d2.csv"))):
            v = 0
            for i, c in enumerate(r["value"]):
                if c == "1":
                    v |= 1 << i
            d2[(int(r["n"]), int(r["s"]), int(r["i"]))] = v
    except (OSError, ValueError, KeyError) as e:
        die("%s: not a resolution with d2 computed (%s)" % (d, e))
    if run.get("module") != "S_2" or run.get("complete", {}).get("kind") != "stem":
        die("%s: a resolution of S_2 by stem expected" % d)
    return run["complete"]["stem"], run["complete"]["max_s"], dims, d2


def d2_rank(dims, d2, n, s):
    return len(span(d2.get((n, s, i), 0) for i in range(dims.get((n, s), 0))))



# ---------------------------------------------------------------- the chart's basis in DIR's

def read_basis(path, rows):
    """S0-lin-basis.txt: (gens, {id: [(g, e), ...]}), each monomial checked to lie in its
    circle's bidegree (a generator's degree read off the circle that is that generator alone)."""
    gens, mono = None, {}
    try:
        f = open(path)
    except OSError as e:
        die("%s: %s" % (path, e.strerror))
    for no, line in enumerate(f, 1):
        p = line.split()
        if not p or p[0].startswith("#"):
            continue
        if p[0] == "gens":
            gens = p[1:]
            continue
        try:
            ns = [] if p[1:] == ["-"] else [int(a) for a in p[1:]]
            mono[int(p[0])] = [(ns[i], ns[i + 1]) for i in range(0, len(ns) - len(ns) % 2, 2)]
        except (ValueError, IndexError):
            die("%s:%d: an id and pairs of numbers expected" % (path, no))
        if len(ns) % 2 or int(p[0]) not in rows:
            die("%s:%d: not a monomial of a circle of the chart" % (path, no))
    if gens is None:
        die("%s: no gens line" % path)
    deg = {}
    for i, m in mono.items():
        if len(m) == 1 and m[0][1] == 1:
            deg[m[0][0]] = (rows[i]["n"], rows[i]["s"])
    for i, m in mono.items():
        if any(g not in deg or g >= len(gens) for g, _ in m):
            die("%s: entry %d: a generator without its degree" % (path, i))
        if (sum(e * deg[g][0] for g, e in m), sum(e * deg[g][1] for g, e in m)) != (rows[i]["n"], rows[i]["s"]):
            die("%s: entry %d lies outside its circle's bidegree (%d,%d)" % (path, i, rows[i]["n"], rows[i]["s"]), 1)
    return gens, mono, deg


def read_products(d, dims):
    """DIR/products.csv as {name: ((n, s), {(n, s, i): product vector})}, for the names whose
    class is alone in its bidegree (so that it is the chart's generator there, whatever the basis)."""
    tab = {}
    try:
        for r in csv.DictReader(open(os.path.join(d, "products.csv"))):
            nm, b = r["name"], (int(r["name_n"]), int(r["name_s"]))
            if nm not in tab:
                tab[nm] = (b, {})
            key = (int(r["n"]), int(r["s"]), int(r["i"]))
            tab[nm][1][key] = tab[nm][1].get(key, 0) ^ (1 << int(r["k"]))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, KeyError) as e:
        die("%s/products.csv: %s" % (d, e))
    return {nm: v for nm, v in tab.items() if dims.get(v[0], 0) == 1}


DICT_GENS = ("h0", "h1", "h2", "d0")     # the products the dictionary multiplies by


class Dictionary:
    """The chart's classes as vectors over DIR's basis, computed: a monomial alone in its
    bidegree is DIR's one class there; g * y, with g one of DICT_GENS (h_0 -> h0, ...: the
    chart's name with '_', '^' and '\\' dropped) whose products DIR/products.csv holds,
    is that product of the image of y.  A monomial neither is has no image (None); a circle is
    the sum of its monomials (the column b)."""

    def __init__(self, bd, dims, gens, mono, deg, prods):
        self.bd, self.dims, self.mono, self.deg = bd, dims, mono, deg
        self.ours = {}
        for g, nm in enumerate(gens):
            key = nm.replace("_", "").replace("^", "").replace("\\", "")
            if key in DICT_GENS and key in prods and prods[key][0] == deg.get(g):
                self.ours[g] = prods[key][1]
        self.memo = {}

    def monomial(self, m):
        m = tuple(sorted((g, e) for g, e in m if e))
        if m in self.memo:
            return self.memo[m]
        b = (sum(e * self.deg[g][0] for g, e in m), sum(e * self.deg[g][1] for g, e in m))
        v = None
        if self.dims.get(b, 0) == 1:
            v = 1
        else:
            for g, e in m:
                if g not in self.ours:
                    continue
                rest = [(h, f - (h == g)) for h, f in m]
                y = self.monomial(rest)
                if y is None:
                    continue
                rb = (b[0] - self.deg[g][0], b[1] - self.deg[g][1])
                v = 0
                for i in range(self.dims.get(rb, 0)):
                    if (y >> i) & 1:
                        v ^= self.ours[g].get((rb[0], rb[1], i), 0)
                break
        self.memo[m] = v
        return v

    def circle(self, x):
        ids = sorted(y["id"] for y in self.bd[(x["n"], x["s"])])
        v = 0
        for j in x["b"].split("+"):
            i = ids[int(j)]
            if i not in self.mono:
                return None
            w = self.monomial(self.mono[i])
            if w is None:
                return None
            v ^= w
        return v


def target_of(bd, x):
    """The circle a d_r source x hits (check_pairs made sure there is one)."""
    t = (x["n"] - 1, x["s"] + x["r"])
    first = min(y["id"] for y in bd[(x["n"], x["s"])])
    return [y for y in bd[t] if y["kind"] == "tgt" and y["r"] == x["r"] and y["j"] == first and y["d"] == x["b"]][0]


def kernel(vs):
    """The combinations of the indexed vectors vs that vanish, as bit masks over vs's indices."""
    pairs, ker = {}, []
    for i, v in enumerate(vs):
        x = 1 << i
        while v:
            p = v.bit_length() - 1
            if p not in pairs:
                break
            v ^= pairs[p][0]
            x ^= pairs[p][1]
        if v:
            pairs[v.bit_length() - 1] = (v, x)
        else:
            ker.append(x)
    return ker


def times(prod, b, v, dims):
    w = 0
    for i in range(dims.get(b, 0)):
        if (v >> i) & 1:
            w ^= prod.get((b[0], b[1], i), 0)
    return w


# ---------------------------------------------------------------- history

def line_diff(r, k, v, t, w, dims):
    return ('{"version":1,"action":{"AddDifferential":{"r":%d,"b":{"coords":[%d,%d]},"source":%s,"target":%s}}}'
            % (r, k[0], k[1], json.dumps(vec(v, dims[k])).replace(" ", ""),
               json.dumps(vec(w, dims.get(t, 0))).replace(" ", "")))


def line_perm(k, v, dims):
    return ('{"version":1,"action":{"AddPermanentClass":{"b":{"coords":[%d,%d]},"class":%s}}}'
            % (k[0], k[1], json.dumps(vec(v, dims[k])).replace(" ", "")))


def by_name(k, t, r, alive, srcs, Z, B, zk, bk, dims, bd, dic, prods, notes):
    """The chart's d_r out of k (several classes alive there or at the target) on the chart's
    own classes, translated into DIR's basis by the dictionary: (lines, the classes of Z_r
    whose d_r vanishes, the images), or None where it cannot be done.
    Each d_r source x: d_r(T x) = T(its target).  The classes alive past page r, where T knows
    them all: d_r(T x) = 0 (entered permanent where the chart says so).  Where it does not, the
    classes of Z_r(k) that some h of h0, h1, h2 sends into B_r(k + h), when h is injective from
    E_r(t) to E_r(t + h): d_r(v) lies in the kernel of h there (h d_r(v) = d_r(h v) = 0), so
    d_r(v) = 0; if those span as many classes modulo B_r as the chart has classes alive past
    page r, they are the kernel of d_r (entered permanent where every one of those is)."""
    if t not in Z or not zk[k] or not zk[t] or not bk[t]:
        return None
    lines, zvs, tvs = [], [], []
    for x in srcs:
        v, w = dic.circle(x), dic.circle(target_of(bd, x))
        if v is None or w is None:
            return None
        if reduce(v, Z[k]) or reduce(w, Z[t]) or not reduce(w, B[t]):
            die("(%d,%d): the chart's d%d from class %d to class %d does not lie on DIR's E%d (translated %s -> %s)" %
                (k[0], k[1], r, x["id"], target_of(bd, x)["id"], r, bin(v), bin(w)), 1)
        lines.append(line_diff(r, k, v, t, w, dims))
        tvs.append(w)
    rest = [x for x in alive if x not in srcs]
    tr = [dic.circle(x) for x in rest]
    how = "by name"
    if all(v is not None for v in tr):
        for x, v in zip(rest, tr):
            if reduce(v, Z[k]):
                die("(%d,%d): the chart's class %d is not on DIR's E%d" % (k[0], k[1], x["id"], r), 1)
            zvs.append(v)
            lines.append(line_perm(k, v, dims) if x["kind"] == "perm" else line_diff(r, k, v, t, 0, dims))
    else:
        ker = dict(B[k])
        zs = [Z[k][q] for q in sorted(Z[k])]
        hs = []
        for h in ("h0", "h1", "h2"):
            if h not in prods:
                continue
            hb, ht = prods[h]
            kh, th = (k[0] + hb[0], k[1] + hb[1]), (t[0] + hb[0], t[1] + hb[1])
            if kh not in B or th not in B or not bk[kh] or not bk[th] or not zk[th]:
                continue
            ct = complement(Z[t], B[t])
            if len(span(reduce(times(ht, t, w, dims), B[th]) for w in ct)) != len(ct):
                continue          # h not injective on E_r(t)
            for m in kernel([reduce(times(ht, k, z, dims), B[kh]) for z in zs]):
                v = 0
                for i, z in enumerate(zs):
                    if (m >> i) & 1:
                        v ^= z
                add(ker, v)
            hs.append(h)
        kv = complement(ker, B[k])
        if len(kv) != len(rest):
            return None
        zvs = kv
        allperm = all(x["kind"] == "perm" for x in rest)
        lines.extend(line_perm(k, v, dims) if allperm else line_diff(r, k, v, t, 0, dims) for v in kv)
        how = "by the kernel of %s (injective on E%d(%d,%d))" % ("+".join(hs), r, t[0], t[1])
    # the translated classes with B_r must be all of Z_r(k)
    if len(span(list(B[k].values()) + zvs + [dic.circle(x) if dic.circle(x) is not None else 0 for x in srcs])) != len(Z[k]):
        die("(%d,%d): the chart's classes alive on E%d do not span DIR's E%d there" % (k[0], k[1], r, r), 1)
    notes.append("(%d,%d): the chart's d%d out of it entered %s: %d facts" % (k[0], k[1], r, how, len(lines)))
    return lines, zvs, tvs


def translate(rows, bd, nmax, smax, dims, d2, dic=None, prods=None):
    """The history's lines, the notes, and the (n, s, r) of the chart's d_r not entered."""
    op = chart_open(bd)
    zu, cu = chart_until(bd)
    out = ['{"version":1,"action":{"Construct":{"algebra_name":"milnor","module_name":"S_2"}}}']
    notes = []
    unentered = []
    keys = sorted(k for k in dims if k[0] <= nmax and k[1] <= smax)
    for k in keys:
        if len(bd.get(k, [])) != dims[k]:
            die("E2(%d,%d): the chart has %d classes, DIR %d" % (k[0], k[1], len(bd.get(k, [])), dims[k]), 1)
    Z = {k: span(1 << i for i in range(dims[k])) for k in keys}
    B = {k: {} for k in keys}
    zk = {k: True for k in keys}       # Z_r known exactly (in DIR's basis)
    bk = {k: k[0] + 1 <= nmax for k in keys}   # B_r known: the sources in stem n + 1 are in the region
    perm = set()                       # bidegrees entered permanent
    # page 2: d2 as computed; the chart's d2 sources must match its rank
    for (n, s) in keys:
        t = (n - 1, s + 2)
        vs = [d2.get((n, s, i), 0) for i in range(dims[(n, s)])]
        src = [x for x in bd[(n, s)] if x["kind"] in ("src", "unknown") and x["r"] == 2 and x["l"] > 9800]
        if any(x["kind"] == "unknown" for x in src):
            notes.append("(%d,%d): the chart leaves d2 undetermined; extflow's d2 has rank %d there" %
                         (n, s, len(span(vs))))
        elif len(src) != len(span(vs)):
            die("d2 at (%d,%d): rank %d in DIR, %d in the chart" % (n, s, len(span(vs)), len(src)), 1)
        if t not in Z:                 # below the bottom stem: d2 = 0; above s_max: unknown
            if t[0] >= 0 and t[1] > smax:
                zk[(n, s)] = False
            continue
        Z[(n, s)] = span(kernel(vs))   # kernel of d2 on E2(n,s)
        for v in vs:
            add(B[t], v)
    rmax = smax + 2
    for r in range(3, rmax + 1):
        Zn = {k: dict(v) for k, v in Z.items()}
        Bn = {k: dict(v) for k, v in B.items()}
        zkn, bkn = dict(zk), dict(bk)
        for (n, s) in keys:
            k, t = (n, s), (n - 1, s + r)
            alive = [x for x in bd[k] if x["death"] >= r]
            m = len(complement(Z[k], B[k]))
            if r >= zu.get(k, INF):        # the chart does not know d_r there: enter nothing
                zkn[k] = False
                if t in keys:
                    bkn[t] = False
                continue
            if zk[k] and bk[k] and r <= cu.get(k, INF) and m != len(alive):
                die("E%d(%d,%d): %d classes in DIR's pages, %d in the chart's" % (r, n, s, m, len(alive)), 1)
            if not zk[k]:
                if t in keys:
                    bkn[t] = False
                continue
            srcs = [x for x in alive if x["kind"] == "src" and x["r"] == r]
            later = [x for x in alive if x["l"] > 9800 and x["r"] > r]
            cs = complement(Z[k], B[k])
            if not srcs:
                if not cs:
                    continue
                if not later:
                    if k not in perm:
                        perm.add(k)
                        for v in cs:
                            out.append('{"version":1,"action":{"AddPermanentClass":{"b":{"coords":[%d,%d]},"class":%s}}}'
                                       % (n, s, json.dumps(vec(v, dims[k])).replace(" ", "")))
                    continue
                if dims.get(t, 0) == 0:
                    continue
                for v in cs:
                    out.append('{"version":1,"action":{"AddDifferential":{"r":%d,"b":{"coords":[%d,%d]},"source":%s,"target":%s}}}'
                               % (r, n, s, json.dumps(vec(v, dims[k])).replace(" ", ""),
                                  json.dumps([0] * dims[t]).replace(" ", "")))
                continue
            # a d_r out of k
            ok = (len(cs) == 1 and len(srcs) == 1 and t in keys and zk[t])
            if ok:
                ct = complement(Z[t], B[t])
                ok = len(ct) == 1
            if not ok and dic is not None:
                got = by_name(k, t, r, alive, srcs, Z, B, zk, bk, dims, bd, dic, prods or {}, notes)
                if got is not None:
                    lines, zvs, tvs = got
                    out.extend(lines)
                    if all(x["kind"] == "perm" for x in alive if x not in srcs):
                        perm.add(k)
                    Zn[k] = dict(B[k])
                    for v in zvs:
                        add(Zn[k], v)
                    for w in tvs:
                        add(Bn[t], w)
                    continue
            if not ok:
                notes.append("(%d,%d): the chart's d%d out of it is not entered (%d classes alive there on E%d, "
                             "%d at the target (%d,%d)); left to the Leibniz rule" %
                             (n, s, r, len(cs), r, len([y for y in bd.get(t, []) if y["death"] >= r]), t[0], t[1]))
                unentered.append((n, s, r))
                zkn[k] = False
                if t in keys:
                    bkn[t] = False
                continue
            v, w = cs[0], ct[0]
            out.append('{"version":1,"action":{"AddDifferential":{"r":%d,"b":{"coords":[%d,%d]},"source":%s,"target":%s}}}'
                       % (r, n, s, json.dumps(vec(v, dims[k])).replace(" ", ""),
                          json.dumps(vec(w, dims[t])).replace(" ", "")))
            Zn[k] = dict(B[k])
            add(Bn[t], w)
        Z, B, zk, bk = Zn, Bn, zkn, bkn
    for k, why in sorted(op.items()):
        if k[0] <= nmax:
            notes.append("(%d,%d): open in the chart: %s" % (k[0], k[1], why))
    return out, notes, unentered


def dictionary(rows, bd, dims, d, basis):
    """The dictionary of BASIS (None without) and DIR's product tables."""
    prods = read_products(d, dims)
    if basis is None:
        return None, prods
    gens, mono, deg = read_basis(basis, rows)
    return Dictionary(bd, dims, gens, mono, deg, prods), prods


def type_name(g):
    """A generator's name as a product type: h_3 -> h3, P^2h_1 -> P2h1, (\\Deltah_1h_3) -> Deltah1h3."""
    return "".join(c for c in g if c.isalnum())


def product_types(rows, bd, dims, basis, nmax):
    """AddProductType lines (permanent) for the chart's generators other than h0, h1, h2 that
    are alone in their bidegree (so DIR's one class there, whatever the basis) and that the
    chart says are permanent cycles (not boundaries): the products a topologist would use."""
    gens, mono, _ = read_basis(basis, rows)
    out = []
    for i in sorted(mono):
        m, x = mono[i], rows[i]
        k = (x["n"], x["s"])
        if (len(m) == 1 and m[0][1] == 1 and m[0][0] > 2 and x["kind"] == "perm" and k[0] <= nmax
                and len(bd[k]) == 1 and dims.get(k) == 1):
            out.append('{"version":1,"action":{"AddProductType":{"name":"%s","b":{"coords":[%d,%d]},"class":[1],'
                       '"permanent":true}}}' % (type_name(gens[m[0][0]]), k[0], k[1]))
    return out


def history(chart, d, basis=None):
    rows = read_chart(chart)
    bd = by_bidegree(rows)
    nmax, smax, dims, d2 = read_dir(d)
    check_pairs(rows, bd, nmax)
    dic, prods = dictionary(rows, bd, dims, d, basis)
    out, notes, _ = translate(rows, bd, nmax, smax, dims, d2, dic, prods)
    if basis is not None:
        out[1:1] = product_types(rows, bd, dims, basis, nmax)
    sys.stdout.write("\n".join(out) + "\n")
    for nline in notes:
        sys.stderr.write("note: %s\n" % nline)
    diffs = [json.loads(o)["action"]["AddDifferential"] for o in out if '"AddDifferential"' in o]
    sys.stderr.write("ss_lin_chart: %d facts: %d product types, %d permanent, %d differentials (%d zero); %d notes\n" %
                     (len(out) - 1, sum('"AddProductType"' in o for o in out), sum('"AddPermanentClass"' in o for o in out), len(diffs),
                      sum(1 for f in diffs if not any(f["target"])), len(notes)))


# ---------------------------------------------------------------- einf, compare

def einf(chart, stem):
    ref, _ = chart_einf(by_bidegree(read_chart(chart)), stem)
    print("n,s,dim")
    for (n, s) in sorted(ref):
        print("%d,%d,%d" % (n, s, ref[(n, s)]))


def compare(chart, d, stem):
    rows = read_chart(chart)
    bd = by_bidegree(rows)
    nmax, smax, dims, d2 = read_dir(d)
    check_pairs(rows, bd, nmax)
    bad = []
    d2ok = d2open = 0
    for (n, s), k in sorted(dims.items()):
        if n > min(stem + 1, nmax) or s > smax:
            continue
        src = [x for x in bd.get((n, s), []) if x["l"] > 9800 and x["r"] == 2]
        if any(x["kind"] == "unknown" for x in src):
            d2open += 1
            continue
        if len(src) != d2_rank(dims, d2, n, s):
            bad.append("d2 rank at (%d,%d): %d, the chart %d" % (n, s, d2_rank(dims, d2, n, s), len(src)))
        else:
            d2ok += 1
    ref, op = chart_einf(bd, stem)
    got = {}
    try:
        for r in csv.DictReader(open(os.path.join(d, "ss", "pages.csv"))):
            if r["r"] == "inf":
                got[(int(r["n"]), int(r["s"]))] = int(r["dim"])
    except (OSError, ValueError, KeyError) as e:
        die("%s/ss/pages.csv: %s" % (d, e))
    both = [k for k in ref if k in got and k[1] <= smax]
    for k in both:
        if ref[k] != got[k]:
            bad.append("E_inf(%d,%d): ss %d, the chart %d" % (k[0], k[1], got[k], ref[k]))
    # where ss goes beyond the chart: its d2 is computed where the chart's is undetermined
    extra = sorted(k for k in got if k[0] <= stem and k in op)
    # where the chart settles E_inf and ss does not: a failure too (with the dictionary the
    # history has every d_r the chart knows, entered or by the Leibniz rule)
    missing = sorted(k for k in ref if k not in got and k[1] <= smax and dims.get(k, 0))
    for (n, s) in missing:
        bad.append("E_inf(%d,%d): the chart settles it (%d), ss does not" % (n, s, ref[(n, s)]))

    def some(ks):
        return (" (" + " ".join("(%d,%d)" % k for k in ks[:10]) + (" ..." if len(ks) > 10 else "") + ")") if ks else ""
    print("d2: %d bidegrees agree in rank (%d left open by the chart); E_inf: %d bidegrees settled by both agree, "
          "%d settled by the chart only%s, %d more by ss where the chart leaves them open%s; %d open in the chart; "
          "%d disagreements" %
          (d2ok, d2open, len(both) - sum(1 for k in both if ref[k] != got[k]), len(missing), some(missing),
           len(extra), some(extra), len([k for k in op if k[0] <= stem]), len(bad)))
    for b in bad[:20]:
        print("  " + b)
    return 1 if bad else 0


# ---------------------------------------------------------------- shorten

def is_entry(line):
    """A fact or a product type (not the Construct line)."""
    return any(a in line for a in ('"AddDifferential"', '"AddPermanentClass"', '"AddProductType"'))


def replay(ext, d, lines, opts):
    """extflow ss DIR over the lines: (DIR/ss/pages.csv, the closing summary), or (None, why)."""
    path = os.path.join(d, "ss-shorten.jsonl")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    p = subprocess.run([ext, "ss", d, "--history", path] + opts, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    os.unlink(path)
    if p.returncode:
        return None, p.stderr.strip()
    with open(os.path.join(d, "ss", "pages.csv")) as f:
        pages = f.read()
    return pages, p.stderr.strip().splitlines()[-1]


def shorten(full, d, opts):
    """The entries of FULL that are needed: each fact or product type, from the last to the
    first, is dropped when `extflow ss DIR OPTS` over the others still writes the same pages
    (every E_r and E_inf: the rest comes by the Leibniz rule).  Same pages, not only the same
    E_inf: a fact that decides a page only where E_inf stays open (stems 61, 62) is kept, so
    that what is known of each d_r stays what the full history says of it.  The kept lines keep
    their order."""
    ext = os.environ.get("EXTFLOW", "bin/extflow")
    try:
        lines = [l.rstrip("\n") for l in open(full) if l.strip()]
    except OSError as e:
        die("%s: %s" % (full, e.strerror))
    want, why = replay(ext, d, lines, opts)
    if want is None:
        die("%s does not replay: %s" % (full, why), 1)
    keep = list(range(len(lines)))
    for i in reversed(range(len(lines))):
        if not is_entry(lines[i]):
            continue
        trial = [j for j in keep if j != i]
        got, _ = replay(ext, d, [lines[j] for j in trial], opts)
        if got == want:
            keep = trial
    sys.stdout.write("\n".join(lines[j] for j in keep) + "\n")
    _, why = replay(ext, d, [lines[j] for j in keep], opts)
    sys.stderr.write("ss_lin_chart: %d of %d entries kept; %s\n" % (
        sum(1 for j in keep if is_entry(lines[j])), sum(1 for l in lines if is_entry(l)), why))


def main(argv):
    if argv[:1] == ["history"] and len(argv) in (3, 4):
        history(argv[1], argv[2], argv[3] if len(argv) == 4 else None)
        return 0
    if len(argv) == 3 and argv[0] == "einf":
        einf(argv[1], int(argv[2]))
        return 0
    if len(argv) == 4 and argv[0] == "compare":
        return compare(argv[1], argv[2], int(argv[3]))
    if argv[:1] == ["shorten"] and len(argv) >= 3:
        shorten(argv[1], argv[2], argv[3:])
        return 0
    die("usage: ss_lin_chart.py history CHART DIR [BASIS] | einf CHART STEM | compare CHART DIR STEM | shorten HISTORY DIR [SS-OPTIONS]")

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

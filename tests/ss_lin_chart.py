#!/usr/bin/env python3
"""A published Adams chart of the sphere as a test reference for `extflow ss` (docs/ss.md).

    python3 tests/ss_lin_chart.py history CHART DIR > HISTORY   # the chart's facts in DIR's basis
    python3 tests/ss_lin_chart.py einf CHART STEM               # n,s,dim where the chart settles E_inf
    python3 tests/ss_lin_chart.py compare CHART DIR STEM        # DIR's d2 and DIR/ss/pages.csv against it

CHART is tests/ref/ss/S0-lin-chart.txt (its header says what the columns mean and where they come
from): one row per class of E2(n, s) in the chart's own basis, with the page where it dies, as
the source or the target of which d_r.  DIR is an extflow resolution of S_2 with d2 computed.

The chart names its classes in its own basis (monomials in its generators), extflow in the basis
of its minimal resolution; no dictionary between the two is at hand.  So `history` enters only
facts that do not depend on the basis, computing the pages E_r = Z_r / B_r of DIR in DIR's basis
as it goes (d2 from d2.csv, then the facts it has entered; F_2 vectors are ints, bit i the
coefficient of x_(n,s,i)):
- at page r >= 3, a bidegree where none of the chart's classes still alive supports a d_r, now
  or later, holds only permanent cycles (a boundary is one too): every class of Z_r there is
  entered permanent (AddPermanentClass, a basis of Z_r modulo B_r);
- where none supports a d_r but one does on a later page: d_r = 0 on Z_r (AddDifferential with
  the zero target, a basis of Z_r modulo B_r), unless E2 is zero at the target;
- where the chart has one class alive at (n, s) on E_r, and it supports a d_r into a bidegree
  that also has one class alive on E_r, the differential is the only one possible between the
  two: d_r(v) = w, v and w any classes of Z_r outside B_r at either end;
- anything else (a d_r out of a page with several classes, so that which combination supports
  it depends on the basis) is left to the Leibniz rule along h0, h1 and h2 (extflow's default
  product types), and said on stderr, with where the chart itself leaves d_r undetermined.
Before each page it checks that DIR's E_r has as many classes as the chart's at every
bidegree it knows (d2 from DIR, so also the d2 ranks); a disagreement is an error, exit 1.

`einf` prints, for the stems <= STEM, the E_inf dimension of every bidegree the chart settles:
no class there with an undetermined d_r, and none that an undetermined d_r out of stem n + 1
could hit; E_inf is the number of its permanent classes that are no boundaries (level 9800 or
the unit).  `compare` checks DIR's computed d2 (its rank at every source against the chart's
number of d2 sources, where the chart knows them) and DIR/ss/pages.csv's inf rows against
`einf` at every bidegree both settle, prints one line saying how many agree, how many the
chart settles that ss does not (with the first few), and exits 1 on any disagreement.
Exit 2: bad input.
"""

import csv
import json
import os
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


# ---------------------------------------------------------------- history

def translate(rows, bd, nmax, smax, dims, d2):
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
        # kernel of d2 on E2(n,s): Gaussian elimination on (image | source) pairs
        pairs = {}
        kern = []
        for i, v in enumerate(vs):
            x = 1 << i
            while v:
                p = v.bit_length() - 1
                if p not in pairs:
                    break
                pv, px = pairs[p]
                v ^= pv
                x ^= px
            if v:
                pairs[v.bit_length() - 1] = (v, x)
            else:
                kern.append(x)
        Z[(n, s)] = span(kern)
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


def history(chart, d):
    rows = read_chart(chart)
    bd = by_bidegree(rows)
    nmax, smax, dims, d2 = read_dir(d)
    check_pairs(rows, bd, nmax)
    out, notes, _ = translate(rows, bd, nmax, smax, dims, d2)
    sys.stdout.write("\n".join(out) + "\n")
    for nline in notes:
        sys.stderr.write("note: %s\n" % nline)
    diffs = [json.loads(o)["action"]["AddDifferential"] for o in out if '"AddDifferential"' in o]
    sys.stderr.write("ss_lin_chart: %d facts: %d permanent, %d differentials (%d zero); %d notes\n" %
                     (len(out) - 1, sum('"AddPermanentClass"' in o for o in out), len(diffs),
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
    # where the chart settles E_inf and ss does not: each must come from a d_r of the chart that
    # the history could not enter (at (n0, s0): its own later pages, and the targets above it)
    _, _, unentered = translate(rows, bd, nmax, smax, dims, d2)
    missing = sorted(k for k in ref if k not in got and k[1] <= smax and dims.get(k, 0))
    for (n, s) in missing:
        if not any((n0 == n and s >= s0) or (n0 == n + 1 and s >= s0 + r0) for (n0, s0, r0) in unentered):
            bad.append("E_inf(%d,%d): the chart settles it (%d), ss does not, and no d_r the history "
                       "left out explains it" % (n, s, ref[(n, s)]))

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


def main(argv):
    if len(argv) >= 3 and argv[0] == "history" and len(argv) == 3:
        history(argv[1], argv[2])
        return 0
    if len(argv) == 3 and argv[0] == "einf":
        einf(argv[1], int(argv[2]))
        return 0
    if len(argv) == 4 and argv[0] == "compare":
        return compare(argv[1], argv[2], int(argv[3]))
    die("usage: ss_lin_chart.py history CHART DIR | einf CHART STEM | compare CHART DIR STEM")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

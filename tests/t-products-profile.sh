#!/bin/sh
# Products over a profile's module (ko over A(1), tmf2 over A(2); docs/products.md "Modules").
# A lift is a chain map of B-modules, so the unit must be F2 resolved over the same algebra B:
# a sphere resolved over A as the unit of tmf2 or ko (the case of issue 24, which failed with
# an internal error "not in the image of d_4") is refused with one line naming both algebras,
# before anything is written; ko and tmf2 are their own units. Checked: every product of
# basis classes of Ext_{A(1)}(F2, F2) through stem 20, s <= 12, against its known ring
# F2[h0, h1, a, b]/(h0 h1, h1^3, h1 a, a^2 + h0^2 b); over ko and tmf2, x·y = y·x,
# (x·y)·z = x·(y·z) and the lifts of h0, h1, h2 against the chart's lines (from the
# differentials); <h0, h1, h0> = h1^2 over A(1); Σ^2 F2 over A(1) with ko as its unit.
. tests/lib.sh
plan 16
S="$TMP/S_2" K="$TMP/ko" T="$TMP/tmf2" K2="$TMP/ko2"
$EXTFLOW resolve --stem 30 --max-s 12 --out "$S" --quiet &&
    $EXTFLOW resolve --module ko --stem 20 --max-s 12 --out "$K" --quiet &&
    $EXTFLOW resolve --module tmf2 --stem 30 --max-s 10 --out "$T" --quiet &&
    $EXTFLOW resolve --module 'ko[2]' --stem 20 --max-s 12 --out "$K2" --quiet || exit 1

listing() { (cd "$1" && find . -path ./.lock -prune -o -type f -print | sort | xargs md5sum); }
refused() {   # refused DESCRIPTION DIR PATTERN COMMAND ARGS...: exit 2, one line matching
    what=$1 dir=$2 pat=$3   # PATTERN before "try", DIR's files unchanged
    shift 3
    listing "$dir" > "$TMP/before"
    $EXTFLOW "$@" 2>"$TMP/err"
    rc=$?
    listing "$dir" > "$TMP/after"
    [ $rc -eq 2 ] && [ "$(grep -vc '^$\|^try ' "$TMP/err")" -eq 1 ] && grep -q -- "$pat" "$TMP/err" &&
        cmp -s "$TMP/before" "$TMP/after"
    ok $? "$what: exit $rc, nothing written: $(head -1 "$TMP/err")"
}
refused "tmf2 with a sphere over A as unit" "$T" "over A,.*over A(2)" products "$T" --unit "$S" --class i=0,0
refused "ko with a sphere over A as unit" "$K" "over A,.*over A(1)" products "$K" --unit "$S" --class i=0,0
refused "massey over tmf2 with a sphere over A as unit" "$T" "over A,.*over A(2)" \
    massey "$T" --unit "$S" --a h1 --b h0
refused "ko with tmf2 as unit" "$K" "over A(2),.*over A(1)" products "$K" --unit "$T" --class i=0,0
refused "S_2 with ko as unit" "$S" "over A(1),.*over A:" products "$S" --unit "$K" --class h1
refused "ko[2] with a sphere over A as unit" "$K2" "over A,.*over A(1)" products "$K2" --unit "$S" --class i=2,0
refused "ko[2] (not a unit) without --unit" "$K2" "F2 over A(1)" products "$K2" --class i=2,0

# Ext_{A(1)}: every basis class through stem 12, s <= 6 lifted over ko's own resolution
args=$(awk -F, 'NR > 1 && $2 <= 12 && $1 <= 6 { for (i = 0; i < $3; i++) {
        v = ""; for (k = 0; k < $3; k++) v = v (k == i ? 1 : 0)
        printf " --class x_%d_%d_%d=%d,%d,%s", $2, $1, i, $2, $1, v } }' "$K/ext.csv")
$EXTFLOW products "$K" $args --quiet && [ -s "$K/products.csv" ] && [ ! -e "$K/module-products.csv" ]
ok $? "ko is its own unit: $(echo $args | wc -w | awk '{ print $1 / 2 }') classes lifted, table products.csv"
python3 - "$K/ext.csv" "$K/products.csv" 20 12 > "$TMP/a1" <<'PY'
import sys
# Ext_{A(1)}(F2, F2) = F2[h0, h1, a, b]/(h0 h1, h1^3, h1 a, a^2 + h0^2 b), a at (n, s) = (4, 3),
# b at (8, 4): F2-basis b^k m, m one of h0^i, h1, h1^2, a h0^i; a monomial is (k, kind, i)
def bideg(m):
    k, kind, i = m
    n, s = {"h0": (0, i), "h1": (1, 1), "h11": (2, 2), "a": (4, 3 + i)}[kind]
    return n + 8 * k, s + 4 * k
ORDER = ["h0", "h1", "h11", "a"]
def mul(x, y):
    (k1, c1, i1), (k2, c2, i2) = sorted([x, y], key=lambda m: ORDER.index(m[1]))
    k = k1 + k2
    if c1 == "h0":
        if c2 in ("h0", "a"):
            return (k, c2, i1 + i2)
        return (k, c2, 0) if i1 == 0 else None        # h0 h1 = 0
    if c1 == "h1":
        return (k, "h11", 0) if c2 == "h1" else None  # h1^3 = 0, h1 a = 0
    if c1 == "h11":
        return None
    return (k + 1, "h0", i1 + i2 + 2)                 # a^2 = h0^2 b
ext, N, S = sys.argv[1], int(sys.argv[3]), int(sys.argv[4])
dims = {}
for line in open(ext).readlines()[1:]:
    s, n, d = map(int, line.split(","))
    dims[(n, s)] = d
mono = {}
for k in range(N // 8 + 1):
    for kind in ORDER:
        for i in range(S + 1 if kind in ("h0", "a") else 1):
            b = bideg((k, kind, i))
            if b[0] <= N and b[1] <= S:
                mono[b] = (k, kind, i)
bad = [] if dims == {b: 1 for b in mono} else ["ext.csv is not the ring's dimensions"]
got, names = {}, set()
for line in open(sys.argv[2]).readlines()[1:]:
    name, nn, ns, n, s, i, k = line.strip().split(",")
    names.add((int(nn), int(ns)))
    got.setdefault((int(nn), int(ns)), {})[(int(n), int(s))] = int(k)
count = 0
for u in sorted(names):
    for x in sorted(mono):
        p = (u[0] + x[0], u[1] + x[1])
        if p[0] > N or p[1] > S:
            continue
        count += 1
        want, have = mul(mono[u], mono[x]), got.get(u, {}).get(x)
        if (want is None) != (have is None) or (want is not None and (bideg(want) != p or have != 0)):
            bad.append("%s * %s: the ring says %s, the table %s" % (u, x, want, have))
print("\n".join(bad[:3]) if bad else "%d products of %d classes" % (count, len(names)))
sys.exit(1 if bad or count < 100 else 0)
PY
ok $? "Ext_A(1): the products equal F2[h0,h1,a,b]/(h0h1, h1^3, h1a, a^2 + h0^2 b)'s ($(cat "$TMP/a1"))"

# x·y = y·x, (x·y)·z = x·(y·z), and the lifts of h0, h1, h2 are the chart's lines
cat > "$TMP/ring.py" <<'PY'
import json, sys
csv, js, N, S = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
tab, lifted = {}, set()
for line in open(csv).readlines()[1:]:
    name, nn, ns, n, s, i, k = line.strip().split(",")
    u = tuple(map(int, name[2:].split("_")))
    lifted.add(u)
    tab.setdefault(u, {}).setdefault((int(n), int(s), int(i)), set()).add(int(k))
def inside(*cls):
    return sum(c[0] for c in cls) <= N and sum(c[1] for c in cls) <= S
def times(u, vec, n, s):   # u · (the vector vec over the basis at (n, s))
    out = set()
    for k in vec:
        out ^= tab[u].get((n, s, k), set())
    return out
bad, comm, assoc, nonzero = [], 0, 0, 0
L = sorted(lifted)
for x in L:
    for y in L:
        if not inside(x, y):
            continue
        comm += 1
        nonzero += bool(tab[x].get(y))
        if tab[x].get(y, set()) != tab[y].get(x, set()):
            bad.append("%s*%s = %s but %s*%s = %s" % (x, y, tab[x].get(y), y, x, tab[y].get(x)))
        for z in L:
            if not inside(x, y, z):
                continue
            assoc += 1
            lhs = times(z, tab[x].get(y, set()), x[0] + y[0], x[1] + y[1])
            rhs = times(x, tab[y].get(z, set()), y[0] + z[0], y[1] + z[1])
            if lhs != rhs:
                bad.append("(%s*%s)*%s = %s but %s*(%s*%s) = %s" % (x, y, z, lhs, x, y, z, rhs))
lines = 0
for layer in json.load(open(js))["products"]:
    if layer["name"] not in ("h0", "h1", "h2"):
        continue
    j = int(layer["name"][1])
    want = {tuple(p) for p in layer["pairs"]}
    got = {(n, s, i, k) for (n, s, i), ks in tab.get(((1 << j) - 1, 1, 0), {}).items() for k in ks}
    lines += len(want)
    if got != want:
        bad.append("h%d: the lift gives %d pairs, the chart %d" % (j, len(got), len(want)))
print("\n".join(bad[:3]) if bad else "%d pairs commute (%d non-zero), %d triples associate, %d pairs of h_i lines"
      % (comm, nonzero, assoc, lines))
sys.exit(1 if bad or not lines or not nonzero else 0)
PY
$EXTFLOW export "$K" --json --out "$TMP/ko.json" && python3 "$TMP/ring.py" "$K/products.csv" "$TMP/ko.json" 20 12 > "$TMP/r"
ok $? "ko: $(cat "$TMP/r")"

args=$(awk -F, 'NR > 1 && $2 <= 15 && $1 <= 6 { for (i = 0; i < $3; i++) {
        v = ""; for (k = 0; k < $3; k++) v = v (k == i ? 1 : 0)
        printf " --class x_%d_%d_%d=%d,%d,%s", $2, $1, i, $2, $1, v } }' "$T/ext.csv")
$EXTFLOW products "$T" $args --quiet
ok $? "tmf2 is its own unit: $(echo $args | wc -w | awk '{ print $1 / 2 }') classes lifted"
$EXTFLOW export "$T" --json --out "$TMP/tmf2.json" && python3 "$TMP/ring.py" "$T/products.csv" "$TMP/tmf2.json" 30 10 > "$TMP/r"
ok $? "tmf2: $(cat "$TMP/r")"
# Ext_{A(2)}: h1·h1^2 = h0^2·h2 = x_(3,3) (non-zero), h1·c0 = x_(9,4); h0·h1 = 0, h1·h2 = 0
grep -q '^x_1_1_0,1,1,2,2,0,0$' "$T/products.csv" && grep -q '^x_0_2_0,0,2,3,1,0,0$' "$T/products.csv" &&
    grep -q '^x_1_1_0,1,1,8,3,0,0$' "$T/products.csv" && ! grep -q '^x_0_1_0,0,1,1,1,' "$T/products.csv" &&
    ! grep -q '^x_1_1_0,1,1,3,1,' "$T/products.csv"
ok $? "tmf2: h1^3 = h0^2 h2 != 0, h1 c0 != 0, h0 h1 = 0, h1 h2 = 0"

# naming DIR itself as its unit is the same as no --unit
cp "$K/products.csv" "$TMP/ko-products.csv"
$EXTFLOW products "$K" --unit "$K" $(awk -F, 'NR > 1 && $2 <= 12 && $1 <= 6 {
        printf " --class x_%d_%d_0=%d,%d", $2, $1, $2, $1 }' "$K/ext.csv") --quiet &&
    cmp -s "$K/products.csv" "$TMP/ko-products.csv"
ok $? "products ko --unit ko: the same table"

# Massey products over A(1): <h0, h1, h0> = h1^2 (no indeterminacy)
$EXTFLOW massey "$K" --a h0 --b h1 --quiet && grep -q '^h0,h1,0,1,1,2,2,1,,0$' "$K/massey-h0-h1.csv"
ok $? "ko: <h0, h1, h0> = h1^2"

# Σ^2 F2 over A(1), with ko as its unit: the bottom class times x is x moved up 2 stems
$EXTFLOW products "$K2" --unit "$K" --class i=2,0 --quiet &&
    awk -F, 'NR > 1 && $2 <= 18 { print "i,2,0," $2 "," $1 ",0,0" }' "$K/ext.csv" | sort > "$TMP/want" &&
    tail -n +2 "$K2/module-products.csv" | sort | cmp -s - "$TMP/want"
ok $? "ko[2] --unit ko: module-products.csv is ko's Ext moved 2 stems ($(wc -l < "$TMP/want") rows)"
done_testing

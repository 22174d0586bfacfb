#!/bin/sh
# extflow products at an odd prime (issue #27 item 5; docs/products.md "Odd primes"):
# products.csv with its coefficient column equal, row for row, to an independent naive lift
# (tests/lift_p_ref.py: chain maps from the differentials, A_p from tests/milnor_p_ref.py) for
# a0, h0, h1, b0 and two more classes of S_3 through stem 22, s <= 6, and a0, h0 of S_5 through
# stem 40, s <= 4; lift_hom-NAME.txt the same numbers in sseq's format; the bare names at p = 3
# and 5 (a0, h0, h1 at their bidegrees); a rerun loads its lifts and writes the same table, a
# damaged lift file is recomputed;
# runs merge by class name; bad arguments (a coordinate >= p, a0 at p = 2, a p = 2 table in
# a p = 3 directory, a unit over another profile, d2 at p = 3) refused: exit 2, one line;
# over the module Σ^4 F_3 with S_3 as unit, the class Σ^4 h0 multiplies as h0.
. tests/lib.sh
plan 13
export STARPU_SILENT=1
D="$TMP/S_3"
$EXTFLOW resolve --module S_3 --stem 22 --max-s 6 --out "$D" --quiet
CL="a0=0,1 h0=3,1 h1=11,1 b0=10,2 x7=7,2 y=11,2"
args=""
for c in $CL; do args="$args --class $c"; done
$EXTFLOW products "$D" $args --sseq-formats --quiet 2>"$TMP/err" &&
    python3 tests/lift_p_ref.py "$EXTFLOW" "$D" 22 6 $CL > "$TMP/ref" &&
    head -1 "$D/products.csv" | grep -qx 'name,name_n,name_s,n,s,i,k,c' &&
    tail -n +2 "$D/products.csv" | cmp -s - "$TMP/ref"
ok $? "S_3 (22, 6): products.csv equals the naive lift's $(wc -l < "$TMP/ref") rows ($(grep -c ',2$' "$TMP/ref") with coefficient 2) $(head -1 "$TMP/err")"

# lift_hom: the same coefficients, as sseq prints them (one line per class x_(n, s, i))
python3 - "$D" "$TMP/ref" <<'PY'
import re, sys
d, ref = sys.argv[1], sys.argv[2]
want = {}
for line in open(ref):
    name, n0, s0, n, s, j, k, c = line.strip().split(",")
    want[(name, int(n), int(s), int(j), int(k))] = int(c)
bad = lines = 0
for name in ["a0", "h0", "h1", "b0"]:
    for line in open("%s/lift_hom-%s.txt" % (d, name)):
        m = re.match(r"(\S+) x_\((\d+), (\d+), (\d+)\) = \[([0-9, ]*)\]$", line.strip())
        lines += 1
        if not m or m.group(1) != name:
            bad += 1
            continue
        n, s, j = int(m.group(2)), int(m.group(3)), int(m.group(4))
        vec = [int(v) for v in m.group(5).split(", ")] if m.group(5) else []
        for k, c in enumerate(vec):
            bad += c != want.get((name, n, s, j, k), 0)
sys.exit(1 if bad or lines < 50 else 0)
PY
ok $? "lift_hom-NAME.txt: sseq's format, the same coefficients"

# the bare names at p = 3: a0 (0, 1), h0 (3, 1), h1 (11, 1)
cp "$D/products.csv" "$TMP/first.csv"
$EXTFLOW products "$D" --class a0 --class h0 --class h1 --quiet &&
    grep -q '^a0,0,1,' "$D/products.csv" && grep -q '^h0,3,1,' "$D/products.csv" && grep -q '^h1,11,1,' "$D/products.csv" &&
    grep '^\(b0\|x7\|y\),' "$TMP/first.csv" > "$TMP/kept" && grep '^\(b0\|x7\|y\),' "$D/products.csv" | cmp -s - "$TMP/kept"
ok $? "bare a0, h0, h1 at p = 3 lie at (0, 1), (3, 1), (11, 1); the other classes' rows are kept"
$EXTFLOW products "$D" $args --quiet 2>"$TMP/err"
rc=$?
$EXTFLOW products "$D" $args 2>"$TMP/err"
[ $rc -eq 0 ] && grep -q ' 0 bidegrees computed' "$TMP/err" && cmp -s "$D/products.csv" "$TMP/first.csv" &&
    ls "$D/stages/lift" | grep -qx '7_2_1'
ok $? "a rerun loads its lifts (stage files at p = 3) and writes the same table ($(head -1 "$TMP/err"))"

f=$(ls "$D/stages/lift/10_2_1" | head -1)
printf 'damaged' | dd of="$D/stages/lift/10_2_1/$f" bs=1 seek=70 conv=notrunc 2>/dev/null
$EXTFLOW products "$D" $args 2>"$TMP/err"
[ $? -eq 0 ] && grep -q "10_2_1/$f.*recomputing" "$TMP/err" && cmp -s "$D/products.csv" "$TMP/first.csv"
ok $? "a damaged lift file at p = 3 is named, recomputed, and the table is the same ($(grep -c recomputing "$TMP/err") line)"

D5="$TMP/S_5"
$EXTFLOW resolve --module S_5 --stem 40 --max-s 4 --out "$D5" --quiet &&
    $EXTFLOW products "$D5" --class a0 --class h0 --quiet && grep -q '^h0,7,1,' "$D5/products.csv" &&
    python3 tests/lift_p_ref.py "$EXTFLOW" "$D5" 40 4 a0=0,1 h0=7,1 > "$TMP/ref5" &&
    tail -n +2 "$D5/products.csv" | cmp -s - "$TMP/ref5"
ok $? "S_5 (40, 4): bare h0 at (7, 1); products.csv equals the naive lift's $(wc -l < "$TMP/ref5") rows"

# the chart and the SQL export read the column c
$EXTFLOW export "$D" --json > "$TMP/chart.json" && $EXTFLOW export "$D" --sqlite "$TMP/p.db" &&
    python3 - "$TMP/chart.json" "$TMP/p.db" "$D/products.csv" <<'PY'
import json, sqlite3, sys
doc = json.load(open(sys.argv[1]))
rows = [tuple(int(v) if k else v for k, v in enumerate(l.strip().split(","))) for l in open(sys.argv[3]).readlines()[1:]]
db = sqlite3.connect(sys.argv[2]).execute("SELECT * FROM products").fetchall()
pairs = sum(len(p["pairs"]) for p in doc["products"] if p.get("source") == "products.csv")
sys.exit(0 if doc["ignored_rows"]["products.csv"] == 0 and pairs == len(rows) and sorted(db) == sorted(rows) else 1)
PY
ok $? "export --json draws every row of products.csv (none ignored); export --sqlite's products table has them with c"

refused() {     # refused DESCRIPTION PATTERN COMMAND...
    what=$1 pat=$2
    shift 2
    "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -le 2 ] && grep -q "$pat" "$TMP/err"
    ok $? "$what: exit $rc ($(head -1 "$TMP/err"))"
}
refused "a coordinate 3 at p = 3" "digits 0..2" $EXTFLOW products "$D" --class z=3,1,3
$EXTFLOW resolve --stem 10 --out "$TMP/S_2" --quiet
refused "a0 at p = 2" "h0..h7" $EXTFLOW products "$TMP/S_2" --class a0
cp "$D/products.csv" "$TMP/keep.csv"
printf 'name,name_n,name_s,n,s,i,k\n' > "$D/products.csv"
refused "a p = 2 table in a p = 3 directory" "header name,name_n,name_s,n,s,i,k,c" $EXTFLOW products "$D" --class h0
cp "$TMP/keep.csv" "$D/products.csv"
$EXTFLOW resolve --module C3 --stem 10 --max-s 4 --out "$TMP/C3" --quiet
refused "C3 (over a profile) with S_3 (over A_3) as unit" "another profile" $EXTFLOW products "$TMP/C3" --unit "$D" --class i=0,0
refused "d2 at p = 3" "p = 2 only" $EXTFLOW d2 "$D"

# a module at p = 3 with S_3 as its unit: Σ^4 F_3, whose class at (7, 1) is Σ^4 h0
# (internal degrees are the module's: through stem 22 its products reach the unit's stem 15)
$EXTFLOW resolve --module 'S_3[4]' --stem 22 --max-s 6 --out "$TMP/sh" --quiet &&
    $EXTFLOW products "$TMP/sh" --unit "$D" --class j=7,1 --quiet && $EXTFLOW products "$D" --class j=3,1 --quiet &&
    grep '^j,' "$TMP/sh/module-products.csv" | cut -d, -f4- > "$TMP/mod" &&
    grep '^j,' "$D/products.csv" | cut -d, -f4- | awk -F, '$1 <= 15' > "$TMP/own" && [ -s "$TMP/own" ] &&
    cmp -s "$TMP/mod" "$TMP/own" &&
    head -1 "$TMP/sh/module-products.csv" | grep -qx 'name,name_n,name_s,n,s,i,k,c'
ok $? "S_3[4] with --unit S_3: module-products.csv's rows of Σ^4 h0 are h0's rows in S_3 ($(wc -l < "$TMP/own"))"
done_testing

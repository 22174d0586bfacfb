#!/bin/sh
# extflow massey at an odd prime (docs/products.md, "Odd primes"), S_3 through stem 30, s <= 10:
# <h0, h0, h0> = ±b0 at (10, 2) with no indeterminacy (b0 is the 3-fold Massey product of h0,
# Ravenel's green book §3.2/4.4, the p = 3 case of <h0, ..., h0> with p entries); the
# symmetry <h0, h0, a0> = ±<a0, h0, h0>; the juggling a0·<h0, h0, h0> = ±<a0, h0, h0>·h0 (both
# non-zero, products from `extflow products`); the brackets through stem 12 equal a naive
# computation (tests/lift_p_ref.py --massey); sseq's text equal to the csv; export --sqlite
# reads the digits; a·b != 0 refused (exit 2, one line); over modules (S_3[4], Cα) with S_3 as the unit.
. tests/lib.sh
plan 9
export STARPU_SILENT=1
D="$TMP/S_3"
$EXTFLOW resolve --module S_3 --stem 30 --max-s 10 --out "$D" --quiet
$EXTFLOW massey "$D" --a h0 --b h0 --sseq-formats --quiet &&
    row=$(grep '^h0,h0,3,1,1,' "$D/massey-h0-h0.csv") &&
    echo "$row" | grep -Eq '^h0,h0,3,1,1,10,2,[12],,0$'
ok $? "<h0, h0, h0> = ±b0 at (10, 2), no indeterminacy ($row)"
$EXTFLOW massey "$D" --a a0 --b h0 --quiet &&
    v1=$(grep '^h0,h0,0,1,1,7,2,' "$D/massey-h0-h0.csv" | cut -d, -f8) &&
    v2=$(grep '^a0,h0,3,1,1,7,2,' "$D/massey-a0-h0.csv" | cut -d, -f8) &&
    [ -n "$v1" ] && [ -n "$v2" ] && [ "$v1" != 0 ] && [ "$v2" != 0 ]
ok $? "<h0, h0, a0> = ±<a0, h0, h0> at (7, 2), both non-zero ($v1, $v2)"
$EXTFLOW products "$D" --class a0 --class h0 --quiet &&
    python3 - "$D" <<'PY'
import sys
d = sys.argv[1]
prod = {}
for l in open(d + "/products.csv").readlines()[1:]:
    name, n0, s0, n, s, i, k, c = l.strip().split(",")
    prod[(name, int(n), int(s), int(i), int(k))] = int(c)
br = {}
for f in ("massey-h0-h0.csv", "massey-a0-h0.csv"):
    for l in open(d + "/" + f).readlines()[1:]:
        a, b, cn, cs, c, n, s, v, ind, z = l.strip().split(",")
        br[(a, int(cn), int(cs))] = (int(n), int(s), v)
n, s, v = br[("h0", 3, 1)]                                  # <h0, h0, h0> at (10, 2)
left = [sum(int(v[i]) * prod.get(("a0", n, s, i, k), 0) for i in range(len(v))) % 3 for k in range(1)]
n, s, v = br[("a0", 3, 1)]                                  # <a0, h0, h0> at (7, 2)
right = [sum(int(v[i]) * prod.get(("h0", n, s, i, k), 0) for i in range(len(v))) % 3 for k in range(1)]
print("# a0<h0,h0,h0> =", left, " <a0,h0,h0>h0 =", right)
sys.exit(0 if left[0] and right[0] and (left == right or [(-x) % 3 for x in left] == right) else 1)
PY
ok $? "juggling at (10, 3): a0·<h0, h0, h0> = ±<a0, h0, h0>·h0, non-zero"
python3 - "$D/massey-h0-h0.txt" "$D/massey-h0-h0.csv" <<'PY'
import re, sys
txt = []
for line in open(sys.argv[1]):
    m = re.match(r"<a, b, x_\((\d+), (\d+), \[([0-9, ]*)\]\)> = \[([0-9, ]*)\] \+ \{(.*)\}$", line.strip())
    txt.append((m.group(1), m.group(2), m.group(3).replace(", ", ""), m.group(4).replace(", ", "")))
csv = [tuple(l.split(",")[i] for i in (2, 3, 4, 7)) for l in open(sys.argv[2]).readlines()[1:] if l.strip().endswith(",0")]
sys.exit(0 if txt and txt == csv else 1)
PY
ok $? "massey-h0-h0.txt (sseq's format) holds the csv's brackets not containing 0"
$EXTFLOW export "$D" --sqlite "$TMP/m.db" && python3 - "$TMP/m.db" <<'PY'
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute("SELECT value FROM massey WHERE a = 'h0' AND c_n = 3 AND c_s = 1").fetchall()
sys.exit(0 if rows and rows[0][0] in ("1", "2") else 1)
PY
ok $? "export --sqlite reads the brackets' digits"
# against a naive bracket (tests/lift_p_ref.py --massey: f_a, f_b, f_c and the homotopy lifted
# in Python from the differentials, the representative reduced by the indeterminacy's RREF)
E="$TMP/small"
$EXTFLOW resolve --module S_3 --stem 20 --max-s 6 --out "$E" --quiet &&
    $EXTFLOW massey "$E" --a h0 --b h0 --quiet && $EXTFLOW massey "$E" --a a0 --b h0 --quiet &&
    python3 tests/lift_p_ref.py --massey 12 "$EXTFLOW" "$E" 20 6 h0=3,1 h0=3,1 > "$TMP/m1" &&
    python3 tests/lift_p_ref.py --massey 12 "$EXTFLOW" "$E" 20 6 a0=0,1 h0=3,1 > "$TMP/m2"
ok $? "<h0, h0, c> and <a0, h0, c> for c through stem 12 equal a naive computation ($(cat "$TMP/m1" "$TMP/m2" | tr '\n' ' '))"
$EXTFLOW massey "$D" --a a0 --b a0 >"$TMP/out" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "not zero" "$TMP/err" && [ "$(wc -l < "$TMP/err")" -le 2 ]
ok $? "a0·a0 != 0: refused, exit 2 ($(head -1 "$TMP/err"))"
# over a module (the same code as the sphere's, massey.c): S_3 moved up 4 degrees, with S_3 as
# its unit, has the sphere's brackets 4 stems up (those of the region it covers: stems <= 26, as
# the module needs the unit through its own top stem, 30); over Cα (the cone of α1, detected by h0) the
# bracket <h0, h0, ι> of the bottom class ι is defined (h0·ι = 0) and not zero: it is the class
# at (7, 1) that maps to h0 on the top cell
$EXTFLOW resolve --module 'S_3[4]' --stem 30 --max-s 10 --out "$TMP/sh" --quiet &&
    $EXTFLOW massey "$TMP/sh" --unit "$D" --a h0 --b h0 --quiet &&
    awk -F, -v OFS=, 'NR > 1 { $3 -= 4; $6 -= 4; print }' "$TMP/sh/massey-h0-h0.csv" > "$TMP/shifted" &&
    awk -F, 'NR > 1 && $6 <= 26' "$D/massey-h0-h0.csv" | cmp -s - "$TMP/shifted" && [ -s "$TMP/shifted" ]
ok $? "over the module S_3[4] (unit S_3): the sphere's <h0, h0, c> 4 stems up ($(wc -l < "$TMP/shifted") brackets)"
$EXTFLOW resolve --module Calpha --stem 30 --max-s 10 --out "$TMP/ca" --quiet &&
    $EXTFLOW massey "$TMP/ca" --unit "$D" --a h0 --b h0 --quiet && grep -Eq '^h0,h0,0,0,1,7,1,[12],,0$' "$TMP/ca/massey-h0-h0.csv"
ok $? "over Cα: <h0, h0, ι> = ±(the class at (7, 1)), no indeterminacy ($(grep '^h0,h0,0,0,' "$TMP/ca/massey-h0-h0.csv"))"
done_testing

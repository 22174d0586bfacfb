#!/bin/sh
# Products and Massey products over a module M: Ext(F2, F2) acting on Ext(M, F2), by lifting
# classes of Ext(M) into a resolution of S_2 (--unit, docs/products.md "Modules"). Checked
# against sseq: massey-C2-P and massey-Ceta-P (<h3, h0^4, c> = P(c) for c in Ext(C2), Ext(Ceta))
# and lift_hom-S_2-Cnu (the bottom class of Cnu times every class of S_2) byte for byte;
# filtration_one-C2 re-derived from the lifts of every basis class of Ext(C2) (stem 10, s < 5)
# through the command line; the lift files record their module (C2's are not read as S_2's);
# a shifted module (RP_-4^4) against its chart's h_i lines; bad arguments exit 2.
. tests/lib.sh
plan 14
P="$REF/products"
U="$TMP/S_2"
$EXTFLOW resolve --stem 26 --max-s 12 --out "$U" --quiet || exit 1

for m in C2 Ceta; do   # sseq's bases are those of the standard resolution
    D="$TMP/$m"
    $EXTFLOW resolve --algorithm standard --module $m --stem 26 --max-s 12 --out "$D" --quiet &&
        $EXTFLOW massey "$D" --unit "$U" --a h3 --b h0_4=0,4 --sseq-formats --quiet &&
        tail -n +2 "$P/massey-$m-P" | cmp -s - "$D/massey-h3-h0_4.txt"
    ok $? "$m: massey-h3-h0_4.txt equals sseq's massey-$m-P (26, 12) byte for byte"
done
# Nassau's bases of Ext(Ceta) differ from sseq's at some bidegrees: the brackets not containing
# 0 sit at the same bidegrees of c
D="$TMP/Ceta-nassau"
$EXTFLOW resolve --algorithm nassau --module Ceta --stem 26 --max-s 12 --out "$D" --quiet &&
    $EXTFLOW massey "$D" --unit "$U" --a h3 --b h0_4=0,4 --sseq-formats --quiet &&
    tail -n +2 "$P/massey-Ceta-P" | cut -d, -f1-2 > "$TMP/ref-bideg" &&
    cut -d, -f1-2 "$D/massey-h3-h0_4.txt" | cmp -s - "$TMP/ref-bideg"
ok $? "Ceta, Nassau: brackets not containing 0 at sseq's bidegrees ($(wc -l < "$TMP/ref-bideg"))"

D="$TMP/Cnu"
$EXTFLOW resolve --stem 15 --max-s 15 --out "$TMP/S15" --quiet &&
    $EXTFLOW resolve --module Cnu --stem 15 --max-s 15 --out "$D" --quiet &&
    $EXTFLOW products "$D" --unit "$TMP/S15" --class i=0,0 --sseq-formats --quiet &&
    tail -n +2 "$P/lift_hom-S_2-Cnu" | cmp -s - "$D/lift_hom-i.txt"
ok $? "Cnu: lift_hom-i.txt equals sseq's lift_hom-S_2-Cnu (15, 15) byte for byte"
[ -s "$D/module-products.csv" ] && [ ! -e "$D/products.csv" ]
ok $? "over a module the table is module-products.csv (products.csv stays the chart's)"
$EXTFLOW inspect "$D/stages/lift/0_0_1/1_2.zst" > "$TMP/insp" 2>&1 &&
    grep -q "module_id: $(sed -n 's/.*"module_id": *"\(0x[0-9a-f]*\)".*/\1/p' "$D/run.json")" "$TMP/insp"
ok $? "a lift file of Cnu carries Cnu's module_id ($(grep module_id "$TMP/insp"))"

# filtration_one-C2: every basis class of Ext(C2) through stem 10, s < 5, lifted into S_2 in
# one run; h_j·y is the coefficient row of y's lift at h_j's generator (module-products.csv)
D="$TMP/C2"
args=$(awk -F, 'NR > 1 && $2 <= 10 && $1 < 5 { for (i = 0; i < $3; i++) {
        v = ""; for (k = 0; k < $3; k++) v = v (k == i ? 1 : 0)
        printf " --class y_%d_%d_%d=%d,%d,%s", $2, $1, i, $2, $1, v } }' "$D/ext.csv")
$EXTFLOW products "$D" --unit "$U" $args --quiet
ok $? "C2: $(echo $args | wc -w | awk '{ print $1 / 2 }') basis classes of Ext(C2) lifted in one run"
python3 - "$D/ext.csv" "$D/module-products.csv" > "$TMP/f1" <<'PY'
import sys
dim = {}
for line in open(sys.argv[1]).readlines()[1:]:
    s, n, d = map(int, line.split(","))
    dim[(n, s)] = d
bits = set()
for line in open(sys.argv[2]).readlines()[1:]:
    name, _, _, n, s, i, k = line.strip().split(",")
    if int(s) == 1 and int(i) == 0:
        bits.add((name, int(n), int(k)))
for n in range(11):
    for s in range(5):
        for j in range(4):
            if n + (1 << j) - 1 > 10:
                break
            nz = dim.get((n + (1 << j) - 1, s + 1), 0)
            if not nz:
                continue
            for y in range(dim.get((n, s), 0)):
                v = ", ".join("1" if ("y_%d_%d_%d" % (n, s, y), (1 << j) - 1, k) in bits else "0" for k in range(nz))
                print("h_%d x_(%d, %d, %d) = [%s]" % (j, n, s, y, v))
PY
tail -n +2 "$P/filtration_one-C2" | cmp -s - "$TMP/f1"
ok $? "C2: h0..h3 products read off the lifts equal sseq's filtration_one-C2 (10, 5)"

# a module with a negative bottom (RP_-4^4, internal degrees shifted): every basis class of
# stem <= 6, s <= 3 lifted (arguments in the module's stems); the h0, h1, h2 products read off
# the lifts equal the chart's lines, which come from the differentials (export --json)
R="$TMP/RP"
$EXTFLOW resolve --module RP_-4_4 --stem 12 --max-s 6 --out "$R" --quiet &&
    args=$(awk -F, 'NR > 1 && $2 <= 6 && $1 <= 3 { for (i = 0; i < $3; i++) {
        v = ""; for (k = 0; k < $3; k++) v = v (k == i ? 1 : 0)
        printf " --class y%s%d_%d_%d=%d,%d,%s", $2 < 0 ? "m" : "_", $2 < 0 ? -$2 : $2, $1, i, $2, $1, v } }' "$R/ext.csv") &&
    $EXTFLOW products "$R" --unit "$U" $args --quiet && $EXTFLOW export "$R" --json --out "$TMP/rp.json" &&
    python3 - "$R/module-products.csv" "$TMP/rp.json" "$R/ext.csv" <<'PY'
import json, sys
lifted, got = set(), set()
for line in open(sys.argv[3]).readlines()[1:]:
    s, n, d = map(int, line.split(","))
    lifted |= {(n, s, i) for i in range(d) if n <= 6 and s <= 3}
for line in open(sys.argv[1]).readlines()[1:]:
    name, nn, ns, n, s, i, k = line.strip().split(",")
    for j in range(3):
        if (int(n), int(s), int(i)) == ((1 << j) - 1, 1, 0):
            got.add((j, int(nn), int(ns), int(name.rsplit("_", 1)[1]), int(k)))
want = set()
for layer in json.load(open(sys.argv[2]))["products"]:
    j = ["h0", "h1", "h2"].index(layer["name"]) if layer["name"] in ("h0", "h1", "h2") else None
    for n, s, i, k in layer["pairs"] if j is not None else []:
        if (n, s, i) in lifted and n + (1 << j) - 1 <= 12:
            want.add((j, n, s, i, k))
sys.exit(0 if want and got == want and any(n < 0 for _, n, _, _, _ in got) else 1)
PY
ok $? "RP_-4_4: h0, h1, h2 products of lifts equal the chart's lines, negative stems included"

# a lift of C2 is never read as one of S_2: h1's files from C2's directory put under S_2's own
# h1 lift are named as another module's and recomputed, and the products come out unchanged
$EXTFLOW products "$D" --unit "$U" --class h1=1,1 --quiet &&
    $EXTFLOW products "$U" --class h1 --quiet && cp "$U/products.csv" "$TMP/clean.csv" &&
    rm -rf "$U/stages/lift/1_1_1" && cp -r "$D/stages/lift/1_1_1" "$U/stages/lift/1_1_1" &&
    $EXTFLOW products "$U" --class h1 --quiet 2>"$TMP/err" && cmp -s "$TMP/clean.csv" "$U/products.csv" &&
    grep -q "module" "$TMP/err"
ok $? "C2's lift files of h1 under S_2's are refused and recomputed ($(grep -c . "$TMP/err") named: $(head -1 "$TMP/err" | cut -c1-120))"

usage() {   # usage DESCRIPTION COMMAND ARGS...: exit 2 and one line on stderr before "try"
    what=$1
    shift
    $EXTFLOW "$@" 2>"$TMP/err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(grep -vc '^$\|^try ' "$TMP/err")" -eq 1 ]
    ok $? "$what: exit $rc, $(head -1 "$TMP/err")"
}
usage "a module's DIR without --unit" massey "$D" --a h3 --b h0_4=0,4
usage "--unit that is not S_2" products "$D" --unit "$TMP/Ceta" --class h1
usage "--unit too small" massey "$D" --unit "$TMP/S15" --a h3 --b h0_4=0,4
usage "another S_2 as --unit of S_2's own DIR" products "$U" --unit "$TMP/S15" --class h1
done_testing

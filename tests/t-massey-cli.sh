#!/bin/sh
# extflow massey from the command line: sseq's massey-S_2-P byte for byte with --sseq-formats
# (both algorithms), massey-A-B.csv agreeing with it, a rerun reusing the lifts of a and b and
# giving the same table, a run without --sseq-formats removing the stale text, and bad
# arguments (a·b != 0, a class outside the region, a missing --b, s = 0) refused with one
# line and exit 2.
. tests/lib.sh
plan 9
P="$REF/products"

for alg in standard nassau; do
    D="$TMP/p-$alg"
    $EXTFLOW resolve --algorithm $alg --stem 26 --max-s 12 --out "$D" --quiet &&
        $EXTFLOW massey "$D" --a h3 --b h0_4=0,4 --sseq-formats --quiet &&
        tail -n +2 "$P/massey-S_2-P" | cmp -s - "$D/massey-h3-h0_4.txt"
    ok $? "$alg: massey-h3-h0_4.txt equals sseq's massey-S_2-P (26, 12) byte for byte"
done
D="$TMP/p-nassau"
# the csv's brackets not containing 0 are the text's lines
awk -F, 'NR > 1 && $10 == 0 { print $3, $4, $5, $8 }' "$D/massey-h3-h0_4.csv" > "$TMP/csv"
python3 - "$D/massey-h3-h0_4.txt" > "$TMP/txt" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    m = re.match(r"<a, b, x_\((\d+), (\d+), \[([0-9, ]*)\]\)> = \[([0-9, ]*)\] \+ \{\}$", line.strip())
    print(m.group(1), m.group(2), m.group(3).replace(", ", ""), m.group(4).replace(", ", ""))
PY
[ -s "$TMP/csv" ] && cmp -s "$TMP/csv" "$TMP/txt"
ok $? "massey-h3-h0_4.csv: its brackets not containing 0 are the text's lines ($(wc -l < "$TMP/csv"))"
cp "$D/massey-h3-h0_4.csv" "$TMP/first.csv"
cp "$D/massey-h3-h0_4.txt" "$TMP/first.txt"
ls "$D/stages/lift" > "$TMP/lifts"
$EXTFLOW massey "$D" --a h3 --b h0_4=0,4 --quiet && cmp -s "$TMP/first.csv" "$D/massey-h3-h0_4.csv" &&
    cmp -s "$TMP/first.txt" "$D/massey-h3-h0_4.txt"
ok $? "a rerun without --sseq-formats gives the same csv and keeps the text written before (rewritten, the same)"
grep -q '^7_1_1$' "$TMP/lifts" && grep -q '^0_4_1$' "$TMP/lifts"
ok $? "the lifts of a and b are kept as stage files ($(tr '\n' ' ' < "$TMP/lifts"))"

usage() {   # usage DESCRIPTION ARGS...: exit 2 and one line on stderr before "try"
    what=$1
    shift
    $EXTFLOW massey "$@" 2>"$TMP/err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(grep -vc '^$\|^try ' "$TMP/err")" -eq 1 ]
    ok $? "$what: exit $rc, $(head -1 "$TMP/err")"
}
usage "a·b != 0" "$D" --a h0 --b h0
usage "a class outside the region" "$D" --a h3 --b x=40,2
usage "no --b" "$D" --a h3
usage "s = 0" "$D" --a h3 --b one=0,0
done_testing

#!/bin/sh
# The sphere's E_inf through stem 60 against a published chart (docs/ss.md, "Against a
# published chart"). $REF/ss/S0-lin-chart.txt is Weinan Lin's machine-computed Adams chart of
# S0 as data: every class of E2 through stem 62 in its basis, with the d_r it supports or
# receives, or none (tests/ref/README.md says where it comes from). tests/ss_lin_chart.py
# turns it into a history in our basis, entering only what does not depend on the basis
# (bidegrees of permanent cycles, d_r = 0, a d_r between pages with one class at each end;
# the rest is left to the Leibniz rule along h0, h1, h2), kept as $REF/ss/S_2-stem60.jsonl.
# Over a resolution through stem 62 (s <= 33) with d2 computed: the converter's history is the
# kept one and every E_r it checks has the chart's number of classes; the chart's E_inf table
# is the kept $REF/ss/S0-lin-einf-stem60.csv; ss replays the history; the
# independent model tests/ss_check.py computes the same pages; at every bidegree of stems
# <= 60 where both settle E_inf they agree, every d2 rank is the chart's, and where the chart
# settles E_inf and ss does not, a d_r the history could not enter explains it; a chart with a
# class missing or a d_r without its target is refused.
. tests/lib.sh
plan 7
D="$TMP/s2"
C="$REF/ss/S0-lin-chart.txt"
H="$REF/ss/S_2-stem60.jsonl"
$EXTFLOW resolve --stem 62 --out "$D" --quiet && $EXTFLOW d2 "$D" --quiet
ok $? "resolve S_2 through stem 62 (s <= 33) and compute d2"
python3 tests/ss_lin_chart.py history "$C" "$D" > "$TMP/h.jsonl" 2> "$TMP/err" && cmp -s "$TMP/h.jsonl" "$H"
ok $? "the converter turns the chart into the kept history over this basis: $(tail -1 "$TMP/err")"
cmp -s "$TMP/h.jsonl" "$H" || diag "our basis or the converter changed: remake $H with" \
    "python3 tests/ss_lin_chart.py history $C DIR > $H (DIR: resolve --stem 62 and d2)"
$EXTFLOW ss "$D" --history "$H" 2> "$TMP/err"
ok $? "ss replays it: $(tail -1 "$TMP/err")"
python3 tests/ss_lin_chart.py einf "$C" 60 | cmp -s - "$REF/ss/S0-lin-einf-stem60.csv" &&
    python3 tests/ss_lin_chart.py compare "$C" "$D" 60 > "$TMP/cmp"
ok $? "d2 and E_inf through stem 60 agree with the chart's (kept as S0-lin-einf-stem60.csv): $(head -1 "$TMP/cmp")"
[ "$(wc -l < "$TMP/cmp")" -gt 1 ] && diag "$(cat "$TMP/cmp")"
python3 tests/ss_check.py "$D" "$H" > "$TMP/check" 2>&1
ok $? "every page equals the independent brute-force model's (tests/ss_check.py): $(tail -1 "$TMP/check")"
grep -v '^170 ' "$C" > "$TMP/c1.txt"
python3 tests/ss_lin_chart.py history "$TMP/c1.txt" "$D" > /dev/null 2> "$TMP/err"
[ $? -eq 1 ] && grep -q '^ss_lin_chart: E2(37,3): the chart has 0 classes, DIR 1$' "$TMP/err"
ok $? "a chart with a class missing is refused: $(cat "$TMP/err")"
sed 's/^46 14 5 0 3 39 0$/46 14 5 0 9800 0 -/' "$C" > "$TMP/c2.txt"
python3 tests/ss_lin_chart.py history "$TMP/c2.txt" "$D" > /dev/null 2> "$TMP/err"
[ $? -eq 1 ] && grep -q 'the d3 of class 39 at (15,2) has no target at (14,5)' "$TMP/err"
ok $? "a chart with a d_r without its target is refused: $(cat "$TMP/err")"
done_testing

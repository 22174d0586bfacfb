#!/bin/sh
# The sphere's E_inf through stem 60 against a published chart (docs/ss.md, "Against a
# published chart"). $REF/ss/S0-lin-chart.txt is Weinan Lin's machine-computed Adams chart of
# S0 as data: every class of E2 through stem 62 in his basis, with the d_r it supports or
# receives, or none; $REF/ss/S0-lin-basis.txt names his classes of t <= 44 as monomials in his
# generators (tests/ref/README.md says where both come from). tests/ss_lin_chart.py history
# turns the chart into a history in our basis: the facts that do not depend on the basis, and
# the d_r out of groups of several classes (stems 30-32) on the chart's own classes translated
# into our basis by a computed dictionary (products by h0, h1, h2, d0; an injective product
# where a class is no product), with the chart's permanent generators alone in their bidegree
# as product types. tests/ss_lin_chart.py shorten kept of it only what the Leibniz rule cannot
# give: $REF/ss/S_2-stem60.jsonl, the short history (ENTERED entries; ss propagates PROPAGATED
# facts from them).
# Over a resolution through stem 62 (s <= 33) with d2 computed: every line of the short
# history is a line of the converter's full one; ss replays it with the numbers above, to the
# full history's pages (every E_r and E_inf); at every bidegree of stems <= 60 where the chart
# settles E_inf (kept as $REF/ss/S0-lin-einf-stem60.csv) ss settles it to the same dimension,
# and every d2 rank is the chart's; the independent model tests/ss_check.py computes the same
# pages; every kept entry of a sample is needed (without it the pages change); a chart with a
# class missing or a d_r without its target is refused.
. tests/lib.sh
plan 10
ENTERED=110 PROPAGATED=340
D="$TMP/s2"
C="$REF/ss/S0-lin-chart.txt"
BA="$REF/ss/S0-lin-basis.txt"
H="$REF/ss/S_2-stem60.jsonl"
$EXTFLOW resolve --stem 62 --out "$D" --quiet && $EXTFLOW d2 "$D" --quiet &&
    $EXTFLOW products "$D" --class h0 --class h1 --class h2 --class d0=14,4 --quiet
ok $? "resolve S_2 through stem 62 (s <= 33), compute d2 and the products by h0, h1, h2, d0"
python3 tests/ss_lin_chart.py history "$C" "$D" "$BA" > "$TMP/full.jsonl" 2> "$TMP/err" &&
    grep -q '^note: (31,5): the chart.s d3 out of it entered by the kernel of h0 (injective on E3(30,8)): 2 facts$' "$TMP/err" &&
    grep -q '^note: (31,8): the chart.s d3 out of it entered by name: 2 facts$' "$TMP/err" &&
    grep -q '^note: (32,9): the chart.s d4 out of it entered by name: 1 facts$' "$TMP/err" &&
    sort "$TMP/full.jsonl" > "$TMP/full.sorted" && sort "$H" | comm -23 - "$TMP/full.sorted" > "$TMP/extra" &&
    [ ! -s "$TMP/extra" ] && [ "$(head -1 "$H")" = "$(head -1 "$TMP/full.jsonl")" ]
ok $? "the converter translates the chart (the d3/d4 at (31,5), (31,8), (32,9) on its own classes) and the short history is part of it: $(tail -1 "$TMP/err")"
[ -s "$TMP/extra" ] && diag "lines of $H the converter no longer writes (our basis or the converter changed: remake" \
    "$H with ss_lin_chart.py history, then shorten): $(head -3 "$TMP/extra")"
$EXTFLOW ss "$D" --history "$TMP/full.jsonl" --quiet && cp "$D/ss/pages.csv" "$TMP/pages-full"
ok $? "ss replays the full history: $(wc -l < "$TMP/full.jsonl") lines"
$EXTFLOW ss "$D" --history "$H" 2> "$TMP/err"
rc=$?
given=$(sed -n 's/.*: \([0-9]*\) facts given, \([0-9]*\) propagated.*/\1/p' "$TMP/err")
prop=$(sed -n 's/.*: \([0-9]*\) facts given, \([0-9]*\) propagated.*/\2/p' "$TMP/err")
entries=$(grep -c '"Add' "$H")
[ $rc -eq 0 ] && [ "$entries" -eq $ENTERED ] && [ "$prop" = $PROPAGATED ]
ok $? "ss replays the short history: $entries entries ($(grep -c AddProductType "$H") of them product types; ss: $given given), $prop facts propagated (stated: $ENTERED and $PROPAGATED)"
cmp -s "$D/ss/pages.csv" "$TMP/pages-full"
ok $? "the short history gives the full one's pages: every E_r, and E_inf settled in the same $(grep -c '^inf,' "$TMP/pages-full") bidegrees"
python3 tests/ss_lin_chart.py einf "$C" 60 | cmp -s - "$REF/ss/S0-lin-einf-stem60.csv" &&
    python3 tests/ss_lin_chart.py compare "$C" "$D" 60 > "$TMP/cmp"
ok $? "d2 and E_inf through stem 60 agree with the chart's everywhere the chart settles them (kept as S0-lin-einf-stem60.csv): $(head -1 "$TMP/cmp")"
[ "$(wc -l < "$TMP/cmp")" -gt 1 ] && diag "$(cat "$TMP/cmp")"
python3 tests/ss_check.py "$D" "$H" > "$TMP/check" 2>&1
ok $? "every page equals the independent brute-force model's (tests/ss_check.py): $(tail -1 "$TMP/check")"
# a sample of the kept entries (every 12th): without any one of them the pages change
grep -n '"Add' "$H" | awk -F: 'NR % 12 == 1 { print $1 }' > "$TMP/sample"
fail=0
while read -r no; do
    sed "${no}d" "$H" > "$TMP/less.jsonl"
    $EXTFLOW ss "$D" --history "$TMP/less.jsonl" --quiet || { fail=1; diag "ss failed without line $no of $H"; continue; }
    cmp -s "$D/ss/pages.csv" "$TMP/pages-full" && { fail=1; diag "line $no of $H is not needed"; }
done < "$TMP/sample"
[ $fail -eq 0 ]
ok $? "each of $(wc -l < "$TMP/sample") kept entries (every 12th) is needed: without it ss's pages change"
grep -v '^170 ' "$C" > "$TMP/c1.txt"
python3 tests/ss_lin_chart.py history "$TMP/c1.txt" "$D" > /dev/null 2> "$TMP/err"
[ $? -eq 1 ] && grep -q '^ss_lin_chart: E2(37,3): the chart has 0 classes, DIR 1$' "$TMP/err"
ok $? "a chart with a class missing is refused: $(cat "$TMP/err")"
sed 's/^46 14 5 0 3 39 0$/46 14 5 0 9800 0 -/' "$C" > "$TMP/c2.txt"
python3 tests/ss_lin_chart.py history "$TMP/c2.txt" "$D" > /dev/null 2> "$TMP/err"
[ $? -eq 1 ] && grep -q 'the d3 of class 39 at (15,2) has no target at (14,5)' "$TMP/err"
ok $? "a chart with a d_r without its target is refused: $(cat "$TMP/err")"
done_testing

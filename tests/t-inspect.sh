#!/bin/sh
# inspect round-trips a matrix it is given (pack text → stage file → inspect → same text),
# shows what a resolution step wrote, and refuses a damaged file cleanly.
. tests/lib.sh
plan 8
awk -v seed=${SEED:-7} 'BEGIN { srand(seed); for (i = 0; i < 37; i++) { r = ""; for (j = 0; j < 130; j++) r = r (rand() < 0.3 ? 1 : 0); print r } }' > "$TMP/m.txt"
$EXTFLOW pack "$TMP/m.txt" "$TMP/m.zst"
ok $? "pack a 37 x 130 text matrix into a stage file"
$EXTFLOW inspect "$TMP/m.zst" > "$TMP/out.txt"
ok $? "inspect it"
grep -E '^[01]+$' "$TMP/out.txt" | cmp -s - "$TMP/m.txt"
ok $? "inspect prints the same rows"
$EXTFLOW inspect --summary "$TMP/m.zst" | grep -q "37"
ok $? "inspect --summary shows the shape"
$EXTFLOW resolve --stem 8 --max-s 4 --out "$TMP/r" --quiet
$EXTFLOW inspect "$TMP/r/stages/differential/2_5.zst" > "$TMP/d.txt" &&
    grep -q "kind: differential" "$TMP/d.txt" && grep -Eq "^s: *2" "$TMP/d.txt"
ok $? "inspect a differential stage file of a resolution (header names kind and s)"
$EXTFLOW inspect "$TMP/r/stages/empty.log" | grep -q "^2,3,nassau,.*,yes$"
ok $? "inspect the journal of empty bidegrees: (2,3) had no generator"
head -c 20 "$TMP/m.zst" > "$TMP/cut.zst"
$EXTFLOW inspect "$TMP/cut.zst" >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "cut.zst" "$TMP/err"
ok $? "a truncated file is refused with exit 1 and a message naming it"
$EXTFLOW inspect "$TMP/none.zst" >/dev/null 2>&1
[ $? -eq 1 ]
ok $? "a missing file is refused with exit 1"
done_testing

#!/bin/sh
# inspect round-trips a matrix it is given (pack text → stage file → inspect → same text),
# shows what a resolution step wrote, and refuses a damaged file cleanly.
. tests/lib.sh
plan 12
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
# the kind of file comes from its first bytes, not its name
cp "$TMP/r/stages/empty.log" "$TMP/journal.zst"
$EXTFLOW inspect "$TMP/journal.zst" > "$TMP/j1.txt" && $EXTFLOW inspect "$TMP/r/stages/empty.log" > "$TMP/j2.txt" &&
    cmp -s "$TMP/j1.txt" "$TMP/j2.txt"
ok $? "a journal renamed journal.zst is still read as the journal"
records=$(( $(wc -c < "$TMP/r/stages/empty.log") / 32 ))
$EXTFLOW inspect --summary "$TMP/journal.zst" > "$TMP/js.txt" &&
    grep -qx "kind: journal" "$TMP/js.txt" && grep -qx "records: $records" "$TMP/js.txt" &&
    grep -qx "valid: $records" "$TMP/js.txt" && [ "$(wc -l < "$TMP/js.txt")" -lt 10 ]
ok $? "inspect --summary on the journal: kind and counts, not the records ($records records)"
mkdir -p "$TMP/fake/stages"
cp "$TMP/r/stages/differential/2_5.zst" "$TMP/fake/stages/empty.log"
$EXTFLOW inspect "$TMP/fake/stages/empty.log" | grep -q "kind: differential"
ok $? "a stage file named empty.log is read as a stage file"
printf 'hello, world\n' > "$TMP/text.zst"
$EXTFLOW inspect "$TMP/text.zst" >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "text.zst" "$TMP/err"
ok $? "a file that is neither is refused with exit 1 and one line ($(cat "$TMP/err"))"
head -c 20 "$TMP/m.zst" > "$TMP/cut.zst"
$EXTFLOW inspect "$TMP/cut.zst" >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "cut.zst" "$TMP/err"
ok $? "a truncated file is refused with exit 1 and a message naming it"
$EXTFLOW inspect "$TMP/none.zst" >/dev/null 2>&1
[ $? -eq 1 ]
ok $? "a missing file is refused with exit 1"
done_testing

#!/bin/sh
# resolve --keep-stages matrix,kernel also saves each step's matrix and its kernel; inspect reads
# them, verify recomputes and compares them; a default run creates no kernel/ or matrix/ folder.
. tests/lib.sh
plan 9
$EXTFLOW resolve --stem 10 --keep-stages matrix,kernel --out "$TMP/k" --quiet
ok $? "resolve --stem 10 --keep-stages matrix,kernel"
nm=$(ls "$TMP/k/stages/matrix" | wc -l); nk=$(ls "$TMP/k/stages/kernel" | wc -l)
[ "$nm" -gt 50 ] && [ "$nm" -eq "$nk" ] && [ -f "$TMP/k/stages/matrix/3_9.zst" ] && [ -f "$TMP/k/stages/kernel/0_0.zst" ]
ok $? "one matrix and one kernel file per step ($nm, $nk)"
$EXTFLOW inspect "$TMP/k/stages/matrix/3_9.zst" > "$TMP/m.txt" && grep -q "^kind: matrix$" "$TMP/m.txt" &&
    grep -q "^algorithm: nassau$" "$TMP/m.txt" && [ "$(grep -cE '^[01]+$' "$TMP/m.txt")" -eq "$(sed -n 's/^rows: //p' "$TMP/m.txt")" ]
ok $? "inspect reads a kept matrix (Nassau's zero-signature block at (3,9))"
$EXTFLOW inspect --summary "$TMP/k/stages/kernel/1_4.zst" | grep -q "^kind: kernel$"
ok $? "inspect reads a kept kernel"
$EXTFLOW verify "$TMP/k" > "$TMP/v" && grep -q "kept matrix/kernel files recomputed from the differentials, 0 disagree" "$TMP/v"
ok $? "verify recomputes every kept file and passes ($(head -1 "$TMP/v"))"
# a kept kernel whose content differs (one bit flipped, header intact) is named by verify
$EXTFLOW inspect "$TMP/k/stages/kernel/3_9.zst" | awk '/^[01]+$/ && !done { $0 = (substr($0, 1, 1) == "1" ? "0" : "1") substr($0, 2); done = 1 } { print }' > "$TMP/bad.txt"
$EXTFLOW pack "$TMP/bad.txt" "$TMP/k/stages/kernel/3_9.zst"
$EXTFLOW verify "$TMP/k" > "$TMP/v2"
[ $? -eq 1 ] && grep -q "^bad: .*kernel/3_9.zst: differs" "$TMP/v2"
ok $? "verify names a kept kernel that disagrees ($(grep "^bad:" "$TMP/v2" | head -1 | cut -c1-100))"
$EXTFLOW resolve --algorithm standard --stem 10 --keep-stages matrix --out "$TMP/s" --quiet &&
    [ -d "$TMP/s/stages/matrix" ] && [ ! -e "$TMP/s/stages/kernel" ] && $EXTFLOW verify "$TMP/s" >/dev/null
ok $? "standard algorithm, matrices only: no kernel folder, verify passes"
$EXTFLOW resolve --stem 10 --out "$TMP/d" --quiet && [ ! -e "$TMP/d/stages/kernel" ] && [ ! -e "$TMP/d/stages/matrix" ] &&
    same_outputs "$TMP/d" "$TMP/k"
ok $? "a default run creates no stages/kernel or stages/matrix, and its outputs are the same"
$EXTFLOW resolve --stem 10 --keep-stages matrix,bogus --out "$TMP/x" --quiet 2>/dev/null
[ $? -eq 2 ] && [ ! -e "$TMP/x" ]
ok $? "an unknown kind in --keep-stages is a usage error"
done_testing

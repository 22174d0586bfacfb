#!/bin/sh
# Damaged stage files are detected on load, named in a message, their bidegrees (and what
# depends on them) recomputed, and the outputs end identical to an undamaged run; `verify`
# finds each damage and passes once repaired. Also: files of another algorithm are refused.
. tests/lib.sh
plan 12
STEM=36
$EXTFLOW resolve --stem $STEM --out "$TMP/base" --quiet
ok $? "clean run through stem $STEM"
$EXTFLOW verify "$TMP/base" > "$TMP/v0"
ok $? "verify passes on the clean run ($(tail -1 "$TMP/v0"))"
cp -r "$TMP/base" "$TMP/d"
D="$TMP/d/stages/differential"
f_trunc=$D/5_20.zst f_flip=$D/3_15.zst f_swap=$D/7_30.zst f_junk=$D/4_12.zst f_magic=$D/9_40.zst
size=$(wc -c < "$f_trunc"); head -c $((size / 2)) "$f_trunc" > "$TMP/x" && mv "$TMP/x" "$f_trunc"
python3 -c '
import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[len(b) // 2] ^= 0x10; open(p, "wb").write(b)' "$f_flip"
cp "$D/2_10.zst" "$f_swap"
head -c 300 /dev/urandom > "$f_junk"
python3 -c '
import sys, subprocess
p = sys.argv[1]
raw = subprocess.run(["zstd", "-dc", p], capture_output=True).stdout if False else None
b = bytearray(open(p, "rb").read()); b[0] ^= 0xff; open(p, "wb").write(b)' "$f_magic"
$EXTFLOW verify "$TMP/d" > "$TMP/v1" 2>&1
[ $? -eq 1 ]
ok $? "verify fails on the damaged directory"
for f in "$f_trunc" "$f_flip" "$f_swap" "$f_junk" "$f_magic"; do :; done
n=0
for f in "$f_trunc" "$f_flip" "$f_swap" "$f_junk" "$f_magic"; do grep -q "$(basename "$f")" "$TMP/v1" && n=$((n + 1)); done
[ $n -eq 5 ]
ok $? "verify names all 5 damaged files ($n)"
$EXTFLOW resolve --stem $STEM --out "$TMP/d" 2>"$TMP/err" </dev/null
ok $? "resolve over the damaged directory exits 0"
n=0
for f in "$f_trunc" "$f_flip" "$f_swap" "$f_junk" "$f_magic"; do grep -q "$(basename "$f")" "$TMP/err" && n=$((n + 1)); done
[ $n -eq 5 ]
ok $? "each damaged file is named on stderr ($n of 5)"
same_outputs "$TMP/base" "$TMP/d"
ok $? "after repair: ext.csv and every stage file identical to the clean run"
$EXTFLOW verify "$TMP/d" >/dev/null
ok $? "verify passes after the repair"
# a corrupted ext.csv is caught by verify and rewritten by the next run
sed -i '5s/,[0-9]*$/,7/' "$TMP/d/ext.csv"
$EXTFLOW verify "$TMP/d" > "$TMP/v2"
[ $? -eq 1 ] && grep -q "ext.csv" "$TMP/v2"
ok $? "verify notices an edited ext.csv"
$EXTFLOW resolve --stem $STEM --out "$TMP/d" --quiet && cmp -s "$TMP/base/ext.csv" "$TMP/d/ext.csv"
ok $? "a rerun rewrites ext.csv"
# stage files of the other algorithm are refused and recomputed
$EXTFLOW resolve --algorithm standard --stem 20 --out "$TMP/std" --quiet
$EXTFLOW resolve --algorithm nassau --stem 20 --out "$TMP/std" 2>"$TMP/err2" </dev/null
grep -q "algorithm" "$TMP/err2"
ok $? "files of another algorithm are refused with a message ($(grep -c . "$TMP/err2") lines)"
$EXTFLOW resolve --algorithm nassau --stem 20 --out "$TMP/nas" --quiet && same_outputs "$TMP/nas" "$TMP/std"
ok $? "and the run ends as a clean Nassau run"
done_testing

#!/bin/sh
# Damaged stage files are detected on load, named in a message, their bidegrees (and what
# depends on them) recomputed, and the outputs end identical to an undamaged run; `verify`
# finds each damage and passes once repaired. Also: files of another algorithm are refused.
. tests/lib.sh
plan 15
STEM=36
$EXTFLOW resolve --stem $STEM --out "$TMP/base" --quiet
ok $? "clean run through stem $STEM"
$EXTFLOW verify "$TMP/base" > "$TMP/v0"
ok $? "verify passes on the clean run ($(tail -1 "$TMP/v0"))"
cp -r "$TMP/base" "$TMP/d"
D="$TMP/d/stages/differential"
# five different files with generators (bidegrees without any have no file: stages/empty.log)
set -- $(ls "$D" | grep -v '^0_' | sort -t_ -k2n | awk 'NR % 17 == 5' | head -5)
f_trunc=$D/$1 f_flip=$D/$2 f_swap=$D/$3 f_junk=$D/$4 f_magic=$D/$5
f_other=$(ls "$D" | grep '^1_' | head -1)
diag "damaged: $1 (truncated) $2 (bit flip) $3 (replaced by $f_other) $4 (junk) $5 (magic)"
size=$(wc -c < "$f_trunc"); head -c $((size / 2)) "$f_trunc" > "$TMP/x" && mv "$TMP/x" "$f_trunc"
python3 -c '
import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[len(b) // 2] ^= 0x10; open(p, "wb").write(b)' "$f_flip"
cp "$D/$f_other" "$f_swap"
head -c 300 /dev/urandom > "$f_junk"
python3 -c '
import sys, subprocess
p = sys.argv[1]
raw = subprocess.run(["zstd", "-dc", p], capture_output=True).stdout if False else None
b = bytearray(open(p, "rb").read()); b[0] ^= 0xff; open(p, "wb").write(b)' "$f_magic"
$EXTFLOW verify "$TMP/d" > "$TMP/v1" 2>&1
[ $? -eq 1 ]
ok $? "verify fails on the damaged directory"
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
# a damaged journal record (a bidegree without generators) is skipped and recomputed
J="$TMP/d/stages/empty.log"
python3 -c '
import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[32 * 40 + 9] ^= 0x01; open(p, "wb").write(b)' "$J"
$EXTFLOW verify "$TMP/d" > "$TMP/v3" 2>&1
[ $? -eq 1 ] && grep -q "empty.log" "$TMP/v3"
ok $? "verify reports a damaged journal record"
$EXTFLOW resolve --stem $STEM --out "$TMP/d" 2>"$TMP/err3" </dev/null && grep -q "empty.log" "$TMP/err3"
ok $? "resolve names the journal and recomputes the bidegree"
same_outputs "$TMP/base" "$TMP/d" && $EXTFLOW verify "$TMP/d" >/dev/null 2>&1
ok $? "outputs identical again, and verify passes (the skipped record stays, a valid one follows)"
# a stage file of the other algorithm (copied in by hand) is refused and recomputed
$EXTFLOW resolve --algorithm standard --stem 20 --out "$TMP/std" --quiet
$EXTFLOW resolve --algorithm nassau --stem 20 --out "$TMP/nas" --quiet
cp -r "$TMP/nas" "$TMP/mix"
f=$(ls "$TMP/std/stages/differential" | grep '^3_' | head -1)
cp "$TMP/std/stages/differential/$f" "$TMP/mix/stages/differential/$f"
$EXTFLOW resolve --algorithm nassau --stem 20 --out "$TMP/mix" 2>"$TMP/err2" </dev/null
grep -q "algorithm" "$TMP/err2"
ok $? "a file of another algorithm is refused with a message ($(grep -c . "$TMP/err2") lines)"
same_outputs "$TMP/nas" "$TMP/mix"
ok $? "and the run ends as a clean Nassau run"
done_testing

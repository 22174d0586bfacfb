#!/bin/sh
# DIR/run.json: another algorithm is refused and changes nothing; a smaller rerun keeps the
# larger complete region (ext.csv too); an interrupted extension leaves the last complete
# region; verify names a deleted stage file first and stays short; the closing line.
. tests/lib.sh
plan 14
sums() { (cd "$1" && md5sum stages/differential/* stages/empty.log) }
$EXTFLOW resolve --stem 30 --out "$TMP/a" 2>"$TMP/err" </dev/null
ok $? "a stem-30 run into a fresh directory"
grep -q '"algorithm": "nassau"' "$TMP/a/run.json" && grep -q '"stem": 30' "$TMP/a/run.json"
ok $? "run.json names the algorithm and the complete region"
[ "$(grep -c . "$TMP/err")" -eq 1 ] && grep -q "^extflow: S_2 to stem 30 (s <= 17), nassau: .* in .* s; table $TMP/a/ext.csv$" "$TMP/err"
ok $? "a non-terminal run ends with one summary line ($(cat "$TMP/err"))"
$EXTFLOW resolve --stem 10 --out "$TMP/q" --quiet 2>"$TMP/errq" </dev/null && [ ! -s "$TMP/errq" ]
ok $? "--quiet: no summary line"
sums "$TMP/a" > "$TMP/sum0"
$EXTFLOW resolve --algorithm standard --stem 30 --out "$TMP/a" 2>"$TMP/err" </dev/null
rc=$?
[ $rc -eq 2 ] && [ "$(grep -c . "$TMP/err")" -eq 1 ] && grep -q "nassau.*standard" "$TMP/err"
ok $? "standard into a nassau directory: exit 2, one line naming both ($(cat "$TMP/err"))"
sums "$TMP/a" | cmp -s - "$TMP/sum0"
ok $? "the refused run changed no stage file"
rm "$TMP/a/run.json"    # an interrupted first run (or an older version) has no manifest
$EXTFLOW resolve --algorithm standard --stem 30 --out "$TMP/a" 2>/dev/null </dev/null
[ $? -eq 2 ] && sums "$TMP/a" | cmp -s - "$TMP/sum0"
ok $? "without run.json the stage files' headers identify the resolution: refused, unchanged"
$EXTFLOW resolve --algorithm standard --stem 20 --out "$TMP/a" --force --quiet </dev/null &&
    grep -q '"algorithm": "standard"' "$TMP/a/run.json" && $EXTFLOW verify "$TMP/a" >/dev/null
ok $? "--force replaces it with a clean standard resolution"
# a smaller rerun
$EXTFLOW resolve --stem 40 --out "$TMP/b" --quiet </dev/null && cp "$TMP/b/ext.csv" "$TMP/e40"
$EXTFLOW resolve --stem 20 --out "$TMP/b" --quiet </dev/null && cmp -s "$TMP/b/ext.csv" "$TMP/e40" &&
    grep -q '"stem": 40' "$TMP/b/run.json"
ok $? "stem 40 then stem 20: ext.csv and run.json still cover stem 40"
$EXTFLOW verify "$TMP/b" > "$TMP/v" </dev/null
ok $? "verify passes after the smaller rerun ($(tail -1 "$TMP/v"))"
# an interrupted extension
$EXTFLOW resolve --stem 20 --out "$TMP/c" --quiet </dev/null && cp "$TMP/c/ext.csv" "$TMP/e20"
# killed by us and waited for (`timeout -s KILL` kills itself too and returns before the killed
# run has let go of DIR's lock, so the verify below found DIR "in use" now and then), once 500 of
# stem 100's ~1540 step files exist: a kill after a fixed 2 s could come after a quiet or fast
# machine had finished (stem 20 -> 100 is ~4 s of CPU here)
interrupt_after 500 KILL "$TMP/c/stages/differential" resolve --stem 100 --out "$TMP/c" --quiet
[ $rc -eq 137 ] && cmp -s "$TMP/c/ext.csv" "$TMP/e20" && grep -q '"stem": 20' "$TMP/c/run.json" && $EXTFLOW verify "$TMP/c" > "$TMP/v"
ok $? "killed extension 20 -> 100 (exit $rc, 137): ext.csv and run.json at stem 20, verify passes ($(tail -1 "$TMP/v"))"
# a deleted stage file is named first; the follow-on damage is one line
f=$(ls "$TMP/b/stages/differential" | grep '^4_' | head -1)
rm "$TMP/b/stages/differential/$f"
$EXTFLOW verify "$TMP/b" > "$TMP/v" </dev/null
[ $? -eq 1 ]
ok $? "verify fails once $f is deleted"
st=$(echo "$f" | sed 's/\.zst$//; s/_/,/')
head -3 "$TMP/v" | grep -q "missing: ($st)"
ok $? "and names ($st) in its first lines ($(head -1 "$TMP/v"))"
rm "$TMP/b/stages/differential/"1*
$EXTFLOW verify "$TMP/b" > "$TMP/v" </dev/null
[ $? -eq 1 ] && [ "$(wc -l < "$TMP/v")" -le 22 ] && grep -q "^\.\.\. and [0-9]* more" "$TMP/v"
ok $? "heavy damage: at most 22 lines, '... and N more' ($(wc -l < "$TMP/v") lines)"
done_testing

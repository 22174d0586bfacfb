#!/bin/sh
# verify (stages/out/verify.h): a differential changed in one bit, with a valid checksum, is found
# by the d∘d check and named; the report is the same on 1, 2 or 3 worker threads
# (STARPU_NCPU); a directory whose .lock another run holds is refused in one line, exit 4,
# before anything is checked; the progress line shows on a terminal only.
. tests/lib.sh
plan 9
$EXTFLOW resolve --stem 24 --out "$TMP/r" --quiet
$EXTFLOW verify "$TMP/r" > "$TMP/v0" 2> "$TMP/e0"
[ $? -eq 0 ] && [ ! -s "$TMP/e0" ] && tail -1 "$TMP/v0" | grep -q "0 problems: ok$"
ok $? "verify passes on a fresh stem-24 resolution, nothing on stderr off a terminal ($(tail -1 "$TMP/v0" | cut -c1-60)...)"
# flip the first bit of the last row of (3,12) and pack it again: the checksum is valid, the
# header the same, only d∘d can tell
cp -r "$TMP/r" "$TMP/d"
$EXTFLOW inspect "$TMP/r/stages/differential/3_12.zst" | sed -e '$s/^0/x/' -e '$s/^1/0/' -e '$s/^x/1/' > "$TMP/m.txt"
$EXTFLOW pack "$TMP/m.txt" "$TMP/d/stages/differential/3_12.zst" &&
    ! cmp -s "$TMP/r/stages/differential/3_12.zst" "$TMP/d/stages/differential/3_12.zst"
ok $? "a one-bit change of (3,12)'s differential, packed as a valid stage file"
$EXTFLOW verify "$TMP/d" > "$TMP/v1" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "^bad: (3,12) .*3_12.zst: d∘d != 0$" "$TMP/v1" && tail -1 "$TMP/v1" | grep -q "NOT OK$"
ok $? "verify names it: $(grep '(3,12)' "$TMP/v1" | cut -c1-40)... (exit $rc)"
# the same report on any number of workers, on a clean and on a damaged directory
same=0
for n in 1 2 3; do
    STARPU_NCPU=$n $EXTFLOW verify "$TMP/d" > "$TMP/w$n" 2>&1; echo "exit $?" >> "$TMP/w$n"
    STARPU_NCPU=$n $EXTFLOW verify "$TMP/r" > "$TMP/c$n" 2>&1; echo "exit $?" >> "$TMP/c$n"
    cmp -s "$TMP/w$n" "$TMP/w1" && cmp -s "$TMP/c$n" "$TMP/c1" || same=1
done
[ $same -eq 0 ] && [ "$(wc -l < "$TMP/w1")" -ge 3 ]
ok $? "STARPU_NCPU=1, 2, 3: the same report and exit status ($(wc -l < "$TMP/w1") lines damaged, $(wc -l < "$TMP/c1") clean)"
STARPU_NCPU=0 $EXTFLOW verify "$TMP/r" > /dev/null 2> "$TMP/e"
[ $? -eq 2 ] && [ "$(wc -l < "$TMP/e")" -eq 2 ]
ok $? "STARPU_NCPU=0 is a usage error, as for resolve ($(head -1 "$TMP/e" | cut -c1-60)...)"
# another run holds the directory: a resolve extending it to stem 120 (killed once seen)
cp -r "$TMP/r" "$TMP/l"
$EXTFLOW resolve --stem 120 --out "$TMP/l" --quiet > /dev/null 2>&1 &
pid=$!
i=0
while [ "$(cat "$TMP/l/.lock" 2>/dev/null)" != "$pid" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
$EXTFLOW verify "$TMP/l" > "$TMP/o" 2> "$TMP/e"
rc=$?
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
[ $rc -eq 4 ] && [ ! -s "$TMP/o" ] && [ "$(wc -l < "$TMP/e")" -eq 1 ] &&
    grep -q "^extflow: $TMP/l is in use by another extflow run (pid $pid)" "$TMP/e"
ok $? "verify while a resolve holds the directory: one line, exit $rc ($(cut -c1-70 "$TMP/e")...)"
# once it is gone, the directory verifies (the killed run left valid files and temporaries)
$EXTFLOW verify "$TMP/l" > "$TMP/o" 2>&1
ok $? "after that run is killed, verify passes ($(tail -1 "$TMP/o" | sed 's/.*; //'))"
# a directory without .lock: looking for a holder creates nothing
rm -f "$TMP/r/.lock"
$EXTFLOW verify "$TMP/r" > /dev/null && [ ! -e "$TMP/r/.lock" ]
ok $? "verify creates no .lock where there was none"
# the progress line, on a terminal (script(1) gives one), then the closing line as without it
if command -v script > /dev/null 2>&1; then
    script -qc "$EXTFLOW verify $TMP/r" /dev/null < /dev/null > "$TMP/tty" 2>&1
    tr '\r' '\n' < "$TMP/tty" | grep -q "^extflow: 0/[0-9]* bidegrees checked, ETA unknown" &&
        tr '\r' '\n' < "$TMP/tty" | grep -q "0 problems: ok"
    ok $? "on a terminal: the progress line ($(tr '\r' '\n' < "$TMP/tty" | grep -a -m1 'bidegrees checked' | cut -c1-50)), then the closing line"
else
    echo "ok 9 # skip no script(1) here"
    tap_n=9
fi
done_testing

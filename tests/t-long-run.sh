#!/bin/sh
# bench/long-run and bench/device-long, the scripts that cut a long resolve into calls (device
# calls last at most 10 minutes): calls stopped at their time limit and resumed until one
# finishes give the table of one uninterrupted run, with one log line a call; an unfinished
# run packed by device-long (PACK=1) and unpacked elsewhere (CKPT=) resumes to the same table,
# which ext-agree checks against the kept ones.
. tests/lib.sh
plan 6
export EXTFLOW
$EXTFLOW resolve --stem 80 --out "$TMP/direct" --quiet 2>/dev/null
# bench/long-run: its log beside DIR, not in it (extflow refuses a non-empty DIR of no run)
calls=0 rc=3
while [ $rc -eq 3 ] && [ $calls -lt 30 ]; do
    calls=$((calls + 1))
    bench/long-run "$TMP/lr" 80 1 >"$TMP/lr.out" 2>&1
    rc=$?
done
[ $rc -eq 0 ] && [ $calls -ge 2 ] && grep -q "^finished: stem 80 complete" "$TMP/lr.out"
ok $? "bench/long-run, 1 s a call: finished after $calls calls (exit $rc)"
[ "$(grep -vc '^#' "$TMP/lr.long-run/log")" -eq $calls ] && [ ! -e "$TMP/lr/long-run.log" ]
ok $? "one log line a call, in DIR.long-run/log beside the run"
cmp -s "$TMP/lr/ext.csv" "$TMP/direct/ext.csv" && diff -r "$TMP/lr/stages/differential" "$TMP/direct/stages/differential" >/dev/null
ok $? "the resumed run's table and differentials are the uninterrupted run's"
# bench/device-long: stopped and packed, unpacked into another folder, resumed
LONG_ROOT="$TMP/m1" OUT="$TMP/o1" PACK=1 DRAIN_S=0 bench/device-long 80 1 1 >"$TMP/dl1.out" 2>&1
ls "$TMP"/o1/ckpt-80.tar.part-* >/dev/null 2>&1 && ! grep -q "finished" "$TMP/m1/long-80.long-run/out"
ok $? "device-long with 1 s: stopped, packed ($(ls "$TMP"/o1/ckpt-80.tar.part-* 2>/dev/null | wc -l) part)"
mkdir "$TMP/ckpt" && cp "$TMP"/o1/ckpt-80.tar.part-* "$TMP/ckpt/"
LONG_ROOT="$TMP/m2" OUT="$TMP/o2" CKPT="$TMP/ckpt" DRAIN_S=0 bench/device-long 80 2 600 >"$TMP/dl2.out" 2>&1
grep -q "ext-agree exit 0" "$TMP/o2/report-2.txt" && [ "$(grep -vc '^#' "$TMP/m2/long-80.long-run/log")" -eq 2 ]
ok $? "unpacked elsewhere and resumed: finished, the call before it in its log, ext-agree clean"
cmp -s "$TMP/o2/ext.csv" "$TMP/direct/ext.csv"
ok $? "its table is the uninterrupted run's"
done_testing

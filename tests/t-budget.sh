#!/bin/sh
# --memory and --time-limit (runtime/rt.c, admission): a run under a tight memory budget gives
# the same ext.csv and stage files as an unlimited one, and the smallest budget it accepts
# (below it: a usage error), too small for any two bidegrees, still completes, admitting one
# at a time; bad sizes are usage errors; a run stopped at its time limit exits 3 with its
# finished bidegrees durable, and the rerun resumes from them to the same outputs as a run
# never stopped.
. tests/lib.sh
plan 13
export STARPU_NCPU=2
$EXTFLOW resolve --stem 50 --out "$TMP/free" --quiet --verbose 2>"$TMP/free.err"
ok $? "unlimited run, stem 50"
$EXTFLOW resolve --stem 50 --out "$TMP/tight" --quiet --memory 1K 2>"$TMP/tight.err"
[ $? -eq 2 ] && [ "$(wc -l < "$TMP/tight.err")" -eq 2 ] && [ ! -e "$TMP/tight" ]
ok $? "--memory 1K (less than one bidegree needs): usage error, nothing created: $(head -1 "$TMP/tight.err")"
least=$(sed -n 's/.*at least \([0-9]*M\).*/\1/p' "$TMP/tight.err")
$EXTFLOW resolve --stem 50 --out "$TMP/tight" --quiet --memory "${least:-none}" --verbose 2>"$TMP/tight.err"
ok $? "--memory $least (the least it accepts, too little for any two bidegrees) completes"
same_outputs "$TMP/free" "$TMP/tight"
ok $? "and gives the same ext.csv and stage files"
grep -q 'at most 1 bidegrees in flight' "$TMP/tight.err" && ! grep -q ' 0 times one waited' "$TMP/tight.err"
ok $? "one bidegree at a time, the others waited: $(grep -o 'at most.*' "$TMP/tight.err")"
$EXTFLOW resolve --stem 50 --out "$TMP/mid" --quiet --memory 30M
ok $? "--memory 30M completes"
same_outputs "$TMP/free" "$TMP/mid"
ok $? "and gives the same outputs"
bad=0
for size in 2X 0 -5 1.5G 12MB '' 99999999999T; do
    $EXTFLOW resolve --stem 10 --out "$TMP/bad" --memory "$size" 2>"$TMP/bad.err"
    rc=$?
    if [ $rc -ne 2 ] || [ "$(grep -c 'memory' "$TMP/bad.err")" -ne 1 ] || [ -e "$TMP/bad" ]; then
        bad=1; diag "--memory '$size': exit $rc: $(head -1 "$TMP/bad.err")"; fi
done
[ $bad -eq 0 ]
ok $? "bad sizes (2X, 0, -5, 1.5G, 12MB, empty, overflow): exit 2, one line naming --memory, nothing created"
$EXTFLOW resolve --stem 10 --out "$TMP/bad" --time-limit 0 2>"$TMP/bad.err"
[ $? -eq 2 ] && [ ! -e "$TMP/bad" ]
ok $? "--time-limit 0: usage error"
# The time limit: stem 90 on one worker is ~4 s of CPU here, more than 1, but a machine a few
# times faster finishes it inside the second: then the run must say it finished (no stop line),
# its outputs complete, and the rerun resumes them all; stopped, it says so in one line and writes
# no ext.csv or run.json, and the rerun resumes exactly what it said was done.
STARPU_NCPU=1 $EXTFLOW resolve --stem 90 --out "$TMP/cut" --time-limit 1 2>"$TMP/cut.err"
rc=$?
if [ $rc -eq 3 ]; then
    [ "$(wc -l < "$TMP/cut.err")" -eq 1 ] && grep -q 'stopped at the time limit' "$TMP/cut.err" &&
        [ ! -e "$TMP/cut/ext.csv" ] && [ ! -e "$TMP/cut/run.json" ]
    ok $? "--time-limit 1 at stem 90: exit 3, one line, no ext.csv or run.json: $(cut -c1-110 "$TMP/cut.err")"
    done_n=$(sed -n 's/.*: \([0-9]*\) of [0-9]* bidegrees done.*/\1/p' "$TMP/cut.err")
else
    [ $rc -eq 0 ] && ! grep -q 'stopped' "$TMP/cut.err" && grep -q '^extflow: S_2 to stem 90 .* bidegrees .*; table ' "$TMP/cut.err" &&
        [ -s "$TMP/cut/ext.csv" ] && [ -e "$TMP/cut/run.json" ]
    ok $? "--time-limit 1 at stem 90: finished inside the limit (exit $rc, a fast machine), said so, ext.csv and run.json written"
    done_n=$(sed -n 's/^extflow: S_2 to stem 90 .*: \([0-9]*\) bidegrees .*; table .*/\1/p' "$TMP/cut.err")
fi
$EXTFLOW resolve --stem 90 --out "$TMP/cut" 2>"$TMP/resume.err"
ok $? "the rerun finishes"
grep -q "resumed $done_n bidegrees" "$TMP/resume.err" && [ "${done_n:-0}" -gt 0 ]
ok $? "it resumed exactly the $done_n bidegrees the stopped run said were done"
$EXTFLOW resolve --stem 90 --out "$TMP/whole" --quiet
same_outputs "$TMP/whole" "$TMP/cut"
ok $? "stopped and resumed = never stopped (ext.csv and stage files)"
done_testing

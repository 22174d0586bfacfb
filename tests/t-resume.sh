#!/bin/sh
# Resume: a run killed with SIGKILL at a random moment, then run again, ends with outputs
# identical to an uninterrupted run (ROUNDS rounds, default 5), with no temporary left behind;
# a finished run extended to a larger stem reuses what it has and equals a fresh run.
. tests/lib.sh
ALG=${ALG:-standard}
STEM=${RESUME_TEST_STEM:-60}
ROUNDS=${RESUME_TEST_ROUNDS:-5}
plan $((ROUNDS + 3))
diag "algorithm $ALG"
t0=$(date +%s.%N)
$EXTFLOW resolve --algorithm $ALG --stem $STEM --out "$TMP/full" --quiet
ok $? "uninterrupted run through stem $STEM"
# kills land anywhere in a run's lifetime: 0.05 s .. the length of the uninterrupted run
span=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { d = b - a; printf "%.2f", (d > 0.2 ? d : 0.2) }')
diag "uninterrupted run took ${span}s"
seed=${SEED:-$$}
diag "seed $seed"
i=0
while [ $i -lt $ROUNDS ]; do
    i=$((i + 1))
    d="$TMP/r$i"
    delay=$(awk -v s=$seed -v i=$i -v span=$span 'BEGIN { srand(s * 31 + i); printf "%.2f", 0.05 + rand() * (span - 0.05) }')
    $EXTFLOW resolve --algorithm $ALG --stem $STEM --out "$d" --quiet &
    pid=$!
    sleep "$delay"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    partial=$(ls "$d/stages/differential" 2>/dev/null | wc -l)
    $EXTFLOW resolve --algorithm $ALG --stem $STEM --out "$d" --quiet 2>"$TMP/err" && same_outputs "$TMP/full" "$d" &&
        ! ls "$d/stages/differential" | grep -q tmp
    ok $? "killed after ${delay}s ($partial stage files), resumed: identical outputs"
    rm -rf "$d"
done
$EXTFLOW resolve --algorithm $ALG --stem 30 --out "$TMP/grow" --quiet &&
    $EXTFLOW resolve --algorithm $ALG --stem 40 --out "$TMP/grow" 2>"$TMP/grow.err" </dev/null &&
    $EXTFLOW resolve --algorithm $ALG --stem 40 --out "$TMP/fresh" --quiet && same_outputs "$TMP/fresh" "$TMP/grow"
ok $? "stem 30 extended to stem 40 equals a fresh stem-40 run"
grep -q "resumed" "$TMP/grow.err"
ok $? "the extension reused the stem-30 stage files ($(cat "$TMP/grow.err" | head -1))"
done_testing

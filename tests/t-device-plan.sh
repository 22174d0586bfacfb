#!/bin/sh
# bench/device-plan, the GPU machine's driver, on the CPU build: every kept plan parses (its dry
# run), a small plan runs through bench/device-lib.sh (rounds alternated, peers compared, the
# table of medians), and a plan with a mistake is refused before anything runs.
. tests/lib.sh
plan 5
for p in bench/plans/*.plan; do
    bench/device-plan -n "$p" >"$TMP/dry.out" 2>&1 || { echo "$p: $(head -2 "$TMP/dry.out")"; false; } || break
done
ok $? "every bench/plans/*.plan parses (dry run)"
cat >"$TMP/p.plan" <<PLAN
# two settings, two rounds
reps 2
timeout 120
exec v $EXTFLOW --version
a $EXTFLOW --stem 25   # the default workers
b $EXTFLOW STARPU_NCPU=1 EXTFLOW_STATS=1 --stem 25
c $TMP/none --stem 25
PLAN
bench/device-plan -n "$TMP/p.plan" >"$TMP/dry.out" 2>&1
[ "$(grep ': env ' "$TMP/dry.out" | cut -d: -f1 | tr '\n' ' ')" = "a-1 b-1 c-1 c-2 b-2 a-2 " ] &&
    grep -q '^compare a-1 b-1$' "$TMP/dry.out" && grep -q '^compare a-1 a-2$' "$TMP/dry.out"
ok $? "dry run: six runs, the second round in reverse order, peers and rounds compared"
OUT="$TMP/out" DEV_WORK="$TMP/w" bench/device-plan "$TMP/p.plan" tiny >"$TMP/run.out" 2>&1
grep -q '^a-1 = b-1: identical$' "$TMP/out/tiny.txt" && grep -q '^a-1 = a-2: identical$' "$TMP/out/tiny.txt" &&
    grep -q '^extflow ' "$TMP/out/tiny.txt" && grep -q '^c-1: no .*, skipped' "$TMP/out/tiny.txt"
ok $? "a plan run: outputs compared, exec's output logged, a missing binary skipped"
grep -q '^b | .* | STARPU_NCPU=1 EXTFLOW_STATS=1 | --stem 25 | [0-9]* [0-9]* | median [0-9.]* | x[0-9.]* a$' "$TMP/out/tiny.txt" &&
    [ "$(grep -c '^=== ' "$TMP/out/tiny-stats.txt")" -eq 4 ]
ok $? "the table: each round's wall, the median, the ratio to the peer; four runs' statistics"
printf 'reps two\na %s --stem 10\n' "$EXTFLOW" >"$TMP/bad.plan"
OUT="$TMP/bad" bench/device-plan "$TMP/bad.plan" 2>"$TMP/bad.err"
[ $? -eq 2 ] && grep -q 'bad.plan:1: reps takes one positive number' "$TMP/bad.err" && [ ! -e "$TMP/bad" ]
ok $? "a plan with a mistake: exit 2, its line named, nothing run"
done_testing

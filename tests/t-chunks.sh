#!/bin/sh
# How a step's rows are cut into multiply tasks changes the tasks, never an output byte: one row
# per chunk, the default, and one chunk per step give identical ext.csv and stage files. And a
# run's chunks captured with EXTFLOW_CAPTURE_MUL replay in milnor_bench --jobs, whose product
# paths (search, batch, and batch through its AVX2 and AVX-512 tests) must agree on them; a
# capture file that cannot be opened is one line and the run goes on to the same outputs.
# EXTFLOW_STATS=1 accounts for every task of every step.
. tests/lib.sh
plan 9
MILNOR_BENCH=${MILNOR_BENCH:-build/bench/milnor_bench}
$EXTFLOW resolve --stem 30 --out "$TMP/default" --quiet
ok $? "baseline run through stem 30"
for pairs in 1 100000000; do
    EXTFLOW_CHUNK_PAIRS=$pairs $EXTFLOW resolve --stem 30 --out "$TMP/c$pairs" --quiet &&
        same_outputs "$TMP/default" "$TMP/c$pairs"
    ok $? "EXTFLOW_CHUNK_PAIRS=$pairs: identical ext.csv and stage files"
done
EXTFLOW_CAPTURE_MUL="$TMP/cap.bin" EXTFLOW_CAPTURE_EVERY=3 $EXTFLOW resolve --stem 20 --out "$TMP/cap" --quiet &&
    [ -s "$TMP/cap.bin" ]
ok $? "EXTFLOW_CAPTURE_MUL writes the chunks of a run"
EXTFLOW_CAPTURE_MUL="$TMP/no/such/cap.bin" $EXTFLOW resolve --stem 30 --out "$TMP/nocap" --quiet 2>"$TMP/e" &&
    [ "$(wc -l < "$TMP/e")" -eq 1 ] && grep -q "^extflow: EXTFLOW_CAPTURE_MUL: cannot write $TMP/no/such/cap.bin: No such file or directory (no capture)$" "$TMP/e" &&
    same_outputs "$TMP/default" "$TMP/nocap"
ok $? "a capture file that cannot be opened: one line ($(cat "$TMP/e" | cut -c1-70)), the same outputs"
MILNOR_BENCH_PATHS=batch,avx2,avx512 "$MILNOR_BENCH" --jobs "$TMP/cap.bin" >"$TMP/bench" 2>&1 &&
    grep -q "batches" "$TMP/bench" && ! grep -q DIFFER "$TMP/bench" && grep -q "^avx2 .*identical" "$TMP/bench"
ok $? "milnor_bench replays them; search, batch and its AVX2 path agree ($(head -1 "$TMP/bench" | cut -c1-80))"
if grep -q "^avx512 .*skipped" "$TMP/bench"; then
    ok 0 "# SKIP this CPU has no AVX-512BW"
else
    grep -q "^avx512 .*identical" "$TMP/bench"
    ok $? "the AVX-512 path agrees with the search on the captured chunks"
fi
# grouped rows (massey --secondary's lifts, their multiply forced onto tasks): records of stride
# 0, every job into one row, which the bench replays into a row of their own
$EXTFLOW resolve --stem 30 --max-s 7 --out "$TMP/m" --quiet &&
    EXTFLOW_LIFT_INLINE_PAIRS=0 EXTFLOW_CAPTURE_MUL="$TMP/capm.bin" \
        $EXTFLOW massey "$TMP/m" --a h3 --b h0_4=0,4 --secondary --quiet &&
    MILNOR_BENCH_PATHS=batch,avx2,avx512 "$MILNOR_BENCH" --jobs "$TMP/capm.bin" >"$TMP/benchm" 2>&1 &&
    grep -Eq "batches \([1-9][0-9]* of one row\)" "$TMP/benchm" && ! grep -q DIFFER "$TMP/benchm" &&
    grep -q "^batch .*identical" "$TMP/benchm"
ok $? "a massey --secondary run's grouped rows are captured and replay as the search's bits ($(head -1 "$TMP/benchm" | cut -c1-80))"
# EXTFLOW_STATS: one plan task per step (bidegrees and stem-edge kernel jobs alike), one reduce
# and one finish for each step not small enough to run whole in its plan (a standard step of at
# most one CPU chunk: multiply_here; row 1 here), multiply tasks on the CPU, and no CUDA share
# without a GPU
EXTFLOW_STATS=1 STARPU_NCUDA=0 $EXTFLOW resolve --stem 30 --out "$TMP/stats" --quiet 2>"$TMP/stats.err"
awk '
    /^  plan /                { plan = $2 }   /^  reduce /  { red = $2 }   /^  finish / { fin = $2 }
    /^  multiply \(CPU\) /    { mul = $3 }
    /pairs, 0.0% on CUDA/     { cuda = 1 }
    END { exit !(plan > 500 && red > 400 && red < plan && red == fin && mul > 0 && cuda) }' "$TMP/stats.err"
ok $? "EXTFLOW_STATS=1: as many reduce as finish tasks, fewer than plans (small standard steps run whole in their plan), multiply ran on the CPU (tasks: $(grep -E '^  (plan|reduce|finish) ' "$TMP/stats.err" | awk '{printf "%s %s ", $1, $2}'))"
done_testing

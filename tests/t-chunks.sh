#!/bin/sh
# How a step's rows are cut into multiply tasks changes the tasks, never an output byte: one row
# per chunk, the default, and one chunk per step give identical ext.csv and stage files. And a
# run's chunks captured with EXTFLOW_CAPTURE_MUL replay in milnor_bench --jobs, whose three
# product paths must agree on them.
. tests/lib.sh
plan 5
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
MILNOR_BENCH_PATHS=batch "$MILNOR_BENCH" --jobs "$TMP/cap.bin" >"$TMP/bench" 2>&1 &&
    grep -q "batches" "$TMP/bench" && ! grep -q DIFFER "$TMP/bench"
ok $? "milnor_bench replays them; search and batch agree ($(head -1 "$TMP/bench" | cut -c1-80))"
done_testing

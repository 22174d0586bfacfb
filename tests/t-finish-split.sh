#!/bin/sh
# Nassau's finish in parts (stages/resolve/nassau.h, EXTFLOW_FINISH_SPLIT=N): the quasi-inverses of the
# signature blocks made by tasks of their own after phase 2's multiply, then applied by the
# finish in code order as before. Every output must be the one of the unsplit run, bit for
# bit: the sphere with the split forced on every finish (N = 1) and at a middling N, on 1 and 2
# workers, modules Nassau resolves (C2, Joker), under the least --memory the run accepts,
# stopped midway and resumed under --time-limit, and over two MPI ranks where mpirun exists.
. tests/lib.sh
plan 10
export STARPU_NCPU=2
res() { $EXTFLOW resolve --quiet "$@"; }
# the parts that ran, from EXTFLOW_STATS's table (0 when none)
parts() { awk '$1 == "finish" && $2 == "part" { print $3; f = 1 } END { if (!f) print 0 }' "$1"; }
EXTFLOW_FINISH_SPLIT=0 EXTFLOW_STATS=1 res --stem 60 --out "$TMP/s0" 2>"$TMP/s0.err" && [ "$(parts "$TMP/s0.err")" = 0 ]
ok $? "sphere, stem 60, finish never split: no finish part ran"
EXTFLOW_FINISH_SPLIT=1 EXTFLOW_STATS=1 res --stem 60 --out "$TMP/s1" 2>"$TMP/s1.err" && same_outputs "$TMP/s0" "$TMP/s1" &&
    cmp -s "$TMP/s0/chart.txt" "$TMP/s1/chart.txt" && [ "$(parts "$TMP/s1.err")" -gt 1000 ]
ok $? "split on every finish (N = 1, $(parts "$TMP/s1.err") finish parts): the same ext.csv, stage files and chart"
EXTFLOW_FINISH_SPLIT=20000 EXTFLOW_STATS=1 res --stem 70 --out "$TMP/m70" 2>"$TMP/m70.err" &&
    EXTFLOW_FINISH_SPLIT=0 res --stem 70 --out "$TMP/u70" && same_outputs "$TMP/u70" "$TMP/m70" &&
    [ "$(parts "$TMP/m70.err")" -gt 0 ]
ok $? "stem 70, N = 20000 (only the larger finishes split: $(parts "$TMP/m70.err") parts): the same outputs"
STARPU_NCPU=1 EXTFLOW_FINISH_SPLIT=1 res --stem 60 --out "$TMP/one" && same_outputs "$TMP/s0" "$TMP/one"
ok $? "one worker, split on every finish: the same outputs"
bad=$(differing_modules EXTFLOW_FINISH_SPLIT=0 EXTFLOW_FINISH_SPLIT=1 "" C2 Joker)
[ -z "$bad" ]
ok $? "modules C2, Joker (Nassau over a finite module): the same with the split forced${bad:+; differ:$bad}"
least=$(least_memory --quiet --stem 60 --out "$TMP/tight")
EXTFLOW_FINISH_SPLIT=1 res --stem 60 --out "$TMP/tight" --memory "${least:-none}" --verbose 2>"$TMP/tight.err" &&
    same_outputs "$TMP/s0" "$TMP/tight" && ! grep -q ' 0 times one waited' "$TMP/tight.err"
ok $? "split forced under --memory $least (the least accepted; chains waited): completes, the same outputs"
EXTFLOW_FINISH_SPLIT=0 res --stem 80 --out "$TMP/u80"
# stopped midway however fast the machine (--time-limit 1 alone: stem 80 on one worker is ~2 s of
# CPU, which a quiet or faster machine finishes inside the second): SIGINT, which stops a run as
# --time-limit does, once 300 of its ~940 step files exist; then reruns under --time-limit (1 s,
# growing) until done, each of which may stop again or finish
export STARPU_NCPU=1 EXTFLOW_FINISH_SPLIT=1
interrupt_after 300 INT "$TMP/cut/stages/differential" resolve --quiet --stem 80 --out "$TMP/cut"
stop_rc=$rc
rerun_until_done $EXTFLOW resolve --quiet --stem 80 --out "$TMP/cut"
export STARPU_NCPU=2
unset EXTFLOW_FINISH_SPLIT
[ $stop_rc -eq 130 ] && [ $rc -eq 0 ] && same_outputs "$TMP/u80" "$TMP/cut"
ok $? "split forced, stem 80, stopped by SIGINT midway (exit $stop_rc, 130) and rerun under --time-limit: done after $tries runs, the same outputs"
two_ranks_same "$TMP/s0" "split forced" EXTFLOW_FINISH_SPLIT=1 --stem 60
EXTFLOW_FINISH_SPLIT=x res --stem 10 --out "$TMP/bad" 2>"$TMP/bad.err"
[ $? -eq 2 ] && head -1 "$TMP/bad.err" | grep -q EXTFLOW_FINISH_SPLIT && [ ! -e "$TMP/bad" ]
ok $? "EXTFLOW_FINISH_SPLIT=x: usage error naming it: $(head -1 "$TMP/bad.err")"
EXTFLOW_FINISH_SPLIT=1 res --stem 30 --keep-stages matrix,kernel --out "$TMP/keep" && $EXTFLOW verify "$TMP/keep" >/dev/null 2>&1
ok $? "--keep-stages under the split: verify (which reruns steps unsplit) passes"
done_testing

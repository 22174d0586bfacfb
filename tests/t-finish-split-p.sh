#!/bin/sh
# Nassau's finish in parts at an odd prime (stages/resolve/nassau_p.h, "Finish in parts";
# EXTFLOW_FINISH_SPLIT=N): finish parts make each signature's rows of d_{s-1} and its block's
# quasi-inverse in tasks of their own, and the finish applies them in its order as before.
# Every output must be the unsplit run's, byte for byte (ext.csv and every differential stage
# file): S_3 and S_5 with the split forced on every finish (N = 1) and at a middling N, on 1 and
# 2 workers, finite odd-prime modules (Calpha, C3v1 at p = 3, C5v1 at p = 5), stopped midway
# (SIGINT) and resumed, and checked by verify (d∘d = 0 over F_p).
. tests/lib.sh
plan 9
export STARPU_NCPU=2
res() { $EXTFLOW resolve --quiet --algorithm nassau "$@"; }
# the parts that ran, from EXTFLOW_STATS's table (0 when none)
parts() { awk '$1 == "finish" && $2 == "part" { print $3; f = 1 } END { if (!f) print 0 }' "$1"; }
S3="--module S_3 --stem 160 --max-s 50"
EXTFLOW_FINISH_SPLIT=0 EXTFLOW_STATS=1 res $S3 --out "$TMP/u3" 2>"$TMP/u3.err" && [ "$(parts "$TMP/u3.err")" = 0 ]
ok $? "S_3 stem 160, s <= 50, finish never split: no finish part ran"
EXTFLOW_FINISH_SPLIT=1 EXTFLOW_STATS=1 res $S3 --out "$TMP/s3" 2>"$TMP/s3.err" && same_outputs "$TMP/u3" "$TMP/s3" &&
    [ "$(parts "$TMP/s3.err")" -gt 1000 ]
ok $? "S_3, split on every finish (N = 1, $(parts "$TMP/s3.err") finish parts): the same ext.csv and stage files"
STARPU_NCPU=1 EXTFLOW_FINISH_SPLIT=1 EXTFLOW_STATS=1 res $S3 --out "$TMP/one" 2>"$TMP/one.err" &&
    same_outputs "$TMP/u3" "$TMP/one" && [ "$(parts "$TMP/one.err")" -gt 1000 ]
ok $? "S_3, one worker, split on every finish ($(parts "$TMP/one.err") finish parts): the same outputs"
EXTFLOW_FINISH_SPLIT=300000 EXTFLOW_STATS=1 res $S3 --out "$TMP/m3" 2>"$TMP/m3.err" && same_outputs "$TMP/u3" "$TMP/m3" &&
    [ "$(parts "$TMP/m3.err")" -gt 0 ] && [ "$(parts "$TMP/m3.err")" -lt "$(parts "$TMP/s3.err")" ]
ok $? "S_3, N = 300000 (only the larger finishes split: $(parts "$TMP/m3.err") parts): the same outputs"
S5="--module S_5 --stem 400 --max-s 40"
EXTFLOW_FINISH_SPLIT=0 res $S5 --out "$TMP/u5" && EXTFLOW_FINISH_SPLIT=1 EXTFLOW_STATS=1 res $S5 --out "$TMP/s5" 2>"$TMP/s5.err" &&
    same_outputs "$TMP/u5" "$TMP/s5" && [ "$(parts "$TMP/s5.err")" -gt 100 ] &&
    STARPU_NCPU=1 EXTFLOW_FINISH_SPLIT=1 res $S5 --out "$TMP/one5" && same_outputs "$TMP/u5" "$TMP/one5"
ok $? "S_5 stem 400, s <= 40, split forced ($(parts "$TMP/s5.err") parts), 2 and 1 workers: the same outputs"
bad=$(differing_modules EXTFLOW_FINISH_SPLIT=0 EXTFLOW_FINISH_SPLIT=1 "--algorithm nassau" Calpha C3v1 C5v1)
[ -z "$bad" ]
ok $? "finite modules Calpha, C3v1 (p = 3), C5v1 (p = 5) through stem 40: the same with the split forced${bad:+; differ:$bad}"
for m in Calpha C3v1; do
    EXTFLOW_FINISH_SPLIT=0 res --module $m --stem 100 --out "$TMP/um-$m" &&
        EXTFLOW_FINISH_SPLIT=1 EXTFLOW_STATS=1 res --module $m --stem 100 --out "$TMP/sm-$m" 2>"$TMP/sm-$m.err" &&
        same_outputs "$TMP/um-$m" "$TMP/sm-$m" && [ "$(parts "$TMP/sm-$m.err")" -gt 100 ]
    ok $? "$m through stem 100, split forced ($(parts "$TMP/sm-$m.err") parts): the same outputs"
done
# stopped midway however fast the machine (a first --time-limit of 1 s once outlasted the whole
# run): SIGINT, which stops a run as --time-limit does, once 600 of its ~1800 step files exist
export STARPU_NCPU=1 EXTFLOW_FINISH_SPLIT=1
interrupt_after 600 INT "$TMP/cut/stages/differential" resolve --quiet --algorithm nassau $S3 --out "$TMP/cut"
stop_rc=$rc
$EXTFLOW resolve --quiet --algorithm nassau $S3 --out "$TMP/cut" 2>/dev/null
rc=$?
[ $stop_rc -eq 130 ] && [ $rc -eq 0 ] && same_outputs "$TMP/u3" "$TMP/cut" && $EXTFLOW verify "$TMP/cut" >/dev/null 2>&1
ok $? "S_3, split forced, one worker, stopped by SIGINT midway (exit $stop_rc, 130) and rerun (exit $rc): the same outputs, verify passes"
done_testing

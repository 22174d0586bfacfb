#!/bin/sh
# The standard step's lookahead (stages/resolve/standard.h, EXTFLOW_LOOKAHEAD=j): the rows of (s, t) from
# generators of degree <= t-j reduced early by a chain of their own, the step then extending
# that RREF by its other rows. RREF is unique, so every output must be the one of a run without
# it, bit for bit: the sphere at several j, modules (finite, with a profile, finitely presented,
# a cofiber), under the least --memory the run accepts, stopped midway and resumed, and
# over two MPI ranks where mpirun exists; 0 is off, and 1 (no lookahead at all), 65 and x are
# refused.
. tests/lib.sh
plan 16
export STARPU_NCPU=2
res() { $EXTFLOW resolve --quiet --algorithm standard "$@"; }
EXTFLOW_LOOKAHEAD=0 res --stem 60 --out "$TMP/s0"
ok $? "sphere, stem 60, no lookahead"
for j in 2 3 7; do
    EXTFLOW_LOOKAHEAD=$j res --stem 60 --out "$TMP/s$j" && same_outputs "$TMP/s0" "$TMP/s$j" &&
        cmp -s "$TMP/s0/chart.txt" "$TMP/s$j/chart.txt"
    ok $? "sphere, stem 60, lookahead $j: the same ext.csv, stage files and chart"
done
# EXTFLOW_STATS's critical path: each early reduction is a job of its own, after (s, t-j), so
# the path (each job at its span, a worker always free) cannot be longer than the run itself
EXTFLOW_LOOKAHEAD=3 EXTFLOW_STATS=1 res --stem 60 --out "$TMP/st" 2>"$TMP/st.err" && same_outputs "$TMP/s0" "$TMP/st"
wall=$(grep -oE 'wall [0-9.]+ s' "$TMP/st.err" | awk '{print $2}')
path=$(grep -oE 'critical path .*: [0-9.]+ s over' "$TMP/st.err" | awk '{print $(NF-2)}')
early=$(grep -oE '[0-9]+ of those jobs are early reductions' "$TMP/st.err" | awk '{print $1}')
awk -v w="$wall" -v p="$path" -v e="$early" 'BEGIN { exit !(w > 0 && p > 0 && p <= w && e > 0) }'
ok $? "EXTFLOW_STATS under lookahead 3: critical path ${path:-?} s <= wall ${wall:-?} s, ${early:-no} early reductions on it"
# its work total counts every task: the stem edge's kernel jobs and their early chains too
table=$(awk '/^extflow: task time by piece/ { on = 1; next } on && /^extflow:/ { on = 0 } on && $1 != "piece" { s += $(NF-4) } END { printf "%.2f", s }' "$TMP/st.err")
work=$(grep -oE '^extflow: work [0-9.]+ s' "$TMP/st.err" | awk '{print $3}')
awk -v t="$table" -v w="$work" 'BEGIN { d = t - w; if (d < 0) d = -d; exit !(w > 0 && d <= 0.03 + 0.02 * t) }'
ok $? "EXTFLOW_STATS's work total ${work:-?} s = the task table's ${table:-?} s"
bad=$(differing_modules EXTFLOW_LOOKAHEAD=0 EXTFLOW_LOOKAHEAD=3 "--algorithm standard" C2 tmf2 A-mod-Sq1-Sq2 C2v14)
[ -z "$bad" ]
ok $? "modules C2 (finite), tmf2 (profile: no lookahead there), A-mod-Sq1-Sq2 (finitely presented), C2v14 (cofiber): the same with lookahead 3${bad:+; differ:$bad}"
least=$(least_memory --quiet --algorithm standard --stem 60 --out "$TMP/tight")
EXTFLOW_LOOKAHEAD=3 res --stem 60 --out "$TMP/tight" --memory "${least:-none}" --verbose 2>"$TMP/tight.err" &&
    same_outputs "$TMP/s0" "$TMP/tight"
ok $? "lookahead 3 under --memory $least (the least accepted): completes, the same outputs"
grep -q ' 0 times one waited' "$TMP/tight.err"
[ $? -ne 0 ]
ok $? "and chains waited for memory there: $(grep -o 'at most.*' "$TMP/tight.err")"
# stopped midway however fast the machine (--time-limit 1 alone: stem 70 on one worker is ~1.6 s
# of CPU, which a quiet or faster machine finishes inside the second): SIGINT, which stops a run as
# --time-limit does, once 230 of its ~700 step files exist; then reruns under --time-limit (1 s,
# growing) until done, each of which may stop again or finish
export STARPU_NCPU=1 EXTFLOW_LOOKAHEAD=3
interrupt_after 230 INT "$TMP/cut/stages/differential" resolve --quiet --algorithm standard --stem 70 --out "$TMP/cut"
stop_rc=$rc
rerun_until_done $EXTFLOW resolve --quiet --algorithm standard --stem 70 --out "$TMP/cut"
export STARPU_NCPU=2
unset EXTFLOW_LOOKAHEAD
[ $stop_rc -eq 130 ] && [ $rc -eq 0 ]
ok $? "lookahead 3, stem 70, stopped by SIGINT midway (exit $stop_rc, 130) and rerun under --time-limit: done after $tries runs"
EXTFLOW_LOOKAHEAD=0 res --stem 70 --out "$TMP/s70"
same_outputs "$TMP/s70" "$TMP/cut"
ok $? "and the same outputs as one run without lookahead"
two_ranks_same "$TMP/s0" "lookahead 3" EXTFLOW_LOOKAHEAD=3 --algorithm standard --stem 60
for v in x 1 65; do
    EXTFLOW_LOOKAHEAD=$v res --stem 10 --out "$TMP/bad" 2>"$TMP/bad.err"
    [ $? -eq 2 ] && head -1 "$TMP/bad.err" | grep -q "EXTFLOW_LOOKAHEAD=$v" && [ ! -e "$TMP/bad" ]
    ok $? "EXTFLOW_LOOKAHEAD=$v: usage error naming it: $(head -1 "$TMP/bad.err")"
done
EXTFLOW_LOOKAHEAD=3 res --stem 20 --keep-stages matrix --out "$TMP/keep" && [ -n "$(ls "$TMP/keep/stages/matrix" 2>/dev/null)" ] &&
    $EXTFLOW verify "$TMP/keep" >/dev/null 2>&1
ok $? "--keep-stages matrix under lookahead 3 keeps the whole matrices (no lookahead there): verify passes"
done_testing

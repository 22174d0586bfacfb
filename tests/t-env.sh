#!/bin/sh
# The environment: every command that starts StarPU checks, from one table (cli_check_env in
# tools/env.c), extflow's variables and each one StarPU reads as a number or a CPU list
# (StarPU would abort on a bad value), STARPU_SCHED against StarPU's own list and
# STARPU_MPI_IDLE_SLEEP_US (read by our StarPU-MPI build) before anything is created: a bad
# value is a usage error, and so is an EXTFLOW_ name it lacks (a typo). A resolve whose StarPU does not start leaves DIR as it found it.
# StarPU's own messages stay silent unless --verbose or STARPU_SILENT asks for them.
. tests/lib.sh
plan 60
bad_env() {   # bad_env VAR=VALUE: exit 2, one line naming VAR and the hint, nothing created
    env "$1" $EXTFLOW resolve --stem 4 --out "$TMP/bad/out" --quiet >/dev/null 2>"$TMP/err"
    rc=$?
    var=${1%%=*}
    [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 2 ] && head -1 "$TMP/err" | grep -q "^extflow: $var=" &&
        [ "$(tail -1 "$TMP/err")" = "try 'extflow help'" ] && [ ! -e "$TMP/bad" ]
    ok $? "$1: exit 2, one line and the hint, nothing created ($(head -1 "$TMP/err" | cut -c1-70))"
}
bad_env STARPU_NCPU=abc
bad_env STARPU_NCPU=-1
bad_env STARPU_NCPU=
bad_env STARPU_NCUDA=2x
bad_env STARPU_SCHED=bogus
bad_env STARPU_MPI_IDLE_SLEEP_US=fast
bad_env STARPU_MPI_IDLE_SLEEP_US=20000
# StarPU aborts (exit 134, a backtrace) on these, or fails to start (STARPU_NCPU=0)
for e in STARPU_SILENT=abc STARPU_SILENT=-1 STARPU_CALIBRATE=abc STARPU_CALIBRATE=3 STARPU_NCPU=0 STARPU_NCPUS=x \
         STARPU_NWORKER_PER_CUDA=0 STARPU_NOPENCL=x STARPU_WORKERS_NOBIND=yes STARPU_PREFETCH=x \
         STARPU_SCHED_ALPHA=x STARPU_SCHED_BETA=1,5 STARPU_LIMIT_CPU_MEM=1G STARPU_LIMIT_CUDA_0_MEM=x \
         STARPU_MAIN_THREAD_BIND=x STARPU_MAIN_THREAD_CPUID=100000 STARPU_WORKERS_CPUID=abc \
         STARPU_WORKERS_CPUID=-1 STARPU_SCHED=heteroprio STARPU_MPI_CACHE=x \
         EXTFLOW_MMAP_THRESHOLD=lots EXTFLOW_MPI_OWNER=columns EXTFLOW_GPU_CPU_SHARE=5 \
         EXTFLOW_LIFT_INLINE_PAIRS=many EXTFLOW_GPU_STEP_PAIRS=on EXTFLOW_GPU_CHUNK_PAIRS=0 EXTFLOW_GPU_PAIR_STEP_PAIRS=-5 \
         EXTFLOW_GPU_VERIFY=yes EXTFLOW_GPU_SPLIT=3,4 EXTFLOW_GPU_KERNEL=global EXTFLOW_MPI_BIND=maybe EXTFLOW_CHUNK_PAIRS=x \
         EXTFLOW_GPU_P_SPLIT=96,2 EXTFLOW_GPU_P_STEP_PAIRS=0 EXTFLOW_MILNOR_SIMD=sse EXTFLOW_HUGEPAGES=yes \
         EXTFLOW_MMAP_THRESHOLD=64M EXTFLOW_P_PRODUCTS=lots EXTFLOW_D2_QI=-1; do
    bad_env "$e"
done
# an EXTFLOW_ name the table lacks (a typo, or one since removed) is refused like a bad value
bad_env EXTFLOW_TAEM=2
grep -q "did you mean EXTFLOW_TEAM?" "$TMP/err"
ok $? "the typo's refusal names the variable meant ($(head -1 "$TMP/err" | cut -c1-90))"
bad_env EXTFLOW_RREF_THREADS=8
# every EXTFLOW_ variable the sources read is in the table (else it would be refused)
missing=$(grep -rhoE 'getenv\("EXTFLOW_[A-Z0-9_]+"\)' algebra stages runtime codelets tools ss 2>/dev/null |
    sed 's/getenv("\(.*\)")/\1/' | sort -u | while read -r v; do
        grep -q "\"$v\"" tools/env.c || echo "$v"; done)
[ -z "$missing" ]
ok $? "every EXTFLOW_ variable read by the sources is in env_table${missing:+ (missing: $missing)}"
# the harness's own variables (.ci/run exports them to make test) pass
EXTFLOW_REQUIRE_MPI=1 EXTFLOW_REQUIRE_BROWSER=1 EXTFLOW_REQUIRE_PATCHED_MPI=1 EXTFLOW_TEST_REF=tests/ref \
    $EXTFLOW resolve --stem 4 --out "$TMP/harness" --quiet 2>"$TMP/err"
ok $? "the tests' and .ci/run's EXTFLOW_REQUIRE_*, EXTFLOW_TEST_* are accepted ($(head -1 "$TMP/err"))"
# products, massey and d2 check the same table before they touch DIR
$EXTFLOW resolve --stem 8 --out "$TMP/s8" --quiet 2>/dev/null
(cd "$TMP/s8" && find . -printf '%p %s %T@\n' | sort) > "$TMP/before"
for cmd in "products $TMP/s8 --class h0" "massey $TMP/s8 --a h0 --b h1" "d2 $TMP/s8"; do
    STARPU_SILENT=abc $EXTFLOW $cmd >/dev/null 2>"$TMP/err"
    rc=$?
    (cd "$TMP/s8" && find . -printf '%p %s %T@\n' | sort) > "$TMP/after"
    [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 2 ] && grep -q "^extflow: STARPU_SILENT=abc: " "$TMP/err" &&
        cmp -s "$TMP/before" "$TMP/after"
    ok $? "${cmd%% *} with STARPU_SILENT=abc: exit 2, two lines, DIR untouched ($(head -1 "$TMP/err" | cut -c1-60))"
done
# values that are good are accepted
env STARPU_CALIBRATE=0 "STARPU_WORKERS_CPUID=0 1" EXTFLOW_GPU_CPU_SHARE=0.5 EXTFLOW_MPI_OWNER=rows \
    EXTFLOW_MMAP_THRESHOLD=4M EXTFLOW_GPU_STEP_PAIRS=off EXTFLOW_GPU_PAIR_STEP_PAIRS=off STARPU_SCHED_ALPHA=2.5 EXTFLOW_GPU_SPLIT=4,128 EXTFLOW_GPU_KERNEL=atomic \
    EXTFLOW_GPU_P_SPLIT=32,2 EXTFLOW_GPU_P_STEP_PAIRS=1 EXTFLOW_LIFT_INLINE_PAIRS=0 EXTFLOW_GPU_VERIFY=1 STARPU_LIMIT_CPU_MEM=4096 EXTFLOW_HUGEPAGES=0 \
    EXTFLOW_P_PRODUCTS=0 EXTFLOW_D2_QI=64M \
    $EXTFLOW resolve --stem 8 --out "$TMP/good" --quiet 2>"$TMP/err" && cmp -s "$TMP/good/ext.csv" "$TMP/s8/ext.csv"
ok $? "good values are accepted and change no result ($(head -1 "$TMP/err"))"
# StarPU that does not start (every CPU reserved): exit 1, one line, DIR as it was found
STARPU_RESERVE_NCPU=100000 $EXTFLOW resolve --stem 4 --out "$TMP/nostart/out" --quiet 2>"$TMP/err"
rc=$?
mkdir "$TMP/empty"
STARPU_RESERVE_NCPU=100000 $EXTFLOW resolve --stem 4 --out "$TMP/empty" --quiet 2>/dev/null
[ $rc -eq 1 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && [ ! -e "$TMP/nostart" ] && [ -z "$(ls -A "$TMP/empty")" ]
ok $? "StarPU not starting: exit 1, one line, no directory created, an empty one left empty ($(head -1 "$TMP/err"))"
# the refusal lists the policies, as StarPU names them at run time
STARPU_SCHED=bogus $EXTFLOW resolve --stem 4 --out "$TMP/bad/out" 2>&1 | head -1 | sed 's/.*policies: //' |
    tr ' ' '\n' > "$TMP/policies"
grep -qx eager "$TMP/policies" && grep -qx dmdas "$TMP/policies" && grep -qx lws "$TMP/policies"
ok $? "the refusal lists StarPU's policies ($(wc -l < "$TMP/policies") of them)"
# A fresh STARPU_HOME makes StarPU calibrate the bus; dmda warns about uncalibrated models.
unset STARPU_SILENT
STARPU_HOME="$TMP/home1" STARPU_SCHED=dmda $EXTFLOW resolve --stem 16 --out "$TMP/quiet" --quiet 2>"$TMP/err" &&
    [ ! -s "$TMP/err" ] && [ -s "$TMP/quiet/ext.csv" ]
ok $? "without STARPU_SILENT, fresh STARPU_HOME, dmda: nothing on stderr ($(head -1 "$TMP/err"))"
STARPU_HOME="$TMP/home2" $EXTFLOW resolve --stem 4 --out "$TMP/verbose" --quiet --verbose 2>"$TMP/err" &&
    grep -qi "starpu" "$TMP/err"
ok $? "--verbose shows StarPU's messages ($(head -1 "$TMP/err"))"
STARPU_HOME="$TMP/home3" STARPU_SILENT=0 $EXTFLOW resolve --stem 4 --out "$TMP/silent0" --quiet 2>"$TMP/err" &&
    grep -qi "starpu" "$TMP/err"
ok $? "STARPU_SILENT=0 set by the user is kept ($(head -1 "$TMP/err"))"
done_testing

# lib.sh — TAP helpers for extflow's shell tests (source it; run from the repository root).
EXTFLOW=${EXTFLOW:-./bin/extflow}
REF=${EXTFLOW_TEST_REF:-tests/ref}
export STARPU_SILENT=1 STARPU_WORKERS_NOBIND=1
export STARPU_HOME=${STARPU_HOME:-$(mktemp -d)}
TMP=$(mktemp -d /tmp/extflow-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
tap_n=0
tap_failed=0
plan() { echo "1..$1"; }
ok() {   # ok CONDITION-EXIT-STATUS DESCRIPTION
    tap_n=$((tap_n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"; else echo "not ok $tap_n - $2"; tap_failed=1
        echo "# failed: $tap_n - $2" >&2; fi     # on stderr too: CI's log (prove, not verbose) keeps it
}
diag() { echo "# $*" >&2; }   # on stderr, as Test::More does: prove shows it even when not verbose (CI logs)
hold_lock() {   # hold_lock DIR: another process holds DIR/.lock (as a run would) until
                # `kill $holder`, 60 s at most; returns once the lock is taken
    : > "$TMP/holder.out"    # emptied before the child starts, so that the wait below sees this holder's line
    python3 -c 'import fcntl, sys, time
f = open(sys.argv[1] + "/.lock", "a"); fcntl.lockf(f, fcntl.LOCK_EX); print("locked", flush=True); time.sleep(60)' \
        "$1" > "$TMP/holder.out" &
    holder=$!
    while ! grep -q locked "$TMP/holder.out" 2>/dev/null && kill -0 $holder 2>/dev/null; do sleep 0.05; done
}
done_testing() { exit $tap_failed; }
# need_browser: a test that drives chromium skips where it is absent (the whole file: TAP
# skip), unless EXTFLOW_REQUIRE_BROWSER=1 (as .ci/run sets): then its absence is a failure.
need_browser() {
    command -v "${CHROMIUM:-chromium}" >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 && return 0
    if [ "${EXTFLOW_REQUIRE_BROWSER:-0}" = 1 ]; then
        plan 1
        ok 1 "chromium is installed (EXTFLOW_REQUIRE_BROWSER=1; scripts/install-browser installs it)"
        done_testing
    fi
    echo "1..0 # SKIP no chromium (scripts/install-browser installs it)"
    exit 0
}
# is_usage_error RC ERRFILE: exit 2 and exactly two lines on stderr, "extflow: ..." and the hint.
is_usage_error() {
    [ "$1" -eq 2 ] && [ "$(wc -l < "$2")" -eq 2 ] && head -1 "$2" | grep -q "^extflow: ." &&
        [ "$(tail -1 "$2")" = "try 'extflow help'" ]
}
# refused DESCRIPTION ARGS...: one TAP line: `extflow ARGS` is a usage error (exit 2, one line
# on stderr before the hint), described with its exit status and that line.
refused() {
    what=$1
    shift
    $EXTFLOW "$@" 2>"$TMP/refused.err" >/dev/null
    rc=$?
    [ $rc -eq 2 ] && [ "$(grep -vc '^try ' "$TMP/refused.err")" -eq 1 ]
    ok $? "$what: exit $rc, $(head -1 "$TMP/refused.err")"
}
# Compares two output directories: ext.csv and every differential stage file, byte for byte.
same_outputs() {
    cmp -s "$1/ext.csv" "$2/ext.csv" &&
    diff -r "$1/stages/differential" "$2/stages/differential" >/dev/null
}
# least_memory ARGS...: the least --memory that `resolve ARGS` accepts (as its refusal of 1K says).
least_memory() { $EXTFLOW resolve "$@" --memory 1K 2>&1 >/dev/null | sed -n 's/.*at least \([0-9]*M\).*/\1/p'; }
# rerun_until_done COMMAND...: runs COMMAND --time-limit L, L growing with the tries (a loaded
# machine), until it exits other than 3 (stopped), 40 tries at most; sets rc and tries.
rerun_until_done() {
    tries=0 rc=3
    while [ $rc -eq 3 ] && [ $tries -lt 40 ]; do
        tries=$((tries + 1))
        "$@" --time-limit $((1 + tries * tries / 20)) 2>/dev/null
        rc=$?
    done
}
# interrupt_after N SIG DIR ARGS...: `$EXTFLOW ARGS` in the background (stderr to $TMP/err), SIG
# once the folder DIR holds N files (a run's stages/differential, or stages/lift for products):
# a stop at a known point, however fast the machine; sets rc (128 + the signal when it stopped)
interrupt_after() {
    n=$1 sig=$2 sub=$3; shift 3
    $EXTFLOW "$@" > /dev/null 2> "$TMP/err" &
    pid=$!
    i=0
    while [ "$(find "$sub" -type f 2>/dev/null | wc -l)" -lt "$n" ] && kill -0 $pid 2>/dev/null && [ $i -lt 1200 ]; do
        sleep 0.02; i=$((i + 1))
    done
    kill -"$sig" $pid 2>/dev/null
    wait $pid
    rc=$?
}
# two_ranks_same REF WHAT VAR=VALUE ARGS...: one TAP line: `resolve --quiet ARGS --out $TMP/np2`
# on two MPI ranks, with VAR=VALUE, gives REF's outputs (a skip without mpirun or StarPU-MPI).
two_ranks_same() {
    ref=$1 what=$2 var=$3
    shift 3
    if command -v mpirun >/dev/null 2>&1 && ldd "$EXTFLOW" 2>/dev/null | grep -q libstarpumpi; then
        (export OMPI_MCA_pml=ob1 STARPU_MPI_NOBIND=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
         export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$var"
         timeout -k 10 240 mpirun --timeout 240 -x "${var%%=*}" -np 2 \
             $EXTFLOW resolve --quiet "$@" --out "$TMP/np2" 2>"$TMP/np2.err") && same_outputs "$ref" "$TMP/np2"
        ok $? "two MPI ranks, $what: the same outputs $(head -c 100 "$TMP/np2.err")"
    else
        ok 0 "two MPI ranks # SKIP no mpirun or no StarPU-MPI in $EXTFLOW"
    fi
}
# differing_modules A B ARGS MODULE...: the modules M (a line of names; empty: none) whose
# `resolve --quiet ARGS --module M --stem 40` differs between the environment assignments A and B
# (ARGS: words, split).
differing_modules() {
    a=$1 b=$2 args=$3
    shift 3
    for m in "$@"; do
        env "$a" $EXTFLOW resolve --quiet $args --module $m --stem 40 --out "$TMP/ma-$m" &&
            env "$b" $EXTFLOW resolve --quiet $args --module $m --stem 40 --out "$TMP/mb-$m" &&
            same_outputs "$TMP/ma-$m" "$TMP/mb-$m" || printf ' %s' $m
    done
}

#!/bin/sh
# Our StarPU-MPI build (scripts/starpu-1.3.10-mpi-idle-sleep.patch, bin-starpu-mpi/extflow from
# `make carry-mpi`): with STARPU_MPI_IDLE_SLEEP_US set (extflow sets 100 unless told), a rank
# keeps no core for StarPU-MPI's progress thread, so it runs a CPU worker on every CPU, and the
# thread sleeps instead of polling (it takes a small part of the run's CPU). Set to 0, StarPU's
# own behaviour comes back (one core kept).
# Outputs stay those of one process (Nassau and standard); a bad value is a usage error.
# Skipped without that binary or mpirun; EXTFLOW_REQUIRE_PATCHED_MPI=1 (.ci/run) makes that a
# failure.
. tests/lib.sh
X=${EXTFLOW_PATCHED_MPI:-./bin-starpu-mpi/extflow}
STEM=${MPI_TEST_STEM:-60}
why=""
command -v mpirun >/dev/null 2>&1 || why="no mpirun"
[ -z "$why" ] && [ ! -x "$X" ] && why="no $X (make carry-mpi builds it)"
[ -z "$why" ] && ! ldd "$X" 2>/dev/null | grep -q "starpu-mpi/lib/libstarpumpi" && why="$X is not linked to our StarPU-MPI"
if [ -n "$why" ]; then
    if [ "${EXTFLOW_REQUIRE_PATCHED_MPI:-0}" = 1 ]; then plan 1; ok 1 "EXTFLOW_REQUIRE_PATCHED_MPI=1: $why"; done_testing; fi
    echo "1..0 # SKIP $why"
    exit 0
fi
plan 9
export OMPI_MCA_pml=ob1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset STARPU_NCPU STARPU_MPI_IDLE_SLEEP_US STARPU_MPI_NOBIND
LIMIT=${MPI_TEST_LIMIT:-240}
# 2 ranks that each see every CPU of this machine (no binding by mpirun, none by extflow: a rank
# given one CPU runs one worker either way), so the count of workers shows whether a core is kept
two_ranks() {
    EXTFLOW_STATS=1 EXTFLOW_MPI_BIND=no timeout -k 10 $LIMIT mpirun --timeout $LIMIT --bind-to none -np 2 "$X" "$@"
}
NCPU=$(nproc)
workers() { sed -n 's/^extflow: rank 0: \([0-9]*\) CPU workers.*/\1/p' "$1"; }
thread_cpu() { sed -n "/^extflow: rank 0:/s/.*StarPU-MPI's thread \([0-9.]*\) CPU s.*/\1/p" "$1"; }

"$X" resolve --stem $STEM --out "$TMP/one" --quiet 2>"$TMP/one.err"
ok $? "one process (no mpirun), stem $STEM"

t0=$(date +%s.%N)
two_ranks resolve --stem $STEM --out "$TMP/sleep" --quiet 2>"$TMP/sleep.err" && same_outputs "$TMP/one" "$TMP/sleep"
ok $? "2 ranks seeing all CPUs, the default (the thread sleeps when idle): outputs identical to one process"
wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}')
w=$(workers "$TMP/sleep.err")
[ "$w" = "$NCPU" ]
ok $? "2 ranks seeing all CPUs, the default: a CPU worker on each of the $NCPU CPUs, none kept for StarPU-MPI (got ${w:-none})"
# a sleeping thread takes almost no CPU (on 8 cores: 0.3 s of a 30-s run, against 30 s polling,
# docs/perf-log.md); a polling one takes what the workers leave (here 0 to 1.1 s of ~2 s: the
# 2 cores are shared, so only this direction is a test)
c=$(thread_cpu "$TMP/sleep.err")
[ -n "$c" ] && awk -v c="$c" -v w="$wall" 'BEGIN {exit !(c < 0.1 * w)}'
ok $? "2 ranks seeing all CPUs, the default: StarPU-MPI's thread took ${c:-?} CPU s of a $wall s run (under a tenth)"

STARPU_MPI_IDLE_SLEEP_US=0 two_ranks resolve --stem $STEM --out "$TMP/poll" --quiet 2>"$TMP/poll.err" &&
    same_outputs "$TMP/one" "$TMP/poll"
ok $? "2 ranks seeing all CPUs, STARPU_MPI_IDLE_SLEEP_US=0 (StarPU's polling): outputs identical"
w=$(workers "$TMP/poll.err")
[ "$NCPU" -gt 1 ] && [ "$w" = $((NCPU - 1)) ] || { [ "$NCPU" = 1 ] && [ -n "$w" ]; }
ok $? "2 ranks seeing all CPUs, STARPU_MPI_IDLE_SLEEP_US=0: StarPU keeps a core for its thread, $((NCPU - 1)) workers (got ${w:-none})"
diag "with StarPU's polling, rank 0's StarPU-MPI thread took $(thread_cpu "$TMP/poll.err") CPU s"

timeout -k 10 $LIMIT mpirun --timeout $LIMIT -np 2 "$X" resolve --stem $STEM --out "$TMP/two" --quiet 2>"$TMP/two.err" &&
    same_outputs "$TMP/one" "$TMP/two"
ok $? "2 ranks, the default placement (the CPUs split between them): outputs identical to one process ($(tail -1 "$TMP/two.err" | cut -c1-60))"
# the standard algorithm also sends kernels, larger messages that need more rounds of progress
"$X" resolve --algorithm standard --stem $STEM --out "$TMP/one-std" --quiet 2>/dev/null &&
    timeout -k 10 $LIMIT mpirun --timeout $LIMIT -np 2 "$X" resolve --algorithm standard --stem $STEM \
        --out "$TMP/two-std" --quiet 2>"$TMP/two-std.err" && same_outputs "$TMP/one-std" "$TMP/two-std"
ok $? "2 ranks, the default, standard algorithm: outputs identical to one process"
# a bad value is one usage error from rank 0, before StarPU-MPI (which would abort) reads it
STARPU_MPI_IDLE_SLEEP_US=soon timeout -k 10 $LIMIT mpirun --timeout $LIMIT -np 2 "$X" resolve --stem $STEM \
    --out "$TMP/bad" --quiet >"$TMP/bad.out" 2>&1
rc=$?
[ $rc -ne 0 ] && [ "$(grep -c "^extflow: STARPU_MPI_IDLE_SLEEP_US=soon:" "$TMP/bad.out")" = 1 ] &&
    ! grep -q 'must contain an integer' "$TMP/bad.out" && [ ! -e "$TMP/bad" ]
ok $? "2 ranks, STARPU_MPI_IDLE_SLEEP_US=soon: exit $rc, one line from rank 0, nothing created"
done_testing

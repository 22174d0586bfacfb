#!/bin/sh
# The Slurm recipe of docs/cluster.md, run as written: examples/extflow.sbatch with 2 ranks on
# one node gives the outputs of one process; a job stopped by extflow's --time-limit (exit 3)
# and its resubmission, queued with --dependency=afterany, resume to the same outputs. Opt-in:
# it submits jobs to whatever cluster sinfo reaches, so it runs only with
# EXTFLOW_TEST_SLURM=1 (and a controller that answers, and a binary with StarPU-MPI); otherwise
# it skips. The job directories are under $EXTFLOW_TEST_SLURM_DIR (default: a temporary
# directory, fine for a one-node cluster; on a real cluster, a shared one).
. tests/lib.sh
skip() { echo "1..0 # SKIP $1"; exit 0; }
[ "${EXTFLOW_TEST_SLURM:-0}" = 1 ] || skip "set EXTFLOW_TEST_SLURM=1 to submit test jobs to Slurm"
command -v sbatch >/dev/null 2>&1 && timeout 20 sinfo -h >/dev/null 2>&1 || skip "no Slurm controller answers (sinfo)"
ldd "$EXTFLOW" 2>/dev/null | grep -q libstarpumpi || skip "$EXTFLOW was built without StarPU-MPI"
plan 8
DIR=${EXTFLOW_TEST_SLURM_DIR:-$TMP}
mkdir -p "$DIR/slurm-test.$$" && DIR=$DIR/slurm-test.$$ || exit 1
[ -n "${EXTFLOW_TEST_SLURM_DIR:-}" ] && trap 'rm -rf "$TMP" "$DIR"' EXIT
LIMIT=${SLURM_TEST_LIMIT:-300}
# 2 ranks of 1 core on one node; the environment (STEM, OUT, TIME_LIMIT, EXTFLOW) goes with
# sbatch's default --export=ALL. Root may only run mpirun with both of these set.
export EXTFLOW OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
job() {   # job LOG [sbatch options...]: submits examples/extflow.sbatch and waits for it
    log=$1
    shift
    timeout -k 10 $LIMIT sbatch --wait --parsable --nodes=1 --ntasks-per-node=2 --cpus-per-task=1 --time=5 \
        --output="$log" "$@" examples/extflow.sbatch
}

$EXTFLOW resolve --stem 40 --out "$TMP/one40" --quiet
ok $? "one process, stem 40"
STEM=40 OUT=$DIR/s40 job "$DIR/s40.log" >/dev/null && same_outputs "$TMP/one40" "$DIR/s40" &&
    cmp -s "$TMP/one40/chart.txt" "$DIR/s40/chart.txt" && cmp -s "$TMP/one40/chart.svg" "$DIR/s40/chart.svg"
ok $? "sbatch, 2 ranks by srun --mpi=pmix: outputs identical to one process ($(grep -c . "$DIR/s40.log") log lines)"
LAUNCH=mpirun STEM=40 OUT=$DIR/m40 job "$DIR/m40.log" >/dev/null && same_outputs "$TMP/one40" "$DIR/m40"
ok $? "sbatch, 2 ranks by mpirun in the allocation: outputs identical"

# --time-limit 1 at stem 90 (seconds of work on 2 cores): the job ends with exit status 3, and
# the resubmission, queued behind it, finishes it.
$EXTFLOW resolve --stem 90 --out "$TMP/one90" --quiet
ok $? "one process, stem 90"
j1=$(STEM=90 OUT=$DIR/s90 TIME_LIMIT=1 job "$DIR/s90-1.log")
rc1=$?
[ $rc1 -eq 3 ] && grep -q "stopped at the time limit" "$DIR/s90-1.log" && [ ! -e "$DIR/s90/ext.csv" ]
ok $? "job 1 stopped at --time-limit 1: sbatch --wait exits $rc1, no ext.csv"
STEM=90 OUT=$DIR/s90 job "$DIR/s90-2.log" --dependency=afterany:$j1 >/dev/null
rc2=$?
stopped=$(sed -n 's/.*after [0-9.]* s: \([0-9]*\) of .*/\1/p' "$DIR/s90-1.log")
resumed=$(sed -n 's/.*resumed \([0-9]*\) bidegrees.*/\1/p' "$DIR/s90-2.log")
[ -n "$stopped" ] && [ -n "$resumed" ] && [ "$resumed" -gt 0 ]
ok $? "job 2 resumed $resumed bidegrees (rank 0 of job 1 counted $stopped done)"
# rank 0 counts what the ranks computed; the rerun loads the part whose rows below are loaded
# too, which may be a little less (the same holds for one process)
[ -n "$stopped" ] && [ -n "$resumed" ] && [ "$resumed" -le "$stopped" ] && [ $((stopped - resumed)) -le $((stopped / 10)) ]
ok $? "rank 0's count is what was kept, within 10% ($stopped, $resumed)"
[ $rc2 -eq 0 ] && same_outputs "$TMP/one90" "$DIR/s90" && $EXTFLOW verify "$DIR/s90" >/dev/null
ok $? "job 2 (--dependency=afterany) finished: outputs identical to one process, verify ok"
done_testing

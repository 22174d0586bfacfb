# mpi.sh — what the tests of distributed runs share (sourced after tests/lib.sh): the skip
# without mpirun or without StarPU-MPI in $EXTFLOW (EXTFLOW_REQUIRE_MPI=1: a failure), Open
# MPI's settings for ranks oversubscribing this machine's cores, and mpi NP CMD..., mpirun
# under a time limit (MPI_TEST_LIMIT seconds, default 240).
if ! command -v mpirun >/dev/null 2>&1 || ! ldd "$EXTFLOW" 2>/dev/null | grep -q libstarpumpi; then
    why="no mpirun, or $EXTFLOW built without StarPU-MPI (scripts/install-deps installs Open MPI)"
    if [ "${EXTFLOW_REQUIRE_MPI:-0}" = 1 ]; then plan 1; ok 1 "EXTFLOW_REQUIRE_MPI=1: $why"; done_testing; fi
    echo "1..0 # SKIP $why"
    exit 0
fi
# yield_when_idle: the ranks share the cores, so StarPU-MPI's polling thread yields to the workers
export OMPI_MCA_pml=ob1 STARPU_MPI_NOBIND=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
# as root Open MPI wants both of these; they do nothing for other users
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
LIMIT=${MPI_TEST_LIMIT:-240}
mpi() { np=$1; shift; timeout -k 10 $LIMIT mpirun --timeout $LIMIT -np $np "$@"; }

#!/bin/sh
# The standard step's lookahead (stages/standard.h, EXTFLOW_LOOKAHEAD=j): the rows of (s, t) from
# generators of degree <= t-j reduced early by a chain of their own, the step then extending
# that RREF by its other rows. RREF is unique, so every output must be the one of a run without
# it, bit for bit: the sphere at several j, modules (finite, with a profile, finitely presented,
# a cofiber), under the least --memory the run accepts, stopped by --time-limit and resumed, and
# over two MPI ranks where mpirun exists; 0 is off, and 1 (no lookahead at all), 65 and x are
# refused.
. tests/lib.sh
plan 14
export STARPU_NCPU=2
res() { $EXTFLOW resolve --quiet --algorithm standard "$@"; }
EXTFLOW_LOOKAHEAD=0 res --stem 60 --out "$TMP/s0"
ok $? "sphere, stem 60, no lookahead"
for j in 2 3 7; do
    EXTFLOW_LOOKAHEAD=$j res --stem 60 --out "$TMP/s$j" && same_outputs "$TMP/s0" "$TMP/s$j" &&
        cmp -s "$TMP/s0/chart.txt" "$TMP/s$j/chart.txt"
    ok $? "sphere, stem 60, lookahead $j: the same ext.csv, stage files and chart"
done
bad=""
for m in C2 tmf2 A-mod-Sq1-Sq2 C2v14; do
    EXTFLOW_LOOKAHEAD=0 res --module $m --stem 40 --out "$TMP/m0-$m" &&
        EXTFLOW_LOOKAHEAD=3 res --module $m --stem 40 --out "$TMP/m3-$m" &&
        same_outputs "$TMP/m0-$m" "$TMP/m3-$m" || bad="$bad $m"
done
[ -z "$bad" ]
ok $? "modules C2 (finite), tmf2 (profile: no lookahead there), A-mod-Sq1-Sq2 (finitely presented), C2v14 (cofiber): the same with lookahead 3${bad:+; differ:$bad}"
res --stem 60 --out "$TMP/tight" --memory 1K 2>"$TMP/tight.err"
least=$(sed -n 's/.*at least \([0-9]*M\).*/\1/p' "$TMP/tight.err")
EXTFLOW_LOOKAHEAD=3 res --stem 60 --out "$TMP/tight" --memory "${least:-none}" --verbose 2>"$TMP/tight.err" &&
    same_outputs "$TMP/s0" "$TMP/tight"
ok $? "lookahead 3 under --memory $least (the least accepted): completes, the same outputs"
grep -q ' 0 times one waited' "$TMP/tight.err"
[ $? -ne 0 ]
ok $? "and chains waited for memory there: $(grep -o 'at most.*' "$TMP/tight.err")"
# stopped at a time limit, rerun until done (the limit grows with the tries on a loaded machine)
tries=0 rc=3
while [ $rc -eq 3 ] && [ $tries -lt 40 ]; do
    tries=$((tries + 1))
    STARPU_NCPU=1 EXTFLOW_LOOKAHEAD=3 res --stem 70 --out "$TMP/cut" --time-limit $((1 + tries * tries / 20)) 2>/dev/null
    rc=$?
done
[ $rc -eq 0 ] && [ $tries -gt 1 ]
ok $? "lookahead 3, stem 70, stopped by --time-limit and rerun: done after $tries runs"
EXTFLOW_LOOKAHEAD=0 res --stem 70 --out "$TMP/s70"
same_outputs "$TMP/s70" "$TMP/cut"
ok $? "and the same outputs as one run without lookahead"
if command -v mpirun >/dev/null 2>&1 && ldd "$EXTFLOW" 2>/dev/null | grep -q libstarpumpi; then
    export OMPI_MCA_pml=ob1 STARPU_MPI_NOBIND=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    EXTFLOW_LOOKAHEAD=3 timeout -k 10 240 mpirun --timeout 240 -x EXTFLOW_LOOKAHEAD -np 2 \
        $EXTFLOW resolve --quiet --algorithm standard --stem 60 --out "$TMP/np2" 2>"$TMP/np2.err" &&
        same_outputs "$TMP/s0" "$TMP/np2"
    ok $? "two MPI ranks, lookahead 3: the same outputs $(head -c 100 "$TMP/np2.err")"
else
    ok 0 "two MPI ranks # SKIP no mpirun or no StarPU-MPI in $EXTFLOW"
fi
for v in x 1 65; do
    EXTFLOW_LOOKAHEAD=$v res --stem 10 --out "$TMP/bad" 2>"$TMP/bad.err"
    [ $? -eq 2 ] && head -1 "$TMP/bad.err" | grep -q "EXTFLOW_LOOKAHEAD=$v" && [ ! -e "$TMP/bad" ]
    ok $? "EXTFLOW_LOOKAHEAD=$v: usage error naming it: $(head -1 "$TMP/bad.err")"
done
EXTFLOW_LOOKAHEAD=3 res --stem 20 --keep-stages matrix --out "$TMP/keep" && [ -n "$(ls "$TMP/keep/stages/matrix" 2>/dev/null)" ] &&
    $EXTFLOW verify "$TMP/keep" >/dev/null 2>&1
ok $? "--keep-stages matrix under lookahead 3 keeps the whole matrices (no lookahead there): verify passes"
done_testing

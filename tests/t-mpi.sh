#!/bin/sh
# Distributed runs (StarPU-MPI, runtime/rt_mpi.c) on this machine's cores, oversubscribed:
# 1, 2 and 4 ranks give outputs identical to one process (standard and Nassau); a 2-rank run
# whose ranks are all killed resumes with 1 rank and with 3; a rank killed mid-run ends the
# whole run, non-zero, with one line naming it, and a rank that fails (its disk full) ends
# every rank with exit status 1 and one line from rank 0. Every mpirun has a time limit.
# Skipped without mpirun or without MPI in the binary (EXTFLOW_REQUIRE_MPI=1: a failure).
. tests/lib.sh
STEM=${MPI_TEST_STEM:-60}
. tests/mpi.sh
plan 26
same_all() {   # same_outputs, and the charts and manifest rank 0 wrote (but the manifest's
               # "memory" line: the memory account of the run that wrote it, schema/run-json.md)
    same_outputs "$1" "$2" && for f in chart.txt chart.svg chart.html; do cmp -s "$1/$f" "$2/$f" || return 1; done &&
    grep -v '"memory":' "$1/run.json" > "$TMP/run1.json" && grep -v '"memory":' "$2/run.json" > "$TMP/run2.json" &&
    cmp -s "$TMP/run1.json" "$TMP/run2.json"
}
for alg in nassau standard; do
    $EXTFLOW resolve --algorithm $alg --stem $STEM --out "$TMP/one-$alg" --quiet
    ok $? "$alg: one process, stem $STEM"
    for np in 1 2 4; do
        t0=$(date +%s)
        mpi $np $EXTFLOW resolve --algorithm $alg --stem $STEM --out "$TMP/np$np-$alg" 2>"$TMP/err" &&
            same_all "$TMP/one-$alg" "$TMP/np$np-$alg"
        ok $? "$alg: $np rank(s): outputs identical to one process ($(($(date +%s) - t0)) s; $(tail -1 "$TMP/err" | cut -c1-60))"
        [ $np -gt 1 ] && rm -rf "$TMP/np$np-$alg"
    done
done
grep -c . "$TMP/err" | grep -qx 1
ok $? "a 4-rank run prints one line, from rank 0 ($(wc -l < "$TMP/err") lines)"

# Starts a 2-rank Nassau run into $1 in the background and kills every rank (SIGKILL, by pid)
# once about a third of the reference's stage files are there.
kill_ranks_midway() {
    want=$(($(ls "$TMP/one-nassau/stages/differential" | wc -l) / 3))
    mpirun --timeout $LIMIT -np 2 $EXTFLOW resolve --stem $STEM --out "$1" --quiet >/dev/null 2>&1 &
    mpid=$!
    n=0
    while kill -0 $mpid 2>/dev/null && [ "$(ls "$1/stages/differential" 2>/dev/null | wc -l)" -lt $want ] && [ $n -lt 2000 ]; do
        sleep 0.05; n=$((n + 1))
    done
    for p in $(pgrep -P $mpid); do kill -9 $p 2>/dev/null; done
    wait $mpid 2>/dev/null
    ls "$1/stages/differential" 2>/dev/null | wc -l
}
for np in 1 3; do
    d="$TMP/killed-$np"
    partial=$(kill_ranks_midway "$d")
    [ ! -e "$d/ext.csv" ]
    ok $? "2 ranks killed with $partial stage files: no ext.csv"
    mpi $np $EXTFLOW resolve --stem $STEM --out "$d" 2>"$TMP/err" && same_all "$TMP/one-nassau" "$d" &&
        ! ls "$d/stages/differential" | grep -q tmp
    ok $? "resumed with $np rank(s): identical outputs ($(head -1 "$TMP/err" | cut -c1-70))"
done

# One rank killed mid-run: mpirun ends the others and says which; nothing hangs.
d="$TMP/dies"
want=$(($(ls "$TMP/one-nassau/stages/differential" | wc -l) / 3))
t0=$(date +%s)
mpirun --timeout $LIMIT -np 2 $EXTFLOW resolve --stem $STEM --out "$d" --quiet 2>"$TMP/err" &
mpid=$!
n=0
while kill -0 $mpid 2>/dev/null && [ "$(ls "$d/stages/differential" 2>/dev/null | wc -l)" -lt $want ] && [ $n -lt 2000 ]; do
    sleep 0.05; n=$((n + 1))
done
victim=$(pgrep -P $mpid | tail -1)
kill -9 $victim
wait $mpid
rc=$?
[ $rc -ne 0 ] && [ $(($(date +%s) - t0)) -lt $LIMIT ]
ok $? "a rank killed mid-run: mpirun exits $rc, without waiting for its time limit"
[ "$(grep -c "exited on signal 9" "$TMP/err")" = 1 ]
ok $? "one line names the rank that died: $(grep "exited on signal 9" "$TMP/err" | cut -c1-90)"
[ ! -e "$d/ext.csv" ]
ok $? "no ext.csv after the death"

# A rank whose writes fail (a file-size limit for rank 1 only): every rank exits 1 and rank 0
# prints one line naming rank 1's failure; then a run with room finishes it identically.
# (TCP between the ranks: the limit would also stop Open MPI's shared-memory segment; -q: no
# banner from mpirun about the non-zero exit, so the one line is extflow's)
d="$TMP/full"
OMPI_MCA_btl=self,tcp mpirun -q --timeout $LIMIT -np 1 $EXTFLOW resolve --stem $STEM --out "$d" --quiet : \
    -np 1 sh -c "ulimit -f 1; exec $EXTFLOW resolve --stem $STEM --out '$d' --quiet" 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && [ "$(grep -c . "$TMP/err")" = 1 ] && grep -q "rank 1: .*File too large" "$TMP/err"
ok $? "rank 1's disk full: exit status $rc, one line: $(head -1 "$TMP/err" | cut -c1-100)"
mpi 2 $EXTFLOW resolve --stem $STEM --out "$d" --quiet && same_all "$TMP/one-nassau" "$d"
ok $? "rerun with room on 2 ranks: identical outputs"

# CPUs of the ranks of one host (runtime/rt_mpi.c, place_local_ranks): StarPU 1.3 alone would
# put every rank's workers on CPU 0 onward. With Open MPI's default binding (a core per rank)
# and with --bind-to none, the 2 ranks' workers sit on disjoint CPUs, and the outputs are those
# of one process; EXTFLOW_MPI_BIND=no leaves the binding to StarPU. EXTFLOW_STATS also gives the
# latency of the exchanges each rank received.
cpus_of() {    # cpus_of FILE RANK: the OS numbers of rank RANK's worker CPUs, one a line
    sed -n "s/^extflow: rank $2: [0-9]* CPU workers on CPUs \([0-9,-]*\)[ ;].*/\1/p" "$1" | tr ',' '\n' |
        awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }' | sort -u
}
disjoint() {   # disjoint FILE: both ranks have workers, on no common CPU
    cpus_of "$1" 0 > "$TMP/c0"; cpus_of "$1" 1 > "$TMP/c1"
    [ -s "$TMP/c0" ] && [ -s "$TMP/c1" ] && [ -z "$(comm -12 "$TMP/c0" "$TMP/c1")" ]
}
for bind in "" "--bind-to none"; do
    d="$TMP/bind"
    rm -rf "$d"
    EXTFLOW_STATS=1 mpi 2 $bind $EXTFLOW resolve --stem $STEM --out "$d" --quiet 2>"$TMP/err" &&
        same_all "$TMP/one-nassau" "$d" && disjoint "$TMP/err"
    ok $? "2 ranks${bind:+, $bind}: workers on disjoint CPUs ($(cpus_of "$TMP/err" 0 | tr '\n' ' ')/ $(cpus_of "$TMP/err" 1 | tr '\n' ' ')), identical outputs"
done
ls "$STARPU_HOME/.starpu/sampling/bus/" | grep -q -- "-rank0of2.config" &&
    ls "$STARPU_HOME/.starpu/sampling/bus/" | grep -q -- "-rank1of2.config"
ok $? "each of the 2 ranks of this host keeps its own StarPU bus calibration (STARPU_HOSTNAME per local rank)"
grep -q "^extflow: rank 0 received [1-9][0-9]* bidegrees, publish to receive: median [0-9.]* ms" "$TMP/err" &&
    grep -q "^extflow: rank 1 received [1-9]" "$TMP/err"
ok $? "EXTFLOW_STATS: each rank's exchange latency ($(grep -m1 "rank 0 received" "$TMP/err" | cut -c9-100))"
rm -rf "$d"
EXTFLOW_MPI_BIND=no EXTFLOW_STATS=1 mpi 2 $EXTFLOW resolve --stem $STEM --out "$d" --quiet 2>"$TMP/err" &&
    same_all "$TMP/one-nassau" "$d" && grep -q "^extflow: rank 1: .*left to StarPU (EXTFLOW_MPI_BIND=no)" "$TMP/err"
ok $? "EXTFLOW_MPI_BIND=no: the binding is left to StarPU, identical outputs"

# products on 2 ranks: each lifts its share of the classes, rank 0 reads them all and writes the
# tables, byte-identical to one process's
for n in 1 2; do
    rm -rf "$TMP/prod$n"
    cp -r "$TMP/one-nassau" "$TMP/prod$n"
done
classes="--class h0 --class h1 --class h2 --class c0=8,3 --class d0=14,4"
$EXTFLOW products "$TMP/prod1" $classes --sseq-formats --quiet &&
    mpi 2 $EXTFLOW products "$TMP/prod2" $classes --sseq-formats 2>"$TMP/err" &&
    for f in products.csv chart.svg chart.html lift_hom-h0.txt lift_hom-c0.txt lift_hom-d0.txt; do
        cmp -s "$TMP/prod1/$f" "$TMP/prod2/$f" || exit 1
    done && grep -q "lifted by 2 ranks" "$TMP/err"
ok $? "products on 2 ranks: products.csv, the charts and the lift_hom files equal one process's ($(grep -m1 'ranks' "$TMP/err" | cut -c1-90))"
rm -rf "$TMP/prod2"
cp -r "$TMP/one-nassau" "$TMP/prod2"
hold_lock "$TMP/prod2"
mpi 2 $EXTFLOW products "$TMP/prod2" --class h0 2>"$TMP/err"
rc=$?
kill $holder 2>/dev/null
[ $rc -eq 4 ] && [ "$(grep -c 'in use' "$TMP/err")" -eq 1 ] && [ ! -e "$TMP/prod2/products.csv" ]
ok $? "products on 2 ranks while DIR is held: one line, exit 4, nothing written ($(head -1 "$TMP/err"))"
bad=0
for cmd in "export $TMP/prod1" "sq0 $TMP/prod1" "steenrod $TMP/prod1 --class h1"; do
    mpi 2 $EXTFLOW $cmd >/dev/null 2>"$TMP/err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(grep -c 'runs on one process' "$TMP/err")" -eq 1 ] || bad=1
done
[ $bad -eq 0 ]
ok $? "export, sq0 and steenrod on 2 ranks: one line from rank 0, exit 2 (massey, d2, verify: t-mpi-massey.sh, t-mpi-d2.sh, t-mpi-verify.sh)"
done_testing

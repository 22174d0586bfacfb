#!/bin/sh
# extflow d2 under mpirun (tools/cmd-d2.c, d2_share_composites): the composites are shared
# among the ranks and gathered on rank 0, which runs the homotopy; on 2 and 3 ranks d2.csv,
# secondary.txt, the charts, the homotopy's stage files and --product h0's table equal one
# process's byte for byte (C2's --product v_1 with a unit: sseq's table); a rerun computes no composite and loads every homotopy step; a
# damaged homotopy file is recomputed on rank 0 (its composites computed late there); a rank
# out of memory ends every rank with exit 1 and one line from rank 0; d2's refusals (a
# profile's resolution, the Joker) are one line from rank 0 and exit 2. Every
# mpirun has a time limit. Skipped without mpirun or without MPI in the binary.
. tests/lib.sh
. tests/mpi.sh
STEM=${MPI_D2_TEST_STEM:-45}
plan 10
$EXTFLOW resolve --stem $STEM --out "$TMP/res" --quiet && cp -r "$TMP/res" "$TMP/one" &&
    $EXTFLOW d2 "$TMP/one" --sseq-formats --quiet
ok $? "stem $STEM: resolved, d2 on one process"
same_d2() {     # the tables, the charts that draw them and the homotopy's stage files
    for o in d2.csv secondary.txt chart.svg chart.html; do cmp -s "$1/$o" "$2/$o" || return 1; done &&
        diff -r "$1/stages/lift" "$2/stages/lift" >/dev/null
}
for np in 2 3; do
    cp -r "$TMP/res" "$TMP/np$np"
    mpi $np $EXTFLOW d2 "$TMP/np$np" --sseq-formats 2>"$TMP/err$np" && same_d2 "$TMP/one" "$TMP/np$np" &&
        grep -q "composites were shared among $np ranks" "$TMP/err$np"
    ok $? "$np ranks: d2.csv, secondary.txt, the charts and the stage files equal one process's ($(head -1 "$TMP/err$np" | cut -c1-70))"
done
cp -r "$TMP/res" "$TMP/p1" && cp -r "$TMP/res" "$TMP/p2"
$EXTFLOW d2 "$TMP/p1" --product h0 --quiet && mpi 2 $EXTFLOW d2 "$TMP/p2" --product h0 --quiet &&
    cmp -s "$TMP/p1/secondary_product-h0.txt" "$TMP/p2/secondary_product-h0.txt" && cmp -s "$TMP/p1/d2.csv" "$TMP/p2/d2.csv"
ok $? "2 ranks, --product h0: secondary_product-h0.txt and d2.csv equal one process's"
# a module's product: the unit's d2 runs on rank 0 alone, after the shared composites of C2's
$EXTFLOW resolve --module C2 --stem 30 --max-s 7 --out "$TMP/c2" --quiet &&
    $EXTFLOW resolve --algorithm standard --stem 30 --max-s 7 --out "$TMP/unit" --quiet &&
    mpi 2 $EXTFLOW d2 "$TMP/c2" --product v_1=2,1 --unit "$TMP/unit" --quiet &&
    tail -n +2 "$REF/secondary/secondary_product-v_1-C2" | cmp -s - "$TMP/c2/secondary_product-v_1.txt"
ok $? "2 ranks, C2 --product v_1=2,1 --unit S_2: sseq's secondary_product-v_1-C2 byte for byte"
EXTFLOW_STATS=1 mpi 2 $EXTFLOW d2 "$TMP/np2" --sseq-formats 2>"$TMP/again" && same_d2 "$TMP/one" "$TMP/np2" &&
    grep -q " 0 composites .* 0 homotopy bidegrees computed" "$TMP/again" &&
    grep -q "^extflow: rank 1 computed 0 composite cells" "$TMP/again"
ok $? "2 ranks, a rerun: no composite computed, every homotopy step loaded, the same tables"
f=$(ls "$TMP/np2"/stages/lift/d2/*.zst | sed -n 20p)
printf 'garbage' | dd of="$f" bs=1 seek=40 conv=notrunc 2>/dev/null
mpi 2 $EXTFLOW d2 "$TMP/np2" --sseq-formats 2>"$TMP/dam" && same_d2 "$TMP/one" "$TMP/np2" &&
    grep -q "recomputing" "$TMP/dam" && grep -q "$(basename "$f")" "$TMP/dam"
ok $? "2 ranks, a damaged homotopy file: named, recomputed on rank 0, the same tables"
# rank 1 alone runs out of memory computing its composites (tests/faultshim.c; where the
# failing allocation lands, in a composite's plan or its layout, follows the allocations before
# it): every rank stops, one line from rank 0 names it, exit 1, no table
SHIM=${FAULT_SHIM:-build/tests/faultshim.so}
cp -r "$TMP/res" "$TMP/oom"
timeout -k 10 $LIMIT mpirun --timeout $LIMIT -np 1 $EXTFLOW d2 "$TMP/oom" : -np 1 -x LD_PRELOAD="$PWD/$SHIM" \
    -x EXTFLOW_FAULT_AT=10000 $EXTFLOW d2 "$TMP/oom" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && [ "$(grep -c "^extflow: " "$TMP/err")" -eq 1 ] && grep -q "^extflow: rank 1: .*out of memory" "$TMP/err" &&
    [ ! -e "$TMP/oom/d2.csv" ]
ok $? "2 ranks, rank 1 out of memory: one line from rank 0, exit 1, no table ($(grep -m1 "^extflow" "$TMP/err" | cut -c1-70))"
$EXTFLOW resolve --module ko --stem 10 --out "$TMP/ko" --quiet
$EXTFLOW resolve --module Joker --stem 12 --out "$TMP/joker" --quiet
for d in ko joker; do
    mpi 2 $EXTFLOW d2 "$TMP/$d" 2>"$TMP/err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(grep -c "^extflow: " "$TMP/err")" -eq 1 ] && [ ! -e "$TMP/$d/d2.csv" ]
    ok $? "2 ranks, d2 of $d: refused, one line, exit 2 ($(head -1 "$TMP/err" | cut -c1-80))"
done
done_testing

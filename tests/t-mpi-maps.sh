#!/bin/sh
# products --map under mpirun (docs/products.md, "Maps of modules"): 2 ranks lift their share of
# the maps into the stage files, rank 0 loads them and writes the files of one process; a map
# that is not A-linear is refused by rank 0 alone, one line, exit 2, nothing written.
. tests/lib.sh
. tests/mpi.sh
plan 2
res() { $EXTFLOW resolve --quiet "$@"; }
res --stem 14 --max-s 10 --out "$TMP/S1" && res --stem 14 --max-s 10 --out "$TMP/S2" &&
    res --module Cnu --stem 18 --max-s 10 --out "$TMP/Cnu" || exit 1
echo '{"degree": 4, "images": {"x0": "x4"}}' > "$TMP/top.json"
echo '{"degree": 4, "images": {"x0": "0"}}' > "$TMP/zero.json"
echo '{"degree": 0, "images": {"x0": "x0"}}' > "$TMP/bottom.json"
maps="--map p=$TMP/top.json --map z=$TMP/zero.json"
$EXTFLOW products "$TMP/S1" $maps --target "$TMP/Cnu" --sseq-formats --quiet &&
    mpi 2 $EXTFLOW products "$TMP/S2" $maps --target "$TMP/Cnu" --sseq-formats 2>"$TMP/err" &&
    for f in maps.csv lift_hom-p.txt lift_hom-z.txt; do cmp -s "$TMP/S1/$f" "$TMP/S2/$f" || exit 1; done
ok $? "2 ranks: maps.csv and the lift_hom files equal one process's ($(grep -m1 'ranks' "$TMP/err" | cut -c1-80))"
rm -f "$TMP/S2/maps.csv"
mpi 2 $EXTFLOW products "$TMP/S2" --map q="$TMP/bottom.json" --target "$TMP/Cnu" 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && [ "$(grep -c 'not A-linear' "$TMP/err")" -eq 1 ] && [ ! -e "$TMP/S2/maps.csv" ]
ok $? "2 ranks, a map that is not A-linear: one line from rank 0, exit 2, nothing written ($(head -1 "$TMP/err" | cut -c1-90))"
done_testing

#!/bin/sh
# S_2 against known answers, with both algorithms: Lin's Ext table (standard through stem 40,
# Nassau through stem 60), sseq's charts, differentials (bit for bit), num_gens and resolution
# sizes, and Nassau's table equal to the standard algorithm's.
. tests/lib.sh
plan 14
# reference rows inside a region (n <= $1, s <= $2) must equal ext.csv
table_ok() {
    awk -F, -v n="$1" -v s="$2" 'NR > 1 && $2 <= n && $1 <= s' "$REF/ext_S_2_stem60.csv" > "$TMP/want"
    tail -n +2 "$3/ext.csv" | cmp -s "$TMP/want" -
}
$EXTFLOW resolve --algorithm standard --stem 40 --out "$TMP/s40" --quiet
ok $? "standard: resolve --stem 40 exits 0"
table_ok 40 22 "$TMP/s40"
ok $? "standard: ext.csv equals Lin's table through stem 40 (s <= 22)"
$EXTFLOW resolve --algorithm nassau --stem 60 --max-s 40 --out "$TMP/n60" --quiet
ok $? "nassau: resolve --stem 60 --max-s 40 exits 0"
table_ok 60 40 "$TMP/n60"
ok $? "nassau: ext.csv equals Lin's table through stem 60 (s <= 40, $(wc -l < "$TMP/want") bidegrees)"
$EXTFLOW resolve --algorithm nassau --stem 40 --out "$TMP/n40" --quiet && cmp -s "$TMP/s40/ext.csv" "$TMP/n40/ext.csv"
ok $? "nassau's ext.csv equals the standard algorithm's through stem 40"
$EXTFLOW resolve --max-t 50 --out "$TMP/rect" --quiet
awk -F, 'NR > 1 && $1 + $2 <= 50 && $1 <= 27' "$REF/ext_S_2_stem60.csv" > "$TMP/want-rect"
tail -n +2 "$TMP/rect/ext.csv" | cmp -s "$TMP/want-rect" -
ok $? "--max-t 50 (rectangle t <= 50, s <= 27) equals Lin's table there"

for alg in standard nassau; do
    suffix=; [ $alg = nassau ] && suffix=-nassau
    $EXTFLOW resolve --algorithm $alg --stem 30 --max-s 11 --out "$TMP/c-$alg" --quiet
    tail -n +2 "$REF/resolve_through_stem-S_2$suffix" | cmp -s - "$TMP/c-$alg/chart.txt"
    ok $? "$alg: chart.txt equals sseq's resolve_through_stem-S_2$suffix (30, 11)"
done
$EXTFLOW resolve --algorithm standard --stem 10 --max-s 5 --out "$TMP/d" --quiet --sseq-formats
tail -n +2 "$REF/differentials-S_2-milnor" | cmp -s - "$TMP/d/differentials.txt"
ok $? "standard: differentials equal sseq's differentials-S_2-milnor (10, 5) bit for bit"
$EXTFLOW resolve --algorithm nassau --stem 10 --max-s 5 --out "$TMP/dn" --quiet --sseq-formats
tail -n +2 "$REF/differentials-S_2-nassau" | cmp -s - "$TMP/dn/differentials.txt"
ok $? "nassau: differentials equal sseq's differentials-S_2-nassau (10, 5) bit for bit"

$EXTFLOW resolve --stem 5 --max-s 5 --out "$TMP/n" --quiet --sseq-formats
tail -n +2 "$REF/num_gens-S_2" | cmp -s - "$TMP/n/num_gens.txt"
ok $? "num_gens equals sseq's num_gens-S_2 (5, 5)"
for alg in standard nassau; do
    $EXTFLOW resolve --algorithm $alg --stem 30 --max-s 7 --out "$TMP/r-$alg" --quiet --sseq-formats
    tail -n +2 "$REF/resolution_size-S_2" | cmp -s - "$TMP/r-$alg/resolution_size.txt"
    ok $? "$alg: resolution sizes equal sseq's resolution_size-S_2 (30, 7)"
done
# a later run without --sseq-formats keeps sseq's texts current (rewritten for the larger
# region), never deleted nor left stale
$EXTFLOW resolve --stem 5 --max-s 5 --out "$TMP/kept" --quiet --sseq-formats &&
    $EXTFLOW resolve --stem 10 --max-s 5 --out "$TMP/kept" --quiet &&
    $EXTFLOW resolve --stem 10 --max-s 5 --out "$TMP/fresh" --quiet --sseq-formats &&
    for f in differentials.txt num_gens.txt resolution_size.txt; do cmp -s "$TMP/kept/$f" "$TMP/fresh/$f" || exit 1; done &&
    $EXTFLOW resolve --stem 10 --max-s 5 --out "$TMP/plain" --quiet && [ ! -e "$TMP/plain/num_gens.txt" ]
ok $? "a rerun without --sseq-formats rewrites the sseq texts there (equal to a fresh run's), writes none where there were none"
done_testing

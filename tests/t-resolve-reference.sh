#!/bin/sh
# S_2 with the standard algorithm against known answers: Lin's Ext table through stem 40,
# and sseq's chart, differentials, num_gens and resolution sizes (bit for bit).
. tests/lib.sh
plan 6
$EXTFLOW resolve --stem 40 --out "$TMP/s40" --quiet
ok $? "resolve --stem 40 exits 0"
# reference rows inside the computed region (n <= 40, s <= 22) must equal ext.csv
awk -F, 'NR > 1 && $2 <= 40 && $1 <= 22' "$REF/ext_S_2_stem60.csv" > "$TMP/want"
tail -n +2 "$TMP/s40/ext.csv" > "$TMP/got"
cmp -s "$TMP/want" "$TMP/got"
ok $? "ext.csv equals Lin's table through stem 40 ($(wc -l < "$TMP/got") non-zero bidegrees)"

$EXTFLOW resolve --stem 30 --max-s 11 --out "$TMP/c" --quiet
tail -n +2 "$REF/resolve_through_stem-S_2" | cmp -s - "$TMP/c/chart.txt"
ok $? "chart.txt equals sseq's resolve_through_stem S_2 30 11"

$EXTFLOW resolve --stem 10 --max-s 5 --out "$TMP/d" --quiet --sseq-formats
tail -n +2 "$REF/differentials-S_2-milnor" | cmp -s - "$TMP/d/differentials.txt"
ok $? "differentials equal sseq's differentials-S_2-milnor (10, 5) bit for bit"

$EXTFLOW resolve --stem 5 --max-s 5 --out "$TMP/n" --quiet --sseq-formats
tail -n +2 "$REF/num_gens-S_2" | cmp -s - "$TMP/n/num_gens.txt"
ok $? "num_gens equals sseq's num_gens-S_2 (5, 5)"

$EXTFLOW resolve --stem 30 --max-s 7 --out "$TMP/r" --quiet --sseq-formats
tail -n +2 "$REF/resolution_size-S_2" | cmp -s - "$TMP/r/resolution_size.txt"
ok $? "resolution sizes equal sseq's resolution_size-S_2 (30, 7)"
done_testing

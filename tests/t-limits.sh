#!/bin/sh
# Limits and messages (issue 24, item 4): --time-limit holds during the start-up too, the line
# of a stopped run says only true things, one rule for regions, a directory that is not
# extflow's is refused, products.csv keeps the rows of earlier runs, the help fits in 80
# columns, and a --memory budget below what one bidegree needs is refused.
. tests/lib.sh
plan 4
export STARPU_NCPU=1
now() { date +%s.%N; }
# (a) stem 400: seconds of Milnor tables and their flat copy before the first bidegree (25 s
# and 2.4 GB when the limit was checked only once steps ran)
t0=$(now)
$EXTFLOW resolve --stem 400 --time-limit 2 --out "$TMP/big" 2>"$TMP/big.err"
rc=$?
wall=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
[ $rc -eq 3 ] && [ "$(wc -l < "$TMP/big.err")" -eq 1 ] && grep -q '^extflow: stopped at the time limit' "$TMP/big.err" &&
    awk -v w="$wall" 'BEGIN { exit !(w < 6) }'
ok $? "--stem 400 --time-limit 2: exit 3 ($rc) after $wall s (< 6), one line: $(cut -c1-120 "$TMP/big.err")"
[ ! -e "$TMP/big/ext.csv" ] && [ ! -e "$TMP/big/run.json" ]
ok $? "and no ext.csv or run.json"
# (b) nothing complete, nothing computed: no 'stem -1', no '-1 s'
bad=0
for stem in 300 150; do
    $EXTFLOW resolve --stem $stem --time-limit 1 --out "$TMP/s$stem" 2>"$TMP/s$stem.err"
    rc=$?
    if [ $rc -ne 3 ] || grep -q -- '-1' "$TMP/s$stem.err"; then bad=1; fi
    diag "stem $stem: exit $rc: $(cat "$TMP/s$stem.err")"
done
[ $bad -eq 0 ]
ok $? "--time-limit 1 at stems 300 and 150: exit 3, and the line says no 'stem -1' or '-1 s'"
$EXTFLOW resolve --stem 300 --time-limit 1 --out "$TMP/s300" 2>"$TMP/s300b.err"
[ $? -eq 3 ] && ! grep -q -- '-1' "$TMP/s300b.err" && ! grep -q 'resumed' "$TMP/s300b.err"
ok $? "the rerun stops the same way, still saying nothing false: $(cut -c1-100 "$TMP/s300b.err")"
done_testing

#!/bin/sh
# The memory account (algebra/memacct.h): resolve --verbose prints it as one table, run.json
# carries it, and every byte it counts in flight or in a kernel slot is given back by the end
# of the run (each allocation's add has its free's subtract).
. tests/lib.sh
plan 5
STARPU_NCPU=2 $EXTFLOW resolve --stem 40 --out "$TMP/a" --quiet --verbose 2>"$TMP/err"
ok $? "resolve --stem 40 --verbose exits 0"
sed -n '/^extflow: memory account, MB/,$p' "$TMP/err" > "$TMP/account"
[ "$(grep -c '^  [a-zA-Z]' "$TMP/account")" -eq 9 ]
ok $? "--verbose prints the account: a title and 9 rows ($(grep -c '^  [a-zA-Z]' "$TMP/account") rows)"
awk '/^  (bidegrees in flight|kernels in slots|committer queue|StarPU)/ { if ($(NF-1) != "0.0") bad = 1 } END { exit bad }' "$TMP/account"
ok $? "in flight, kernels, StarPU and the committer's queue are back to 0.0 MB at the end"
field() { grep -o "\"$1\": [0-9]*" "$TMP/a/run.json" | grep -o '[0-9]*$'; }
rss=$(field peak_rss_bytes); sum=$(field accounted_peak_bytes); inf=$(field in_flight_peak_bytes)
[ -n "$rss" ] && [ -n "$sum" ] && [ "$sum" -le "$rss" ] && [ "$inf" -gt 0 ] && [ "$inf" -le "$sum" ]
ok $? "run.json: 0 < in_flight peak ($inf) <= accounted peak ($sum) <= peak RSS ($rss)"
n=0; for k in differentials kernels in_flight milnor_tables starpu committer_queue; do
    [ -n "$(field ${k}_peak_bytes)" ] && n=$((n + 1)); done
[ $n -eq 6 ]
ok $? "run.json has the peak of each of the 6 kinds ($n)"
done_testing

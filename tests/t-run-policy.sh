#!/bin/sh
# The run policy of products, massey, d2 and verify (the chain runner's, as resolve's): runs stopped by
# --time-limit (exit 3, one line, no table written) and rerun until done, and runs killed at a
# random moment and rerun, end with tables byte-identical to an uninterrupted run's; a small
# --memory gives the same tables; a bad --memory or --time-limit, or a --memory larger than the
# machine, is a usage error; on a terminal
# the progress line names the steps.
. tests/lib.sh
STEM=${POLICY_TEST_STEM:-70}
plan 22
$EXTFLOW resolve --stem $STEM --out "$TMP/res" --quiet
ok $? "resolve through stem $STEM"
seed=${SEED:-$$}
diag "seed $seed"

# name, command arguments after DIR, the table it writes
run_case() {   # run_case NAME TABLE ARGS...
    name=$1 table=$2
    shift 2
    cp -r "$TMP/res" "$TMP/$name-full"
    t0=$(date +%s.%N)
    $EXTFLOW $name "$TMP/$name-full" "$@" --quiet
    ok $? "$name $*: uninterrupted"
    span=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { d = b - a; printf "%.2f", (d > 0.3 ? d : 0.3) }')
    diag "$name took ${span}s"

    # --time-limit 1, rerun until it ends: every run exits 3 (one line, no table) or 0 (on a
    # loaded machine the start-up alone may take the second: the limit grows, 1 + tries²/20 s)
    cp -r "$TMP/res" "$TMP/$name-tl"
    tries=0 bad=0 stops=0
    while [ $tries -lt 30 ]; do
        tries=$((tries + 1))
        $EXTFLOW $name "$TMP/$name-tl" "$@" --quiet --time-limit $((1 + tries * tries / 20)) 2>"$TMP/err"
        rc=$?
        if [ $rc -eq 0 ]; then break; fi
        stops=$((stops + 1))
        if [ $rc -ne 3 ] || [ "$(wc -l <"$TMP/err")" -ne 1 ] || [ -e "$TMP/$name-tl/$table" ]; then bad=1; fi
    done
    diag "$name: $stops stops at the time limit before it finished"
    [ $bad -eq 0 ] && [ $rc -eq 0 ] && cmp -s "$TMP/$name-full/$table" "$TMP/$name-tl/$table"
    ok $? "$name: stopped by --time-limit $stops times (exit 3, one line, no $table), rerun: $table identical"

    # killed at a random moment, rerun
    cp -r "$TMP/res" "$TMP/$name-kill"
    delay=$(awk -v s=$seed -v span=$span 'BEGIN { srand(s); printf "%.2f", 0.1 + rand() * span * 0.9 }')
    $EXTFLOW $name "$TMP/$name-kill" "$@" --quiet &
    pid=$!
    sleep "$delay"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    $EXTFLOW $name "$TMP/$name-kill" "$@" --quiet && cmp -s "$TMP/$name-full/$table" "$TMP/$name-kill/$table"
    ok $? "$name: killed after ${delay}s and rerun: $table identical"

    # a small budget: the steps wait for memory, the table is the same
    cp -r "$TMP/res" "$TMP/$name-mem"
    $EXTFLOW $name "$TMP/$name-mem" "$@" --quiet --memory 40M && cmp -s "$TMP/$name-full/$table" "$TMP/$name-mem/$table"
    ok $? "$name --memory 40M: $table identical"
}

run_case products products.csv --class h0 --class h1 --class h2 --class c0=8,3 --class g=20,4
run_case massey massey-h0-h1.csv --a h0 --b h1
run_case d2 d2.csv

# verify keeps no state: under --memory it reports the same; stopped by --time-limit it writes no
# report (exit 3, one line) on a run long enough to stop (stem 100); killed, a rerun reports the same
$EXTFLOW verify "$TMP/res" --quiet > "$TMP/verify-full" && $EXTFLOW verify "$TMP/res" --quiet --memory 40M > "$TMP/verify-mem" &&
    cmp -s "$TMP/verify-full" "$TMP/verify-mem" && grep -q "0 problems: ok" "$TMP/verify-full"
ok $? "verify --memory 40M: the same report ($(sed 's/.*; //' "$TMP/verify-full"))"
$EXTFLOW resolve --stem ${POLICY_VERIFY_STEM:-100} --out "$TMP/res100" --quiet
$EXTFLOW verify "$TMP/res100" --quiet --time-limit 1 > "$TMP/verify-tl" 2> "$TMP/err"
rc=$?
# (stem 100 is ~4 s of CPU here; a machine a few times faster checks it inside the second: then
# exit 0 only with the whole report, no stop line)
if [ $rc -eq 3 ]; then
    [ ! -s "$TMP/verify-tl" ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "^extflow: verify stopped at the time limit" "$TMP/err"
else
    [ $rc -eq 0 ] && ! grep -q stopped "$TMP/err" && grep -q "0 problems: ok" "$TMP/verify-tl"
fi &&
    $EXTFLOW verify "$TMP/res100" --quiet --time-limit 100000 > "$TMP/verify-tl" && grep -q "0 problems: ok" "$TMP/verify-tl"
ok $? "verify --time-limit 1 at stem ${POLICY_VERIFY_STEM:-100}: exit 3, one line, no report, or (a fast machine) exit 0 and the whole report (exit $rc; $(cut -c1-60 "$TMP/err")); with time enough: ok"
$EXTFLOW verify "$TMP/res100" --quiet > /dev/null &
pid=$!
sleep 1
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
$EXTFLOW verify "$TMP/res100" --quiet > "$TMP/verify-again" && cmp -s "$TMP/verify-tl" "$TMP/verify-again"
ok $? "verify killed after 1 s and rerun: the same report"
$EXTFLOW products "$TMP/res" --class h0 --time-limit 0 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "time-limit" "$TMP/err"
ok $? "products --time-limit 0: usage error"
$EXTFLOW d2 "$TMP/res" --memory lots 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "memory" "$TMP/err"
ok $? "d2 --memory lots: usage error"
# a budget larger than the machine (or its ulimit -v) gives this process is a mistake: refused
$EXTFLOW resolve --stem 4 --memory 1000T --out "$TMP/huge" 2>"$TMP/err"
is_usage_error $? "$TMP/err" && grep -q "more than this machine gives" "$TMP/err" && [ ! -e "$TMP/huge" ]
ok $? "resolve --memory 1000T: a usage error, nothing created ($(head -1 "$TMP/err" | cut -c1-80))"
(ulimit -v 1500000; $EXTFLOW products "$TMP/res" --class h0 --memory 3G 2>"$TMP/err")
is_usage_error $? "$TMP/err" && grep -q "ulimit -v" "$TMP/err"
ok $? "products --memory 3G under ulimit -v 1.5 GB: a usage error"
(ulimit -v 1500000; $EXTFLOW resolve --stem 4 --memory 1G --out "$TMP/under" --quiet 2>"$TMP/err")
ok $? "resolve --memory 1G under that limit runs"
if command -v script >/dev/null 2>&1; then
    cp -r "$TMP/res" "$TMP/tty"
    script -qec "$EXTFLOW products $TMP/tty --class h0 --class h1" /dev/null >"$TMP/tty.out" 2>&1
    grep -q "lift steps" "$TMP/tty.out"
    ok $? "products on a terminal: a progress line over the lift steps"
else
    echo "ok 22 # skip no script(1)"
fi
done_testing

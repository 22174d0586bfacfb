#!/bin/sh
# SIGINT and SIGTERM (tools/extflow.c, docs/reliability.md "Exit status"): a run stops as at
# --time-limit (the steps running finish, their files are flushed), says so in one line, leaves
# no temporary, ends its progress line, and exits 128 + the signal (130, 143); a rerun resumes
# to the outputs of an uninterrupted run.
. tests/lib.sh
plan 8
$EXTFLOW resolve --stem 80 --out "$TMP/ref" --quiet
ok $? "an uninterrupted stem-80 run as the reference"
interrupt_after 150 INT "$TMP/i/stages/differential" resolve --stem 80 --out "$TMP/i"
[ $rc -eq 130 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "^extflow: stopped by SIGINT after .*rerun to resume" "$TMP/err"
ok $? "SIGINT: exit $rc (130), one line ($(cut -c1-80 "$TMP/err"))"
[ -z "$(find "$TMP/i" -name '*.tmp*')" ] && [ ! -e "$TMP/i/ext.csv" ]
ok $? "no temporary left, no table written"
$EXTFLOW resolve --stem 80 --out "$TMP/i" --quiet && same_outputs "$TMP/ref" "$TMP/i"
ok $? "the rerun resumes to the reference outputs"
interrupt_after 150 TERM "$TMP/t/stages/differential" resolve --stem 80 --out "$TMP/t"
[ $rc -eq 143 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "^extflow: stopped by SIGTERM" "$TMP/err" &&
    [ -z "$(find "$TMP/t" -name '*.tmp*')" ]
ok $? "SIGTERM: exit $rc (143), one line, no temporary"
# products: the lifts' runner stops the same way
$EXTFLOW resolve --stem 40 --out "$TMP/p" --quiet
interrupt_after 20 INT "$TMP/p/stages/lift" products "$TMP/p" --class h0 --class h1 --class h2 --class c0=8,3 --class d0=14,4
[ $rc -eq 130 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "^extflow: products stopped by SIGINT" "$TMP/err" &&
    [ -z "$(find "$TMP/p" -name '*.tmp*')" ] && [ ! -e "$TMP/p/products.csv" ]
ok $? "products under SIGINT: exit $rc, one line, no temporary ($(cut -c1-70 "$TMP/err"))"
# on a terminal the progress line is replaced by the stop's own, then erased: the closing line
# starts a line of its own and ends with a newline (the prompt does not land on the progress line)
if command -v script > /dev/null; then
    rm -rf "$TMP/i"
    script -qec "$EXTFLOW resolve --stem 80 --out $TMP/i" /dev/null > "$TMP/tty" 2>&1 &
    spid=$!
    i=0
    while [ "$(find "$TMP/i/stages/differential" -type f 2>/dev/null | wc -l)" -lt 150 ] && [ $i -lt 1200 ]; do
        sleep 0.02; i=$((i + 1))
    done
    pkill -INT -f "^$EXTFLOW resolve --stem 80 --out $TMP/i\$"
    wait $spid
    tr '\r' '\n' < "$TMP/tty" | grep -q "^extflow: SIGINT: finishing the running steps" &&
        tr '\r' '\n' < "$TMP/tty" | grep -v '^ *$' | tail -1 | grep -q "^extflow: stopped by SIGINT" &&
        [ "$(tail -c 1 "$TMP/tty" | od -An -c | tr -d ' ')" = '\n' ]
    ok $? "on a terminal: the line says the stop is under way, then the closing line ends with a newline"
else
    ok 0 "on a terminal # SKIP script(1) not installed"
fi
# two signals at once: still one line and 130 (the second, if it comes while the first stop is
# under way, ends the process at once with its own line)
rm -rf "$TMP/i"
$EXTFLOW resolve --stem 80 --out "$TMP/i" > /dev/null 2> "$TMP/err" &
pid=$!
while [ "$(find "$TMP/i/stages/differential" -type f 2>/dev/null | wc -l)" -lt 150 ] && kill -0 $pid 2>/dev/null; do sleep 0.02; done
kill -INT $pid; kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "SIGINT" "$TMP/err"
ok $? "two SIGINTs: exit $rc (130), one line ($(cut -c1-70 "$TMP/err"))"
done_testing

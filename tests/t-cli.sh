#!/bin/sh
# The command line: help, exit status 2 for usage errors and 1 for runtime failures, one clear
# line on stderr, the algebra table, and one writer per output directory.
. tests/lib.sh
plan 16
$EXTFLOW --help | grep -q "usage: extflow"
ok $? "--help prints usage and exits 0"
usage_err() {   # usage_err DESCRIPTION ARGS...: exit 2 and a message on stderr
    what=$1; shift
    $EXTFLOW "$@" >/dev/null 2>"$TMP/err"
    rc=$?
    [ $rc -eq 2 ] && [ -s "$TMP/err" ]
    ok $? "$what: exit 2 with a message ($(head -1 "$TMP/err"))"
}
usage_err "trailing garbage in a number" resolve --stem 20x --out "$TMP/x"
usage_err "negative stem" resolve --stem -3 --out "$TMP/x"
usage_err "absurd stem" resolve --stem 99999999999 --out "$TMP/x"
usage_err "unknown option" resolve --frobnicate
usage_err "unknown module" resolve --module NoSuchModule --out "$TMP/x"
usage_err "unknown command" resolv
usage_err "missing option value" resolve --stem
$EXTFLOW algebra --max-degree 125 | tail -n +2 | awk -F, '{ print "dim A_" $1 " = " $2 }' > "$TMP/dims"
tail -n +2 "$REF/algebra_dim" | cmp -s - "$TMP/dims"
ok $? "algebra --max-degree 125 equals sseq's algebra_dim"
touch "$TMP/file"
$EXTFLOW resolve --stem 4 --out "$TMP/file" --quiet 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "$TMP/file" "$TMP/err"
ok $? "an output directory that is a file: exit 1 naming it"
[ ! -e "$TMP/x" ]
ok $? "refused runs created nothing"
# a second run on a locked directory exits at once naming the holder
mkdir -p "$TMP/locked"
python3 -c '
import fcntl, os, sys, time
fd = os.open(sys.argv[1] + "/.lock", os.O_RDWR | os.O_CREAT)
fcntl.lockf(fd, fcntl.LOCK_EX)
os.write(fd, b"4242\n")
print("locked", flush=True)
time.sleep(20)' "$TMP/locked" > "$TMP/holder" &
holder=$!
while ! grep -q locked "$TMP/holder" 2>/dev/null; do sleep 0.05; done
$EXTFLOW resolve --stem 4 --out "$TMP/locked" --quiet 2>"$TMP/err"
rc=$?
kill $holder 2>/dev/null
[ $rc -eq 1 ] && grep -q "4242" "$TMP/err"
ok $? "a locked output directory: exit 1 naming the holder ($(head -1 "$TMP/err"))"
[ ! -e "$TMP/locked/ext.csv" ]
ok $? "the refused run wrote no ext.csv"
$EXTFLOW resolve --max-t 20 --out "$TMP/rect" --quiet && head -1 "$TMP/rect/ext.csv" | grep -q "^s,n,dim$"
ok $? "--max-t 20 resolves a rectangle and writes ext.csv with its header"
# on a terminal a progress line (done/total, share of the work, ETA) goes to stderr, redrawn
# in place and never wider than 79 columns; --quiet silences it
if command -v script >/dev/null; then
    script -qec "$EXTFLOW resolve --stem 30 --out $TMP/tty" /dev/null > "$TMP/tty.out" 2>&1
    grep -q "bidegrees, " "$TMP/tty.out" && tr '\r' '\n' < "$TMP/tty.out" | grep bidegrees, | awk 'length($0) > 79 { bad = 1 } END { exit bad }'
    ok $? "progress line on a terminal, <= 79 columns ($(tr '\r' '\n' < "$TMP/tty.out" | grep bidegrees, | tail -1 | sed 's/ *$//'))"
    script -qec "$EXTFLOW resolve --stem 30 --out $TMP/tty2 --quiet" /dev/null > "$TMP/tty2.out" 2>&1
    ! grep -q "bidegrees" "$TMP/tty2.out"
    ok $? "--quiet: no progress line"
else
    echo "ok 15 # SKIP script(1) not installed"; echo "ok 16 # SKIP script(1) not installed"
fi
done_testing

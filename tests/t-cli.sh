#!/bin/sh
# The command line: help, exit status 2 for usage errors, 1 for runtime failures and 4 for a held
# directory, one clear
# line on stderr, the algebra table, and one writer per output directory.
. tests/lib.sh
plan 43
$EXTFLOW --help | grep -q "usage: extflow"
ok $? "--help prints usage and exits 0"
for cmd in resolve algebra inspect verify export pack help; do
    $EXTFLOW $cmd --help >"$TMP/out" 2>"$TMP/err" && grep -q "usage: extflow" "$TMP/out" && [ ! -s "$TMP/err" ]
    ok $? "$cmd --help: the help on stdout, exit 0"
done
# A usage error is exactly two lines on stderr: "extflow: ..." and the hint; exit 2 (is_usage_error).
usage_err() {   # usage_err DESCRIPTION ARGS...
    what=$1; shift
    $EXTFLOW "$@" >/dev/null 2>"$TMP/err"
    is_usage_error $? "$TMP/err"
    ok $? "$what: exit 2, one line and the hint ($(head -1 "$TMP/err"))"
}
usage_err "trailing garbage in a number" resolve --stem 20x --out "$TMP/x"
usage_err "negative stem" resolve --stem -3 --out "$TMP/x"
usage_err "absurd stem" resolve --stem 99999999999 --out "$TMP/x"
usage_err "unknown option" resolve --frobnicate
usage_err "unknown module" resolve --module NoSuchModule --out "$TMP/x"
usage_err "unknown command" resolv
usage_err "missing option value" resolve --stem
usage_err "an option given twice" resolve --stem 4 --stem=5 --out "$TMP/x"
usage_err "a flag given twice" inspect --summary --summary "$TMP/none.zst"
usage_err "a value given to a flag" resolve --quiet=yes --out "$TMP/x"
usage_err "no command" 
usage_err "a stray operand" verify "$TMP/x" "$TMP/y"
usage_err "a value given to --force" resolve --force=yes --out "$TMP/x"
usage_err "--keep-stages given twice" resolve --keep-stages matrix --keep-stages=kernel --out "$TMP/x"
$EXTFLOW resolve --help > "$TMP/rhelp" && grep -q -- "--force " "$TMP/rhelp" && grep -q -- "--keep-stages LIST" "$TMP/rhelp" &&
    grep -q -- "--verbose " "$TMP/rhelp" && $EXTFLOW help | grep -q "^  EXTFLOW_STATS "
ok $? "resolve --help names --force, --keep-stages and --verbose; extflow help EXTFLOW_STATS"
# per command: CMD --help and help CMD print that command's part alone (every command, from
# the list, so that a new one gets it), the same text, under 80 columns
bad=
for file in tools/cmd-*.c; do
    cmd=${file#tools/cmd-}; cmd=${cmd%.c}
    grep -q "^const cli_command cmd_" "$file" || continue
    $EXTFLOW $cmd --help > "$TMP/h1" 2>&1 && $EXTFLOW help $cmd > "$TMP/h2" 2>&1 && cmp -s "$TMP/h1" "$TMP/h2" &&
        grep -q "^  $cmd " "$TMP/h1" && [ "$(grep -c '^  [a-z][a-z0-9]* \{2,\}' "$TMP/h1")" -eq 1 ] &&
        [ "$(wc -l < "$TMP/h1")" -lt "$($EXTFLOW help | wc -l)" ] &&
        awk '{ n = 0; for (i = 1; i <= length($0); i++) { c = substr($0, i, 1); if (c < "\200" || c > "\277") n++ } if (n > 80) bad = 1 } END { exit bad }' "$TMP/h1" ||
        bad="$bad $cmd"
done
[ -z "$bad" ]
ok $? "CMD --help = help CMD: that command alone, at most 80 columns${bad:+ (not:$bad)}"
usage_err "help of an unknown command" help frobnicate
# options come from one table per command (tools/cli.h), read by getopt_long, whose prefixes
# (--st for --stem) are refused as before; the same table writes the help
usage_err "an abbreviated option" resolve --st 4 --out "$TMP/x"
$EXTFLOW resolve --st 4 --out "$TMP/x" 2>&1 | grep -q "^extflow: resolve: unknown option '--st'$"
ok $? "an abbreviated option is named as written"
$EXTFLOW help > "$TMP/help" && awk '{ n = 0; for (i = 1; i <= length($0); i++) { c = substr($0, i, 1); if (c < "\200" || c > "\277") n++ } if (n > 80) bad = 1 } END { exit bad }' "$TMP/help"
ok $? "help lines are at most 80 columns"
ok=0
for file in tools/cmd-*.c; do
    cmd=${file#tools/cmd-}; cmd=${cmd%.c}
    for opt in $(sed -n 's/^ *\[[A-Z_0-9]*\] = { "\([a-z0-9-]*\)".*/\1/p' "$file"); do
        awk -v c="  $cmd " -v o="      --$opt" 'index($0, c) == 1 { in_cmd = 1; next } /^  [a-z]/ { in_cmd = 0 }
            in_cmd && (index($0, o " ") == 1 || $0 == o) { found = 1 } END { exit !found }' "$TMP/help" ||
            { diag "$cmd --$opt is not in its help"; ok=1; }
    done
done
ok $ok "every option of every command's table has its line under that command in the help"
$EXTFLOW --version > "$TMP/version" &&
    grep -qx "extflow $(sed -n 's/^#define EXTFLOW_VERSION "\(.*\)"$/\1/p' stages/version.h) (commit [A-Za-z0-9._-]*)" "$TMP/version"
ok $? "--version prints the version of stages/version.h and a commit ($(cat "$TMP/version"))"
$EXTFLOW resolve --stem=6 --out="$TMP/eq" --quiet && $EXTFLOW resolve --stem 6 --out "$TMP/sp" --quiet &&
    cmp -s "$TMP/eq/ext.csv" "$TMP/sp/ext.csv" && [ "$(wc -l < "$TMP/eq/ext.csv")" -gt 5 ]
ok $? "--stem=6 --out=DIR is --stem 6 --out DIR"
# The commit is the one the binary was built from (scripts/commit-id, `git describe --always
# --dirty`): in a git checkout, HEAD's, so a binary left from before the last commit fails here
# (make rebuilds it); run.json records the same. Outside a checkout there is nothing to compare.
commit=$(sed -n 's/^extflow .* (commit \(.*\))$/\1/p' "$TMP/version")
if head=$(git rev-parse --short HEAD 2>/dev/null) && [ "$(git rev-parse --show-toplevel)" = "$(pwd -P)" ]; then
    { [ "${commit%-dirty}" = "$head" ] ||
          [ "$(git rev-parse --verify -q "${commit%-dirty}^{commit}")" = "$(git rev-parse HEAD)" ]; } &&
        grep -q "^  \"program_commit\": \"$commit\",\$" "$TMP/eq/run.json"
    ok $? "the commit is HEAD's ($commit; git rev-parse --short HEAD: $head), and run.json's program_commit"
else
    tap_n=$((tap_n + 1))
    echo "ok $tap_n # SKIP not a git checkout (the binary says commit $commit)"
fi
$EXTFLOW algebra --max-degree 12 > "$TMP/a1" && $EXTFLOW algebra --max-degree=12 > "$TMP/a2" &&
    cmp -s "$TMP/a1" "$TMP/a2" && [ "$(wc -l < "$TMP/a1")" -eq 14 ]
ok $? "algebra --max-degree=12 is --max-degree 12"
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
[ $rc -eq 4 ] && grep -q "(pid $holder)" "$TMP/err"
ok $? "a locked output directory: exit 4 naming the holder ($(head -1 "$TMP/err"))"
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
    # a resumed run counts its loaded bidegrees as done, and has no ETA before it can say one
    script -qec "$EXTFLOW resolve --stem 40 --out $TMP/tty2" /dev/null > "$TMP/tty3.out" 2>&1
    loaded=$(sed -n 's/^extflow: resumed \([0-9]*\) bidegrees.*/\1/p' "$TMP/tty3.out")
    total=$(tr '\r' '\n' < "$TMP/tty3.out" | sed -n 's/.*bidegrees (\([0-9]*\) loaded) in.*/\1/p')
    first=$(tr '\r' '\n' < "$TMP/tty3.out" | grep -a -m1 "bidegrees, " | sed 's/ *$//')
    [ -n "$loaded" ] && [ "$loaded" = "$total" ] && echo "$first" | grep -q "^extflow: $loaded/[0-9]* bidegrees, ETA unknown$"
    ok $? "a resumed run's line starts at its loaded bidegrees, ETA unknown ($first)"
else
    echo "ok 15 # SKIP script(1) not installed"; echo "ok 16 # SKIP script(1) not installed"
    echo "ok 17 # SKIP script(1) not installed"
fi
# EXTFLOW_STEP_LOG (stages/resolve/stepprogress.h): a step line per computed bidegree; a path
# that cannot be written is said in one line and the run still finishes
EXTFLOW_STEP_LOG="$TMP/steps.log" $EXTFLOW resolve --stem 6 --out "$TMP/sl" --quiet &&
    [ "$(grep -c '^S ' "$TMP/steps.log")" -eq "$(grep -c '^P ' "$TMP/steps.log")" ] && grep -q '^S ' "$TMP/steps.log" &&
    EXTFLOW_STEP_LOG="$TMP/no/such/steps.log" $EXTFLOW resolve --stem 6 --out "$TMP/sl2" --quiet 2>"$TMP/err" &&
    [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "EXTFLOW_STEP_LOG: cannot write $TMP/no/such/steps.log" "$TMP/err" &&
    cmp -s "$TMP/sl/ext.csv" "$TMP/sl2/ext.csv"
ok $? "EXTFLOW_STEP_LOG: one S line per pending bidegree; an unwritable path said in one line: $(cat "$TMP/err")"
done_testing

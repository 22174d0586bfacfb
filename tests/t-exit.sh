#!/bin/sh
# One table of exit statuses for every command (tools/cli.h's enum cli_exit, docs/reliability.md
# "Exit status", the help's "exit status"): 0 done, 1 runtime failure, 2 usage error or refusal,
# 3 stopped at --time-limit, 4 DIR held by another run. Each command that takes a DIR is tried
# on a held directory (4, one line naming the holder, nothing written) and on a missing one (a
# usage error).
. tests/lib.sh
plan 12
$EXTFLOW resolve --stem 12 --out "$TMP/d" --quiet
ok $? "a stem-12 resolution to try the commands on"
dircmds="products|--class h1
massey|--a h1 --b h0
d2|
sq0|
steenrod|--class h1
ext|--coefficients C2
export|--json
verify|"
hold_lock "$TMP/d"
ls -l --time-style=full-iso "$TMP/d" > "$TMP/before"
bad=
$EXTFLOW resolve --stem 12 --out "$TMP/d" > /dev/null 2> "$TMP/err"
rc=$?
[ $rc -eq 4 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "in use by another extflow run (pid $holder)" "$TMP/err" ||
    bad="$bad resolve:$rc"
printf '%s\n' "$dircmds" | while IFS='|' read -r cmd args; do
    $EXTFLOW $cmd "$TMP/d" $args > /dev/null 2> "$TMP/err"
    rc=$?
    [ $rc -eq 4 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "in use by another extflow run (pid $holder)" "$TMP/err" ||
        echo " $cmd:$rc"
done > "$TMP/bad"
kill $holder 2>/dev/null
wait $holder 2>/dev/null
bad="$bad$(cat "$TMP/bad")"
[ -z "$bad" ]
ok $? "every command on a held directory: exit 4, one line naming the holder's pid${bad:+ (not:$bad)}"
ls -l --time-style=full-iso "$TMP/d" | cmp -s - "$TMP/before"
ok $? "nothing was written into the held directory"
bad=$(printf '%s\n' "$dircmds" | while IFS='|' read -r cmd args; do
    $EXTFLOW $cmd "$TMP/nonexistent" $args > /dev/null 2> "$TMP/err"
    is_usage_error $? "$TMP/err" && grep -q "$TMP/nonexistent is not a directory" "$TMP/err" || echo " $cmd"
done)
[ -z "$bad" ]
ok $? "every command on a missing DIR: a usage error naming it${bad:+ (not:$bad)}"
[ ! -e "$TMP/nonexistent" ]
ok $? "... and none created it"
$EXTFLOW resolve --stem 4 --out "" > /dev/null 2> "$TMP/err"
is_usage_error $? "$TMP/err" && grep -q -- "--out" "$TMP/err"
ok $? "resolve --out '': a usage error ($(head -1 "$TMP/err"))"
$EXTFLOW export "$TMP/d" --json --sqlite "$TMP/x.db" > /dev/null 2> "$TMP/err"
is_usage_error $? "$TMP/err" && grep -q "give one of them" "$TMP/err" && [ ! -e "$TMP/x.db" ]
ok $? "export --json --sqlite: a usage error saying to give one ($(head -1 "$TMP/err"))"
mkdir "$TMP/empty"
$EXTFLOW export "$TMP/empty" --json > /dev/null 2> "$TMP/err"
[ $? -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "^extflow: $TMP/empty has no run.json" "$TMP/err"
ok $? "export of a directory without run.json: a refusal naming it ($(head -1 "$TMP/err"))"
printf '{\n' > "$TMP/bad.json"
$EXTFLOW resolve --module "$TMP/bad.json" --stem 4 --out "$TMP/b" > /dev/null 2> "$TMP/err"
is_usage_error $? "$TMP/err" && grep -q "^extflow: $TMP/bad.json: " "$TMP/err" && [ ! -e "$TMP/b" ]
ok $? "a bad module file: a usage error with the hint ($(head -1 "$TMP/err"))"
$EXTFLOW ext "$TMP/d" --coefficients ko > /dev/null 2> "$TMP/err"
is_usage_error $? "$TMP/err"
ok $? "ext --coefficients over a profile: a usage error ($(head -1 "$TMP/err"))"
# the table itself: the enum, the help and docs/reliability.md say the same five statuses
$EXTFLOW help | sed -n '/^exit status:/,$p' > "$TMP/help"
grep -q "0 done" "$TMP/help" && grep -q "1 runtime failure" "$TMP/help" && grep -q "2 usage error or refusal" "$TMP/help" &&
    grep -q "3 stopped at --time-limit" "$TMP/help" && grep -q "4 DIR is in use by another extflow run" "$TMP/help" &&
    grep -q "130, 143 stopped by SIGINT" "$TMP/help"
ok $? "the help's exit status section lists 0 to 4, 130 and 143"
for code in 0 1 2 3 4 130 143; do grep -q "^| $code |" docs/reliability.md || echo "$code"; done > "$TMP/missing"
[ ! -s "$TMP/missing" ] && grep -q "CLI_BUSY = 4" tools/cli.h
ok $? "docs/reliability.md's exit status table has a row for 0 to 4, 130 and 143$( [ -s "$TMP/missing" ] && echo " (missing: $(cat "$TMP/missing" | tr '\n' ' '))")"
done_testing

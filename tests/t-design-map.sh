#!/bin/sh
# docs/design.md's file map (section "File map") is the tree's: every source file (.c, .h, .cu,
# .js, chart.html under algebra/, codelets/, runtime/, stages/, tools/, ss/) has its line, one
# line names one file, and every file named there exists.
. tests/lib.sh
plan 4
D=docs/design.md
find algebra codelets runtime stages tools ss \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.js' \
     -o -name 'chart.html' \) 2>/dev/null | sort > "$TMP/tree"
awk '/^### File map/ { on = 1; next } on && /^#/ { exit } on && /^\| `/' "$D" > "$TMP/rows"
sed 's/^| `\([^`]*\)` |.*/\1/' "$TMP/rows" | sort > "$TMP/listed"
[ -s "$TMP/tree" ] && [ "$(wc -l < "$TMP/rows")" -gt 100 ]
ok $? "$D has a file map ($(wc -l < "$TMP/rows") rows) and the tree $(wc -l < "$TMP/tree") source files"
missing=$(comm -23 "$TMP/tree" "$TMP/listed" | tr '\n' ' ')
[ -z "$missing" ]
ok $? "every source file has its line in the file map${missing:+: not there: $missing}"
gone=$(comm -13 "$TMP/tree" "$TMP/listed" | tr '\n' ' ')
[ -z "$gone" ]
ok $? "every file the map names exists${gone:+: no such file: $gone}"
twice=$(uniq -d "$TMP/listed" | tr '\n' ' ')
bad=$(grep -vc '^| `[^`]*` | .*[^ ] |$' "$TMP/rows")
[ -z "$twice" ] && [ "$bad" -eq 0 ]
ok $? "one row per file, each with what it holds${twice:+; twice: $twice}$( [ "$bad" -ne 0 ] && echo "; $bad rows without a description")"
done_testing

#!/bin/sh
# README's "Using it" commands run as written, in order, in a fresh working directory (bin/
# and examples/ as in the repository): each exits 0, or the status its comment says ("exit
# 3"), and none leaves a file outside out/ and examples/out/. One change to fit a test:
# `--time-limit 500` runs as `--time-limit 3` (the line shows a stopped run; 500 s would
# finish stem 130 on a large machine). A line of README that fails here fails as written.
. tests/lib.sh
root=$(pwd)
W="$TMP/w"
mkdir -p "$W/bin" && ln -s "$root/$EXTFLOW" "$W/bin/extflow" && cp -r examples "$W/examples" && rm -rf "$W/examples/out"
sed -n '/^## Using it/,/^Options take/p' README.md | grep -E '^    (bin/extflow|make|echo) ' |
    sed 's/  *# .*$//; s/  *#$//' > "$TMP/lines"
# a comment "exit N" gives the expected status of its line
sed -n '/^## Using it/,/^Options take/p' README.md | grep -E '^    (bin/extflow|make|echo) ' |
    sed -n 's/.*# *exit \([0-9]*\).*/\1/p;t;s/.*/0/p' > "$TMP/expect"
n=$(wc -l < "$TMP/lines")
plan $((n + 2))
[ "$n" -ge 40 ] && [ "$(wc -l < "$TMP/expect")" -eq "$n" ]
ok $? "README's block has $n command lines"
i=0
while IFS= read -r line; do
    i=$((i + 1))
    want=$(sed -n "${i}p" "$TMP/expect")
    run=$(printf '%s' "$line" | sed 's/--time-limit 500/--time-limit 3/')
    (cd "$W" && env -u EXTFLOW STARPU_SILENT=1 sh -c "$run" > "$TMP/out.$i" 2> "$TMP/err.$i")  # make test exports EXTFLOW (relative to the root)
    rc=$?
    [ $rc -eq "$want" ]
    ok $? "exit $rc: $(printf '%s' "$line" | cut -c5-90)$( [ $rc -ne "$want" ] && printf ' -- %s' "$(head -1 "$TMP/err.$i")")"
done < "$TMP/lines"
stray=$(cd "$W" && ls -A | grep -v -x -e bin -e out -e examples)
[ -z "$stray" ]
ok $? "nothing written outside out/ and examples/out/${stray:+ (found: $stray)}"
done_testing

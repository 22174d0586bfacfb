#!/bin/sh
# Issue 42's "outputs byte-identical" target: a fixed set of runs (tests/house_runs.sh: S_2
# stem 30 by Nassau and by the standard algorithm, S_3 stem 40, C2, Cnu, ko, C9, products,
# --filtration-one, Massey products at p = 2, over C2 and at p = 3, d2 and d2 --product,
# steenrod, the charts, export --sqlite/--json/--text) gives the outputs whose hashes
# tests/ref/house/sums keeps (made by 55247ab, the tree before the reorganisation; how, and
# the one intended change since, in tests/ref/house/README). A line that differs names the
# file, or the stage folder, whose bytes changed.
. tests/lib.sh
plan 2
mkdir "$TMP/runs" && tests/house_runs.sh "$EXTFLOW" "$TMP/runs" > "$TMP/sums" 2> "$TMP/err"
rc=$?
[ $rc -eq 0 ] && [ "$(wc -l < "$TMP/sums")" -eq "$(wc -l < "$REF/house/sums")" ]
ok $? "the fixed set of runs ran (exit $rc$( [ -s "$TMP/err" ] && printf ', %s' "$(head -1 "$TMP/err")"), $(wc -l < "$TMP/sums") outputs)"
diff "$REF/house/sums" "$TMP/sums" > "$TMP/diff"
ok $? "every output as tests/ref/house/sums has it$( [ -s "$TMP/diff" ] && printf ': differ %s' "$(grep '^>' "$TMP/diff" | cut -c68- | tr '\n' ' ')")"
done_testing

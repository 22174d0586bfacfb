#!/bin/sh
# Issue 42's target, read off the binary: one bidegree travels from main() to its stage file
# through at most 12 source files and crosses between runtime/ (with codelets/) and stages/ at
# most 3 times (bench/path: gdb's backtraces at the four points where its data moves on, the
# method and the figures in docs/design.md "One bidegree's path"). A skip without gdb.
. tests/lib.sh
command -v gdb > /dev/null 2>&1 || { echo "1..0 # skip no gdb"; exit 0; }
plan 3
EXTFLOW=$EXTFLOW bench/path > "$TMP/path" 2> "$TMP/err"
rc=$?
files=$(sed -n 's/^files: \([0-9]*\) .*/\1/p' "$TMP/path")
crossings=$(sed -n 's/^crossings runtime\/ <-> stages\/: \([0-9]*\)$/\1/p' "$TMP/path")
[ $rc -eq 0 ] && [ -n "$files" ] && [ -n "$crossings" ] && grep -q '^encode .*stages/store/stagefile.c:stage_encode' "$TMP/path"
ok $? "bench/path stopped at the four points of (3, 6) in resolve --stem 20$( [ $rc -ne 0 ] && printf ': %s' "$(head -1 "$TMP/err")")"
[ -n "$files" ] && [ "$files" -le 12 ]
ok $? "from main() to the stage file through ${files:-?} source files (at most 12)"
[ -n "$crossings" ] && [ "$crossings" -le 3 ]
ok $? "${crossings:-?} crossings between runtime/ and stages/ (at most 3)"
done_testing

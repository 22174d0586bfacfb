#!/bin/sh
# A write that fails (a file-size limit standing in for a full disk) ends the run with exit
# status 1 and a message naming the file; no ext.csv is presented as complete; what was written
# stays valid, and a later run with room finishes with the same outputs as an undisturbed one.
. tests/lib.sh
plan 5
$EXTFLOW resolve --stem 36 --out "$TMP/base" --quiet
ok $? "undisturbed run"
( ulimit -f 1; exec $EXTFLOW resolve --stem 36 --out "$TMP/full" --quiet ) 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ]
ok $? "a 512-byte file-size limit: exit status 1 (got $rc)"
grep -q "$TMP/full/.*File too large" "$TMP/err"
ok $? "the message names the file and the cause ($(head -1 "$TMP/err" | cut -c1-120))"
[ ! -e "$TMP/full/ext.csv" ]
ok $? "no ext.csv after the failure"
$EXTFLOW resolve --stem 36 --out "$TMP/full" --quiet && same_outputs "$TMP/base" "$TMP/full"
ok $? "rerun with room: identical outputs"
done_testing

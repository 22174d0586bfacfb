#!/bin/sh
# massey under mpirun (massey_share): over resolutions of S_2 and of C2 through stem 40 and of Cα
# at p = 3 (unit S_3) through stem 30, 2 and 3
# ranks write the massey files and stdout of one process, and say on stderr that they shared
# the c's; a·b != 0 is refused in one line, exit 2; a 2-rank run stopped by --time-limit (exit
# 3, one line, no table) and rerun until it ends writes the files of one process (through stem
# 70: a run long enough to stop, 2 ranks on 2 idle cores included). Every mpirun has a time limit. Skipped without mpirun or
# without MPI in the binary (EXTFLOW_REQUIRE_MPI=1: a failure).
. tests/lib.sh
. tests/mpi.sh
STEM=${MPI_MASSEY_STEM:-40}
STOP_STEM=${MPI_MASSEY_STOP_STEM:-70}
plan 13
$EXTFLOW resolve --stem $STEM --out "$TMP/S_2" --quiet &&
    $EXTFLOW resolve --module C2 --stem $STEM --out "$TMP/C2" --quiet &&
    $EXTFLOW resolve --module S_3 --stem 30 --max-s 10 --out "$TMP/S_3" --quiet &&
    $EXTFLOW resolve --module Calpha --stem 30 --max-s 10 --out "$TMP/Ca" --quiet
ok $? "resolve S_2 and C2 through stem $STEM, S_3 and Cα (p = 3) through stem 30"

massey() {   # massey NP SRC NAME ARGS...: massey on NP ranks (1: no mpirun) in $TMP/NAME-NP, a
             # copy of SRC; its stdout in $TMP/NAME-NP.out, its stderr in $TMP/NAME-NP.err
    np=$1 d="$TMP/$3-$1"
    src=$2
    shift 3
    rm -rf "$d"
    cp -r "$src" "$d"
    if [ "$np" -eq 1 ]; then $EXTFLOW massey "$d" "$@" >"$d.out" 2>"$d.err"
    else mpi "$np" $EXTFLOW massey "$d" "$@" >"$d.out" 2>"$d.err"; fi
}
same_massey() {   # same_massey NAME NP: NAME-NP's massey files and stdout are NAME-1's
    a="$TMP/$1-1" b="$TMP/$1-$2"
    [ -n "$(ls "$a" | grep '^massey-')" ] && [ "$(ls "$a" | grep '^massey-')" = "$(ls "$b" | grep '^massey-')" ] &&
        cmp -s "$a.out" "$b.out" || return 1
    for f in "$a"/massey-*; do cmp -s "$f" "$b/${f##*/}" || return 1; done
}

# name, source, arguments
for c in "p:S_2:--a h3 --b h0_4=0,4 --sseq-formats" "h1h0:S_2:--a h1 --b h0" \
         "C2:C2:--unit $TMP/S_2 --a h3 --b h0_4=0,4 --sseq-formats" \
         "Ca:Ca:--unit $TMP/S_3 --a h0 --b h0 --sseq-formats"; do
    name=${c%%:*} rest=${c#*:}
    src="$TMP/${rest%%:*}" args=${rest#*:}
    massey 1 "$src" $name $args
    for np in 2 3; do
        t0=$(date +%s)
        massey $np "$src" $name $args && same_massey $name $np &&
            grep -q "^extflow: the classes c were shared among $np ranks" "$TMP/$name-$np.err"
        ok $? "massey $(echo "$args" | sed "s|$TMP/||"): $np ranks write one process's files and stdout ($(($(date +%s) - t0)) s; $(ls "$TMP/$name-1" | grep '^massey-' | tr '\n' ' '))"
    done
done
grep -c '^extflow:' "$TMP/p-3.err" | grep -qx 2
ok $? "3 ranks: two lines, from rank 0 ($(grep -m1 'shared' "$TMP/p-3.err" | cut -c1-70))"

massey 2 "$TMP/S_2" refused --a h0 --b h0
rc=$?
[ $rc -eq 2 ] && [ "$(grep -c '^extflow:' "$TMP/refused-2.err")" -eq 1 ] && [ -z "$(ls "$TMP/refused-2" | grep '^massey-')" ]
ok $? "a·b != 0 on 2 ranks: exit $rc, one line ($(grep -m1 '^extflow:' "$TMP/refused-2.err"))"

# --time-limit 1 on 2 ranks, rerun until it ends (massey keeps nothing between runs, so the
# limit grows with the tries, 1 + tries²/4 s, for a loaded machine): every stop
# exits 3 with one line and no table. Stem 70 is ~3 s of CPU here: a quiet or faster machine
# may finish it inside the first second (exit 0, one process's files; the stop's line is then
# not seen, a skip)
$EXTFLOW resolve --stem $STOP_STEM --out "$TMP/S_2-stop" --quiet
massey 1 "$TMP/S_2-stop" stop --a h3 --b h0_4=0,4
d="$TMP/stop-2"
rm -rf "$d"
cp -r "$TMP/S_2-stop" "$d"
tries=0 stops=0 bad=0
while [ $tries -lt 15 ]; do
    tries=$((tries + 1))
    mpi 2 $EXTFLOW massey "$d" --a h3 --b h0_4=0,4 --quiet --time-limit $((1 + tries * tries / 4)) >"$d.out" 2>"$d.err"
    rc=$?
    [ $rc -eq 0 ] && break
    stops=$((stops + 1))
    [ $stops -eq 1 ] && cp "$d.err" "$TMP/first-stop.err"
    if [ $rc -ne 3 ] || [ "$(grep -c '^extflow:' "$d.err")" -ne 1 ] || [ -e "$d/massey-h3-h0_4.csv" ]; then bad=1; fi
done
[ $bad -eq 0 ] && [ $rc -eq 0 ] && same_massey stop 2
ok $? "2 ranks, stem $STOP_STEM: stopped by --time-limit $stops times (exit 3, one line, no table), rerun: one process's files"
if [ $stops -ge 1 ]; then
    grep -q "^extflow: massey stopped at the time limit after .* no table was written$" "$TMP/first-stop.err"
    ok $? "the stop's line ($(grep -m1 '^extflow:' "$TMP/first-stop.err" | cut -c1-60))"
else
    ok 0 "the stop's line # SKIP the first run finished inside --time-limit 1 (a fast machine)"
fi
done_testing

#!/bin/sh
# house_runs.sh EXTFLOW DIR: issue 42's fixed set of runs (its "outputs byte-identical" target),
# run by EXTFLOW under DIR, then one line per output "sha256  name" on stdout, sorted: each
# table, chart and export by its own hash, each stage-file folder by the hash of its sorted
# "sha256  file" list (a stage folder that differs is named; `diff -r` of two runs says which
# file). run.json (the version, times) and StarPU's files are left out: they say when and by
# what, not what was computed. tests/t-house.sh compares the list with tests/ref/house/sums.
case $1 in /*) X=$1 ;; */*) X=$(pwd)/$1 ;; *) X=$(command -v "$1") ;; esac   # it runs in DIR below
D=$2
set -e
q=--quiet
$X resolve --stem 30 --out "$D/S_2" $q                                 # Nassau (the default)
$X resolve --algorithm standard --stem 30 --out "$D/S_2-std" $q
$X resolve --module S_3 --stem 40 --out "$D/S_3" $q
$X resolve --module C2 --stem 20 --out "$D/C2" $q
$X resolve --module Cnu --stem 30 --out "$D/Cnu" $q                     # a finite module, Nassau
$X resolve --module ko --stem 40 --out "$D/ko" $q                       # a profile, standard
$X resolve --module C9 --stem 30 --out "$D/C9" $q                       # p = 3: a cofiber
$X products "$D/S_2" --class h1 --class c0=8,3 $q
$X products "$D/S_2-std" --filtration-one $q
$X massey "$D/S_2" --a h3 --b h0_4=0,4 $q
$X d2 "$D/S_2" $q
$X d2 "$D/S_2" --product h0 $q
$X steenrod "$D/S_2" --class c0=8,3 $q
$X products "$D/C2" --unit "$D/S_2" --class i=0,0 $q
$X massey "$D/C2" --unit "$D/S_2" --a h0 --b h1 $q
$X products "$D/S_3" --class a0 --class h1 --class b0=10,2 $q
$X massey "$D/S_3" --a h0 --b h0 $q
$X products "$D/ko" --class h1=1,1 $q
$X export "$D/S_2" --sqlite "$D/S_2.db"
$X export "$D/S_2" --json > "$D/S_2.json"
$X export "$D/S_2" --text > "$D/S_2.txt"
$X export "$D/S_3" --sqlite "$D/S_3.db"
cd "$D"
# what is in a run's order or its machine is left as a set: the journal of empty bidegrees
# (records in the order the steps ended) sorted, the SQLite file as its sorted SQL text less
# run.json's memory figures and the commit the binary was built from (the manifest table copies run.json)
find . -type f ! -path '*/stages/*' ! -name run.json ! -name '.lock' ! -name '*.db' | sort |
    while read -r f; do sha256sum "$f"; done
for f in $(find . -name '*.db' | sort); do
    python3 - "$f" <<'PY' | sort | sha256sum | sed "s|-\$|$f (SQL, sorted, less memory.*)|"
import sqlite3, sys
for line in sqlite3.connect(sys.argv[1]).iterdump():
    if not line.startswith(('INSERT INTO "manifest" VALUES(\'memory.', 'INSERT INTO "manifest" VALUES(\'program_commit\'')):
        print(line)
PY
done
for f in $(find . -path '*/stages/empty.log' | sort); do
    $X inspect "$f" | sort | sha256sum | sed "s|-\$|$f (inspect, sorted)|"
done
find . -type d -path '*/stages/*' | sort | while read -r d; do
    n=$(find "$d" -maxdepth 1 -type f | wc -l)
    [ "$n" -gt 0 ] || continue
    h=$(cd "$d" && find . -maxdepth 1 -type f | sort | xargs sha256sum | sha256sum | cut -d' ' -f1)
    echo "$h  $d/ ($n files)"
done

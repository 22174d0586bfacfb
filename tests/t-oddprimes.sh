#!/bin/sh
# Resolutions at odd primes through the command line (issue #27 item 3): `resolve --module S_3`
# and C3 through stem 60 (s <= 20), S_5 through stem 100 (s <= 15), each table equal to sseq's
# num_gens (tests/ref/oddprimes/) and --sseq-formats' num_gens.txt equal to sseq's stdout byte
# for byte; run.json says prime 3; the stage files are format version 2; a run killed at a
# random moment and rerun ends with the same outputs as an uninterrupted one; a smaller run
# extended reuses its stage files; the rows multiplied in cl_milnor_mul_p tasks (every step:
# EXTFLOW_LIFT_INLINE_PAIRS=0) and on the plan's worker give the same stage files, and those
# of S_3 through stem 60 equal the ones the in-plan path wrote (tests/ref/oddprimes/);
# chart.txt of t <= 50, s <= 10 equals sseq's `resolve` chart of S_3
# (tests/ref/oddprimes/resolve-S_3); the modules with actions and cofibers of modules/
# resolve by name; verify checks these directories (d∘d = 0 by Milnor products mod p, every
# file, ext.csv) and finds a missing stage file and a wrong ext.csv; d2 and the options that
# do not work at odd p yet refuse, exit 2 and one line, and the directory is left as it was
# (products and massey at odd p: tests/t-products-p.sh, tests/t-massey-p.sh).
. tests/lib.sh
ODD=$REF/oddprimes
PY="python3 tests/module_files.py"
ROUNDS=${RESUME_TEST_ROUNDS:-3}
plan $((22 + ROUNDS))
table() {   # table MODULE N S: resolve through stem N, s <= S, compare with sseq's table
    $EXTFLOW resolve --quiet --module "$1" --stem "$2" --max-s "$3" --sseq-formats --out "$TMP/$1" 2>"$TMP/err" &&
        $PY num-gens "$ODD/num_gens-$1-$2-$3" "$2" "$3" > "$TMP/want" && cmp -s "$TMP/want" "$TMP/$1/ext.csv" &&
        tail -n +2 "$ODD/num_gens-$1-$2-$3" | cmp -s - "$TMP/$1/num_gens.txt"
    ok $? "$1 through stem $2, s <= $3: ext.csv ($(grep -c . "$TMP/$1/ext.csv") rows) and num_gens.txt equal sseq's table $(head -1 "$TMP/err")"
}
t0=$(date +%s.%N)
table S_3 60 20
span=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { d = b - a; printf "%.2f", (d > 0.2 ? d : 0.2) }')
diag "S_3 through stem 60 took ${span}s"
table C3 60 20
table S_5 100 15
grep -q '"prime": 3' "$TMP/S_3/run.json" && grep -q '"prime": 5' "$TMP/S_5/run.json" && [ -s "$TMP/S_3/chart.txt" ] &&
    [ -s "$TMP/S_3/chart.svg" ] && [ ! -e "$TMP/S_3/differentials.txt" ] &&
    $EXTFLOW export "$TMP/S_3" --json | grep -q '"prime":3,'
ok $? "run.json and export --json say the prime; chart.txt and chart.svg are written; no differentials.txt (p = 2 only)"
sums="$(cd "$ODD" && pwd)/S_3-60-20-stages.md5"
(cd "$TMP/S_3/stages/differential" && md5sum -c --quiet "$sums") >/dev/null 2>&1 &&
    [ "$(ls "$TMP/S_3/stages/differential" | wc -l)" -eq "$(wc -l < "$sums")" ]
ok $? "S_3 through stem 60, s <= 20: the stage files equal those of the in-plan multiply (commit f60fa24)"
f=$(ls "$TMP/S_3/stages/differential" | head -1)
$EXTFLOW inspect "$TMP/S_3/stages/differential/$f" > "$TMP/insp" && grep -q '^version: 2$' "$TMP/insp" &&
    grep -q '^prime: 3$' "$TMP/insp"
ok $? "a stage file is format version 2, prime 3 ($f)"

# resume after kill -9 at a random moment (as tests/t-resume.sh), S_3 through stem 100
$EXTFLOW resolve --quiet --module S_3 --stem 100 --out "$TMP/full"
t1=$(date +%s.%N)
$EXTFLOW resolve --quiet --module S_3 --stem 100 --out "$TMP/full2"
span=$(awk -v a="$t1" -v b="$(date +%s.%N)" 'BEGIN { d = b - a; printf "%.2f", (d > 0.2 ? d : 0.2) }')
same_outputs "$TMP/full" "$TMP/full2"
ok $? "S_3 through stem 100 twice: identical outputs (${span}s a run)"
# the multiply codelet at odd p: every step's rows in tasks, or all on the plan's worker
EXTFLOW_STATS=1 EXTFLOW_LIFT_INLINE_PAIRS=0 $EXTFLOW resolve --quiet --module S_3 --stem 100 --out "$TMP/tasks" \
    2>"$TMP/stats" && same_outputs "$TMP/full" "$TMP/tasks"
ok $? "S_3 through stem 100 with every step's rows in multiply tasks: identical outputs ($(grep -o '[0-9]* (job x term) pairs' "$TMP/stats"))"
grep -q '^extflow: Milnor products: [1-9][0-9]* (job x term) pairs' "$TMP/stats"
ok $? "those rows went through the odd-p multiply codelet (EXTFLOW_STATS counts its pairs)"
EXTFLOW_LIFT_INLINE_PAIRS=18446744073709551615 $EXTFLOW resolve --quiet --module S_5 --stem 100 --out "$TMP/here5" &&
    EXTFLOW_LIFT_INLINE_PAIRS=0 $EXTFLOW resolve --quiet --module S_5 --stem 100 --out "$TMP/tasks5" &&
    same_outputs "$TMP/here5" "$TMP/tasks5"
ok $? "S_5 through stem 100: rows on the plans' workers and in multiply tasks give identical outputs"
seed=${SEED:-$$}
diag "seed $seed"
i=0
while [ $i -lt "$ROUNDS" ]; do
    i=$((i + 1))
    d="$TMP/r$i"
    delay=$(awk -v s="$seed" -v i=$i -v span="$span" 'BEGIN { srand(s * 31 + i); printf "%.2f", 0.05 + rand() * (span - 0.05) }')
    $EXTFLOW resolve --quiet --module S_3 --stem 100 --out "$d" &
    pid=$!
    sleep "$delay"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    partial=$(ls "$d/stages/differential" 2>/dev/null | wc -l)
    $EXTFLOW resolve --quiet --module S_3 --stem 100 --out "$d" 2>"$TMP/err" && same_outputs "$TMP/full" "$d" &&
        ! ls "$d/stages/differential" | grep -q tmp
    ok $? "killed after ${delay}s ($partial stage files), resumed: identical outputs $(head -1 "$TMP/err")"
    rm -rf "$d"
done
$EXTFLOW resolve --quiet --module C3 --stem 30 --out "$TMP/grow" &&
    $EXTFLOW resolve --module C3 --stem 40 --out "$TMP/grow" 2>"$TMP/grow.err" </dev/null &&
    $EXTFLOW resolve --quiet --module C3 --stem 40 --out "$TMP/fresh" && same_outputs "$TMP/fresh" "$TMP/grow" &&
    grep -q "resumed" "$TMP/grow.err"
ok $? "C3 through stem 30 extended to 40 reuses its stage files and equals a fresh run ($(head -1 "$TMP/grow.err"))"

# the mod 2 tables are not built at an odd prime (res_init_module): at stem 400 they were 1.17 GB
$EXTFLOW resolve --quiet --module S_5 --stem 400 --max-s 2 --out "$TMP/s5wide" &&
    tr ',' '\n' < "$TMP/s5wide/run.json" | awk -F': *' '/"milnor_tables_peak_bytes"/ { m = $NF } /"peak_rss_bytes"/ { r = $NF }
        END { printf "milnor tables %d bytes, peak RSS %d MB\n", m, r / 1048576; exit !(m < 1048576 && r < 200 * 1048576) }' > "$TMP/wide"
ok $? "S_5 through stem 400, s <= 2: no mod 2 tables built at p = 5 ($(cat "$TMP/wide"))"
$EXTFLOW resolve --quiet --module S_3 --max-t 50 --max-s 10 --out "$TMP/chart" &&
    tail -n +2 "$ODD/resolve-S_3" | cmp -s - "$TMP/chart/chart.txt"
ok $? "S_3, t <= 50, s <= 10: chart.txt equals sseq's resolve chart"
for m in C3v1 C5v1 Calpha X3 C9 C3v1b1; do
    $EXTFLOW resolve --quiet --module $m --stem 30 --out "$TMP/$m" 2>"$TMP/err" || break
done
[ -s "$TMP/C3v1b1/ext.csv" ] && grep -q '"module": "C9"' "$TMP/C9/run.json"
ok $? "modules/ with actions and cofibers at odd p resolve by name (C3v1, C5v1, Calpha, X3, C9, C3v1b1) $(head -1 "$TMP/err")"
ver() {  # ver DIR: verify's last line says ok
    $EXTFLOW verify --quiet "$1" > "$TMP/vout" 2>&1 && tail -1 "$TMP/vout" | grep -q " 0 problems: ok$"
}
ver "$TMP/S_3" && ver "$TMP/full" && ver "$TMP/C3v1" && ver "$TMP/X3" && ver "$TMP/C9" && ver "$TMP/C3v1b1"
ok $? "verify at odd p: S_3 (stems 60, 100), C3v1, X3, C9, C3v1b1 check out ($(tail -1 "$TMP/vout" | cut -c1-80))"
cp -r "$TMP/X3" "$TMP/X3-missing" && f=$(ls "$TMP/X3-missing/stages/differential" | sed -n 5p) &&
    rm "$TMP/X3-missing/stages/differential/$f"
$EXTFLOW verify --quiet "$TMP/X3-missing" > "$TMP/vout" 2>&1
[ $? -eq 1 ] && grep -q "^missing: (.*$f" "$TMP/vout" && tail -1 "$TMP/vout" | grep -q "NOT OK"
ok $? "verify at odd p finds a missing stage file ($(grep -m1 missing "$TMP/vout" | cut -c1-80))"
cp -r "$TMP/X3" "$TMP/X3-csv" && sed -i '3s/,1$/,2/' "$TMP/X3-csv/ext.csv"
$EXTFLOW verify --quiet "$TMP/X3-csv" > "$TMP/vout" 2>&1
[ $? -eq 1 ] && grep -q "ext.csv" "$TMP/vout" && tail -1 "$TMP/vout" | grep -q "NOT OK"
ok $? "verify at odd p finds a wrong dim in ext.csv ($(grep -m1 ext.csv "$TMP/vout" | cut -c1-80))"

# refusals: exit 2, one line, nothing changed
refused() {     # refused DESCRIPTION PATTERN COMMAND...
    what=$1 pat=$2
    shift 2
    (cd "$TMP/S_3" && find . -type f ! -name .lock | sort | xargs md5sum) > "$TMP/before"
    "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    (cd "$TMP/S_3" && find . -type f ! -name .lock | sort | xargs md5sum) > "$TMP/after"
    [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "$pat" "$TMP/err" && cmp -s "$TMP/before" "$TMP/after"
    ok $? "$what: exit $rc, one line, the directory unchanged but its lock ($(head -1 "$TMP/err"))"
}
cp -r "$TMP/S_3" "$TMP/S_3-killed" && rm "$TMP/S_3-killed/run.json" "$TMP/S_3-killed/ext.csv"
$EXTFLOW verify --quiet "$TMP/S_3-killed" >"$TMP/vout" 2>&1 && tail -1 "$TMP/vout" | grep -q " 0 problems: ok$"
ok $? "verify of an unfinished one (no run.json: the prime and module from its stage files) ($(tail -1 "$TMP/vout" | cut -c1-80))"
refused "d2 over it" "p = 2 only" $EXTFLOW d2 "$TMP/S_3"
refused "S_2 into its directory" "another\|S_2" $EXTFLOW resolve --quiet --stem 20 --out "$TMP/S_3"
$EXTFLOW resolve --quiet --module C3 --stem 10 --algorithm nassau --out "$TMP/n" 2>"$TMP/err"
is_usage_error $? "$TMP/err" && [ ! -e "$TMP/n" ]
ok $? "--algorithm nassau for C3 (a profile's B at p = 3): refused, nothing created ($(head -1 "$TMP/err"))"
$EXTFLOW resolve --quiet --module S_3 --stem 10 --keep-stages matrix --out "$TMP/k" 2>"$TMP/err"
[ $? -eq 2 ] && head -1 "$TMP/err" | grep -q "keep-stages" && [ ! -e "$TMP/k" ]
ok $? "--keep-stages at p = 3: refused, nothing created ($(head -1 "$TMP/err"))"
done_testing

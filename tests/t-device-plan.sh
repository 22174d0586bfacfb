#!/bin/sh
# bench/device-plan, the GPU machine's driver, on the CPU build: every kept plan parses (its dry
# run); a plan of resolve, d2 and massey runs (a run on a copy of another's directory, @LABEL)
# runs through bench/device-lib.sh: rounds alternated with each run after its source, peers
# compared, every line timed, a failing line's status logged and its dependants skipped, a
# line cut at its time limit, a file kept, the outputs equal to the same commands run by hand,
# each binary's --version logged at its first run; two peers that differ make it exit 1;
# bench/oddp-device and bench/secondary-device (thin wrappers of plans) give the files the
# commands give; a plan with a mistake is refused.
. tests/lib.sh
plan 13
for p in bench/plans/*.plan; do
    bench/device-plan -n "$p" >"$TMP/dry.out" 2>&1 || { echo "$p: $(head -2 "$TMP/dry.out")"; false; } || break
done
ok $? "every bench/plans/*.plan parses (dry run)"
cat >"$TMP/p.plan" <<PLAN
# two settings, two rounds; d2 and massey on copies of a resolve
reps 2
timeout 120
default STEM 25
exec v $EXTFLOW --version
a $EXTFLOW --stem \${STEM}   # the default workers
b $EXTFLOW STARPU_NCPU=1 EXTFLOW_STATS=1 --stem \${STEM}
c $TMP/none --stem \${STEM}
d $EXTFLOW d2 @a --sseq-formats
e $EXTFLOW STARPU_NCPU=1 d2 @a --sseq-formats
m $EXTFLOW massey @d --a h2 --b h3 --secondary
bad $EXTFLOW massey @a --a nosuch --b h1
after-bad $EXTFLOW d2 @bad
timeout 1
slow $EXTFLOW resolve --stem 200
keep d d2.csv
PLAN
bench/device-plan -n "$TMP/p.plan" STEM=30 >"$TMP/dry.out" 2>&1
[ "$(grep ': env ' "$TMP/dry.out" | cut -d: -f1 | tr '\n' ' ')" = \
  "a-1 b-1 c-1 d-1 e-1 m-1 bad-1 after-bad-1 slow-1 slow-2 c-2 b-2 a-2 bad-2 after-bad-2 e-2 d-2 m-2 " ] &&
    grep -q '^compare a-1 b-1$' "$TMP/dry.out" && grep -q '^compare d-2 e-2$' "$TMP/dry.out" && grep -q '^compare m-1 m-2$' "$TMP/dry.out" &&
    grep -q '^a-1: .* resolve --stem 30 --out .*/a-1 --quiet \[at most 120 s\]$' "$TMP/dry.out" &&
    grep -q '^m-2: .* massey DIR --a h2 --b h3 --secondary --quiet \[at most 120 s\] (DIR: a copy of d-2)$' "$TMP/dry.out" &&
    grep -q '^slow-1: .*\[at most 1 s\]$' "$TMP/dry.out"
ok $? "dry run: the second round in reverse, each run after its source; peers and rounds compared; \${STEM} given; limits by line"
OUT="$TMP/out" DEV_WORK="$TMP/w" bench/device-plan "$TMP/p.plan" tiny >"$TMP/run.out" 2>&1
rc=$?
L=$TMP/out/tiny.txt
[ $rc -eq 0 ] && grep -q '^a-1 = b-1: identical ([0-9]* files)$' "$L" && grep -q '^a-1 = a-2: identical' "$L" &&
    grep -q '^d-1 = e-1: identical' "$L" && grep -q '^m-1 = m-2: identical' "$L" &&
    grep -q '^extflow ' "$L" && grep -q '^c-1: no .*, skipped' "$L" &&
    [ "$(grep -cxF "binary $EXTFLOW: $($EXTFLOW --version)" "$L")" -eq 1 ] && [ "$(grep -c '^binary ' "$L")" -eq 1 ]
ok $? "a plan run: exit 0, peers' and rounds' outputs identical, exec's output logged, a missing binary skipped, the binary's --version logged once"
n=$(grep -Ec '^(a|b|d|e|m)-[12]: .*: rc 0; wall [0-9]+ ms; user [0-9.]+ s; sys [0-9.]+ s; peak RSS [0-9]+ KB; ' "$L")
[ "$n" -eq 10 ] && grep -q '^v: rc 0; wall [0-9]* ms; user ' "$L" && grep -q '^d-1: .* d2 @a-1 --sseq-formats: rc 0' "$L"
ok $? "every run and the exec timed: exit status, wall, user and system seconds, peak RSS ($n of 10 runs)"
grep -q '^bad-1: .*: rc 2; ' "$L" && grep -q '^    extflow: .*nosuch' "$L" &&
    grep -q '^after-bad-1: skipped, bad-1 did not finish (2)$' "$L" && grep -q '^slow-1: .*: rc 124; .*; cut at 1 s' "$L"
ok $? "a failing line: its exit status and error logged, its dependant skipped; a line cut at its limit"
# the same commands by hand: the plan's directories hold what they give, the source untouched
mkdir "$TMP/h" && $EXTFLOW resolve --stem 25 --out "$TMP/h/r" --quiet && cp -r "$TMP/h/r" "$TMP/h/d" &&
    $EXTFLOW d2 "$TMP/h/d" --sseq-formats --quiet && $EXTFLOW massey "$TMP/h/d" --a h2 --b h3 --secondary --quiet
cmp -s "$TMP/h/r/ext.csv" "$TMP/w/b-2/ext.csv" && cmp -s "$TMP/h/d/d2.csv" "$TMP/w/d-1/d2.csv" &&
    cmp -s "$TMP/h/d/secondary.txt" "$TMP/w/e-2/secondary.txt" &&
    cmp -s "$TMP/h/d/secondary_massey-h2-h3.txt" "$TMP/w/m-2/secondary_massey-h2-h3.txt" &&
    [ ! -e "$TMP/w/a-1/d2.csv" ] && [ -s "$TMP/w/m-1/d2.csv" ] && cmp -s "$TMP/h/d/d2.csv" "$TMP/out/tiny-d-d2.csv"
ok $? "outputs as by hand (ext.csv, d2.csv, secondary.txt, the Massey file), the source's directory untouched, d2.csv kept"
grep -q '^b | .* | STARPU_NCPU=1 EXTFLOW_STATS=1 | resolve --stem 25 | [0-9]* [0-9]* | median [0-9.]* ms, [0-9.]* user s | x[0-9.]* a$' "$L" &&
    grep -q '^e | .* | d2 @a --sseq-formats | [0-9]* [0-9]* | median .* | x[0-9.]* d$' "$L" &&
    grep -q '^bad | .* | - - | median - ms, - user s | -$' "$L" &&
    [ "$(grep -c '^=== ' "$TMP/out/tiny-stats.txt")" -eq 14 ]
ok $? "the table: each round's wall, the medians, the ratio to the peer; the statistics of the 14 runs that ran"
# a binary whose ext.csv differs from its peer's: DIFFER, exit 1
printf '#!/bin/sh\n"%s" "$@" && echo 9,9,9 >> "$5/ext.csv"\n' "$(cd "$(dirname "$EXTFLOW")" && pwd)/$(basename "$EXTFLOW")" >"$TMP/odd"
chmod +x "$TMP/odd"
printf 'a %s --stem 20\nb %s --stem 20\n' "$EXTFLOW" "$TMP/odd" >"$TMP/d.plan"
OUT="$TMP/dout" DEV_WORK="$TMP/dw" bench/device-plan "$TMP/d.plan" >/dev/null 2>&1
[ $? -eq 1 ] && grep -q '^a-1 != b-1: DIFFER: ext.csv$' "$TMP/dout/d.txt"
ok $? "two peers whose outputs differ: DIFFER and the file named, exit 1"
BIN=$EXTFLOW OUT="$TMP/o1" DEV_WORK="$TMP/w1" bench/oddp-device S_3 40 12 60 --algorithm standard >/dev/null 2>&1
rc=$?
$EXTFLOW resolve --module S_3 --stem 40 --max-s 12 --algorithm standard --out "$TMP/h/s3" --quiet
[ $rc -eq 0 ] && cmp -s "$TMP/h/s3/ext.csv" "$TMP/o1/S_3-40-12.csv" &&
    grep -q '^run-1: .* resolve --module S_3 --stem 40 --max-s 12 --time-limit 60 --algorithm standard: rc 0; wall ' "$TMP/o1/S_3-40-12.txt"
ok $? "bench/oddp-device S_3 40 12 60 --algorithm standard: its log, and its table as resolve's"
BIN=$EXTFLOW OUT="$TMP/o2" DEV_WORK="$TMP/w2" bench/secondary-device 30 12 60 >/dev/null 2>&1
rc=$?
mkdir "$TMP/h2" && $EXTFLOW resolve --stem 30 --max-s 12 --out "$TMP/h2/r" --quiet && $EXTFLOW d2 "$TMP/h2/r" --quiet &&
    cp -r "$TMP/h2/r" "$TMP/h2/p" && $EXTFLOW d2 "$TMP/h2/p" --product h0 --quiet &&
    cp -r "$TMP/h2/r" "$TMP/h2/m" && $EXTFLOW massey "$TMP/h2/m" --a h2 --b h3 --secondary --quiet &&
    $EXTFLOW massey "$TMP/h2/r" --a h3 --b h0_4=0,4 --secondary --quiet
[ $rc -eq 0 ] && [ "$(grep -c ': rc 0; wall ' "$TMP/o2/secondary-30.txt")" -eq 5 ] &&
    diff -r -x .lock -x run.json -x '*.log' "$TMP/h2/p" "$TMP/w2/d2-h0-1" >/dev/null &&
    diff -r -x .lock -x run.json -x '*.log' "$TMP/h2/m" "$TMP/w2/massey-h2-h3-1" >/dev/null &&
    diff -r -x .lock -x run.json -x '*.log' "$TMP/h2/r" "$TMP/w2/massey-h3-h0_4-1" >/dev/null
ok $? "bench/secondary-device 30 12 60: five lines timed, each operation's directory as the commands on a copy of d2's leave one"
printf 'reps two\na %s --stem 10\n' "$EXTFLOW" >"$TMP/bad.plan"
OUT="$TMP/bad" bench/device-plan "$TMP/bad.plan" 2>"$TMP/bad.err"
[ $? -eq 2 ] && grep -q 'bad.plan:1: reps takes one positive number' "$TMP/bad.err" && [ ! -e "$TMP/bad" ]
ok $? "a plan with a mistake: exit 2, its line named, nothing run"
printf 'a %s --stem 10\nd %s d2 @b\n' "$EXTFLOW" "$EXTFLOW" >"$TMP/bad2.plan"
printf 'a %s resolve @a\n' "$EXTFLOW" >"$TMP/bad3.plan"
printf 'a %s --stem ${STEM}\n' "$EXTFLOW" >"$TMP/bad4.plan"
OUT="$TMP/bad" bench/device-plan "$TMP/bad2.plan" 2>"$TMP/bad2.err"; r2=$?
OUT="$TMP/bad" bench/device-plan "$TMP/bad3.plan" 2>"$TMP/bad3.err"; r3=$?
OUT="$TMP/bad" bench/device-plan "$TMP/bad4.plan" 2>"$TMP/bad4.err"; r4=$?
[ $r2 -eq 2 ] && grep -q 'bad2.plan:2: @b: no run b above' "$TMP/bad2.err" &&
    [ $r3 -eq 2 ] && grep -q 'bad3.plan:1: resolve works on no other run' "$TMP/bad3.err" &&
    [ $r4 -eq 2 ] && grep -q 'bad4.plan:1: ${STEM} has no value (give STEM=VALUE)' "$TMP/bad4.err" && [ ! -e "$TMP/bad" ]
ok $? "an @LABEL of no run above, resolve on another's directory, a variable without a value: exit 2, nothing run"
OUT="$TMP/bad" bench/device-plan "$TMP/bad4.plan" bad4 STEM 2>"$TMP/bad5.err"
[ $? -eq 2 ] && grep -q "'STEM': VAR=VALUE expected" "$TMP/bad5.err"
ok $? "a word after NAME that is not VAR=VALUE: exit 2"
done_testing

#!/bin/bash
# Device call helper (issue 12, fourth session): docs/results/gpu/2026-12-01-s4-go.sh CALL BUDGET_S
# On the same warm machine, call after call: stem 180 from scratch with bench/long-run until it
# finishes; then stem 160 under --memory 6500M and stem 160 with the defaults, side by side,
# each from scratch under /usr/bin/time -v, while BUDGET_S seconds of this command allow.
# Needs bin-starpu/extflow and .deps/starpu carried. Everything comes back in <= 8 files.
set -u
T0=$(date +%s); N=$1; B=$2
R=${OUT:-/tmp/devrun-out}; mkdir -p "$R"
export EXTFLOW=$PWD/bin-starpu/extflow STARPU_HOME=/tmp/devrun-starpu-home EXTFLOW_STATS=1 STARPU_SILENT=1
D=out/lr-s4; mkdir -p $D
REP=$R/report-$N.txt
el() { echo $(( $(date +%s) - T0 )); }
left() { echo $(( B - $(el) )); }
say() { echo "[$(date -u +%T) +$(el)s] $*" | tee -a "$REP"; }
say "call $N budget $B; $D: $(ls $D/stages/differential 2>/dev/null | wc -l) differential files; markers: $(ls -a $D | grep '^.done' | tr '\n' ' ')"
{ git log -1 --format='commit %H %cI' 2>/dev/null; nproc; free -g; nvidia-smi --query-gpu=name,memory.total,memory.used,clocks.sm,power.limit --format=csv; } >>"$REP" 2>&1
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader,nounits -l 1 >"$R/gpu-$N.csv" 2>/dev/null &
SMI=$!
if [ ! -d "$STARPU_HOME" ]; then
  $EXTFLOW resolve --stem 60 --out /tmp/devrun-w60 --quiet; say "warm-up (bus calibration) stem 60 rc $?"
fi
if [ ! -e "$D/.done-180" ]; then
  L=$(( $(left) - 75 ))
  say "== bench/long-run $D 180 $L"
  /usr/bin/time -v -o "$D/.time" bench/long-run "$D" 180 "$L" >"$D/.lr-out" 2>&1; rc=$?
  { cat "$D/.lr-out"; echo "-- /usr/bin/time -v of bench/long-run:"; grep -E 'Elapsed|User time|System time|Maximum resident|Percent of CPU' "$D/.time";
    echo "-- extflow stderr (EXTFLOW_STATS):"; cat "$D/.long-run-err"; echo "-- stage files:"; du -sb "$D/stages" "$D/stages"/* ; } >>"$REP" 2>&1
  say "long-run 180 exit $rc"
  if [ $rc = 0 ]; then
    touch "$D/.done-180"; cp "$D/ext.csv" "$R/ext-180.csv"; cp "$D/run.json" "$R/run-180.json"
    bench/ext-agree "$D/ext.csv:180:92" docs/results/ext_S_2_stem170_s87.csv:170:87 docs/results/ext_S_2_stem160_s82.csv:160:82 \
      tests/ref/ext_S_2_stem60.csv:60:40 >>"$REP" 2>&1; say "ext-agree rc $?"
  fi
fi
one160() {  # NAME [resolve options]
  local name=$1; shift
  local d=out/s160-$name; rm -rf $d
  say "== stem 160 $name: resolve --stem 160 $* (left $(left) s)"
  /usr/bin/time -v -o $d.time $EXTFLOW resolve --stem 160 --out $d --quiet --verbose "$@" 2>$d.err; local rc=$?
  { grep -E 'Elapsed|User time|System time|Maximum resident' $d.time; tail -40 $d.err; } >>"$REP" 2>&1
  say "stem 160 $name rc $rc"
  cmp -s $d/ext.csv docs/results/ext_S_2_stem160_s82.csv && say "ext.csv identical to docs/results/ext_S_2_stem160_s82.csv" || say "ext.csv DIFFERS from the stem-160 table"
  [ -d out/s160-mem ] && [ $name != mem ] && { diff -rq out/s160-mem/stages/differential $d/stages/differential >/dev/null && say "differential files identical to the budget run's" || say "differential files DIFFER from the budget run's"; }
}
if [ -e "$D/.done-180" ] && [ ! -e out/.done-160mem ] && [ $(left) -ge 260 ]; then one160 mem --memory 6500M; touch out/.done-160mem; fi
if [ -e "$D/.done-180" ] && [ ! -e out/.done-160def ] && [ $(left) -ge 260 ]; then one160 default; touch out/.done-160def; fi
kill $SMI
say "end; $(du -sb $D | cut -f1) bytes in $D"

#!/bin/bash
# devrun helper (issue 12): out/devrun/go.sh CALL BUDGET_S
# stem 170 from scratch (bench/long-run), then continue the same DIR to stem 180, all within
# BUDGET_S seconds of this command. Everything comes back in <= 8 files under $OUT.
set -u
T0=$(date +%s); N=$1; B=$2; S1=${S1:-170}; S2=${S2:-180}
R=${OUT:-/tmp/devrun-out}; mkdir -p "$R"
export EXTFLOW=$PWD/out/devrun/extflow STARPU_HOME=/tmp/devrun-starpu-home EXTFLOW_STATS=1 STARPU_SILENT=1
D=out/lr-devrun; mkdir -p $D
REP=$R/report-$N.txt
el() { echo $(( $(date +%s) - T0 )); }
say() { echo "[$(date -u +%T) +$(el)s] $*" | tee -a "$REP"; }
say "call $N budget $B; DIR $D: $(ls $D/stages/differential 2>/dev/null | wc -l) differential files; done-markers: $(ls $D/.done-* 2>/dev/null)"
{ nproc; free -g; nvidia-smi --query-gpu=name,memory.total,memory.used,clocks.sm,power.limit --format=csv; } >>"$REP" 2>&1
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader,nounits -l 1 >"$R/gpu-$N.csv" 2>/dev/null &
SMI=$!
if [ ! -d "$STARPU_HOME" ]; then
  $EXTFLOW resolve --stem 60 --out /tmp/devrun-w60 --quiet; say "warm-up (bus calibration) stem 60 rc $?"
fi
stage() {  # STEM LIMIT
  local s=$1 l=$2 rc
  say "== bench/long-run $D $s $l"
  /usr/bin/time -v -o "$D/.time" bench/long-run "$D" "$s" "$l" >"$D/.lr-out" 2>&1; rc=$?
  { cat "$D/.lr-out"; echo "-- /usr/bin/time -v of bench/long-run:"; grep -E 'Elapsed|User time|System time|Maximum resident|Percent of CPU' "$D/.time";
    echo "-- extflow stderr (EXTFLOW_STATS):"; cat "$D/.long-run-err"; echo "-- run.json:"; cat "$D/run.json";
    echo "-- stage files:"; du -sb "$D/stages" "$D/stages"/* ; } >>"$REP" 2>&1
  say "long-run $s exit $rc"
  if [ $rc = 0 ]; then cp "$D/ext.csv" "$R/ext-$s.csv"; cp "$D/run.json" "$R/run-$s.json"; touch "$D/.done-$s"; fi
  return $rc
}
if [ ! -e "$D/.done-$S1" ]; then
  L=$(( B - $(el) - 100 )); [ $L -gt ${L1MAX:-500} ] && L=${L1MAX:-500}
  stage $S1 $L
fi
L=$(( B - $(el) - 110 ))
if [ -e "$D/.done-$S1" ] && [ ! -e "$D/.done-$S2" ] && [ $L -ge 40 ]; then stage $S2 $L; fi
kill $SMI
say "end; $(du -sb $D | cut -f1) bytes in $D"

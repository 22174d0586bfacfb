#!/bin/bash
# Device call (issue 12, fourth session, last call): docs/results/gpu/2026-12-01-s4-go2.sh BUDGET_S
# 1. EXTFLOW_GPU_VERIFY=1 at stem 100 with the CPU share of GPU steps (every GPU chunk
#    recomputed on the CPU); 2. stem 160 with EXTFLOW_GPU_CPU_SHARE=0 and =$SHARE, outputs
#    compared; 3. stem 160 under --memory 6500M with the faster of the two, while BUDGET_S allows.
# Needs bin-starpu/extflow and .deps/starpu carried. Everything comes back in <= 8 files.
set -u
T0=$(date +%s); B=$1; SHARE=${SHARE:-0.3}
R=${OUT:-/tmp/devrun-out}; mkdir -p "$R"
export STARPU_HOME=/tmp/devrun-starpu-home STARPU_SILENT=1
X=$PWD/bin-starpu/extflow
REP=$R/report-go2.txt
el() { echo $(( $(date +%s) - T0 )); }
left() { echo $(( B - $(el) )); }
say() { echo "[$(date -u +%T) +$(el)s] $*" | tee -a "$REP"; }
{ nproc; free -g; nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv; } >>"$REP" 2>&1
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader,nounits -l 1 >"$R/gpu-go2.csv" 2>/dev/null &
SMI=$!
[ -d "$STARPU_HOME" ] || { $X resolve --stem 60 --out /tmp/w60 --quiet; say "warm-up stem 60 rc $?"; }
run() {  # NAME STEM SHARE [resolve options]: one run from scratch; wall in $R/wall-NAME
  local name=$1 stem=$2 share=$3; shift 3
  local d=out/go2-$name; rm -rf $d; mkdir -p out
  say "== $name: EXTFLOW_GPU_CPU_SHARE=$share resolve --stem $stem $* (left $(left) s)"
  local t0=$(date +%s.%N)
  EXTFLOW_STATS=1 EXTFLOW_GPU_CPU_SHARE=$share /usr/bin/time -v -o $d.time $X resolve --stem $stem --out $d --quiet --verbose "$@" 2>$d.err
  local rc=$? t1=$(date +%s.%N)
  awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.1f\n", b - a }' > $d.wall
  { grep -E 'Elapsed|User time|System time|Maximum resident' $d.time; grep -vE '^extflow: [0-9]+/' $d.err | tail -32; } >>"$REP" 2>&1
  say "$name rc $rc wall $(cat $d.wall) s"
  return $rc
}
same() { cmp -s out/go2-$1/ext.csv out/go2-$2/ext.csv && diff -rq out/go2-$1/stages/differential out/go2-$2/stages/differential >/dev/null && echo identical || echo DIFFER; }
EXTFLOW_GPU_VERIFY=1 run verify100 100 $SHARE
grep -q "EXTFLOW_GPU_VERIFY:" out/go2-verify100.err && say "GPU verify: MISMATCH" || say "GPU verify: clean"
run s160-share0 160 0
run s160-share 160 $SHARE
say "stem 160 share 0 vs share $SHARE: $(same s160-share0 s160-share)"
cmp -s out/go2-s160-share/ext.csv docs/results/ext_S_2_stem160_s82.csv && say "ext.csv = docs/results/ext_S_2_stem160_s82.csv" || say "ext.csv DIFFERS from the kept stem-160 table"
BEST=$SHARE; awk -v a=$(cat out/go2-s160-share0.wall) -v b=$(cat out/go2-s160-share.wall) 'BEGIN { exit !(a < b) }' && BEST=0
if [ $(left) -ge 170 ]; then
  run s160-mem 160 $BEST --memory 6500M
  say "stem 160 --memory 6500M (share $BEST) vs the same share without: $(same s160-mem s160-$([ $BEST = 0 ] && echo share0 || echo share))"
fi
kill $SMI
say "end"

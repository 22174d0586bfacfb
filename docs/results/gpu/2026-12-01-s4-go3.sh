#!/bin/bash
# Device call (issue 12, fourth session, the budget's last minutes): stem 160 under --memory 6500M
# with EXTFLOW_GPU_CPU_SHARE=0.3, stopped by --time-limit LIMIT if it cannot finish; peak RSS,
# the memory account and, when complete, ext.csv against the kept stem-160 table.
set -u
R=${OUT:-/tmp/devrun-out}; mkdir -p "$R" out; L=${1:-150}
X=$PWD/bin-starpu/extflow; d=out/go3-mem; rm -rf $d
export STARPU_HOME=/tmp/devrun-starpu-home STARPU_SILENT=1 EXTFLOW_STATS=1 EXTFLOW_GPU_CPU_SHARE=0.3
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader,nounits -l 1 >"$R/gpu-go3.csv" 2>/dev/null &
t0=$(date +%s)
/usr/bin/time -v -o $d.time $X resolve --stem 160 --out $d --quiet --verbose --memory 6500M --time-limit $L 2>$d.err
rc=$?
{ echo "rc $rc wall $(( $(date +%s) - t0 )) s (--time-limit $L)"; grep -E 'Elapsed|User time|System time|Maximum resident' $d.time
  grep -vE '^extflow: [0-9]+/' $d.err | tail -30
  cmp -s $d/ext.csv docs/results/ext_S_2_stem160_s82.csv && echo "ext.csv = docs/results/ext_S_2_stem160_s82.csv" || echo "no complete ext.csv equal to the kept table"; } | tee $R/report-go3.txt

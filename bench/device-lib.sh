# bench/device-lib.sh — shell helpers for runs on the GPU machine (bench/device-plan), sourced:
#   . bench/device-lib.sh NAME     results go to $OUT (or bench/results/gpu), the log to NAME.txt,
#                                  each run's directory under $DEV_WORK (default /tmp/NAME)
#   dev_run LABEL BINARY [VAR=VALUE...] -- RESOLVE-ARGS...
#       one `resolve` with EXTFLOW_STATS=1 under /usr/bin/time (timeout DEV_TIMEOUT, default 300 s);
#       logs its exit status, wall ms, peak RSS and the GPU's mean busy share (nvidia-smi, 5 Hz)
#       and appends its stderr (the statistics) to NAME-stats.txt (few files: a call brings back 8)
#       (DEV_DEADLINE, epoch seconds: a run gets at most what is left before it, none under 30 s);
#       after it DEV_RC (the exit status, or "skip"), DEV_WALL_MS, DEV_RSS_KB and DEV_BUSY hold
#       what it logged
#   dev_same LABEL LABEL    ext.csv and every differential stage file of two runs compared
# BINARY is a path (bin-starpu/extflow and .long-200/extflow find .deps/starpu by their rpath,
# bin/extflow the system's StarPU); a missing one is logged and skipped.
set -u
DEV_NAME=${1:?usage: . bench/device-lib.sh NAME}
export STARPU_SILENT=1
DEV_R=${OUT:-bench/results/gpu}
DEV_W=${DEV_WORK:-/tmp/$DEV_NAME}
DEV_LOG=$DEV_R/$DEV_NAME.txt
mkdir -p "$DEV_R" "$DEV_W"
echo "$(date -u +%FT%TZ) $DEV_NAME; commit $(git log -1 --format=%h 2>/dev/null); cores $(nproc); $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)" | tee -a "$DEV_LOG"
dev_run() {
    local label=$1 bin=$2; shift 2
    local envs=(); while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
    DEV_RC=skip DEV_WALL_MS= DEV_RSS_KB= DEV_BUSY=
    [ -x "$bin" ] || { echo "$label: no $bin, skipped" | tee -a "$DEV_LOG"; return; }
    local d=$DEV_W/$label lim=${DEV_TIMEOUT:-300}; rm -rf "$d"
    if [ -n "${DEV_DEADLINE:-}" ]; then
        local left=$(( DEV_DEADLINE - $(date +%s) ))
        [ "$left" -lt 30 ] && { echo "$label: skipped, $left s left before the deadline" | tee -a "$DEV_LOG"; return; }
        [ "$left" -lt "$lim" ] && lim=$left
    fi
    nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -lms 200 >"$d.smi" 2>/dev/null &
    local smi=$! s=$(date +%s%N)
    env "${envs[@]}" EXTFLOW_STATS=1 timeout "$lim" /usr/bin/time -f "%M" "$bin" resolve "$@" --out "$d" --quiet 2>"$d.err"
    local rc=$? e=$(date +%s%N)
    kill $smi 2>/dev/null
    { echo "=== $label"; cat "$d.err"; } >>"$DEV_R/$DEV_NAME-stats.txt"
    local busy=$(awk '{ s += $1; n++ } END { if (n) printf "%.0f", s / n }' "$d.smi")
    DEV_RC=$rc DEV_WALL_MS=$(( (e - s) / 1000000 )) DEV_RSS_KB=$(tail -1 "$d.err") DEV_BUSY=${busy:-?}
    echo "$label $bin ${envs[*]} $*: rc $rc wall $DEV_WALL_MS ms; peak RSS $DEV_RSS_KB KB; GPU busy $DEV_BUSY%" | tee -a "$DEV_LOG"
}
dev_same() {
    { cmp -s "$DEV_W/$1/ext.csv" "$DEV_W/$2/ext.csv" && diff -r "$DEV_W/$1/stages/differential" "$DEV_W/$2/stages/differential" >/dev/null &&
        echo "$1 = $2: identical" || echo "$1 != $2: DIFFER"; } | tee -a "$DEV_LOG"
}

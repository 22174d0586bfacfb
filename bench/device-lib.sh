# bench/device-lib.sh — shell helpers for timed runs on the GPU machine (bench/device-plan), sourced:
#   . bench/device-lib.sh NAME     results go to $OUT (or bench/results/gpu), the log to NAME.txt,
#                                  each run's directory under $DEV_WORK (default /tmp/NAME)
#   dev_run LABEL BINARY [VAR=VALUE...] -- COMMAND ARG...
#       one extflow COMMAND with EXTFLOW_STATS=1, timed (dev_time); its directory is
#       $DEV_W/LABEL: `resolve` gets `--out` it; any other command works on it where an argument
#       `@SRC` stands, DIR being first a copy of $DEV_W/SRC (another run's directory, copied before
#       the clock starts, so that runs on one resolution neither see nor disturb each other's files);
#       `--quiet` is appended. Its stderr (the statistics) goes to NAME-stats.txt, the last two
#       lines of its stdout to the log, and where it failed (or stopped at --time-limit) the
#       first two of its stderr's other lines (few files: a device call brings back 8)
#   dev_exec LABEL COMMAND [ARG...]
#       any command (a GPU test, a kernel benchmark), timed the same way, its output in the log
#   dev_time OUTFILE ERRFILE COMMAND...   (both use it)
#       COMMAND under `timeout` (DEV_TIMEOUT, default 300 s; DEV_DEADLINE, epoch seconds: a run
#       gets at most what is left before it) and /usr/bin/time, the GPU sampled by nvidia-smi
#       at 5 Hz; after it DEV_RC (the exit status: 124 cut by the limit), DEV_WALL_MS, DEV_USER_S,
#       DEV_SYS_S, DEV_RSS_KB (peak RSS of the command and its children), DEV_BUSY (the GPUs'
#       mean busy share, %) and DEV_GMEM (their peak memory, MiB) hold what it measured, and
#       DEV_LINE those as one line ("?" where there is no GPU)
#   dev_same DIR DIR        every file of two runs' directories compared but .lock, run.json
#                           and the journals (*.log): the two names and "identical (N files)",
#                           or "DIFFER" and the files that do (and status 1)
# dev_run and dev_exec set DEV_RC=skip (nothing run) for a missing BINARY or, with DEV_DEADLINE,
# when less than 30 s are left.
# BINARY is a path (bin-starpu/extflow and .long-200/extflow find .deps/starpu by their rpath,
# bin/extflow the system's StarPU); a missing one is logged and skipped. The first run of each
# binary logs its `--version` ("binary BINARY: extflow V (commit C)"), the commit it was built
# from: the header's commit is the device copy's git head, which can lag the binary carried.
set -u
DEV_NAME=${1:?usage: . bench/device-lib.sh NAME}
export STARPU_SILENT=1
DEV_R=${OUT:-bench/results/gpu}
DEV_W=${DEV_WORK:-/tmp/$DEV_NAME}
DEV_LOG=$DEV_R/$DEV_NAME.txt
mkdir -p "$DEV_R" "$DEV_W"
echo "$(date -u +%FT%TZ) $DEV_NAME; commit $(git log -1 --format=%h 2>/dev/null); cores $(nproc); $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)" | tee -a "$DEV_LOG"
dev_log() { echo "$*" | tee -a "$DEV_LOG"; }
DEV_SEEN=" "
dev_binary() { # BINARY's --version, logged on its first run
    case $DEV_SEEN in *" $1 "*) return ;; esac
    DEV_SEEN="$DEV_SEEN$1 "
    dev_log "binary $1: $("$1" --version 2>&1 | head -1)"
}
dev_limit() { # the seconds the next command may take, or nothing when the deadline is too near
    local lim=${DEV_TIMEOUT:-300} left
    if [ -n "${DEV_DEADLINE:-}" ]; then
        left=$(( DEV_DEADLINE - $(date +%s) ))
        [ "$left" -lt 30 ] && return 1
        [ "$left" -lt "$lim" ] && lim=$left
    fi
    echo "$lim"
}
dev_time() {
    local out=$1 err=$2; shift 2
    local lim; lim=$(dev_limit) || lim=${DEV_TIMEOUT:-300}
    nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader,nounits -lms 200 >"$out.smi" 2>/dev/null &
    local smi=$! s=$(date +%s%N)
    /usr/bin/time -o "$out.time" -f "%U %S %M" timeout -k 10 "$lim" "$@" >"$out" 2>"$err"
    local rc=$? e=$(date +%s%N)
    kill $smi 2>/dev/null; wait $smi 2>/dev/null
    local t; t=$(tail -1 "$out.time" 2>/dev/null)
    read -r DEV_USER_S DEV_SYS_S DEV_RSS_KB <<<"${t:-? ? ?}"
    DEV_RC=$rc DEV_WALL_MS=$(( (e - s) / 1000000 ))
    DEV_BUSY=$(awk -F', *' '{ s += $1; n++ } END { if (n) printf "%.0f", s / n; else print "?" }' "$out.smi")
    DEV_GMEM=$(awk -F', *' '$2 > m { m = $2 } END { if (NR) print m + 0; else print "?" }' "$out.smi")
    DEV_LINE="rc $rc; wall $DEV_WALL_MS ms; user $DEV_USER_S s; sys $DEV_SYS_S s; peak RSS $DEV_RSS_KB KB; "
    if [ "$DEV_BUSY" = "?" ]; then DEV_LINE+="no GPU sampled"; else DEV_LINE+="GPU busy $DEV_BUSY%; GPU memory $DEV_GMEM MiB"; fi
    [ "$rc" = 124 ] && DEV_LINE="$DEV_LINE; cut at $lim s"
    rm -f "$out.smi" "$out.time"
}
dev_run() {
    local label=$1 bin=$2; shift 2
    local envs=(); while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
    local cmd=$1; shift
    DEV_RC=skip DEV_WALL_MS= DEV_USER_S= DEV_RSS_KB= DEV_BUSY=
    [ -x "$bin" ] || { dev_log "$label: no $bin, skipped"; return; }
    dev_limit >/dev/null || { dev_log "$label: skipped, $(( DEV_DEADLINE - $(date +%s) )) s left before the deadline"; return; }
    dev_binary "$bin"
    local d=$DEV_W/$label a args=() src=
    rm -rf "$d"
    for a in "$@"; do
        if [[ $a == @* ]]; then src=$DEV_W/${a#@}; args+=("$d"); else args+=("$a"); fi
    done
    if [ "$cmd" = resolve ]; then args+=(--out "$d")
    elif [ -n "$src" ]; then cp -r "$src" "$d" || { dev_log "$label: cannot copy $src, skipped"; return; }; fi
    dev_time "$d.out" "$d.err" env "${envs[@]}" EXTFLOW_STATS=1 "$bin" "$cmd" "${args[@]}" --quiet
    { echo "=== $label"; cat "$d.err"; } >>"$DEV_R/$DEV_NAME-stats.txt"
    local share; share=$(grep -o '[0-9.]*% on CUDA' "$d.err" | head -1)
    dev_log "$label: $bin ${envs[*]:+${envs[*]} }$cmd $*: $DEV_LINE${share:+; pairs $share}"
    { tail -2 "$d.out"
      [ "$DEV_RC" != 0 ] && grep '^extflow: ' "$d.err" | grep -v -e 'Milnor products:' -e 'task time by' -e 'critical path' \
          -e 'largest jobs' -e 'of that path' -e '^extflow: work ' -e 'predicted from' | head -2; } | sed 's/^/    /' | tee -a "$DEV_LOG"
}
dev_exec() {
    local label=$1; shift
    local f=$DEV_W/exec-$label
    DEV_RC=skip
    dev_log "=== exec $label: $*"
    dev_time "$f.out" "$f.out.err" "$@"
    cat "$f.out" "$f.out.err" | tee -a "$DEV_LOG"
    dev_log "$label: $DEV_LINE"
}
dev_same() {
    local a=${1%/} b=${2%/} diffs
    diffs=$(diff -rq -x .lock -x run.json -x '*.log' "$a" "$b" 2>&1 | awk -v a="$a/" -v b="$b/" -v na="${a##*/}" -v nb="${b##*/}" '
        function under(s, p) { return index(s "/", p) == 1 }
        function rel(s) { s = s "/"; s = under(s, a) ? substr(s, length(a) + 1) : under(s, b) ? substr(s, length(b) + 1) : s; return s }
        /^Files .* differ$/ { sub(/^Files /, ""); sub(/ and .* differ$/, ""); r = rel($0); print substr(r, 1, length(r) - 1); next }
        /^Only in / { sub(/^Only in /, ""); i = index($0, ": "); d = substr($0, 1, i - 1)
                      print rel(d) substr($0, i + 2) " only in " (under(d, a) ? na : nb); next }
        { print }' | head -5 | paste -sd, -)
    if [ -z "$diffs" ]; then dev_log "$(basename "$a") = $(basename "$b"): identical ($(find "$a" -type f ! -name .lock ! -name run.json ! -name '*.log' | wc -l) files)"
    else dev_log "$(basename "$a") != $(basename "$b"): DIFFER: $diffs"; return 1; fi
}

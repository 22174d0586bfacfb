#!/bin/sh
# Fault injection: the Nth allocation made by extflow's own code fails (tests/faultshim.c,
# preloaded), for N swept over a whole run. Every outcome must be exit 1 with one line on
# stderr and no ext.csv (and then a rerun without the fault gives the reference outputs: what
# the failed run left is valid), or exit 0 with the reference outputs. One exception: run.json
# is written after ext.csv (stages/out/manifest), so a failure writing it leaves the new ext.csv,
# which must then be the reference's. Anything else (exit 0
# with other outputs, more lines, an abort, a crash, a hang) fails the test.
#
# Two runs are swept: a fresh `resolve --stem $FAULT_STEM` (Nassau), and the same resumed from
# a finished stem $FAULT_STEM - 2 directory (the load path, kernels recomputed at the frontier).
# FAULT_STRIDE (default 61) steps N (N = 1..12 always); `make faultsweep` sets it to 1.
# FAULT_JOBS runs that many at once (default 1).
. tests/lib.sh
STEM=${FAULT_STEM:-12}
STRIDE=${FAULT_STRIDE:-61}
JOBS=${FAULT_JOBS:-1}
SHIM=${FAULT_SHIM:-build/tests/faultshim.so}

# One N: prints "N OUTCOME" (OUTCOME ok-exit0, ok-exit1, or FAIL:why).
one() {   # one MODE N
    mode=$1 n=$2 d="$TMP/run-$1-$2"
    rm -rf "$d"
    if [ "$mode" = resume ]; then cp -r "$TMP/base" "$d"; fi
    EXTFLOW_FAULT_AT=$n EXTFLOW_FAULT_REPORT="$d.rep" LD_PRELOAD="$SHIM" \
        timeout 120 $EXTFLOW resolve --stem "$STEM" --out "$d" --quiet >"$d.out" 2>"$d.err"
    rc=$?
    lines=$(wc -l < "$d.err")
    why=
    case $rc in
        0) same_outputs "$TMP/ref" "$d" || why="exit 0 with outputs that differ from the reference" ;;
        1) if [ "$lines" -ne 1 ] || ! grep -q '^extflow: ' "$d.err"; then why="exit 1 with $lines lines on stderr"
           elif [ -e "$d/ext.csv" ] && ! { grep -q 'run.json' "$d.err" && cmp -s "$TMP/ref/ext.csv" "$d/ext.csv"; }; then
               why="exit 1 but ext.csv written"   # allowed only whole and right, run.json failing after it
           elif ! $EXTFLOW resolve --stem "$STEM" --out "$d" --quiet 2>"$d.err2" || ! same_outputs "$TMP/ref" "$d"; then
               why="the rerun after the failure does not give the reference outputs"
           fi ;;
        *) why="exit $rc" ;;
    esac
    if [ -n "$why" ]; then
        echo "$n FAIL: $why: $(head -c 300 "$d.err" | tr '\n' '|')"
    else
        echo "$n ok-exit$rc"
        rm -rf "$d" "$d.rep" "$d.out" "$d.err" "$d.err2"
    fi
}
if [ "$1" = --one ]; then   # a child of the sweep below: its TMP is the parent's
    rm -rf "$TMP"
    trap - EXIT
    TMP=$2 STEM=$3 SHIM=$4
    one "$5" "$6"
    exit 0
fi

if ldd "$EXTFLOW" | grep -q libasan; then
    echo "1..0 # SKIP the shim cannot be preloaded beside AddressSanitizer"
    exit 0
fi
[ -e "$SHIM" ] || { echo "Bail out! no $SHIM (make builds it)"; exit 1; }
plan 3
$EXTFLOW resolve --stem "$STEM" --out "$TMP/ref" --quiet
$EXTFLOW resolve --stem $((STEM - 2)) --out "$TMP/base" --quiet && rm "$TMP/base/ext.csv"
ok $? "reference runs (stem $STEM, and stem $((STEM - 2)) to resume from)"

for mode in fresh resume; do
    d="$TMP/count-$mode"
    [ $mode = resume ] && cp -r "$TMP/base" "$d"
    EXTFLOW_FAULT_REPORT="$d.rep" LD_PRELOAD="$SHIM" $EXTFLOW resolve --stem "$STEM" --out "$d" --quiet
    total=$(cut -d' ' -f1 "$d.rep" 2>/dev/null)
    [ -n "$total" ] || { echo "Bail out! the shim counted nothing"; exit 1; }
    ns=$( (seq 1 12; seq 13 "$STRIDE" "$total"; echo "$total") | sort -un)
    echo "$ns" | xargs -P "$JOBS" -I{} sh "$0" --one "$TMP" "$STEM" "$SHIM" $mode {} > "$TMP/results-$mode"
    runs=$(wc -l < "$TMP/results-$mode")
    fails=$(grep -c FAIL "$TMP/results-$mode")
    exit1=$(grep -c ok-exit1 "$TMP/results-$mode")
    grep FAIL "$TMP/results-$mode" | sort -n | head -20 | while read -r line; do diag "$mode: N=$line"; done
    [ "$exit1" -gt 0 ] && [ "$fails" -eq 0 ]
    ok $? "$mode run: $runs of $total allocations failed in turn: $exit1 exit 1 cleanly, $((runs - fails - exit1)) exit 0 with the reference outputs, $fails wrong"
    [ "$exit1" -gt 0 ] || diag "$mode run: no run exited 1: are the faults injected?"
done
done_testing

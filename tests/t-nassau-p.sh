#!/bin/sh
# Nassau's algorithm at an odd prime (docs/algorithms.md §11.1, issue #44 item 2): the prototype
# tests/nassau_p.py, written apart from extflow's C code, resolves the spheres S_3 (through stem
# 60) and S_5 (through stem 100) with Nassau's step on rows s >= 2, each step counting on the
# zero-signature part over a sub-Hopf-algebra B of A_p and correcting signature by signature; its
# Ext table must equal `extflow resolve --module S_p --algorithm standard`'s ext.csv line for
# line. Its own Milnor product is checked first against tests/milnor_p_ref.py (products dual to
# the coproduct of A_*), and its run must really have used Nassau's step: several subalgebras,
# exterior and polynomial parts, and corrections. Using each B one degree past the range where
# its Tor vanishes makes the run fail (exit 1): the comparison can see a wrong step.
# Then extflow's own step (stages/resolve/nassau_p.c, `resolve --algorithm nassau` at odd p): the same
# ext.csv as the standard algorithm for every odd-prime module file it applies to (over A_p, no
# cofiber), d∘d = 0 by verify, Nassau steps (and zero-signature row blocks shared between steps
# (s, t) and (s+1, t)) counted by EXTFLOW_STATS, a run stopped midway (SIGINT) and resumed from
# its step files.
. tests/lib.sh
plan 20
NP="python3 tests/nassau_p.py"
$NP check-algebra 3 36 > "$TMP/alg3" && $NP check-algebra 5 80 > "$TMP/alg5" &&
    grep -q ', 0 differ$' "$TMP/alg3" && grep -q ', 0 differ$' "$TMP/alg5"
ok $? "the prototype's Milnor product equals milnor_p_ref.py's: p = 3: $(sed "s/^# //" "$TMP/alg3"); p = 5: $(sed "s/^# //" "$TMP/alg5")"

same_as_standard() {   # same_as_standard P N: prototype (Nassau) against extflow's standard algorithm
    $EXTFLOW resolve --quiet --module "S_$1" --stem "$2" --algorithm standard --out "$TMP/std$1" 2>"$TMP/err" &&
        $NP resolve "$1" "$2" > "$TMP/nassau$1.csv" 2>"$TMP/stats$1" &&
        cmp -s "$TMP/std$1/ext.csv" "$TMP/nassau$1.csv"
    ok $? "S_$1 through stem $2: Nassau's step at p = $1 gives extflow's standard ext.csv ($(grep -c . "$TMP/nassau$1.csv") lines, $(awk -F, 'NR > 1 { n += $3 } END { print n }' "$TMP/nassau$1.csv") classes) $(head -1 "$TMP/err")"
}
same_as_standard 3 60
same_as_standard 5 100
used() { grep "^# $2: " "$TMP/stats$1" | sed 's/.*: //'; }
[ "$(used 3 'steps over B(Q0; h=())')" -gt 100 ] && [ "$(used 3 'steps over B(Q0,Q1; h=(1))')" -gt 10 ] &&
    [ "$(used 3 'steps over B(Q0,Q1,Q2; h=(1))')" -gt 0 ] && [ "$(used 3 'steps corrected')" -gt 10 ] &&
    [ "$(used 5 'steps corrected')" -gt 10 ]
ok $? "the runs used Nassau's step over E(Q0) ($(used 3 'steps over B(Q0; h=())')), A(1) ($(used 3 'steps over B(Q0,Q1; h=(1))')), B(Q0,Q1,Q2; h=(1)) ($(used 3 'steps over B(Q0,Q1,Q2; h=(1))')) and corrected $(used 3 'steps corrected') steps at p = 3, $(used 5 'steps corrected') at p = 5"
$NP resolve 3 60 --standard > "$TMP/pstd3.csv" 2>"$TMP/pstats3" && cmp -s "$TMP/std3/ext.csv" "$TMP/pstd3.csv"
ok $? "the prototype's own standard step gives the same table (so both sides of the comparison are independent of each other's step)"
w_std=$(grep '^# elimination' "$TMP/pstats3" | sed 's/.*: //')
w_nas=$(used 3 'elimination r\*c\*min(r,c)')
[ -n "$w_std" ] && [ -n "$w_nas" ] && [ "$w_nas" -lt "$w_std" ]
ok $? "S_3 through stem 60: the eliminations' cost proxy (rows x cols x min) is $w_nas against the standard step's $w_std"
$NP resolve 3 40 --relax 1 > "$TMP/relax.csv" 2>"$TMP/relax.err"
rc=$?
[ $rc -eq 1 ] && grep -q "not in its block's image" "$TMP/relax.err"
ok $? "each B used one degree outside its range: exit $rc, $(tail -1 "$TMP/relax.err")"

# extflow's step: --algorithm nassau against --algorithm standard, ext.csv line for line
c_same() {   # c_same MODULE STEM [MAX_S]
    set -- "$1" "$2" ${3:+--max-s $3}
    m=$1 n=$2
    shift 2
    $EXTFLOW resolve --quiet --module "$m" --stem "$n" "$@" --algorithm standard --out "$TMP/cs-$m" 2>"$TMP/err" &&
        EXTFLOW_STATS=1 $EXTFLOW resolve --quiet --module "$m" --stem "$n" "$@" --algorithm nassau \
            --out "$TMP/cn-$m" 2>"$TMP/cstats-$m" && cmp -s "$TMP/cs-$m/ext.csv" "$TMP/cn-$m/ext.csv"
    ok $? "$m through stem $n $*: resolve --algorithm nassau's ext.csv equals the standard one's ($(grep -c . "$TMP/cn-$m/ext.csv") lines; $(grep -o 'Nassau steps.*' "$TMP/cstats-$m")) $(head -1 "$TMP/err")"
}
c_same S_3 100 40
c_same S_5 150 25
c_same S_7 150
c_same Calpha 50
c_same X3 50
c_same C3v1 50
c_same C5v1 80
# a large prime: the candidates' slope caps test only the terms with h_i > 0 (at p >= 37 the
# h_3 = 0 term p^3 - 1 once dropped every candidate, and Nassau's step ran standard steps only)
printf '{ "p": 37, "type": "finite dimensional module", "gens": { "x0": 0 }, "actions": [] }\n' > "$TMP/S_37.json"
$EXTFLOW resolve --quiet --module "$TMP/S_37.json" --stem 400 --max-s 6 --algorithm standard --out "$TMP/cs-37" 2>"$TMP/err" &&
    EXTFLOW_STATS=1 $EXTFLOW resolve --quiet --module "$TMP/S_37.json" --stem 400 --max-s 6 --algorithm nassau \
        --out "$TMP/cn-37" 2>"$TMP/cstats-37" && cmp -s "$TMP/cs-37/ext.csv" "$TMP/cn-37/ext.csv" &&
    grep -q '^extflow: Nassau steps at odd p: [1-9][0-9]* ([1-9][0-9]* corrected)' "$TMP/cstats-37"
ok $? "S_37 through stem 400, s <= 6: Nassau's steps run at p = 37 and give the standard ext.csv ($(grep -o 'Nassau steps.*' "$TMP/cstats-37")) $(head -1 "$TMP/err")"
grep -q '^extflow: Nassau steps at odd p: [1-9][0-9]* ([1-9][0-9]* corrected), subalgebras up to dimension \(1[2-9]\|[2-9][0-9]\|[0-9][0-9][0-9]\), [1-9][0-9]* zero-signature row blocks shared' \
    "$TMP/cstats-S_3" && grep -q '"algorithm": "nassau"' "$TMP/cn-S_3/run.json"
ok $? "S_3's run went through Nassau's step, corrections, subalgebras of dimension >= 12 and row blocks one step left for the next included ($(grep -o 'Nassau steps.*' "$TMP/cstats-S_3"))"
# the products' table under a budget it outgrows at once (EXTFLOW_P_PRODUCTS=64K: most products
# computed again at each request) writes the same stage files as the default budget, which keeps them all
# (but for a product two workers miss at once: computed twice, kept once)
EXTFLOW_STATS=1 EXTFLOW_P_PRODUCTS=64K $EXTFLOW resolve --quiet --module S_3 --stem 100 --max-s 40 --algorithm nassau \
    --out "$TMP/cn-small" 2>"$TMP/cstats-small" && diff -r -x empty.log "$TMP/cn-S_3/stages" "$TMP/cn-small/stages" >/dev/null &&
    cmp -s "$TMP/cn-S_3/ext.csv" "$TMP/cn-small/ext.csv" &&
    small=$(sed -n 's/.*products: \([0-9]*\) computed, \([0-9]*\) kept.*/\1 \2/p' "$TMP/cstats-small") &&
    big=$(sed -n 's/.*products: \([0-9]*\) computed, \([0-9]*\) kept.*/\1 \2/p' "$TMP/cstats-S_3") &&
    set -- $small $big && [ "$1" -gt $((2 * $3)) ] && [ "$4" -gt $((4 * $2)) ] && [ $((100 * $4)) -ge $((95 * $3)) ]
ok $? "S_3 through stem 100, s <= 40: the products' table at 64K (computed, kept: $small) and at its default ($big) give the same stage files; the small one computes over twice as many, the default keeps over 4x as many and nearly all it computes (two workers missing one product at once compute it twice, keep it once)"
# EXTFLOW_P_PRODUCTS=0 keeps none (not the default budget): every product computed, the same files
EXTFLOW_STATS=1 EXTFLOW_P_PRODUCTS=0 $EXTFLOW resolve --quiet --module S_3 --stem 100 --max-s 40 --algorithm nassau \
    --out "$TMP/cn-none" 2>"$TMP/cstats-none" && diff -r -x empty.log "$TMP/cn-S_3/stages" "$TMP/cn-none/stages" >/dev/null &&
    grep -q 'products: [1-9][0-9]* computed, 0 kept (0.0 MB)' "$TMP/cstats-none"
ok $? "S_3 through stem 100, s <= 40: EXTFLOW_P_PRODUCTS=0 keeps no product and gives the same stage files ($(grep -o 'products: [0-9].*' "$TMP/cstats-none"))"
$EXTFLOW verify --quiet "$TMP/cn-S_3" > "$TMP/vout" 2>&1 && tail -1 "$TMP/vout" | grep -q " 0 problems: ok$"
ok $? "verify: d∘d = 0 on every generator of the Nassau resolution of S_3 ($(tail -1 "$TMP/vout" | cut -c1-90))"
# resumed: SIGINT (which stops a run as --time-limit does) once 300 of the run's ~1800 step files
# are written, so the run stops midway however fast the machine (the polling overshoots: 600 gave
# stops at 836-1357 files on the loaded 2-core VM, close to the end once the step got faster);
# the rerun keeps those files and gives the standard algorithm's table
$EXTFLOW resolve --quiet --module S_3 --stem 160 --max-s 50 --algorithm standard --out "$TMP/rs" 2>/dev/null
interrupt_after 300 INT "$TMP/rn/stages/differential" resolve --quiet --module S_3 --stem 160 --max-s 50 --algorithm nassau --out "$TMP/rn"
stop_rc=$rc
find "$TMP/rn/stages/differential" -type f -printf '%p %T@\n' | sort > "$TMP/rn.kept"
$EXTFLOW resolve --quiet --module S_3 --stem 160 --max-s 50 --algorithm nassau --out "$TMP/rn" 2>/dev/null
rc=$?
find "$TMP/rn/stages/differential" -type f -printf '%p %T@\n' | sort > "$TMP/rn.all"
kept=$(grep -c . "$TMP/rn.kept") reused=$(comm -12 "$TMP/rn.kept" "$TMP/rn.all" | grep -c .) all=$(grep -c . "$TMP/rn.all")
[ "$stop_rc" -eq 130 ] && [ "$kept" -ge 300 ] && [ "$reused" -eq "$kept" ] && [ "$all" -gt "$kept" ] &&
    [ "$rc" -eq 0 ] && cmp -s "$TMP/rs/ext.csv" "$TMP/rn/ext.csv"
ok $? "S_3 through stem 160, s <= 50, by Nassau's step: stopped (exit $stop_rc, 130) with $kept step files, the rerun (exit $rc) kept $reused of them, wrote $((all - kept)) more and gives the standard ext.csv"
done_testing

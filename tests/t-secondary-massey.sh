#!/bin/sh
# extflow massey --secondary: Massey products <a, b, -> in Mod_{Cλ²} against sseq's
# secondary_massey example byte for byte over S_2 (30, 7), standard resolution: <h2, h3, ->,
# <h2 + λ h0h2, h3, -> (a λ part on a), <h3, h0^4, -> and <h3, λ h0h3, -> (b with no Ext part);
# the same with every lift product in multiply tasks, and with the intermediates' actions
# A(a, C(g')) in the steps' own tasks (EXTFLOW_D2_INTERMEDIATE=cpu) instead of multiply tasks,
# and with the composites' Y terms in the multiply (EXTFLOW_D2_Y=batch), and with h lifted after d2
# (EXTFLOW_MASSEY_H=late: d2's composites bounded by degrees where h's terms would say what is
# read, as when h's bottom may be non-zero); and refusals with one line and exit 2
# (no --b, --sseq-formats, whose text --secondary always writes, a λ part outside the region
# or at the wrong bidegree, an Ext part that supports a d2, a·b not 0 in Ext or in
# Mod_{Cλ²}, a module's DIR).
. tests/lib.sh
plan 15
R="$REF/secondary_massey"
D="$TMP/s2"
$EXTFLOW resolve --algorithm standard --stem 30 --max-s 7 --out "$D" --quiet

check() {   # check REFERENCE A B [env...]: the text of --a A --b B equals the reference's lines 2..;
            # its file is named after the classes' names alone (no =n,s coordinates). With env, on
            # a fresh resolution: on D a rerun would load the lift steps D keeps and compute none
    ref=$1 a=$2 b=$3
    shift 3
    file="secondary_massey-${a%%=*}-${b%%=*}.txt"
    dir=$D
    if [ $# -gt 0 ]; then
        dir="$TMP/env-$(echo "$*" | tr -c 'A-Za-z0-9\n' _)"
        $EXTFLOW resolve --algorithm standard --stem 30 --max-s 7 --out "$dir" --quiet
    fi
    env "$@" $EXTFLOW massey "$dir" --a "$a" --b "$b" --secondary --quiet &&
        tail -n +2 "$R/$ref" | cmp -s - "$dir/$file" && ! ls "$dir" | grep -q '[=,]'
    ok $? "<$a, $b, ->: $file equals sseq's $ref byte for byte $*"
}
check secondary_massey-h_2-h_3-S_2 h2 h3
check secondary_massey-3h_2-h_3-S_2 'h2+λh_0h_2=3,2' h3
check secondary_massey-P-S_2 h3 'h_0^4=0,4'
check secondary_massey-h_4-S_2 h3 'λh_0h_3=7,2'
check secondary_massey-3h_2-h_3-S_2 'h2+λh_0h_2=3,2' h3 EXTFLOW_LIFT_INLINE_PAIRS=0
check secondary_massey-P-S_2 h3 'h_0^4=0,4' EXTFLOW_D2_INTERMEDIATE=cpu
check secondary_massey-3h_2-h_3-S_2 'h2+λh_0h_2=3,2' h3 EXTFLOW_D2_Y=batch
check secondary_massey-P-S_2 h3 'h_0^4=0,4' EXTFLOW_MASSEY_H=late

usage() {   # usage DESCRIPTION ARGS...: exit 2 and one line on stderr before "try"
    what=$1
    shift
    $EXTFLOW massey "$D" --secondary "$@" 2>"$TMP/err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(grep -vc '^$\|^try ' "$TMP/err")" -eq 1 ]
    ok $? "$what: exit $rc, $(head -1 "$TMP/err")"
}
usage "no --b" --a h2
usage "--sseq-formats (the text is always written)" --a h2 --b h3 --sseq-formats
usage "a λ part outside the region" --a 'x=0,7+λy=0,8' --b h3
usage "an Ext part that supports a d2 (h4)" --a h4 --b h0
usage "a·b not 0 in Ext" --a h1 --b h3
usage "a·b not 0 in Mod_{Cλ²} (its λ part is no d2 boundary)" --a 'λh_0h_3=7,2' --b h0
$EXTFLOW resolve --module C2 --stem 10 --out "$TMP/C2" --quiet
D="$TMP/C2"
usage "a module's DIR (S_2 only)" --a h0 --b h1
done_testing

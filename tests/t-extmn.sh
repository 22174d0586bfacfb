#!/bin/sh
# Ext_A(M, N) for a finite N (extflow ext DIR --coefficients N, stages/products/extmn.h): Ext(M, F2) is
# M's own table; Ext(M, N) = Ext(M ⊗ DN, F2) with DN the dual of N (--module "M*D(N)": an
# independent check, the tensor product resolved; t-modops.c checks D against duals known by
# hand), for ten pairs and a tensor product as N; the Joker file (Sq4 = 0) is not its own dual
# moved down 4 (its dual has Sq4 x0 = x4, from χ(Sq4) = Sq4 + Sq3 Sq1), which the check sees;
# refusals exit 2.
. tests/lib.sh
plan 9
S=22
MS=10
res() { $EXTFLOW resolve --quiet "$@"; }
# rows s < MS, stems n <= last, of an s,n,dim table
cut_region() { awk -F, -v ms=$MS -v last=$2 'NR == 1 || ($1 < ms && $2 <= last)' "$1"; }
for m in S_2 C2 Joker RP_-4_4; do
    res --module $m --stem $S --max-s $MS --out "$TMP/$m" && $EXTFLOW ext "$TMP/$m" --coefficients S_2 --quiet &&
        cut_region "$TMP/$m/ext.csv" $S | cmp -s - "$TMP/$m/ext-S_2.csv"
    ok $? "Ext($m, F2) is $m's ext.csv (s < $MS, stem <= $S)"
done
res --module Ceta --stem $S --max-s $MS --out "$TMP/Ceta" && res --module RP4 --stem $S --max-s $MS --out "$TMP/RP4" || exit 1
good=0
n=0
for case in "C2 C2 1" "C2 Ceta 2" "Ceta Cnu 4" "Joker C2 1" "C2 Joker 4" "Ceta Joker 4" "C2 RP4 4" "RP4 C2_eta 3" \
            "Joker RP_-4_4 4" "RP_-4_4 Ceta 2"; do
    set -- $case
    $EXTFLOW ext "$TMP/$1" --coefficients $2 --quiet &&
        res --module "$1*D($2)" --stem $((S - $3)) --max-s $MS --out "$TMP/$1-D$2" &&
        cut_region "$TMP/$1-D$2/ext.csv" $((S - $3)) > "$TMP/want" && cmp -s "$TMP/want" "$TMP/$1/ext-$2.csv" ||
        { good=1; diag "Ext($1, $2) differs from Ext($1 ⊗ D$2)"; }
    n=$((n + $(wc -l < "$TMP/want") - 1))
done
ok $good "Ext(M, N) = Ext(M ⊗ DN, F2) for 10 pairs of C2, Ceta, Cnu, Joker, RP4, C2_eta, RP_-4_4 ($n groups)"
$EXTFLOW ext "$TMP/C2" --coefficients Joker --quiet && res --module "C2*Joker[-4]" --stem $((S - 4)) --max-s $MS --out "$TMP/C2-J" &&
    ! cut_region "$TMP/C2-J/ext.csv" $((S - 4)) | cmp -s - "$TMP/C2/ext-Joker.csv"
ok $? "but not = Ext(C2 ⊗ Joker[-4]): the Joker with Sq4 = 0 is not its own dual (the check can fail)"
$EXTFLOW ext "$TMP/RP4" --coefficients "C2*Ceta" --quiet && res --module "RP4*D(C2)*D(Ceta)" --stem $((S - 3)) --max-s $MS --out "$TMP/RP4-DCE" &&
    cut_region "$TMP/RP4-DCE/ext.csv" $((S - 3)) | cmp -s - "$TMP/RP4/ext-C2_sm_Ceta.csv"
ok $? "Ext(RP4, C2 ⊗ Ceta) = Ext(RP4 ⊗ DC2 ⊗ DCeta, F2)"
$EXTFLOW ext "$TMP/C2" --coefficients ko 2> "$TMP/err"
is_usage_error $? "$TMP/err" && grep -q "finite module over A" "$TMP/err"
ok $? "N over a profile refused: a usage error: $(head -1 "$TMP/err")"
bad=0
$EXTFLOW ext "$TMP/C2" > /dev/null 2>&1; [ $? -eq 2 ] || bad=1
$EXTFLOW ext "$TMP/C2" --coefficients nosuch > /dev/null 2>&1; [ $? -eq 2 ] || bad=1
res --module ko --stem 8 --out "$TMP/ko" && $EXTFLOW ext "$TMP/ko" --coefficients C2 > /dev/null 2>&1; [ $? -eq 2 ] || bad=1
ok $bad "no --coefficients, an unknown module, a DIR over a profile: exit 2"
done_testing

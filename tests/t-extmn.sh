#!/bin/sh
# Ext_A(M, N) for a finite N (extflow ext DIR --coefficients N, stages/extmn.h): Ext(M, F2) is
# M's own table; Ext(M, N) = Ext(M ⊗ DN, F2) with DN the dual of N (an independent check: the
# tensor product resolved), for DN known by hand: D(C2) = C2[-1], D(Ceta) = Ceta[-2],
# D(Cnu) = Cnu[-4], and D(Joker) = Joker'[-4], where Joker' has Sq4 x0 = x4 as well (the dual
# action is through the antipode, and χ(Sq4) = Sq4 + Sq3 Sq1 takes x0 to x4); refusals exit 2.
. tests/lib.sh
plan 8
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
cat > "$TMP/Joker1.json" <<'JSON'
{"p": 2, "type": "finite dimensional module", "gens": {"x0": 0, "x1": 1, "x2": 2, "x3": 3, "x4": 4},
 "actions": ["Sq1 x0 = x1", "Sq2 x0 = x2", "Sq2 x1 = x3", "Sq2 x2 = x4", "Sq1 x3 = x4", "Sq4 x0 = x4"]}
JSON
res --module Ceta --stem $S --max-s $MS --out "$TMP/Ceta"
good=0
for case in "C2 C2 C2[-1] 1" "C2 Ceta Ceta[-2] 2" "Ceta Cnu Cnu[-4] 4" "Joker C2 C2[-1] 1" "C2 Joker $TMP/Joker1.json[-4] 4" \
            "Ceta Joker $TMP/Joker1.json[-4] 4"; do
    set -- $case
    $EXTFLOW ext "$TMP/$1" --coefficients $2 --quiet &&
        res --module "$1*$3" --stem $((S - $4)) --max-s $MS --out "$TMP/$1-D$2" &&
        cut_region "$TMP/$1-D$2/ext.csv" $((S - $4)) > "$TMP/want" && cmp -s "$TMP/want" "$TMP/$1/ext-$2.csv" ||
        { good=1; diag "Ext($1, $2) differs from Ext($1 ⊗ D$2)"; }
done
ok $good "Ext(M, N) = Ext(M ⊗ DN, F2) for (C2, C2), (C2, Ceta), (Ceta, Cnu), (Joker, C2), (C2, Joker), (Ceta, Joker)"
$EXTFLOW ext "$TMP/C2" --coefficients Joker --quiet && res --module "C2*Joker[-4]" --stem $((S - 4)) --max-s $MS --out "$TMP/C2-J" &&
    ! cut_region "$TMP/C2-J/ext.csv" $((S - 4)) | cmp -s - "$TMP/C2/ext-Joker.csv"
ok $? "but not = Ext(C2 ⊗ Joker[-4]): the Joker with Sq4 = 0 is not its own dual (the check can fail)"
$EXTFLOW ext "$TMP/C2" --coefficients ko 2> "$TMP/err"
[ $? -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "finite module over A" "$TMP/err"
ok $? "N over a profile refused, one line, exit 2: $(cat "$TMP/err")"
bad=0
$EXTFLOW ext "$TMP/C2" > /dev/null 2>&1; [ $? -eq 2 ] || bad=1
$EXTFLOW ext "$TMP/C2" --coefficients nosuch > /dev/null 2>&1; [ $? -eq 2 ] || bad=1
res --module ko --stem 8 --out "$TMP/ko" && $EXTFLOW ext "$TMP/ko" --coefficients C2 > /dev/null 2>&1; [ $? -eq 2 ] || bad=1
ok $bad "no --coefficients, an unknown module, a DIR over a profile: exit 2"
done_testing

#!/bin/sh
# Tensor products of finite modules (--module "M*N", algebra/modops.h): C2*Ceta against sseq's
# C2_sm_Ceta.json (the Ext tables of resolving both, and the module file itself), M*N against
# N*M, (M*N)*P against M*(N*P) through the module copies DIR/module.json, a shifted factor, the
# dual D(C2) against C2[-1], and refusals (a factor that is not a finite module over A, its
# dual, an empty factor) with exit 2.
. tests/lib.sh
plan 11
res() { $EXTFLOW resolve --quiet "$@"; }
res --module "C2*Ceta" --stem 30 --out "$TMP/a" && res --module "$REF/module-files/C2_sm_Ceta.json" --stem 30 --out "$TMP/b" &&
    cmp -s "$TMP/a/ext.csv" "$TMP/b/ext.csv"
ok $? "C2*Ceta through stem 30: the Ext table of sseq's C2_sm_Ceta.json ($(($(wc -l < "$TMP/a/ext.csv") - 1)) bidegrees)"
python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
sys.exit(not (a["gens"] == b["gens"] and sorted(a["actions"]) == sorted(b["actions"])))' "$TMP/a/module.json" \
    "$REF/module-files/C2_sm_Ceta.json"
ok $? "C2*Ceta's module.json has sseq's classes and actions"
grep -q '"module": "C2_sm_Ceta"' "$TMP/a/run.json" && [ -d "$TMP/a/stages" ]
ok $? "the product is named C2_sm_Ceta in run.json"
good=0
for pair in "Ceta Cnu" "Joker C2" "RP4 Ceta" "C2_eta Cnu"; do
    set -- $pair
    res --module "$1*$2" --stem 25 --out "$TMP/$1-$2" && res --module "$2*$1" --stem 25 --out "$TMP/$2-$1" &&
        cmp -s "$TMP/$1-$2/ext.csv" "$TMP/$2-$1/ext.csv" || good=1
done
ok $good "M*N and N*M have the same Ext through stem 25 (Ceta, Cnu; Joker, C2; RP4, Ceta; C2_eta, Cnu)"
res --module "Ceta*Cnu" --stem 25 --out "$TMP/ec" && res --module "$TMP/a/module.json*Cnu" --stem 25 --out "$TMP/l" &&
    res --module "C2*$TMP/ec/module.json" --stem 25 --out "$TMP/r" && res --module "C2*Ceta*Cnu" --stem 25 --out "$TMP/m" &&
    cmp -s "$TMP/l/ext.csv" "$TMP/r/ext.csv" && cmp -s "$TMP/l/ext.csv" "$TMP/m/ext.csv"
ok $? "(C2*Ceta)*Cnu, C2*(Ceta*Cnu) and C2*Ceta*Cnu have the same Ext through stem 25"
# Σ^k M ⊗ N = Σ^k (M ⊗ N): the table moves k stems
res --module "C2[-3]*Ceta" --stem 20 --out "$TMP/sh" && res --module "C2*Ceta" --stem 23 --out "$TMP/un" &&
    awk -F, 'NR > 1 && $2 + 3 <= 23 { print $1 "," $2 + 3 "," $3 }' "$TMP/sh/ext.csv" > "$TMP/sh.moved" &&
    awk -F, 'NR > 1 && $2 <= 23 { print }' "$TMP/un/ext.csv" | cmp -s - "$TMP/sh.moved"
ok $? "C2[-3]*Ceta is C2*Ceta moved down 3 stems"
res --module "C2*ko" --stem 10 --out "$TMP/x1" 2> "$TMP/err"
is_usage_error $? "$TMP/err" && grep -q "finite modules over A" "$TMP/err" && [ ! -e "$TMP/x1" ]
ok $? "a factor over a profile (ko) is refused: a usage error: $(cat "$TMP/err")"
res --module "A-mod-Sq1-Sq2*C2" --stem 10 --out "$TMP/x2" 2> "$TMP/err"
is_usage_error $? "$TMP/err" && [ ! -e "$TMP/x2" ]
ok $? "a finitely presented factor is refused: a usage error: $(cat "$TMP/err")"
res --module "C2*D(ko)" --stem 10 --out "$TMP/x4" 2> "$TMP/err"
is_usage_error $? "$TMP/err" && grep -q "a dual takes a finite module" "$TMP/err" && [ ! -e "$TMP/x4" ]
ok $? "the dual of a module over a profile is refused: a usage error: $(cat "$TMP/err")"
res --module "D(C2)" --stem 20 --out "$TMP/dc2" && res --module "C2[-1]" --stem 20 --out "$TMP/c2m1" &&
    cmp -s "$TMP/dc2/ext.csv" "$TMP/c2m1/ext.csv" && grep -q '"module": "D_C2"' "$TMP/dc2/run.json"
ok $? "D(C2) (named D_C2) has the Ext of C2[-1] through stem 20"
res --module "C2*" --stem 10 --out "$TMP/x3" 2> "$TMP/err"
[ $? -eq 2 ] && grep -q "a module on each side" "$TMP/err"
ok $? "an empty factor is refused, exit 2: $(head -1 "$TMP/err")"
done_testing

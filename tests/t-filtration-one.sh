#!/bin/sh
# extflow products DIR --filtration-one: every class of Ext^1 lifted, so that products.csv has
# every h_j product of every class. Against sseq's filtration_one-S_2 (stem 10, s <= 5) byte for
# byte with both algorithms (--sseq-formats); at p = 3 against the independent naive lift
# (tests/lift_p_ref.py) for a0, h0, h1; the same table as the classes named one by one; the
# classes are exactly ext.csv's s = 1 row; a few relations (h0 h1 = 0, h1^4 = 0,
# h1^3 = h0^2 h2). Over a module's DIR (C2, C2[-2]) the h_j read off the differentials: sseq's
# filtration_one-C2 byte for byte, products.csv agreeing with it and shifted with the module;
# refused with --class, or --unit over a module.
. tests/lib.sh
plan 12
P="$REF/products"

for alg in standard nassau; do
    $EXTFLOW resolve --algorithm $alg --stem 10 --max-s 5 --out "$TMP/f-$alg" --quiet &&
        $EXTFLOW products "$TMP/f-$alg" --filtration-one --sseq-formats --quiet &&
        tail -n +2 "$P/filtration_one-S_2" | cmp -s - "$TMP/f-$alg/filtration_one.txt"
    ok $? "$alg: filtration_one.txt equals sseq's filtration_one-S_2 (10, 5) byte for byte"
done

D="$TMP/s30"
$EXTFLOW resolve --stem 30 --out "$D" --quiet && cp -r "$D" "$TMP/s30b" &&
    $EXTFLOW products "$D" --filtration-one 2>"$TMP/err"
ok $? "S_2 through stem 30: --filtration-one ($(cat "$TMP/err"))"
names=$(tail -n +2 "$D/products.csv" | cut -d, -f1-3 | uniq | tr '\n' ' ')
want=$(awk -F, '$1 == 1 && $3 > 0 { printf "h%d,%d,1 ", log($2 + 1) / log(2) + 0.5, $2 }' "$D/ext.csv")
[ "$names" = "$want" ]
ok $? "its classes are ext.csv's s = 1 classes, h_j at (2^j - 1, 1): $names"
$EXTFLOW products "$TMP/s30b" --class h0 --class h1 --class h2 --class h3 --class h4 --quiet &&
    cmp -s "$D/products.csv" "$TMP/s30b/products.csv"
ok $? "the same products.csv as --class h0 ... --class h4 ($(wc -l < "$D/products.csv") lines)"
! grep -q '^h1,1,1,0,1,0,' "$D/products.csv" && ! grep -q '^h1,1,1,3,3,0,' "$D/products.csv" &&
    grep -q '^h1,1,1,2,2,0,0$' "$D/products.csv" && grep -q '^h0,0,1,3,2,0,0$' "$D/products.csv" &&
    grep -q '^h1,1,1,1,1,0,0$' "$D/products.csv"
ok $? "h0 h1 = 0, h1^4 = 0, h1 h1^2 = h0 (h0 h2) = x_(3,3,0)"

S3="$TMP/S_3"
$EXTFLOW resolve --module S_3 --stem 22 --max-s 6 --out "$S3" --quiet &&
    $EXTFLOW products "$S3" --filtration-one --quiet &&
    python3 tests/lift_p_ref.py "$EXTFLOW" "$S3" 22 6 a0=0,1 h0=3,1 h1=11,1 > "$TMP/ref3" &&
    tail -n +2 "$S3/products.csv" | cmp -s - "$TMP/ref3"
ok $? "S_3 (22, 6): a0, h0, h1 lifted; products.csv equals the naive lift's $(wc -l < "$TMP/ref3") rows"

refused() {   # refused DESCRIPTION ARGS...
    what=$1; shift
    $EXTFLOW products "$@" >/dev/null 2>"$TMP/err"
    [ $? -eq 2 ] && head -1 "$TMP/err" | grep -q "^extflow: products: .*filtration-one"
    ok $? "$what: refused, exit 2 ($(head -1 "$TMP/err"))"
}
refused "with --class" "$D" --filtration-one --class h1
$EXTFLOW resolve --module C2 --stem 10 --out "$TMP/C2" --quiet
refused "--unit over a module's DIR" "$TMP/C2" --unit "$D" --filtration-one

C2="$TMP/C2-10"
$EXTFLOW resolve --module C2 --stem 10 --max-s 5 --out "$C2" --quiet &&
    $EXTFLOW products "$C2" --filtration-one --sseq-formats --quiet &&
    tail -n +2 "$P/filtration_one-C2" | cmp -s - "$C2/filtration_one.txt"
ok $? "C2: filtration_one.txt equals sseq's filtration_one-C2 (10, 5) byte for byte"
# each 1 of the text is a row of products.csv: "h_j x_(n, s, i) = [v]" -> hj,2^j-1,1,n,s,i,k
awk -F'[_(), =\\[\\]]+' '{ for (k = 7; k <= NF; k++) if ($k == 1) printf "h%d,%d,1,%d,%d,%d,%d\n", $2, 2 ^ $2 - 1, $4, $5, $6, k - 7 }' \
    "$C2/filtration_one.txt" | sort > "$TMP/from-text"
tail -n +2 "$C2/products.csv" | sort | cmp -s - "$TMP/from-text" && [ -s "$TMP/from-text" ]
ok $? "C2: products.csv holds the text's $(wc -l < "$TMP/from-text") non-zero products"
$EXTFLOW resolve --module "C2[-2]" --stem 10 --max-s 5 --out "$TMP/C2s" --quiet &&
    $EXTFLOW products "$TMP/C2s" --filtration-one --quiet &&
    awk -F, 'NR > 1 { $4 -= 2; print }' OFS=, "$C2/products.csv" > "$TMP/shifted" &&
    awk -F, 'NR > 1 && $4 + $2 <= 8' "$TMP/C2s/products.csv" | cmp -s - "$TMP/shifted"
ok $? "C2[-2] (its stems -2..10): the same products as C2's, two stems lower"
done_testing

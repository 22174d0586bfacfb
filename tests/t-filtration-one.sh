#!/bin/sh
# extflow products DIR --filtration-one: every class of Ext^1 lifted, so that products.csv has
# every h_j product of every class. Against sseq's filtration_one-S_2 (stem 10, s <= 5) byte for
# byte with both algorithms (--sseq-formats); at p = 3 against the independent naive lift
# (tests/lift_p_ref.py) for a0, h0, h1; the same table as the classes named one by one; the
# classes are exactly ext.csv's s = 1 row; a few relations (h0 h1 = 0, h1^4 = 0,
# h1^3 = h0^2 h2); refused with --class, --map or over a module's DIR.
. tests/lib.sh
plan 9
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
refused "over a module's DIR" "$TMP/C2" --unit "$D" --filtration-one
done_testing

#!/bin/sh
# valgrind (memcheck) on stem-20 resolutions, both algorithms (Nassau's also with its finish in
# parts, at stem 30), modules (finite, over A(1),
# finitely presented and shifted, an open projective space, a tensor product; at p = 3 one
# with actions and a cofiber) and refused module files (p = 2 and 3), on inspect/verify, on
# products (lifts, inline and through multiply tasks; a map of modules, and one refused; at
# p = 3), on massey at p = 3, on ext --coefficients, and on sq0 and steenrod: no invalid
# access, no use of uninitialised memory, no leak ("definitely lost") of ours.
. tests/lib.sh
command -v valgrind >/dev/null || { echo "1..0 # SKIP valgrind not installed"; exit 0; }
# an AddressSanitizer build (make test SAN=1) cannot run under valgrind
nm -D "$EXTFLOW" 2>/dev/null | grep -q __asan_init && { echo "1..0 # SKIP sanitizer build"; exit 0; }
plan 23
VG="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=3 --suppressions=tests/valgrind.supp"
for alg in standard nassau; do
    STARPU_NCPU=2 $VG $EXTFLOW resolve --algorithm $alg --stem 20 --out "$TMP/$alg" --quiet 2>"$TMP/vg-$alg"
    ok $? "$alg, stem 20: valgrind clean"
done
STARPU_NCPU=2 EXTFLOW_FINISH_SPLIT=1 $VG $EXTFLOW resolve --stem 30 --out "$TMP/split" --quiet 2>"$TMP/vg-split"
ok $? "nassau, stem 30, every finish split into parts (EXTFLOW_FINISH_SPLIT=1): valgrind clean"
STARPU_NCPU=2 $VG $EXTFLOW resolve --module Joker --stem 14 --out "$TMP/joker" --quiet 2>"$TMP/vg-j"
ok $? "a module (Joker), stem 14: valgrind clean"
for m in ko "A-mod-Sq1-Sq2[-2]" RP_-4_inf; do    # a profile; finitely presented and shifted; an open RP
    STARPU_NCPU=2 $VG $EXTFLOW resolve --module "$m" --stem 12 --out "$TMP/vg-$m" --quiet 2>"$TMP/vg-m" &&
        $VG $EXTFLOW verify "$TMP/vg-$m" >/dev/null 2>>"$TMP/vg-m"
    ok $? "$m, stem 12, and verify: valgrind clean"
done
for m in X3 C3v1b1; do                          # p = 3: actions; a cofiber of C3v1
    STARPU_NCPU=2 $VG $EXTFLOW resolve --module "$m" --stem 20 --out "$TMP/vg-$m" --quiet 2>"$TMP/vg-m" &&
        $VG $EXTFLOW verify "$TMP/vg-$m" >/dev/null 2>>"$TMP/vg-m"
    ok $? "$m (p = 3), stem 20, and verify: valgrind clean"
done
printf '{"p":3,"type":"finite dimensional module","gens":{"x0":0,"x4":4,"x8":8,"x12":12},"actions":["P1 x0 = x4","P1 x4 = x8","P1 x8 = x12"]}' > "$TMP/bad3.json"
$VG $EXTFLOW resolve --module "$TMP/bad3.json" --out "$TMP/bad3" --quiet >/dev/null 2>"$TMP/vg-b3"
[ $? -eq 2 ]
ok $? "a module file at p = 3 refused (not a module): valgrind clean"
printf '{"p":2,"type":"finite dimensional module","gens":{"x0":0,"x2":2,"x4":4},"actions":["Sq2 x0 = x2","Sq2 x2 = x4"]}' > "$TMP/bad.json"
$VG $EXTFLOW resolve --module "$TMP/bad.json" --out "$TMP/bad" --quiet >/dev/null 2>"$TMP/vg-b"
[ $? -eq 2 ]
ok $? "a module file refused (not a module): valgrind clean"
$VG $EXTFLOW inspect --summary "$TMP/nassau/stages/differential/3_12.zst" >/dev/null 2>"$TMP/vg-i"
ok $? "inspect: valgrind clean"
$VG $EXTFLOW verify "$TMP/nassau" >/dev/null 2>"$TMP/vg-v"
ok $? "verify: valgrind clean"
STARPU_NCPU=2 $VG $EXTFLOW products "$TMP/nassau" --class h1 --class c0=8,3 --sseq-formats --quiet 2>"$TMP/vg-p"
ok $? "products (two lifts, stem 20): valgrind clean"
rm -rf "$TMP/nassau/stages/lift"
EXTFLOW_LIFT_INLINE_PAIRS=0 STARPU_NCPU=2 $VG $EXTFLOW products "$TMP/nassau" --class h1 --class c0=8,3 --quiet 2>"$TMP/vg-pc"
ok $? "products with every lift step's products in multiply tasks: valgrind clean"
$VG $EXTFLOW products "$TMP/nassau" --class c0=8,3,[1,1] 2>"$TMP/vg-pb"
[ $? -eq 2 ]
ok $? "products with a bad class (refused): valgrind clean"
STARPU_NCPU=2 $VG $EXTFLOW sq0 "$TMP/nassau" --sseq-formats --quiet 2>"$TMP/vg-q" &&
    $VG $EXTFLOW steenrod "$TMP/nassau" --class c0=8,3 --class h1 --sseq-formats --quiet 2>>"$TMP/vg-q"
ok $? "sq0 (StarPU tasks) and steenrod (c0, h1; stem 20): valgrind clean"
# a tensor product, a map of modules lifted from it into S_2, a refused map, Ext(M, N)
STARPU_NCPU=2 $VG $EXTFLOW resolve --module "C2*Ceta" --stem 12 --out "$TMP/ce" --quiet 2>"$TMP/vg-t"
ok $? "a tensor product (C2*Ceta), stem 12: valgrind clean"
echo '{"degree": 0, "images": {"x0*x0": "x0"}}' > "$TMP/q.json"
echo '{"degree": -1, "images": {"x1*x0": "x0"}}' > "$TMP/bad-map.json"
STARPU_NCPU=2 $VG $EXTFLOW products "$TMP/ce" --map q="$TMP/q.json" --target "$TMP/nassau" --sseq-formats --quiet 2>"$TMP/vg-q"
ok $? "products --map (C2*Ceta -> F2 into S_2's resolution): valgrind clean"
$VG $EXTFLOW products "$TMP/ce" --map q="$TMP/bad-map.json" --target "$TMP/nassau" 2>"$TMP/vg-qb"
[ $? -eq 2 ]
ok $? "products --map with a map that is not A-linear (refused): valgrind clean"
$VG $EXTFLOW ext "$TMP/ce" --coefficients Joker --quiet 2>"$TMP/vg-e"
ok $? "ext --coefficients Joker: valgrind clean"
$EXTFLOW resolve --module S_3 --stem 20 --out "$TMP/s3" --quiet &&
    STARPU_NCPU=2 $VG $EXTFLOW products "$TMP/s3" --class a0 --class h0 --class b0=10,2 --sseq-formats --quiet \
        2>"$TMP/vg-p3" &&
    STARPU_NCPU=2 $VG $EXTFLOW products "$TMP/s3" --class a0 --class h0 --class b0=10,2 --quiet 2>>"$TMP/vg-p3"
ok $? "products at p = 3 (three lifts, stem 20, then a rerun loading them): valgrind clean"
STARPU_NCPU=2 $VG $EXTFLOW massey "$TMP/s3" --a h0 --b h0 --sseq-formats --quiet 2>"$TMP/vg-m3"
ok $? "massey at p = 3 (<h0, h0, c>, stem 20): valgrind clean"
done_testing

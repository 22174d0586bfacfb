#!/bin/sh
# extflow products: lifts of classes to chain maps against known answers (sseq's lift_hom-g-S_2
# and -nassau byte for byte; the Python model's lift_hom for ten classes through stem 30, s <=
# 11), products.csv read by the chart and merged by class name over runs (module-products.csv
# too; another header refused), lift stage files shown by inspect, reused on a rerun, damaged
# ones named and recomputed, a lift killed at random moments resumed to identical products, the
# products of f(d z) in multiply tasks or inline (schedulers, 1 or 2 CPUs) giving identical
# outputs, and bad --class arguments refused with one line.
. tests/lib.sh
ROUNDS=${PRODUCTS_TEST_ROUNDS:-3}
plan $((33 + ROUNDS))
P="$REF/products"

for alg in standard nassau; do
    suffix=; [ $alg = nassau ] && suffix=-nassau
    $EXTFLOW resolve --algorithm $alg --stem 25 --max-s 9 --out "$TMP/g-$alg" --quiet &&
        $EXTFLOW products "$TMP/g-$alg" --class g=20,4 --sseq-formats --quiet &&
        tail -n +2 "$P/lift_hom-g-S_2$suffix" | cmp -s - "$TMP/g-$alg/lift_hom-g.txt"
    ok $? "$alg: lift_hom-g.txt equals sseq's lift_hom-g-S_2$suffix (25, 9) byte for byte"
done

D="$TMP/s30"
$EXTFLOW resolve --algorithm standard --stem 30 --max-s 11 --out "$D" --quiet
args= names=
for f in "$P"/model-lift_hom-*; do   # line 1: products.py lift_hom 30 11 NAME n s VECTOR
    set -- $(head -1 "$f")
    args="$args --class $5=$6,$7,$8"
    names="$names $5"
done
$EXTFLOW products "$D" $args --sseq-formats 2>"$TMP/first.err"
ok $? "products with$names over (30, 11) exits 0 ($(cat "$TMP/first.err"))"
bad=
for n in $names; do tail -n +2 "$P/model-lift_hom-$n" | cmp -s - "$D/lift_hom-$n.txt" || bad="$bad $n"; done
[ -z "$bad" ]
ok $? "lift_hom-NAME.txt of each equals the model's (products.py lift_hom 30 11 ...)${bad:+; differ:$bad}"
# products.csv holds the same coefficients as the lift_hom files (name n s i -> k)
awk -F, 'NR > 1 { print $1, $4, $5, $6, $7 }' "$D/products.csv" | sort > "$TMP/csv"
for n in $names; do
    sed 's/[][(),=]/ /g' "$D/lift_hom-$n.txt" | awk '{ for (k = 6; k <= NF; k++) if ($k == 1) print $1, $3, $4, $5, k - 6 }'
done | sort > "$TMP/hom"
[ -s "$TMP/csv" ] && cmp -s "$TMP/csv" "$TMP/hom"
ok $? "products.csv has one row per coefficient 1 of the lift_hom files ($(wc -l < "$TMP/csv") rows)"
$EXTFLOW export "$D" --json > "$TMP/chart.json" && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = [p["name"] for p in d["products"] if p["source"] == "products.csv"]
assert d["ignored_rows"]["products.csv"] == 0, d["ignored_rows"]
assert "c0" in names and "f0" in names, names
' "$TMP/chart.json"
ok $? "the chart reads every row of products.csv (a layer per class, none ignored)"
lf=$(ls "$D"/stages/lift/8_3_1/*.zst | head -1)
$EXTFLOW inspect "$lf" > "$TMP/insp" && grep -q '^kind: lift$' "$TMP/insp" && grep -q '^algorithm: standard$' "$TMP/insp"
ok $? "inspect shows a lift stage file ($(basename "$lf"): $(grep -c '^[01]*$' "$TMP/insp") rows)"
cp "$D/products.csv" "$TMP/products.csv"
cp "$D/lift_hom-c0.txt" "$TMP/lift_hom-c0.txt"
$EXTFLOW products "$D" $args 2>"$TMP/again.err" && cmp -s "$D/products.csv" "$TMP/products.csv" &&
    grep -q ' 0 bidegrees computed' "$TMP/again.err"
ok $? "a rerun loads every lift bidegree and writes the same products.csv ($(cat "$TMP/again.err"))"
cmp -s "$D/lift_hom-c0.txt" "$TMP/lift_hom-c0.txt"
ok $? "without --sseq-formats the lift_hom files there are rewritten (kept current, not deleted)"

# runs with other classes merge by class name: h1 then h2 gives the table of one run with both
# (earlier classes first), a rerun changes nothing, a module's table merges the same way, and a
# file with another header is refused before anything is lifted
M="$TMP/merge"
$EXTFLOW resolve --stem 20 --out "$M" --quiet && $EXTFLOW products "$M" --class h1 --class h2 --quiet &&
    mv "$M/products.csv" "$TMP/both.csv" && rm -rf "$M/stages/lift" &&
    $EXTFLOW products "$M" --class h1 --quiet && $EXTFLOW products "$M" --class h2 --quiet &&
    cmp -s "$M/products.csv" "$TMP/both.csv"
ok $? "products --class h1, then --class h2: products.csv equals one run with both ($(grep -c '^h1,' "$M/products.csv") h1 rows, $(grep -c '^h2,' "$M/products.csv") h2 rows)"
$EXTFLOW products "$M" --class h2 --quiet && cmp -s "$M/products.csv" "$TMP/both.csv" &&
    $EXTFLOW products "$M" --class h1 --class h2 --quiet && cmp -s "$M/products.csv" "$TMP/both.csv" &&
    $EXTFLOW export "$M" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
names = [p["name"] for p in d["products"] if p["source"] == "products.csv"]
assert d["ignored_rows"]["products.csv"] == 0 and names == ["h1", "h2"], (names, d["ignored_rows"])'
ok $? "rerunning h2, or h1 and h2, leaves the merged products.csv as it is; the chart reads both layers"
C="$TMP/merge-C2"
$EXTFLOW resolve --module C2 --stem 12 --out "$C" --quiet &&
    $EXTFLOW products "$C" --unit "$M" --class i=0,0 --class j=0,0 --quiet && mv "$C/module-products.csv" "$TMP/ij.csv" &&
    $EXTFLOW products "$C" --unit "$M" --class i=0,0 --quiet && $EXTFLOW products "$C" --unit "$M" --class j=0,0 --quiet &&
    cmp -s "$C/module-products.csv" "$TMP/ij.csv" && [ ! -e "$C/products.csv" ]
ok $? "a module's module-products.csv merges the same way (i, then j, as one run with both)"
printf 'class,n,s\nh1,1,1\n' > "$M/products.csv"
cp "$M/products.csv" "$TMP/foreign.csv"
rm -rf "$M/stages/lift"
$EXTFLOW products "$M" --class h0 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q 'products.csv does not start with the header' "$TMP/err" &&
    cmp -s "$M/products.csv" "$TMP/foreign.csv" && [ ! -e "$M/stages/lift" ]
ok $? "a products.csv with another header: exit 2, one line, untouched, nothing lifted ($(cat "$TMP/err"))"
printf 'name,name_n,name_s,n,s,i,k\nh1,1,1,0,0,0\n' > "$M/products.csv"
$EXTFLOW products "$M" --class h0 2>"$TMP/err"
[ $? -eq 2 ] && grep -q 'products.csv, line 2: not a row' "$TMP/err" && [ ! -e "$M/stages/lift" ]
ok $? "a products.csv with a malformed row: exit 2, the line named ($(cat "$TMP/err"))"
rm -f "$M/products.csv"
$EXTFLOW products "$M" --class h1 --quiet && [ -s "$M/products.csv" ] &&
    $EXTFLOW resolve --algorithm standard --stem 20 --force --out "$M" --quiet && [ ! -e "$M/products.csv" ]
ok $? "resolve --force deletes products.csv with the resolution (its rows would not merge into another's)"

# damage: a bit flip, a truncation, a file of another class under this class's name
L="$D/stages/lift"
f_flip=$(ls "$L"/14_4_1/*.zst | sed -n 3p) f_trunc=$(ls "$L"/17_4_1/*.zst | sed -n 2p)
f_swap=$(ls "$L"/1_1_1/*.zst | sed -n 4p)
python3 -c '
import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[len(b) // 2] ^= 0x10; open(p, "wb").write(b)' "$f_flip"
size=$(wc -c < "$f_trunc"); head -c $((size / 2)) "$f_trunc" > "$TMP/x" && mv "$TMP/x" "$f_trunc"
cp "$L/3_1_1/$(basename "$f_swap")" "$f_swap" 2>/dev/null || cp "$(ls "$L"/3_1_1/*.zst | head -1)" "$f_swap"
$EXTFLOW products "$D" $args 2>"$TMP/dmg.err"
ok $? "products over damaged lift files exits 0"
grep -q "$f_flip.*recomputing" "$TMP/dmg.err" && grep -q "$f_trunc.*recomputing" "$TMP/dmg.err" &&
    grep -q "$f_swap.*recomputing" "$TMP/dmg.err"
ok $? "each damaged file is named ($(grep -c recomputing "$TMP/dmg.err") lines)"
cmp -s "$D/products.csv" "$TMP/products.csv"
ok $? "products.csv after the repair equals the undamaged one"
$EXTFLOW products "$D" $args 2>"$TMP/after.err" && ! grep -q recomputing "$TMP/after.err"
ok $? "the recomputed files are valid on the next run"

# kill and resume (the lifts of h0 and c0 over stem 40 take about a second here)
$EXTFLOW resolve --algorithm standard --stem 40 --out "$TMP/k" --quiet
K="$TMP/k"
t0=$(date +%s.%N)
$EXTFLOW products "$K" --class h0 --class h1 --class c0=8,3 --class d0=14,4 --quiet
ok $? "lifts of h0, h1, c0, d0 over stem 40"
span=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { d = b - a; printf "%.2f", (d > 0.2 ? d : 0.2) }')
cp "$K/products.csv" "$TMP/k.csv"
seed=${SEED:-$$}
diag "uninterrupted lift took ${span}s; seed $seed"
i=0
while [ $i -lt $ROUNDS ]; do
    i=$((i + 1))
    rm -rf "$K/stages/lift" "$K/products.csv"
    delay=$(awk -v s=$seed -v i=$i -v span=$span 'BEGIN { srand(s * 31 + i); printf "%.2f", 0.05 + rand() * (span - 0.05) }')
    $EXTFLOW products "$K" --class h0 --class h1 --class c0=8,3 --class d0=14,4 --quiet &
    pid=$!
    sleep "$delay"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    partial=$(find "$K/stages/lift" -name '*.zst' 2>/dev/null | wc -l)
    $EXTFLOW products "$K" --class h0 --class h1 --class c0=8,3 --class d0=14,4 --quiet &&
        cmp -s "$K/products.csv" "$TMP/k.csv" && [ -z "$(find "$K/stages/lift" -name '*.tmp.*')" ]
    ok $? "killed after ${delay}s ($partial lift files), resumed: identical products.csv, no temporary left"
done

# the multiply of f(d z): through cl_milnor_mul tasks for every step, or inline in each step's
# plan task (EXTFLOW_LIFT_INLINE_PAIRS), under two schedulers with 1 and 2 CPU workers: the same
# products.csv and lift_hom files byte for byte, each run starting without lift files
N="$TMP/n40"
$EXTFLOW resolve --stem 40 --max-s 20 --out "$N" --quiet
lift_fresh() {   # lift_fresh NAME [VAR=VALUE...]: products over a copy of N in $TMP/lift-NAME
    name=$1; shift
    rm -rf "$TMP/lift-$name"; cp -r "$N" "$TMP/lift-$name"
    env EXTFLOW_STATS=1 "$@" $EXTFLOW products "$TMP/lift-$name" --class h0 --class h2 --class c0=8,3 --class d0=14,4 \
        --class g=20,4 --sseq-formats 2>"$TMP/lift-$name.err"
}
same_products() {   # same_products NAME: products.csv and the lift_hom files equal the default run's
    for f in products.csv lift_hom-h0.txt lift_hom-h2.txt lift_hom-c0.txt lift_hom-d0.txt lift_hom-g.txt; do
        cmp -s "$TMP/lift-default/$f" "$TMP/lift-$1/$f" || return 1
    done
}
lift_fresh default && [ -s "$TMP/lift-default/products.csv" ] && lift_fresh chain EXTFLOW_LIFT_INLINE_PAIRS=0 &&
    same_products chain && grep -q ' 0\.0% inline' "$TMP/lift-chain.err"
ok $? "every lift step's products in multiply tasks: the same products.csv and lift_hom files (by default $(grep -o '[0-9.]*% inline' "$TMP/lift-default.err"))"
lift_fresh inline EXTFLOW_LIFT_INLINE_PAIRS=18446744073709551615 && same_products inline &&
    grep -q ' 100\.0% inline' "$TMP/lift-inline.err"
ok $? "every lift step's products inline: the same products.csv and lift_hom files"
bad=
for sched in eager lws; do
    for ncpu in 1 2; do
        for knob in 0 18446744073709551615; do
            lift_fresh "$sched-$ncpu-$knob" STARPU_SCHED=$sched STARPU_NCPU=$ncpu EXTFLOW_LIFT_INLINE_PAIRS=$knob &&
                same_products "$sched-$ncpu-$knob" || bad="$bad $sched/$ncpu/$knob"
            rm -rf "$TMP/lift-$sched-$ncpu-$knob"
        done
    done
done
[ -z "$bad" ]
ok $? "STARPU_SCHED=eager, lws x STARPU_NCPU=1, 2, multiply tasks or inline: identical products${bad:+; differ:$bad}"

# bad classes: one line and the hint, exit 2, nothing written
G="$TMP/g-standard"
rm -f "$G/products.csv"
bad_class() {   # bad_class WHAT ARGS...
    what=$1; shift
    $EXTFLOW products "$G" "$@" 2>"$TMP/err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 2 ] && head -1 "$TMP/err" | grep -q "^extflow: products: ." &&
        [ ! -e "$G/products.csv" ]
    ok $? "$what: exit 2, one line ($(head -1 "$TMP/err"))"
}
bad_class "out of range" --class x=40,2
bad_class "vector too long" --class g=20,4,[1,0]
bad_class "zero group" --class y=4,2
bad_class "unknown bare name" --class h9
bad_class "malformed" --class "g=20;4"
bad_class "not a vector" --class g=20,4,[2]
bad_class "two classes of one name" --class h1 --class h1=1,1
bad_class "no class" --quiet
# products' lift files (any preimage, aux ":any") are never read by d2 --product, which needs
# sseq's preimages: after products of h0 in the same directory it still gives sseq's table
P="$TMP/s2-std-d2"
$EXTFLOW resolve --algorithm standard --stem 30 --max-s 7 --out "$P" --quiet &&
    $EXTFLOW products "$P" --class h0 --quiet && $EXTFLOW d2 "$P" --product h0 --quiet 2>"$TMP/d2err" &&
    tail -n +2 "$REF/secondary/secondary_product-h_0-S_2" | cmp -s - "$P/secondary_product-h0.txt" &&
    ! grep -q recomputing "$TMP/d2err" && $EXTFLOW products "$P" --class h0 2>&1 | grep -q ' [1-9][0-9]* loaded'
ok $? "products then d2 --product h0 in one directory: sseq's secondary_product-h_0-S_2 byte for byte, quietly; products reads d2's lift files"
$EXTFLOW products --help | grep -q '^  products   DIR --class' && $EXTFLOW help | grep -q -- '--class C  *NAME=n,s'
ok $? "the help (and so the man page) describes products and --class"
done_testing

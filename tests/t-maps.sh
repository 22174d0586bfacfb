#!/bin/sh
# Maps of modules (products DIR --map NAME=FILE --target DIR_N, docs/products.md "Maps of
# modules"): a map M -> N lifted to a chain map of resolutions gives Ext(N, F2) -> Ext(M, F2).
# Checked: sseq's lift_hom with two modules byte for byte (Cnu -> F2 onto the bottom class and
# F2 -> Cnu onto the top class, degree 4), maps.csv against the lift_hom text, the map Cnu -> F2
# against the lift of the same Ext^0 class into S_2 (--unit --class, another path), identity
# maps inducing the identity, a shifted target, exactness of Ext on a short exact sequence of
# modules (the cells of C2 ⊗ Ceta), resume from the stage files, the table kept across runs, and
# refusals (not A-linear, wrong degree, unknown classes, option mixes, profile modules) with
# one line and exit 2, nothing written.
. tests/lib.sh
plan 16
P="$REF/products"
res() { $EXTFLOW resolve --quiet "$@"; }
res --stem 15 --max-s 15 --out "$TMP/S15" && res --stem 11 --max-s 15 --out "$TMP/S11" &&
    res --module Cnu --stem 15 --max-s 15 --out "$TMP/Cnu" &&
    res --algorithm standard --module Cnu --stem 15 --max-s 15 --out "$TMP/Cnu-std" || exit 1
echo '{"degree": 0, "images": {"x0": "x0"}}' > "$TMP/collapse.json"
echo '{"degree": 4, "images": {"x0": "x4"}}' > "$TMP/top.json"

for D in Cnu Cnu-std; do
    $EXTFLOW products "$TMP/$D" --map i="$TMP/collapse.json" --target "$TMP/S15" --sseq-formats --quiet &&
        tail -n +2 "$P/lift_hom-S_2-Cnu" | cmp -s - "$TMP/$D/lift_hom-i.txt"
    ok $? "$D -> F2 (x0 -> x0): lift_hom-i.txt equals sseq's lift_hom-S_2-Cnu (15, 15) byte for byte"
done
$EXTFLOW products "$TMP/S11" --map p="$TMP/top.json" --target "$TMP/Cnu" --sseq-formats --quiet 2> "$TMP/err" &&
    tail -n +2 "$P/lift_hom-Cnu-S_2" | cmp -s - "$TMP/S11/lift_hom-p.txt"
ok $? "F2 -> Cnu (x0 -> x4, degree 4): lift_hom-p.txt equals sseq's lift_hom-Cnu-S_2 (11, 15) byte for byte"
# maps.csv holds the 1s of the lift_hom text: name,name_n,name_s,n,s,i,k with name_n = -4
python3 -c 'import re, sys
for line in open(sys.argv[1]):
    n, s, i, v = re.match(r"p x_\((-?\d+), (\d+), (\d+)\) = \[(.*)\]", line).groups()
    for k, b in enumerate(v.split(", ") if v else []):
        if b == "1": print("p,-4,0,%s,%s,%s,%d" % (n, s, i, k))' "$TMP/S11/lift_hom-p.txt" > "$TMP/want.csv" &&
    tail -n +2 "$TMP/S11/maps.csv" | cmp -s - "$TMP/want.csv" && [ -s "$TMP/want.csv" ] &&
    [ "$(head -1 "$TMP/S11/maps.csv")" = "name,name_n,name_s,n,s,i,k" ]
ok $? "maps.csv has the header of products.csv and the 1s of lift_hom-p.txt ($(wc -l < "$TMP/want.csv") rows)"
# Cnu -> F2 is the Ext^0 class (0, 0) of Ext(Cnu): its lift into S_2 by --unit --class gives the
# same rows
$EXTFLOW products "$TMP/Cnu" --unit "$TMP/S15" --class i=0,0 --quiet &&
    cmp -s "$TMP/Cnu/maps.csv" "$TMP/Cnu/module-products.csv"
ok $? "Cnu -> F2 as a map and as the class (0, 0) lifted into S_2: the same table"
# the identity of C2 and of the Joker induces the identity of Ext (DIR is its own target)
good=0
for m in C2 Joker; do
    res --module $m --stem 14 --out "$TMP/$m" &&
        python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))
print(json.dumps({"degree": 0, "images": {c: c for c in m["gens"]}}))' "$TMP/$m/module.json" > "$TMP/id-$m.json" &&
        $EXTFLOW products "$TMP/$m" --map id="$TMP/id-$m.json" --quiet &&
        awk -F, 'NR > 1 { for (i = 0; i < $3; i++) print "id,0,0," $2 "," $1 "," i "," i }' "$TMP/$m/ext.csv" |
        sort > "$TMP/id-want" && tail -n +2 "$TMP/$m/maps.csv" | sort | cmp -s - "$TMP/id-want" || good=1
done
ok $good "the identity maps of C2 and the Joker induce the identity on Ext through stem 14"
# a rerun loads every lift bidegree; another map's run keeps this one's rows
$EXTFLOW products "$TMP/S11" --map p="$TMP/top.json" --target "$TMP/Cnu" --sseq-formats 2> "$TMP/err" &&
    grep -q " 0 bidegrees computed, [1-9][0-9]* loaded" "$TMP/err" &&
    tail -n +2 "$P/lift_hom-Cnu-S_2" | cmp -s - "$TMP/S11/lift_hom-p.txt"
ok $? "a rerun loads the lift's stage files and writes the same text: $(tail -1 "$TMP/err" | cut -c1-90)"
cp "$TMP/S11/maps.csv" "$TMP/p.csv"
echo '{"degree": 4, "images": {"x0": "x4"}, "note": 1}' > "$TMP/bad-key.json"
echo '{"degree": 0, "images": {"x0": "x4"}}' > "$TMP/bad-degree.json"
echo '{"degree": 0, "images": {"x0": "x0"}}' > "$TMP/bad-linear.json"
echo '{"degree": 4, "images": {"y0": "x4"}}' > "$TMP/bad-class.json"
for f in bad-linear:"not A-linear: f(Sq(4) x0) = 0 but Sq(4) f(x0) = x4" bad-degree:"wrong degree" \
         bad-key:"key 'note'" bad-class:"'y0' is not a class of the source"; do
    name=${f%%:*} why=${f#*:}
    $EXTFLOW products "$TMP/S11" --map q="$TMP/$name.json" --target "$TMP/Cnu" 2> "$TMP/err"
    [ $? -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -qF "$why" "$TMP/err" && cmp -s "$TMP/p.csv" "$TMP/S11/maps.csv"
    ok $? "$name refused with one line, exit 2, maps.csv untouched: $(cat "$TMP/err")"
done
bad=0
for args in "--map q=$TMP/top.json --class h0" "--map q=$TMP/top.json --unit $TMP/S15" "--target $TMP/Cnu --class h0" \
            "--map q --target $TMP/Cnu" "--map q=$TMP/none.json --target $TMP/Cnu"; do
    $EXTFLOW products "$TMP/S11" $args > /dev/null 2> "$TMP/err"
    [ $? -eq 2 ] || { bad=1; diag "$args: not refused"; }
done
ok $bad "--map with --class or --unit, --target without --map, NAME without FILE, a missing file: exit 2"
grep -q "none.json: cannot read it: No such file or directory" "$TMP/err"
ok $? "a missing map file is named as missing ($(cat "$TMP/err"))"
# a shifted target: F2 -> Cnu[-4] onto x4 (now of degree 0) is the same map, stems of Cnu moved by 4
res --module "Cnu[-4]" --stem 11 --max-s 15 --out "$TMP/Cnu-4" &&
    echo '{"degree": 0, "images": {"x0": "x4"}}' > "$TMP/top0.json" &&
    $EXTFLOW products "$TMP/S11" --map p0="$TMP/top0.json" --target "$TMP/Cnu-4" --sseq-formats --quiet &&
    tail -n +2 "$P/lift_hom-Cnu-S_2" | python3 -c 'import re, sys
for line in sys.stdin:
    n, rest = re.match(r"p x_\((-?\d+), (.*)", line).groups()
    sys.stdout.write("p0 x_(%d, %s\n" % (int(n) - 4, rest))' | cmp -s - "$TMP/S11/lift_hom-p0.txt" &&
    grep -q "^p0,0,0,0,3,0,0$" "$TMP/S11/maps.csv"
ok $? "F2 -> Cnu[-4] (degree 0): sseq's lines with Cnu's stems moved by -4, name_n 0 in maps.csv"
# 0 -> Σ^2 C2 -i-> C2 ⊗ Ceta -q-> C2 -> 0 (the cells of Ceta, smashed with C2) is exact, so
# Ext(C2) -q*-> Ext(C2 ⊗ Ceta) -i*-> Ext(Σ^2 C2) is exact in the middle: i* q* = 0 and
# rank q* = dim Ext(C2 ⊗ Ceta) - rank i* at every bidegree
cat > "$TMP/exact.py" <<'PY'
import sys
def table(path):
    return {(int(n), int(s)): int(d) for s, n, d in (l.split(",") for l in open(path).readlines()[1:])}
def matrix(path, name, n, s, rows):
    out = [0] * rows
    for l in open(path).readlines()[1:]:
        f = l.strip().split(",")
        if f[0] == name and (int(f[3]), int(f[4])) == (n, s): out[int(f[5])] |= 1 << int(f[6])
    return out
def rank(rows):
    rows, r = [x for x in rows if x], 0
    while rows:
        p = rows.pop(); low = p & -p
        rows = [y for y in (x ^ p if x & low else x for x in rows) if y]; r += 1
    return r
B, C = table(sys.argv[1]), table(sys.argv[4])
checked = both = 0
for (n, s), dB in B.items():
    Q = matrix(sys.argv[2], "q", n, s, C.get((n, s), 0))     # C's classes -> B's
    I = matrix(sys.argv[3], "i", n, s, dB)                   # B's classes -> A's
    comp = [0] * len(Q)
    for r, row in enumerate(Q):
        for b in range(dB):
            if row >> b & 1: comp[r] ^= I[b]
    if any(comp) or rank(Q) != dB - rank(I): sys.exit("not exact at (n, s) = (%d, %d)" % (n, s))
    checked += 1; both += rank(Q) > 0 and rank(I) > 0
print("%d bidegrees, %d with q* and i* both non-zero" % (checked, both))
PY
res --module "C2*Ceta" --stem 20 --max-s 10 --out "$TMP/CE" && res --module C2 --stem 20 --max-s 10 --out "$TMP/C2s0" &&
    res --module "C2[2]" --stem 20 --max-s 10 --out "$TMP/C2s2" &&
    echo '{"degree": 0, "images": {"x0*x0": "x0", "x1*x0": "x1"}}' > "$TMP/q.json" &&
    echo '{"degree": 0, "images": {"x0": "x0*x2", "x1": "x1*x2"}}' > "$TMP/i.json" &&
    $EXTFLOW products "$TMP/CE" --map q="$TMP/q.json" --target "$TMP/C2s0" --quiet &&
    $EXTFLOW products "$TMP/C2s2" --map i="$TMP/i.json" --target "$TMP/CE" --quiet &&
    python3 "$TMP/exact.py" "$TMP/CE/ext.csv" "$TMP/CE/maps.csv" "$TMP/C2s2/maps.csv" "$TMP/C2s0/ext.csv" > "$TMP/exact" 2>&1
ok $? "Ext(C2) -> Ext(C2 ⊗ Ceta) -> Ext(Σ^2 C2) is exact in the middle through stem 20: $(cat "$TMP/exact")"
res --module ko --stem 10 --out "$TMP/ko" && $EXTFLOW products "$TMP/S11" --map q="$TMP/collapse.json" --target "$TMP/ko" 2> "$TMP/err"
[ $? -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "finite modules over A" "$TMP/err"
ok $? "a module over a profile (ko) as the target is refused: $(cat "$TMP/err")"
done_testing

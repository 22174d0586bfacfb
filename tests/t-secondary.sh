#!/bin/sh
# extflow d2: Adams d2 from the secondary Steenrod algebra against known answers (sseq's
# secondary example for S_2 with both algorithms, C2 and the tmf module, byte for byte; its
# secondary_product for h0, products in Mod_{Cλ²}, over the standard resolution, and for v_1 of
# C2 times the classes of S_2's), the
# verified d2s of the sphere named through products (d2(h4) = h0 h3^2, d2(e0) = h1^2 d0,
# d2(f0) = h0^2 e0), identities over stem 40 (Leibniz d2(xy) = d2(x) y + x d2(y) for
# x = h0..h4, c0, d0, e0 and every y; d2∘d2 = 0), d2.csv drawn by both charts, resume (a rerun loads, a damaged stage file is
# named and recomputed, a run killed at random moments resumes to the same table), and bad
# arguments refused with one line and exit 2; d2.csv, secondary.txt and the h0 secondary product
# at stem 60 against extflow's own kept outputs; the product's E3 classes in sseq's basis and
# order (40/15 and stem 60) against plain elimination on d2.
. tests/lib.sh
ROUNDS=${D2_TEST_ROUNDS:-3}
plan $((35 + ROUNDS))
R="$REF/secondary"

for alg in standard nassau; do
    D="$TMP/s2-$alg"
    $EXTFLOW resolve --algorithm $alg --stem 30 --max-s 7 --out "$D" --quiet &&
        $EXTFLOW d2 "$D" --sseq-formats --quiet && tail -n +2 "$R/secondary-S_2" | cmp -s - "$D/secondary.txt"
    ok $? "S_2 ($alg): secondary.txt equals sseq's secondary-S_2 (30, 7) byte for byte"
done
D="$TMP/s2-standard"
$EXTFLOW d2 "$D" --product h0 --quiet && tail -n +2 "$R/secondary_product-h_0-S_2" | cmp -s - "$D/secondary_product-h0.txt"
ok $? "d2 --product h0 (standard): secondary_product-h0.txt equals sseq's secondary_product-h_0-S_2 byte for byte"
# the closing line counts the product's mod-4 products with d2's: its memo's hits include the
# product's, so a share of only d2's read 269% on S_2 24/8 (fresh, every composite computed)
$EXTFLOW resolve --stem 24 --max-s 8 --out "$TMP/s24" --quiet && $EXTFLOW d2 "$TMP/s24" --product h0 2>"$TMP/line" &&
    pc=$(sed -n 's/.*, \([0-9]*\)% recalled from a .*/\1/p' "$TMP/line") && [ -n "$pc" ] && [ "$pc" -gt 0 ] && [ "$pc" -le 100 ]
ok $? "d2 --product h0 over S_2 24/8: the memo's share of the mod-4 products is at most 100%: $(grep -o '[0-9.]*M mod-4.*memo' "$TMP/line")"
# e3_order.py DIR NAME: the classes y of DIR/secondary_product-NAME.txt, bidegree by bidegree,
# are sseq's E3 basis in sseq's order, computed here from DIR/secondary.txt by plain elimination:
# the classes off ker d2's pivots (λ lines), then ker d2 reduced modulo the image Z of the d2
# landing there (echelon form), then Z's echelon form. Fails unless some bidegree has a class
# that d2 hits beside one it does not (where the order shows).
cat > "$TMP/e3_order.py" <<'PY'
import re, sys
d, name = sys.argv[1:3]
dims = {}
for l in open(d + "/ext.csv").read().splitlines()[1:]:
    s_, n, dim = map(int, l.split(","))
    dims[(n, s_)] = dim
d2 = {}   # (n, s, i) -> the bits of d2 x_(n, s, i)
for l in open(d + "/secondary.txt"):
    m = re.match(r"d_2 x_\((-?\d+), (\d+), (\d+)\) = \[([01, ]*)\]$", l.strip())
    if not m: sys.exit("unparsed: " + l)
    d2[tuple(map(int, m.groups()[:3]))] = [int(x) for x in m.group(4).split(", ")] if m.group(4) else []
def rref(rows):   # plain Gauss-Jordan over F_2: the non-zero rows in reduced echelon form
    rows = [r[:] for r in rows]; out = []
    for c in range(len(rows[0]) if rows else 0):
        p = next((r for r in rows if r[c]), None)
        if p is None: continue
        rows.remove(p)
        for r in rows + out:
            if r[c]: r[:] = [a ^ b for a, b in zip(r, p)]
        out.append(p)
    return sorted(out, key=lambda r: r.index(1))
def expected(n, s):   # sseq's E3 basis at (n, s): ker d2 modulo the image of d2, then that image
    dim = dims.get((n, s), 0)
    src = [d2[(n, s, i)] for i in range(dim) if (n, s, i) in d2]
    if len(src) == dim and src and src[0]:   # the kernel of d2 from the rows [d2 x | x]
        aug = rref([v + [int(j == i) for j in range(dim)] for i, v in enumerate(src)])
        ker = [r[len(src[0]):] for r in aug if not any(r[:len(src[0])])]
    else:
        ker = [[int(j == i) for j in range(dim)] for i in range(dim)]
    img = rref([d2[(n + 1, s - 2, j)] for j in range(dims.get((n + 1, s - 2), 0)) if (n + 1, s - 2, j) in d2])
    red = []
    for k in ker:
        k = k[:]
        for z in img:
            if k[z.index(1)]: k = [a ^ b for a, b in zip(k, z)]
        red.append(k)
    return rref(red) + img, ker
got = {}
for l in open(d + "/secondary_product-" + name + ".txt"):
    m = re.match(r"\[\w+\] (?:λ x_\((-?\d+), (\d+), (\d+)\) = |\[(.*)\] = )", l)
    if not m: sys.exit("unparsed: " + l)
    if m.group(1):
        got.setdefault((int(m.group(1)), int(m.group(2))), []).append(("λ", int(m.group(3))))
        continue
    terms = re.findall(r"x_\((-?\d+), (\d+), (\d+)\)", m.group(4))
    n, s_ = int(terms[0][0]), int(terms[0][1])
    v = [0] * dims[(n, s_)]
    for t in terms: v[int(t[2])] = 1
    got.setdefault((n, s_), []).append(("y", v))
checked = moved = 0
for (n, s_), lines in got.items():
    e3, ker = expected(n, s_)
    pivots = {r.index(1) for r in ker}
    want = [("λ", i) for i in range(dims[(n, s_)]) if i not in pivots] + [("y", v) for v in e3]
    if lines != want: sys.exit("(%d, %d): %s, not %s" % (n, s_, lines, want))
    checked += 1
    moved += e3 != ker
print("# checked %d bidegrees, %d where E3's basis is not ker d2's echelon form" % (checked, moved))
sys.exit(0 if moved > 0 else 1)
PY
E="$TMP/s2-40"
$EXTFLOW resolve --algorithm standard --stem 40 --max-s 15 --out "$E" --quiet &&
    $EXTFLOW d2 "$E" --product h0 --sseq-formats --quiet && python3 "$TMP/e3_order.py" "$E" h0 &&
    [ "$(grep -o 'x_(37, 8, [01])\]' "$E/secondary_product-h0.txt" | tr -d '\n')" = 'x_(37, 8, 1)]x_(37, 8, 0)]' ]
ok $? "standard, 40/15, d2 --product h0: the classes of each bidegree are sseq's E3 basis in its order (x_(37, 8, 1) before x_(37, 8, 0), which d2 hits)"
rm -rf "$E"
# the homotopies' lift steps with every product f(d z) in multiply tasks: the same tables
C="$TMP/s2-chain"
$EXTFLOW resolve --algorithm standard --stem 30 --max-s 7 --out "$C" --quiet &&
    EXTFLOW_LIFT_INLINE_PAIRS=0 $EXTFLOW d2 "$C" --sseq-formats --quiet &&
    tail -n +2 "$R/secondary-S_2" | cmp -s - "$C/secondary.txt" && cmp -s "$D/d2.csv" "$C/d2.csv" &&
    EXTFLOW_LIFT_INLINE_PAIRS=0 $EXTFLOW d2 "$C" --product h0 --quiet &&
    tail -n +2 "$R/secondary_product-h_0-S_2" | cmp -s - "$C/secondary_product-h0.txt"
ok $? "EXTFLOW_LIFT_INLINE_PAIRS=0 (lift products in multiply tasks): the same d2.csv, secondary.txt and secondary_product-h0.txt"
# the product's intermediates: by default their actions A(a, C(g')) are rows of H's multiply
# tasks (the rest on the step's workers); EXTFLOW_D2_INTERMEDIATE=cpu adds them all there.
# Each on a fresh resolution: a rerun on C would load every lift step C keeps and compute none.
fresh_d2() {    # fresh_d2 NAME ENV: resolve 30/7, d2, d2 --product h0 under ENV; H's steps computed there
    $EXTFLOW resolve --algorithm standard --stem 30 --max-s 7 --out "$TMP/$1" --quiet &&
        env "$2" $EXTFLOW d2 "$TMP/$1" --quiet &&
        env "$2" EXTFLOW_STATS=1 $EXTFLOW d2 "$TMP/$1" --product h0 --quiet 2>"$TMP/$1.stats" &&
        grep -q "^extflow: lift H: [1-9][0-9]* bidegrees computed, 0 loaded" "$TMP/$1.stats"
}
fresh_d2 s2-icpu EXTFLOW_D2_INTERMEDIATE=cpu &&
    tail -n +2 "$R/secondary_product-h_0-S_2" | cmp -s - "$TMP/s2-icpu/secondary_product-h0.txt"
ok $? "EXTFLOW_D2_INTERMEDIATE=cpu (the product's intermediates in its steps' own tasks): the same secondary_product-h0.txt"
fresh_d2 s2-ybatch EXTFLOW_D2_Y=batch &&
    tail -n +2 "$R/secondary_product-h_0-S_2" | cmp -s - "$TMP/s2-ybatch/secondary_product-h0.txt" &&
    cmp -s "$D/d2.csv" "$TMP/s2-ybatch/d2.csv"
ok $? "EXTFLOW_D2_Y=batch (the composites' Y terms, the product's too, as mod-4 products in the multiply): the same secondary_product-h0.txt and d2.csv"
fresh_d2 s2-noqi EXTFLOW_D2_QI=0 &&
    tail -n +2 "$R/secondary_product-h_0-S_2" | cmp -s - "$TMP/s2-noqi/secondary_product-h0.txt" &&
    grep -q "quasi-inverses of d_i kept for the lifts: 0 built (0.0 MB of a 0.0 MB budget), applied by 0 steps" "$TMP/s2-noqi.stats" &&
    grep -q "quasi-inverses of d_i kept for the lifts: [1-9][0-9]* built" "$TMP/s2-icpu.stats"
ok $? "EXTFLOW_D2_QI=0 (no quasi-inverse kept: every lift solves each d_i): the same secondary_product-h0.txt"
$EXTFLOW d2 "$D" --product h4 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "supports a non-zero d2" "$TMP/err"
ok $? "d2 --product h4: refused, h4 supports a d2 ($(head -1 "$TMP/err"))"
# ext_parts DIR TABLE NAME: the Ext parts of DIR/secondary_product-NAME.txt (and the λ multiples of
# the classes with a d2) are the products of DIR/TABLE (products.csv, module-products.csv)
cat > "$TMP/ext_parts.py" <<'PY'
import csv, re, sys
d, table, name = sys.argv[1:4]
prod = {}
for r in csv.DictReader(open(d + "/" + table)):
    if r["name"] == name: prod.setdefault((int(r["n"]), int(r["s"]), int(r["i"])), set()).add(int(r["k"]))
lines = open(d + "/secondary_product-" + name + ".txt").read().splitlines()
checked = 0
for l in lines:   # the Ext part (or the λ multiple of a class with a d2) is the ordinary product
    m = re.match(r"\[\w+\] (?:λ x_\((\d+), (\d+), (\d+)\) = λ |\[x_\((\d+), (\d+), (\d+)\)\] = )\[([01, ]*)\]", l)
    if not m: sys.exit("unparsed: " + l)
    g = m.groups()
    n, s_, i = (int(x) for x in (g[0:3] if g[0] else g[3:6]))
    v = [int(x) for x in g[6].split(", ")] if g[6] else []
    if [1 if k in prod.get((n, s_, i), ()) else 0 for k in range(len(v))] != v: sys.exit("differs: " + l)
    checked += 1
print("# checked", checked, "lines against", table)
sys.exit(0 if checked > 5 else 1)
PY
$EXTFLOW d2 "$D" --product c0=8,3 --quiet && $EXTFLOW products "$D" --class c0=8,3 --quiet &&
    python3 "$TMP/ext_parts.py" "$D" products.csv c0
ok $? "d2 --product c0=8,3: its Ext parts (and the λ multiples for classes with a d2) are the products of products.csv"
for m in C2:secondary-C2 A-mod-Sq1-Sq2-Sq4:secondary-tmf; do
    mod=${m%%:*} ref=${m#*:}
    D="$TMP/$mod"
    $EXTFLOW resolve --module "$mod" --stem 30 --max-s 7 --out "$D" --quiet &&
        $EXTFLOW d2 "$D" --sseq-formats --quiet && tail -n +2 "$R/$ref" | cmp -s - "$D/secondary.txt"
    ok $? "$mod: secondary.txt equals sseq's $ref byte for byte"
done
# A module's class times the unit's classes: v_1 in Ext(C2) at (n, s) = (2, 1) lifted into the
# standard resolution of S_2 (sseq's unit is its own standard resolution; over Nassau's, the λ
# parts of classes that d2 hits, which depend on the lifts, may differ)
D="$TMP/C2" U="$TMP/s2-standard"
$EXTFLOW d2 "$D" --product v_1=2,1 --unit "$U" --quiet &&
    tail -n +2 "$R/secondary_product-v_1-C2" | cmp -s - "$D/secondary_product-v_1.txt"
ok $? "C2, d2 --product v_1=2,1 --unit S_2: secondary_product-v_1.txt equals sseq's secondary_product-v_1-C2 byte for byte"
$EXTFLOW products "$D" --unit "$U" --class v_1=2,1 --quiet && python3 "$TMP/ext_parts.py" "$D" module-products.csv v_1
ok $? "C2, d2 --product v_1: its Ext parts are the products of module-products.csv"
rm "$D/secondary_product-v_1.txt"
$EXTFLOW d2 "$D" --product v_1=2,1 --unit "$U" 2>"$TMP/err" &&
    tail -n +2 "$R/secondary_product-v_1-C2" | cmp -s - "$D/secondary_product-v_1.txt" &&
    grep -q " 0 homotopy bidegrees computed" "$TMP/err"
ok $? "C2, d2 --product v_1 again: every homotopy step loaded, the same table ($(cut -c1-60 "$TMP/err"))"

# Stem 60 (Nassau, every s): d2.csv, secondary.txt and secondary_product-h0.txt as extflow wrote
# them before the composites' mod-4 products went to the multiply codelet (tests/ref/README.md).
# Plain d2 lifts its homotopy through any preimage (Nassau's signature blocks), d2 --product
# through sseq's: d2 read off either is the same.
D="$TMP/s60"
$EXTFLOW resolve --stem 60 --out "$D" --quiet && $EXTFLOW d2 "$D" --sseq-formats --quiet &&
    cmp -s "$R/d2-S_2-stem60.csv" "$D/d2.csv" && cmp -s "$R/secondary-S_2-stem60" "$D/secondary.txt" &&
    $EXTFLOW d2 "$D" --product h0 --sseq-formats --quiet && cmp -s "$R/d2-S_2-stem60.csv" "$D/d2.csv" &&
    cmp -s "$R/secondary-S_2-stem60" "$D/secondary.txt" &&
    cmp -s "$R/secondary_product-h0-S_2-stem60" "$D/secondary_product-h0.txt"
ok $? "stem 60: d2.csv and secondary.txt (by any preimages, and by sseq's with --product) and secondary_product-h0.txt equal the kept references byte for byte"
python3 "$TMP/e3_order.py" "$D" h0
ok $? "stem 60: secondary_product-h0.txt's classes are sseq's E3 basis in its order"
rm -rf "$D/stages/lift"
EXTFLOW_D2_Y=batch $EXTFLOW d2 "$D" --sseq-formats --quiet && cmp -s "$R/d2-S_2-stem60.csv" "$D/d2.csv" &&
    cmp -s "$R/secondary-S_2-stem60" "$D/secondary.txt"
ok $? "stem 60, the composites' Y terms as mod-4 products in their batches (EXTFLOW_D2_Y=batch): the same d2.csv and secondary.txt"
rm -rf "$D/stages/lift"
EXTFLOW_D2_INTERMEDIATE=cpu $EXTFLOW d2 "$D" --product h0 --sseq-formats --quiet &&
    cmp -s "$R/d2-S_2-stem60.csv" "$D/d2.csv" && cmp -s "$R/secondary-S_2-stem60" "$D/secondary.txt" &&
    cmp -s "$R/secondary_product-h0-S_2-stem60" "$D/secondary_product-h0.txt"
ok $? "stem 60, the homotopy's intermediate terms batched on the step's own worker (EXTFLOW_D2_INTERMEDIATE=cpu) instead of the multiply's grouped rows: the same d2.csv, secondary.txt and secondary_product-h0.txt"

# Stem 80: the homotopy's larger steps split their extra terms, and the larger cells their
# composites' Y terms, into parallel parts (none does at stem 60); d2.csv as before they did.
D="$TMP/s80"
$EXTFLOW resolve --stem 80 --out "$D" --quiet && $EXTFLOW d2 "$D" --quiet && cmp -s "$R/d2-S_2-stem80.csv" "$D/d2.csv"
ok $? "stem 80 (steps split into parts): d2.csv equals the kept reference byte for byte"
rm -rf "$D"

# Stem 40, s <= 12: d2 and the products by h0..h3 and the named classes.
D="$TMP/s40"
$EXTFLOW resolve --stem 40 --max-s 12 --out "$D" --quiet &&
    $EXTFLOW d2 "$D" 2>"$TMP/d2.err" &&
    $EXTFLOW products "$D" --class h0 --class h1 --class h2 --class h3 --class d0=14,4 --class e0=17,4 \
        --class h4 --class c0=8,3 --class t14=14,3 --class t16=16,6 --quiet
ok $? "d2 and products over (40, 12) exit 0 ($(cat "$TMP/d2.err"))"
cat > "$TMP/check.py" <<'PY'
import csv, sys
d = sys.argv[1]
prod = {}          # (name, n, s, i) -> set of k
for r in csv.DictReader(open(d + "/products.csv")):
    key = (r["name"], int(r["n"]), int(r["s"]), int(r["i"]))
    prod.setdefault(key, set()).add(int(r["k"]))
shift = {"h0": (0, 1), "h1": (1, 1), "h2": (3, 1), "h3": (7, 1), "d0": (14, 4), "e0": (17, 4),
         "h4": (15, 1), "c0": (8, 3), "t14": (14, 3), "t16": (16, 6)}
d2_of = {"h4": "t14", "e0": "t16"}   # d2(h4) = x_(14,3,0), d2(e0) = x_(16,6,0): checked below
dims = {}
for r in csv.DictReader(open(d + "/ext.csv")):
    dims[(int(r["n"]), int(r["s"]))] = int(r["dim"]) if "dim" in r else 0
d2 = {}            # (n, s, i) -> vector string
for r in csv.DictReader(open(d + "/d2.csv")):
    d2[(int(r["n"]), int(r["s"]), int(r["i"]))] = r["value"]
def mul(name, n, s, vec):           # name · (vec at (n, s)) as a 0/1 list
    a, b = shift[name]
    out = [0] * dims.get((n + a, s + b), 0)
    for i, c in enumerate(vec):
        if c:
            for k in prod.get((name, n, s, i), ()):
                out[k] ^= 1
    return out
def unit(n, s, i): return [1 if k == i else 0 for k in range(dims.get((n, s), 0))]
def D2(n, s, vec):                  # d2 of a vector at (n, s), or None out of range
    out = [0] * dims.get((n - 1, s + 2), 0)
    for i, c in enumerate(vec):
        if c:
            v = d2.get((n, s, i))
            if v is None: return None
            for k, ch in enumerate(v):
                if ch == "1": out[k] ^= 1
    return out
what = sys.argv[2]
if what == "named":
    h0h3h3 = mul("h0", 14, 2, mul("h3", 7, 1, unit(7, 1, 0)))
    h1h1d0 = mul("h1", 15, 5, mul("h1", 14, 4, unit(14, 4, 0)))
    h0h0e0 = mul("h0", 17, 5, mul("h0", 17, 4, unit(17, 4, 0)))
    f0 = unit(18, 4, 1)     # f0 is x_(18,4,1) modulo x_(18,4,0) = h1^3 h4, whose d2 is 0
    checks = [("d2(h4) = h0 h3^2", D2(15, 1, unit(15, 1, 0)), h0h3h3),
              ("d2(e0) = h1^2 d0", D2(17, 4, unit(17, 4, 0)), h1h1d0),
              ("d2(f0) = h0^2 e0", D2(18, 4, f0), h0h0e0),
              ("d2(h1^3 h4) = 0", D2(18, 4, unit(18, 4, 0)), [0] * dims[(17, 6)])]
    bad = [c for c in checks if c[1] != c[2] or not any(c[2]) and "= 0" not in c[0]]
    for c in checks: print("#", c[0], c[1], c[2])
    sys.exit(1 if bad else 0)
if what == "leibniz":
    # d2(x y) = d2(x) y + x d2(y): x = h0..h3, c0, d0 (d2 = 0) and h4, e0 (d2 = the classes t14, t16)
    if D2(15, 1, [1]) != [1] or D2(17, 4, [1]) != [1]: sys.exit("d2(h4), d2(e0) not the generators")
    n_checked = bad = 0
    for (n, s), dim in dims.items():
        for name in ("h0", "h1", "h2", "h3", "c0", "d0", "h4", "e0"):
            a, b = shift[name]
            for i in range(dim):
                y = unit(n, s, i)
                dy = D2(n, s, y)
                xy = mul(name, n, s, y)
                if dy is None or (n + a, s + b) not in dims or (n + a - 1, s + b + 2) not in dims: continue
                lhs = D2(n + a, s + b, xy)
                if lhs is None: continue
                rhs = mul(name, n - 1, s + 2, dy)                 # x d2(y)
                if name in d2_of:                                 # + d2(x) y
                    rhs = [u ^ v for u, v in zip(rhs, mul(d2_of[name], n, s, y))]
                n_checked += 1
                bad += lhs != rhs
    print("# Leibniz checked", n_checked, "bad", bad)
    sys.exit(1 if bad or n_checked < 150 else 0)
if what == "dd":
    n_checked = bad = 0
    for (n, s, i), v in d2.items():
        vec = [int(ch) for ch in v]
        if not any(vec): continue
        dd = D2(n - 1, s + 2, vec)
        if dd is None: continue
        n_checked += 1
        bad += any(dd)
    print("# d2 d2 checked", n_checked, "bad", bad)
    sys.exit(1 if bad else 0)
PY
python3 "$TMP/check.py" "$D" named
ok $? "d2(h4) = h0 h3^2, d2(e0) = h1^2 d0, d2(f0) = h0^2 e0, d2(h1^3 h4) = 0 (classes named by products)"
python3 "$TMP/check.py" "$D" leibniz
ok $? "Leibniz: d2(x y) = d2(x) y + x d2(y) for x = h0..h4, c0, d0, e0 and every class y with all ends in range"
python3 "$TMP/check.py" "$D" dd
ok $? "d2 ∘ d2 = 0 wherever both are in range"
ones=$(awk -F, 'NR > 1 { c += gsub(/1/, "1", $6) } END { print c + 0 }' "$D/d2.csv")
arrows=$(($(grep -c 'class="d2"' "$D/chart.svg") - 1))
python3 -c '
import json, re, sys
s = open(sys.argv[1]).read()
m = re.search(r"\"d2\":(\[\[.*?\]\]|\[\])", s)
sys.exit(0 if m and len(json.loads(m.group(1))) == int(sys.argv[2]) else 1)' "$D/chart.html" "$ones"
[ $? -eq 0 ] && [ "$arrows" -eq "$ones" ] && [ "$ones" -gt 10 ] && grep -q '>d2</text>' "$D/chart.svg"
ok $? "chart.svg draws one d2 arrow per coefficient 1 of d2.csv ($ones), with a legend; chart.html's d2 layer too"

# Resume: a rerun loads every homotopy bidegree; a damaged file is named and recomputed.
cp "$D/d2.csv" "$TMP/d2.first"
$EXTFLOW d2 "$D" 2>"$TMP/again.err" && cmp -s "$D/d2.csv" "$TMP/d2.first" && grep -q " 0 homotopy bidegrees computed" "$TMP/again.err"
ok $? "a rerun loads the homotopy from its stage files and writes the same d2.csv ($(cat "$TMP/again.err"))"
f=$(ls "$D"/stages/lift/d2/*.zst | sed -n 20p)
printf 'garbage' | dd of="$f" bs=1 seek=40 conv=notrunc 2>/dev/null
$EXTFLOW d2 "$D" 2>"$TMP/dam.err" && cmp -s "$D/d2.csv" "$TMP/d2.first" && grep -q "recomputing" "$TMP/dam.err" &&
    grep -q "$(basename "$f")" "$TMP/dam.err"
ok $? "a damaged homotopy file is named, recomputed, and d2.csv is the same"
for r in $(seq 1 "$ROUNDS"); do
    rm -rf "$D/stages/lift/d2"
    ms=$(( $(od -An -N2 -tu2 /dev/urandom) % 600 + 50 ))
    timeout -s KILL "0.$(printf %03d $ms)" $EXTFLOW d2 "$D" --quiet 2>/dev/null
    # under heavy load the killed process may still hold DIR's lock for a moment: the rerun
    # says so (exit 4) and is tried again
    rm -f "$D/d2.csv"
    for try in 1 2 3 4 5 6 7 8 9 10; do
        $EXTFLOW d2 "$D" --quiet 2>"$TMP/kill.err" && break
        grep -q "in use by another extflow run" "$TMP/kill.err" || break
        sleep 0.5
    done
    cmp -s "$D/d2.csv" "$TMP/d2.first"
    ok $? "d2 killed after ${ms} ms, rerun: the same d2.csv"
done

# Bad arguments: one line on stderr, exit 2.
$EXTFLOW resolve --module ko --stem 10 --out "$TMP/ko" --quiet
$EXTFLOW resolve --module Joker --stem 12 --out "$TMP/joker" --quiet
for args in "d2" "d2 $TMP/nowhere" "d2 $TMP/ko" "d2 $TMP/joker" "d2 $D --bogus" "d2 $TMP/C2 --product h0" \
    "d2 $TMP/C2 --unit $TMP/s2-standard"; do
    $EXTFLOW $args 2>"$TMP/err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(grep -vc "^try 'extflow help'" "$TMP/err")" -eq 1 ]
    ok $? "extflow $args: exit 2 and one line ($(head -1 "$TMP/err"))"
done
done_testing

#!/bin/sh
# resolve --unstable (docs/unstable.md): Ext over the unstable Steenrod algebra by free unstable
# modules, checked by identities and independent code, no table written here:
# - S^1 = S_2[1]: the h0-tower in its bottom stem and nothing else (Λ(1) is the polynomials in λ_0);
# - S^n for several n, RP4 and a module file of RP_2^6 against tests/unstable_ref.py, a resolver
#   written apart in Python (its own Milnor product and excess truncation);
# - the stable range: Ext_U of S^n at stem n + k equals Ext_A of S_2 at stem k for k < n - 1, and
#   at k = n - 1 exceeds it by at most one, from s = 2 on (docs/unstable.md says why);
# - the free unstable module F(n) = F_0 of S^n: its dimensions (resolution_size.txt's row s = 0)
#   against a count of the Milnor basis by excess in the Python reference;
# - what is refused in one line (exit 2): a module that is not unstable, Nassau's algorithm, a
#   profile (C3 at p = 3; odd primes otherwise: t-unstable-p.sh), a stable run into an unstable
#   directory and back, products on an unstable directory; verify's d∘d over free unstable modules (and a flipped bit found);
#   resume, --memory and export as for a stable resolution.
. tests/lib.sh
plan 37
REFPY="python3 tests/unstable_ref.py"
res() { $EXTFLOW resolve --quiet --unstable "$@"; }

S=8
res --module "S_2[1]" --max-t 30 --max-s $S --out "$TMP/s1" 2>"$TMP/err" &&
    { echo s,n,dim; for s in $(seq 0 $S); do echo "$s,1,1"; done; } | cmp -s - "$TMP/s1/ext.csv"
ok $? "S^1 (t <= 30, s <= $S): one class in stem 1 for every s, nothing else $(cat "$TMP/err")"

for n in 2 3 5; do
    res --module "S_2[$n]" --max-t 22 --max-s 7 --out "$TMP/s$n" 2>"$TMP/err" &&
        $REFPY ext sphere:$n 7 22 | cmp -s - "$TMP/s$n/ext.csv"
    ok $? "S^$n (t <= 22, s <= 7) equals the Python resolver's ext.csv $(cat "$TMP/err")"
done

res --module RP4 --max-t 20 --max-s 6 --out "$TMP/rp4" 2>"$TMP/err" &&
    $REFPY ext rp:1:4 6 20 | cmp -s - "$TMP/rp4/ext.csv"
ok $? "RP4 (t <= 20, s <= 6) equals the Python resolver's ext.csv"
# RP_2^6 as a module file: Sq^i x^k = binom(k, i) x^(k+i) for the Sq(2^j)
python3 -c '
import json
gens = {"x%d" % k: k for k in range(2, 7)}
acts = ["Sq%d x%d = x%d" % (i, k, k + i) for k in range(2, 7) for i in (1, 2, 4)
        if k + i <= 6 and (i & (k - i)) == 0 and i <= k]
print(json.dumps({"p": 2, "type": "finite dimensional module", "gens": gens, "actions": acts}))' > "$TMP/rp26.json"
res --module "$TMP/rp26.json" --max-t 22 --max-s 6 --out "$TMP/rp26" 2>"$TMP/err" &&
    $REFPY ext rp:2:6 6 22 | cmp -s - "$TMP/rp26/ext.csv"
ok $? "RP_2^6 from a module file (t <= 22, s <= 6) equals the Python resolver's ext.csv $(cat "$TMP/err")"

# RP^inf = RP_1^inf, known by its truncations (docs/modules.md): a stem region against the
# Python resolver on RP_1^19, which has the same Ext there
echo '{ "p": 2, "type": "real projective space", "min": 1 }' > "$TMP/RPinf.json"
res --module "$TMP/RPinf.json" --stem 12 --max-s 6 --out "$TMP/rpinf" 2>"$TMP/err" &&
    $REFPY ext rp:1:19 6 19 | awk -F, 'NR == 1 || $2 <= 12' | cmp -s - "$TMP/rpinf/ext.csv"
ok $? "RP^inf through stem 12 (s <= 6) equals the Python resolver's RP_1^19 there $(cat "$TMP/err")"

# the stable range
for n in 3 5 8; do
    res --module "S_2[$n]" --stem $((2 * n - 1)) --max-s 10 --out "$TMP/u$n" 2>"$TMP/err" &&
        $EXTFLOW resolve --quiet --stem $((n - 1)) --max-s 10 --out "$TMP/st$n" 2>>"$TMP/err" &&
        awk -F, -v n=$n '
            FNR == 1 { f++; next }
            f == 1 { u[$1 "," $2 - n] = $3 }
            f == 2 { a[$1 "," $2] = $3 }
            END {
                bad = 0; same = 0
                for (s = 0; s <= 10; s++) for (k = 0; k <= n - 1; k++) {
                    d = u[s "," k] - a[s "," k]
                    if (k < n - 1) { bad += d != 0; same += u[s "," k] > 0 }
                    else bad += d < 0 || d > 1 || (s < 2 && d != 0)
                }
                if (bad || same < n) { print bad " bidegrees off, " same " nonzero ones equal" > "/dev/stderr"; exit 1 }
            }' "$TMP/u$n/ext.csv" "$TMP/st$n/ext.csv" 2>>"$TMP/err"
    ok $? "S^$n: stems n + k, k < n - 1, equal the stable Ext at k; k = n - 1 at most one more $(cat "$TMP/err")"
done

# the h0, h1, h2 lines (read off d: the coefficient of Sq(2^j) on a generator, at its place in the
# excess order) agree with the stable chart's in S^8's stable range (every dim there is 0 or 1)
$EXTFLOW export "$TMP/u8" --json > "$TMP/u8.json" && $EXTFLOW export "$TMP/st8" --json > "$TMP/st8.json" &&
    python3 - "$TMP/u8.json" "$TMP/st8.json" > "$TMP/lines" <<'PY'
import json, sys
n = 8
def lines(path, shift):
    out = set()
    for p in json.load(open(path))["products"]:
        j = {"h0": 0, "h1": 1, "h2": 2}.get(p["name"])
        if j is None:
            continue
        for stem, s, i, k in p["pairs"]:
            if stem - shift + 2 ** j - 1 < n - 1:
                out.add((j, stem - shift, s, i, k))
    return out
u, a = lines(sys.argv[1], n), lines(sys.argv[2], 0)
print("%d lines" % len(u))
sys.exit(0 if u == a and len(u) >= 10 else 1)
PY
ok $? "S^8: the h0, h1, h2 lines below relative stem 7 are the stable chart's ($(cat "$TMP/lines"))"
# differentials.txt: every term P(R) x_(n,s,i) has excess r1 + r2 + ... <= the degree n + s of x
res --module "S_2[2]" --max-t 16 --max-s 5 --sseq-formats --out "$TMP/dtxt" 2>"$TMP/err" &&
    python3 - "$TMP/dtxt/differentials.txt" > "$TMP/terms" <<'PY'
import re, sys
bad = terms = 0
for line in open(sys.argv[1]):
    for r, n, s in re.findall(r"P\(([0-9, ]*)\) x_\((-?[0-9]+),([0-9]+),[0-9]+\)", line):
        terms += 1
        bad += sum(int(x) for x in r.split(",")) > int(n) + int(s)
print("%d terms" % terms)
sys.exit(1 if bad or terms < 20 else 0)
PY
ok $? "S^2's differentials.txt names only elements of excess <= their generator's degree ($(cat "$TMP/terms"))"

# F(n) = F_0 of S^n: dimensions by excess
for n in 2 6; do
    res --module "S_2[$n]" --stem 30 --max-s 2 --sseq-formats --out "$TMP/f$n" 2>"$TMP/err" &&
        tail -1 "$TMP/f$n/resolution_size.txt" | tr -d ' ' | tr , '\n' | sed '/^$/d' > "$TMP/dims" &&
        $REFPY dims $n $((30 - n)) | cut -d, -f2 | { yes 0 | head -$n; cat; } | cmp -s - "$TMP/dims"
    ok $? "F($n) in degrees 0..30: the Milnor basis of excess <= $n counted apart $(cat "$TMP/err")"
done

# refusals, one line each
for bad in "C2" "Joker[1]" "S_2[-1]" "C3" "ko" "RP_-4_inf" "$TMP/RPinf.json[-1]"; do
    res --module "$bad" --stem 10 --out "$TMP/bad" 2>"$TMP/err"
    is_usage_error $? "$TMP/err" && [ ! -e "$TMP/bad" ]
    ok $? "--unstable --module $bad refused in one line: $(head -1 "$TMP/err")"
done
res --module "S_2[2]" --algorithm nassau --stem 10 --out "$TMP/bad" 2>"$TMP/err"
is_usage_error $? "$TMP/err"
ok $? "--unstable --algorithm nassau refused in one line"

# a stable and an unstable resolution never share a directory
$EXTFLOW resolve --quiet --module "S_2[3]" --max-t 22 --max-s 7 --out "$TMP/s3" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "holds an unstable resolution" "$TMP/err" && grep -q '"unstable": true' "$TMP/s3/run.json"
ok $? "a stable run into an unstable directory is refused (run.json says unstable)"
$EXTFLOW resolve --quiet --module "S_2[3]" --stem 6 --max-s 3 --out "$TMP/st3s" 2>"$TMP/err" &&
    res --module "S_2[3]" --stem 6 --max-s 3 --out "$TMP/st3s" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "holds a stable resolution" "$TMP/err"
ok $? "an unstable run into a stable directory is refused"
$EXTFLOW products "$TMP/s3" --class h0=0,1 >/dev/null 2>"$TMP/err"
is_usage_error $? "$TMP/err"
ok $? "products --class refuses an unstable directory in one line"

# verify: d∘d over the free unstable modules (the products' terms of large excess dropped)
for d in s5 rp4 rp26; do
    $EXTFLOW verify "$TMP/$d" > "$TMP/v" 2>&1 && tail -1 "$TMP/v" | grep -q "0 problems: ok$"
    ok $? "verify passes on the unstable $d: $(tail -1 "$TMP/v" | cut -c1-70)"
done
# flip the first bit of the last row of S^5's (4,t) differential, t its largest: only d∘d tells
t=$(awk -F, '$1 == 4 { t = $2 + 4 } END { print t }' "$TMP/s5/ext.csv")
cp -r "$TMP/s5" "$TMP/s5bad"
$EXTFLOW inspect "$TMP/s5/stages/differential/4_$t.zst" | sed -e '$s/^0/x/' -e '$s/^1/0/' -e '$s/^x/1/' > "$TMP/m.txt" &&
    $EXTFLOW pack "$TMP/m.txt" "$TMP/s5bad/stages/differential/4_$t.zst"
$EXTFLOW verify "$TMP/s5bad" > "$TMP/v" 2>&1
[ $? -eq 1 ] && grep -q "^bad: (4,$t) .*d∘d != 0$" "$TMP/v"
ok $? "verify finds a one-bit change of S^5's (4,$t): $(grep "^bad" "$TMP/v" | head -1 | cut -c1-60)"

# the suspension E: Ext(S^n) -> Ext(S^{n+1}) as a map of modules of degree -1 (products --map,
# docs/unstable.md): by the EHP sequence E is one to one in relative stems k < n - 1 and onto
# for k <= n - 1; E from S^n to S^{n+2} (degree -2) is E after E
echo '{"degree": -1, "images": {"x0": "x0"}}' > "$TMP/e1.json"
echo '{"degree": -2, "images": {"x0": "x0"}}' > "$TMP/e2.json"
T=24; SM=7
for n in 2 3 4 5; do
    [ -d "$TMP/E$n" ] || res --module "S_2[$n]" --max-t $((T + n - 2)) --max-s $SM --out "$TMP/E$n" 2>>"$TMP/eerr"
done
ehp() {     # ehp N: E from S^N to S^(N+1), its ranks against the EHP bounds
    $EXTFLOW products "$TMP/E$(($1 + 1))" --map E=$TMP/e1.json --target "$TMP/E$1" --quiet 2>>"$TMP/eerr" &&
    python3 - "$1" "$TMP/E$1/ext.csv" "$TMP/E$(($1 + 1))/ext.csv" "$TMP/E$(($1 + 1))/maps.csv" $SM <<'PY'
import sys
n, src, dst, maps, smax = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
def ext(p, shift):
    d = {}
    for l in open(p).read().split()[1:]:
        s, k, v = map(int, l.split(","))
        d[(s, k - shift)] = v
    return d
a, b = ext(src, n), ext(dst, n + 1)
rows = {}
for l in open(maps).read().split()[1:]:
    f = l.split(",")
    if f[0] != "E":
        continue
    s, k, i, j = int(f[4]), int(f[3]) - n, int(f[5]), int(f[6])
    rows.setdefault((s, k), {}).setdefault(i, 0)
    rows[(s, k)][i] |= 1 << j
def rank(vs):
    piv = {}
    for v in vs:
        while v:
            h = v.bit_length() - 1
            if h not in piv:
                piv[h] = v
                break
            v ^= piv[h]
    return len(piv)
bad = checked = 0
for s in range(smax + 1):
    for k in range(0, n):
        r = rank(rows.get((s, k), {}).values())
        if k < n - 1 and r != a.get((s, k), 0): bad += 1
        if r != b.get((s, k), 0): bad += 1
        checked += 1
print("%d of %d bidegrees break the EHP bounds" % (bad, checked))
sys.exit(1 if bad or checked < 8 else 0)
PY
}
for n in 2 3 4; do
    ehp $n > "$TMP/ehp" 2>>"$TMP/eerr"
    ok $? "E: S^$n -> S^$((n + 1)) one to one in relative stems < $((n - 1)), onto through $((n - 1)): $(cat "$TMP/ehp")"
done
# E after E against the degree -2 map S^3 -> S^5 (the matrices composed in Python)
$EXTFLOW products "$TMP/E5" --map E2=$TMP/e2.json --target "$TMP/E3" --quiet 2>>"$TMP/eerr" &&
    $EXTFLOW products "$TMP/E5" --map E=$TMP/e1.json --target "$TMP/E4" --quiet 2>>"$TMP/eerr" &&
    python3 - "$TMP/E4/maps.csv" "$TMP/E5/maps.csv" > "$TMP/comp" <<'PY'
import sys
def load(p, name):
    m = {}
    for l in open(p).read().split()[1:]:
        f = l.split(",")
        if f[0] == name:
            n, s, i, k = map(int, f[3:7])
            m.setdefault((n, s, i), set()).symmetric_difference_update({k})
    return m
e34, e45, e35 = load(sys.argv[1], "E"), load(sys.argv[2], "E"), load(sys.argv[2], "E2")
comp = {}
for (n, s, i), ks in e34.items():
    out = set()
    for k in ks:
        out ^= e45.get((n + 1, s, k), set())
    if out:
        comp[(n, s, i)] = out
print("%d classes, %d nonzero images" % (len({key for key in e34}), len(comp)))
sys.exit(0 if comp == {key: v for key, v in e35.items() if v} and comp else 1)
PY
ok $? "E: S^3 -> S^5 (degree -2) is E: S^4 -> S^5 after E: S^3 -> S^4 ($(cat "$TMP/comp")) $(cat "$TMP/eerr")"
$EXTFLOW products "$TMP/E3" --map E=$TMP/e1.json --target "$TMP/st3s" 2>"$TMP/err"
is_usage_error $? "$TMP/err"
ok $? "--map from an unstable to a stable resolution is refused in one line"
$EXTFLOW products "$TMP/st3s" --map E=$TMP/e1.json --target "$TMP/E2" 2>"$TMP/err"
is_usage_error $? "$TMP/err" && grep -q "E2 is unstable and .*st3s is not: both or neither" "$TMP/err"
ok $? "--map from a stable to an unstable resolution is refused, saying so: $(head -1 "$TMP/err")"

# resume, --memory, export
res --module "S_2[4]" --stem 10 --max-s 5 --out "$TMP/grow" 2>"$TMP/err" &&
    $EXTFLOW resolve --unstable --module "S_2[4]" --stem 16 --max-s 7 --out "$TMP/grow" 2>"$TMP/grow.err" &&
    res --module "S_2[4]" --stem 16 --max-s 7 --memory 64M --out "$TMP/fresh" 2>"$TMP/err" &&
    same_outputs "$TMP/fresh" "$TMP/grow" && grep -q resumed "$TMP/grow.err"
ok $? "a larger region resumes from the smaller one's stage files; equal to a fresh run under --memory 64M"
$EXTFLOW export "$TMP/grow" --text > "$TMP/chart" 2>"$TMP/err" && grep -q "S_2\[4\] over the unstable algebra" "$TMP/chart" &&
    grep -q '"unstable":true' "$TMP/grow/chart.html" && grep -q '<title>Ext_U(S_2\[4\], F2)' "$TMP/grow/chart.svg"
ok $? "export reads an unstable directory; its charts say Ext over the unstable algebra"
done_testing

#!/bin/sh
# products --map at an odd prime (docs/products.md "Maps of modules", docs/unstable.md "The
# suspension maps"), checked by identities on the tables (tests/maps_p.py, F_p ranks in Python):
# - the identity of S_3, of the Moore space M(3) and of S^4 over the unstable algebra induces the
#   identity; S_5's too;
# - 0 -> S^1 -> M(3) -> S^0 -> 0 (the top cell's inclusion i, degree 1; the collapse q onto the
#   bottom cell): Ext(S^0) -q*-> Ext(M) -i*-> Ext(S^1) is exact in the middle (i* q* = 0, rank q* +
#   rank i* = dim Ext(M)) at every bidegree; q* is the lift of M's bottom class into S_3 by
#   --unit --class (the same table); for C(alpha_1) the collapse and the top cell's inclusion
#   commute with the products by a0, h0, h1 (products.csv; up to the graded sign);
# - the suspension E: Ext_U(S^n) -> Ext_U(S^(n+1)) at p = 3 is an isomorphism where both are
#   stable, k + s < f(n) (f(n) = n(p-1)+1, n even; (n+1)(p-1), n odd; docs/unstable.md), and
#   E: S^3 -> S^5 (degree -2) is E after E;
# - a map that is not A_p-linear, and maps between resolutions at two primes, are refused in one line.
. tests/lib.sh
plan 13
CHK="python3 tests/maps_p.py"
res() { $EXTFLOW resolve --quiet "$@"; }
echo '{"degree": 0, "images": {"x0": "x0"}}' > "$TMP/x0.json"
echo '{"degree": 1, "images": {"x0": "x1"}}' > "$TMP/top.json"
echo '{"degree": -1, "images": {"x0": "x0"}}' > "$TMP/e1.json"
echo '{"degree": -2, "images": {"x0": "x0"}}' > "$TMP/e2.json"
echo '{"p": 3, "type": "finite dimensional module", "gens": {"x0": 0, "x1": 1}, "actions": ["b x0 = x1"]}' > "$TMP/moore.json"
echo '{"degree": 0, "images": {"x0": "x0", "x1": "x1"}}' > "$TMP/idm.json"

res --module S_3 --stem 40 --max-s 10 --out "$TMP/S3" 2>"$TMP/err" &&
    res --module "$TMP/moore.json" --stem 40 --max-s 10 --out "$TMP/M" 2>>"$TMP/err" &&
    $EXTFLOW products "$TMP/S3" --map id="$TMP/x0.json" --quiet 2>>"$TMP/err" &&
    $CHK identity 3 "$TMP/S3" id > "$TMP/out"
ok $? "S_3's identity induces the identity: $(cat "$TMP/out" "$TMP/err")"
$EXTFLOW products "$TMP/M" --map id="$TMP/idm.json" --quiet 2>"$TMP/err" && $CHK identity 3 "$TMP/M" id > "$TMP/out"
ok $? "M(3)'s identity induces the identity: $(cat "$TMP/out" "$TMP/err")"
res --module S_5 --stem 60 --max-s 6 --out "$TMP/S5" 2>"$TMP/err" &&
    $EXTFLOW products "$TMP/S5" --map id="$TMP/x0.json" --quiet 2>>"$TMP/err" && $CHK identity 5 "$TMP/S5" id > "$TMP/out"
ok $? "S_5's identity induces the identity: $(cat "$TMP/out" "$TMP/err")"

$EXTFLOW products "$TMP/M" --map q="$TMP/x0.json" --target "$TMP/S3" --quiet 2>"$TMP/err" &&
    $EXTFLOW products "$TMP/S3" --map i="$TMP/top.json" --target "$TMP/M" --quiet 2>>"$TMP/err" &&
    $CHK exact 3 "$TMP/M" "$TMP/S3" q i 1 > "$TMP/out"
ok $? "Ext(S^0) -> Ext(M(3)) -> Ext(S^1) exact in the middle: $(cat "$TMP/out" "$TMP/err")"
$EXTFLOW products "$TMP/M" --unit "$TMP/S3" --class q=0,0 --quiet 2>"$TMP/err" &&
    grep '^q,' "$TMP/M/maps.csv" > "$TMP/a" && grep '^q,' "$TMP/M/module-products.csv" > "$TMP/b" &&
    [ -s "$TMP/a" ] && cmp -s "$TMP/a" "$TMP/b"
ok $? "the collapse M(3) -> S^0 induces what M's bottom class lifted into S_3 gives ($(wc -l < "$TMP/a") rows) $(cat "$TMP/err")"
$EXTFLOW products "$TMP/S3" --map i="$TMP/top.json" --target "$TMP/M" 2>"$TMP/err" | tail -1 > /dev/null &&
    grep -q "0 bidegrees computed" "$TMP/err"
ok $? "a rerun loads its lift files: $(cat "$TMP/err")"

# C(alpha_1) (P^1 x0 = x4): its collapse q and top cell i commute with a0, h0 and h1, up to the
# graded sign, the classes of C(alpha_1) through stem 18 lifted into S_3 for x a
echo '{"p": 3, "type": "finite dimensional module", "gens": {"x0": 0, "x4": 4}, "actions": ["P1 x0 = x4"]}' > "$TMP/ca.json"
echo '{"degree": 4, "images": {"x0": "x4"}}' > "$TMP/top4.json"
res --module "$TMP/ca.json" --stem 30 --max-s 8 --out "$TMP/CA" 2>"$TMP/err" &&
    $EXTFLOW products "$TMP/S3" --class a0 --class h0 --class h1 --quiet 2>>"$TMP/err" &&
    $EXTFLOW products "$TMP/S3" --map i="$TMP/top4.json" --target "$TMP/CA" --quiet 2>>"$TMP/err" &&
    $EXTFLOW products "$TMP/CA" --map q="$TMP/x0.json" --target "$TMP/S3" --quiet 2>>"$TMP/err" &&
    $EXTFLOW products "$TMP/CA" --unit "$TMP/S3" $(awk -F, 'NR > 1 && $2 <= 18 { for (i = 0; i < $3; i++) {
        v = ""; for (j = 0; j < $3; j++) v = v (i == j); printf " --class x_%d_%d_%d=%d,%d,%s", $2, $1, i, $2, $1, v } }' \
        "$TMP/CA/ext.csv") --quiet 2>>"$TMP/err" &&
    $CHK compat 3 "$TMP/S3" "$TMP/CA" q i 4 > "$TMP/out"
ok $? "C(alpha_1): q*(a y) = (q* y) a and i*(x a) = (i* x) a for a = a0, h0, h1: $(cat "$TMP/out" "$TMP/err")"

# the suspension over the unstable algebra
for n in 3 4 5 6; do
    res --unstable --module "S_3[$n]" --stem 36 --max-s 8 --out "$TMP/U$n" 2>>"$TMP/uerr"
done
$EXTFLOW products "$TMP/U4" --map id="$TMP/x0.json" --quiet 2>"$TMP/err" && $CHK identity 3 "$TMP/U4" id > "$TMP/out"
ok $? "S^4's identity over the unstable algebra induces the identity: $(cat "$TMP/out" "$TMP/err" "$TMP/uerr")"
for n in 4 5; do
    f=$(( n % 2 ? (n + 1) * 2 : 2 * n + 1 ))
    $EXTFLOW products "$TMP/U$((n + 1))" --map E="$TMP/e1.json" --target "$TMP/U$n" --quiet 2>"$TMP/err" &&
        $CHK stable 3 $n $f "$TMP/U$n/ext.csv" "$TMP/U$((n + 1))/ext.csv" "$TMP/U$((n + 1))/maps.csv" > "$TMP/out"
    ok $? "E: S^$n -> S^$((n + 1)) at p = 3 is an isomorphism in the stable range: $(cat "$TMP/out" "$TMP/err")"
done
$EXTFLOW products "$TMP/U4" --map E="$TMP/e1.json" --target "$TMP/U3" --quiet 2>"$TMP/err" &&
    $EXTFLOW products "$TMP/U5" --map E2="$TMP/e2.json" --target "$TMP/U3" --quiet 2>>"$TMP/err" &&
    $CHK compose 3 "$TMP/U4/maps.csv" "$TMP/U5/maps.csv" "$TMP/U5/maps.csv" E E E2 > "$TMP/out"
ok $? "E: S^3 -> S^5 (degree -2) is E: S^4 -> S^5 after E: S^3 -> S^4: $(cat "$TMP/out" "$TMP/err")"

# refusals
$EXTFLOW products "$TMP/S3" --map i="$TMP/x0.json" --target "$TMP/M" 2>"$TMP/err"
[ $? -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -qF "not A-linear: f(Q_0 x0) = 0 but Q_0 f(x0) = x1" "$TMP/err"
ok $? "S^0 -> M(3) onto the bottom cell (b x0 != 0) is refused in one line, exit 2: $(cat "$TMP/err")"
$EXTFLOW products "$TMP/S3" --map id="$TMP/x0.json" --target "$TMP/S5" 2>"$TMP/err"
is_usage_error $? "$TMP/err"
ok $? "a map from p = 3 to p = 5 is refused in one line: $(head -1 "$TMP/err")"
done_testing

#!/bin/sh
# export --sqlite (schema/sqlite.md), read back with the sqlite3 command-line tool: every CSV
# table holds its file's rows, the Ext basis is ext.csv's, the names and h0, h1, h2 lines are
# export --json's, the lines agree with the lifted h0, h1 products, and known values come out
# of it (h1 c0 at (9, 4), d2(h4) = h0 h3^2, <h0, h1, h0> = h1^2, Sq^0 h_j = h_(j+1), the squares
# of c0 as sseq's steenrod example gives them, Sq^3 c0 = c0^2, Sq^1 h1 = h1^2); modules
# (module-products.csv, maps.csv of the identity, a negative bottom cell), the manifest, atomic
# replacement, and the usage errors.
. tests/lib.sh
if ! command -v sqlite3 >/dev/null; then echo "1..0 # skip no sqlite3 (scripts/install-deps installs it)"; exit 0; fi
plan 32
D="$TMP/s"
DB="$TMP/s.db"
q() { sqlite3 -batch -noheader -separator , "$DB" "$@"; }       # q SQL: the rows, comma-separated
rows() { echo $(($(wc -l < "$1") - 1)); }                         # rows FILE: lines after the header
$EXTFLOW resolve --stem 40 --out "$D" --quiet &&
    $EXTFLOW products "$D" --class h0 --class h1 --class c0=8,3 --quiet && $EXTFLOW d2 "$D" --quiet &&
    $EXTFLOW massey "$D" --a h0 --b h1 --quiet && $EXTFLOW sq0 "$D" --quiet &&
    $EXTFLOW steenrod "$D" --class c0=8,3 --class h1 --class h2 --quiet
ok $? "resolve --stem 40, products h0, h1, c0, d2, massey <h0, h1, ->, sq0, steenrod c0, h1, h2"
$EXTFLOW export "$D" --sqlite "$DB" 2>"$TMP/err" && [ ! -s "$TMP/err" ] &&
    [ "$(q 'PRAGMA integrity_check')" = ok ] && [ "$(q 'PRAGMA user_version')" = 1 ] &&
    [ "$(printf '%x' "$(q 'PRAGMA application_id')")" = 45787446 ]
ok $? "export --sqlite: a sound database, application_id ExtF, user_version 1"

# every CSV table: its file's rows, line for line, and a sources row that counts them
same_table() {   # same_table TABLE FILE COLUMNS...: the table, in rowid order, is the file's body
    t=$1 f=$2
    shift 2
    cols=$(echo "$*" | sed "s/ /||','||/g")
    tail -n +2 "$f" > "$TMP/body" && [ "$(q "SELECT count(*) FROM $t")" = "$(rows "$f")" ] &&
        [ "$(q "SELECT rows FROM sources WHERE file = '$(basename "$f")' AND tbl = '$t'")" = "$(rows "$f")" ] &&
        q "SELECT $cols FROM $t ORDER BY rowid" | cmp -s - "$TMP/body"
}
for spec in "products products.csv name name_n name_s n s i k" \
            "d2 d2.csv n s i target_n target_s value" \
            "massey massey-h0-h1.csv a b c_n c_s c n s value indeterminacy contains_zero" \
            "steenrod steenrod.csv name name_n name_s k n s j" "sq0 sq0.csv n s i k"; do
    set -- $spec
    table=$1 file=$2
    shift 2
    same_table "$table" "$D/$file" "$@"
    ok $? "table $table: the $(rows "$D/$file") rows of $file, line for line, and counted in sources"
done
[ "$(q 'SELECT count(*) FROM module_products')" = 0 ] && [ "$(q 'SELECT count(*) FROM maps')" = 0 ] &&
    [ "$(q 'SELECT count(*) FROM sources')" = 5 ]
ok $? "no module-products.csv, no maps.csv: module_products and maps are empty; sources lists the five files read"

# the Ext basis
dims=$(awk -F, 'NR > 1 { s += $3 } END { print s }' "$D/ext.csv")
tail -n +2 "$D/ext.csv" > "$TMP/ext"
[ "$(q 'SELECT count(*) FROM classes')" = "$dims" ] && q 'SELECT s, n, dim FROM ext' | cmp -s - "$TMP/ext"
ok $? "classes: $dims rows, the sum of ext.csv's dims; the view ext is ext.csv's rows"
[ "$(q 'SELECT count(*) FROM classes WHERE t != n + s OR idx < 0')" = 0 ] &&
    [ "$(q 'SELECT kind, stem, max_s, min_n, max_n FROM region')" = "stem,40,22,0,40" ]
ok $? "t = n + s everywhere; region: stem 40, s <= 22, stems 0..40"

# names and the h0, h1, h2 lines are the chart's (export --json)
$EXTFLOW export "$D" --json --out "$TMP/chart.json" &&
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
for n, s, i, name in d["names"]: print("%d,%d,%d,%s" % (n, s, i, name))' "$TMP/chart.json" | sort > "$TMP/jnames" &&
    q 'SELECT n, s, idx, name FROM classes WHERE name IS NOT NULL' | sort > "$TMP/dnames" &&
    [ -s "$TMP/dnames" ] && cmp -s "$TMP/jnames" "$TMP/dnames"
ok $? "classes.name: the chart's $(wc -l < "$TMP/dnames") names, no more, no fewer"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
for p in d["products"][:3]:
    for n, s, i, k in p["pairs"]: print("%s,%d,%d,%d,%d,%d,%d" % (p["name"], p["stem"], p["s"], n, s, i, k))' \
    "$TMP/chart.json" | sort > "$TMP/jlines" &&
    q 'SELECT name, name_n, name_s, n, s, i, k FROM h_products' | sort > "$TMP/dlines" &&
    [ -s "$TMP/dlines" ] && cmp -s "$TMP/jlines" "$TMP/dlines"
ok $? "h_products: the chart's $(wc -l < "$TMP/dlines") h0, h1, h2 lines"
for h in h0 h1; do
    d=$(q "SELECT count(*) FROM (SELECT n, s, i, k FROM h_products WHERE name = '$h'
                                EXCEPT SELECT n, s, i, k FROM products WHERE name = '$h')")
    l=$(q "SELECT count(*) FROM (SELECT n, s, i, k FROM products WHERE name = '$h'
                                EXCEPT SELECT n, s, i, k FROM h_products WHERE name = '$h')")
    [ "$d" = 0 ] && [ "$l" = 0 ] && [ "$(q "SELECT count(*) FROM products WHERE name = '$h'")" -gt 20 ]
    ok $? "$h: the lines read off the differentials are the products of its lifted chain map ($d, $l apart)"
done

# known values
[ "$(awk -F, '$1 == 3 && $2 == 8 { print $3 }' "$D/ext.csv")" = 1 ] &&
    [ "$(q "SELECT s + name_s, n + name_n, k FROM products WHERE name = 'h1' AND n = 8 AND s = 3 AND i = 0")" = \
      "$(q "SELECT s + name_s, n + name_n, k FROM products WHERE name = 'c0' AND n = 1 AND s = 1 AND i = 0")" ] &&
    [ "$(q "SELECT p.n + p.name_n, p.s + p.name_s, c.name FROM products p JOIN classes c
            ON c.n = p.n + p.name_n AND c.s = p.s + p.name_s AND c.idx = p.k
            WHERE p.name = 'h1' AND p.n = 8 AND p.s = 3 AND p.i = 0")" = "9,4,h1 c0" ]
ok $? "h1 · c0 = c0 · h1 is not zero, lands at (n=9, s=4) and is the class the chart names h1 c0"
[ "$(awk -F, '$1 == 2 && $2 == 14 { print $3 }' "$D/ext.csv")" = 1 ] &&
    [ "$(q "SELECT d.target_n, d.target_s, d.k FROM d2_terms d WHERE d.n = 15 AND d.s = 1 AND d.i = 0")" = \
      "$(q "SELECT n + name_n, s + name_s, k FROM h_products WHERE name = 'h0' AND n = 14 AND s = 2 AND i = 0")" ] &&
    [ -n "$(q "SELECT k FROM d2_terms WHERE n = 15 AND s = 1")" ]
ok $? "d2(h4) is h0 times the one class of (14, 2), h3^2: h0 h3^2 at (n=14, s=3)"
[ "$(q 'SELECT count(*) FROM d2_terms')" = "$(awk -F, 'NR > 1 { o += gsub(/1/, "", $6) } END { print o + 0 }' "$D/d2.csv")" ]
ok $? "d2_terms: one row per 1 of d2.csv's values ($(q 'SELECT count(*) FROM d2_terms'))"
[ "$(q "SELECT m.n, m.s, m.indeterminacy, m.contains_zero, c.name FROM massey m JOIN classes c
        ON c.n = m.n AND c.s = m.s AND c.idx = instr(m.value, '1') - 1 AND length(replace(m.value, '0', '')) = 1
        WHERE m.a = 'h0' AND m.b = 'h1' AND m.c_n = 0 AND m.c_s = 1 AND m.c = '1'")" = "2,2,,0,h1^2" ]
ok $? "<h0, h1, h0> = h1^2, with no indeterminacy"

# the Steenrod squares: Sq^0 on the h_j (sq0's Verschiebung), the squares of c0 (steenrod's
# cup-i products) against sseq's steenrod example, Sq^0 c0 by both constructions, Sq^s x = x^2
[ "$(q "SELECT a.name || '>' || b.name FROM sq0 q JOIN classes a ON a.n = q.n AND a.s = q.s AND a.idx = q.i
        JOIN classes b ON b.n = 2 * q.n + q.s AND b.s = q.s AND b.idx = q.k WHERE q.s = 1 ORDER BY q.n" | tr '\n' ' ')" = \
  "h0>h1 h1>h2 h2>h3 h3>h4 h4>h5 " ]
ok $? "Sq^0 h_j = h_(j+1) for j = 0..4, read off sq0 and the names"
alg=$(q "SELECT value FROM manifest WHERE key = 'algorithm'")
ref="$REF/products/steenrod-c_0-S_2-milnor"
[ "$alg" = nassau ] && ref="$REF/products/steenrod-c_0-S_2-nassau"
awk '/^Sq\^/ { k = substr($1, 4); gsub(/[][,]/, ""); for (j = 6; j <= NF; j++) if ($j == 1) print k "," 19 - k "," 3 + k "," j - 6 }' \
    "$ref" | sort > "$TMP/want" &&
    q "SELECT k, n, s, j FROM steenrod WHERE name = 'c0' AND name_n = 8 AND name_s = 3" | sort > "$TMP/got" &&
    [ "$(wc -l < "$TMP/got")" = 4 ] && cmp -s "$TMP/want" "$TMP/got"
ok $? "steenrod: Sq^0..Sq^3 c0 are sseq's $(basename "$ref") ($(tr '\n' ' ' < "$TMP/got"))"
[ "$(q "SELECT n, s, j FROM steenrod WHERE name = 'c0' AND k = 0")" = \
  "$(q "SELECT 2 * n + s, s, k FROM sq0 WHERE n = 8 AND s = 3 AND i = 0")" ] &&
    [ "$(q "SELECT c.name FROM steenrod st JOIN classes c ON c.n = st.n AND c.s = st.s AND c.idx = st.j
            WHERE st.name = 'c0' AND st.k = 0")" = "c1" ] && [ -n "$(q "SELECT j FROM steenrod WHERE name = 'c0' AND k = 0")" ]
ok $? "Sq^0 c0 by cup-i products is sq0's Sq^0 x_(8,3,0) (through the Verschiebung): x_(19,3,0), named c1"
[ "$(q "SELECT n, s, j FROM steenrod WHERE name = 'c0' AND k = 3")" = \
  "$(q "SELECT n + name_n, s + name_s, k FROM products WHERE name = 'c0' AND n = 8 AND s = 3 AND i = 0")" ] &&
    [ "$(q "SELECT c.name FROM steenrod st JOIN classes c ON c.n = st.n AND c.s = st.s AND c.idx = st.j
            WHERE st.name = 'h1' AND st.k = 1")" = "h1^2" ] &&
    [ "$(q "SELECT c.name FROM steenrod st JOIN classes c ON c.n = st.n AND c.s = st.s AND c.idx = st.j
            WHERE st.name = 'h2' AND st.k = 1")" = "h2^2" ]
ok $? "Sq^3 c0 = c0 · c0 (products), Sq^1 h1 = h1^2, Sq^1 h2 = h2^2"

# the manifest is run.json's keys and values
python3 -c 'import json, sys
def walk(k, v):
    if isinstance(v, dict):
        for a, b in v.items(): walk(k + "." + a if k else a, b)
    else: print("%s,%s" % (k, v))
walk("", json.load(open(sys.argv[1])))' "$D/run.json" | sort > "$TMP/jman" &&
    q 'SELECT key, value FROM manifest' | sort > "$TMP/dman" && [ "$(wc -l < "$TMP/dman")" -gt 10 ] &&
    cmp -s "$TMP/jman" "$TMP/dman" && [ "$(q "SELECT typeof(value) FROM manifest WHERE key = 'complete.stem'")" = integer ]
ok $? "manifest: run.json's $(wc -l < "$TMP/dman") keys (nested ones joined by .) and values, numbers as integers"

# atomic: a failed export leaves FILE as it was
cp -r "$D" "$TMP/bad" && echo 'h0,0,1,0,0' >> "$TMP/bad/products.csv" && cp "$DB" "$TMP/before.db"
$EXTFLOW export "$TMP/bad" --sqlite "$DB" 2>"$TMP/err"
[ $? -eq 1 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "products.csv line $(wc -l < "$TMP/bad/products.csv")" "$TMP/err" &&
    cmp -s "$DB" "$TMP/before.db" && [ -z "$(find "$TMP" -maxdepth 1 -name 's.db.tmp*')" ]
ok $? "a products.csv line that is no row: exit 1, one line naming it, FILE untouched, no temporary ($(cat "$TMP/err"))"
$EXTFLOW export "$D" --sqlite "$DB" && [ "$(q 'SELECT count(*) FROM products')" = "$(rows "$D/products.csv")" ]
ok $? "an export that succeeds replaces FILE"

# usage errors: one line (and the hint), exit 2, nothing written
mkdir "$TMP/empty"
$EXTFLOW export "$TMP/empty" --sqlite "$TMP/e.db" 2>"$TMP/err"
[ $? -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q run.json "$TMP/err" && [ ! -e "$TMP/e.db" ]
ok $? "a directory without a resolution: exit 2, one line ($(cat "$TMP/err"))"
$EXTFLOW export "$D" --sqlite "$TMP/no/such/dir/x.db" 2>"$TMP/err"
[ $? -eq 2 ] && head -1 "$TMP/err" | grep -q "no directory" && [ "$(tail -1 "$TMP/err")" = "try 'extflow help'" ]
ok $? "FILE's directory missing: a usage error, exit 2 ($(head -1 "$TMP/err"))"
$EXTFLOW export "$D" --sqlite "$DB" --json 2>"$TMP/err"
r1=$?
$EXTFLOW export "$D" --sqlite "$TMP" 2>>"$TMP/err"
r2=$?
$EXTFLOW export "$D" --sqlite 2>>"$TMP/err"
r3=$?
[ "$r1$r2$r3" = 222 ] && [ "$(grep -c '^extflow: ' "$TMP/err")" = 3 ] && [ "$(grep -c "^try 'extflow help'" "$TMP/err")" = 3 ]
ok $? "--sqlite with --json, a directory as FILE, no FILE: usage errors"

# modules: C2 with module-products.csv (unit: the sphere above), and C2[-2] (stems from -2)
M="$TMP/c2"
DB="$TMP/c2.db"
$EXTFLOW resolve --module C2 --stem 20 --out "$M" --quiet && $EXTFLOW products "$M" --unit "$D" --class i=0,0 --quiet &&
    $EXTFLOW export "$M" --sqlite "$DB" && same_table module_products "$M/module-products.csv" name name_n name_s n s i k &&
    [ "$(q "SELECT value FROM manifest WHERE key = 'module'")" = C2 ] && [ "$(q 'SELECT count(*) FROM products')" = 0 ]
ok $? "C2 (stem 20): module_products holds module-products.csv's $(rows "$M/module-products.csv") rows; manifest module C2"
echo '{"degree": 0, "images": {"x0": "x0", "x1": "x1"}}' > "$TMP/id.json" &&
    $EXTFLOW products "$M" --map id="$TMP/id.json" --quiet && $EXTFLOW export "$M" --sqlite "$DB" &&
    same_table maps "$M/maps.csv" name name_n name_s n s i k &&
    [ "$(q 'SELECT count(*) FROM maps')" = "$(q 'SELECT count(*) FROM classes')" ] &&
    [ "$(q "SELECT count(*) FROM maps m JOIN classes c ON c.n = m.n AND c.s = m.s AND c.idx = m.i
            WHERE m.name = 'id' AND m.name_n = 0 AND m.name_s = 0 AND m.k = m.i")" = "$(q 'SELECT count(*) FROM classes')" ]
ok $? "C2's identity map (products --map): maps holds maps.csv's $(rows "$M/maps.csv") rows, the identity of every class"
tail -n +2 "$M/ext.csv" > "$TMP/ext"
q 'SELECT s, n, dim FROM ext' | cmp -s - "$TMP/ext" && [ "$(q 'SELECT count(*) FROM classes WHERE name IS NOT NULL')" = 0 ] &&
    [ "$(q 'SELECT count(*) FROM h_products')" -gt 0 ]
ok $? "C2: the view ext is ext.csv's rows, no names (the sphere's only), h lines ($(q 'SELECT count(*) FROM h_products'))"
M="$TMP/c2s"
DB="$TMP/c2s.db"
$EXTFLOW resolve --module 'C2[-2]' --stem 10 --out "$M" --quiet && $EXTFLOW export "$M" --sqlite "$DB" &&
    tail -n +2 "$M/ext.csv" > "$TMP/ext" && q 'SELECT s, n, dim FROM ext' | cmp -s - "$TMP/ext" &&
    [ "$(q 'SELECT min(n), max(n) FROM classes')" = "-2,10" ] && [ "$(q 'SELECT stem, min_n FROM region')" = "10,-2" ] &&
    [ "$(q 'SELECT count(*) FROM h_products WHERE n < -2 OR n + name_n > 10')" = 0 ]
ok $? "C2[-2] (stem 10): stems in the module's degrees, -2..10, as ext.csv's"
done_testing

#!/bin/sh
# The interactive chart's data: `export --json` parses, has one class per dimension of
# ext.csv and chart.svg's h0/h1/h2 lines, reads products.csv and d2.csv, and chart.html
# embeds the same document; extflow products redraws chart.svg with the layers asked for and
# names the lifted classes in chart.html; extflow steenrod gives chart.html its Sq^1 layer
# (steenrod.csv's Sq^1 rows: Sq^1 h_j = h_j^2, Sq^1 c0 at (18, 4)).
. tests/lib.sh
plan 22
D="$TMP/r"
$EXTFLOW resolve --stem 20 --out "$D" --quiet
ok $? "resolve --stem 20"
$EXTFLOW export "$D" --json > "$TMP/a.json"
ok $? "export --json"
dims=$(awk -F, 'NR > 1 { s += $3 } END { print s }' "$D/ext.csv")
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["format"] == "extflow-chart"; print(len(d["classes"]))' \
    "$TMP/a.json" > "$TMP/n" 2>"$TMP/err"
[ "$(cat "$TMP/n")" = "$dims" ]
ok $? "the document parses and has $dims classes, the sum of ext.csv's dims ($(cat "$TMP/n") $(cat "$TMP/err"))"
svg_lines=$(grep '<line ' "$D/chart.svg" | grep -vc 'stroke-width')   # the legend's have a width
json_lines=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(sum(len(p["pairs"]) for p in d["products"]))' "$TMP/a.json")
[ "$svg_lines" = "$json_lines" ]
ok $? "its h0, h1, h2 pairs are chart.svg's lines ($json_lines, $svg_lines)"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
for name in ([1, 1, 0, "h1"], [0, 3, 0, "h0^3"], [2, 2, 0, "h1^2"], [6, 2, 0, "h2^2"], [17, 3, 0, "h1^2 h4"]):
    assert name in d["names"], name
for name in ([8, 3, 0, "c0"], [14, 4, 0, "d0"], [14, 2, 0, "h3^2"], [14, 3, 0, "h0 h3^2"], [9, 4, 0, "h1 c0"],
             [17, 4, 0, "e0"], [20, 4, 0, "g"], [9, 5, 0, "P h1"], [15, 5, 1, "h1 d0"]):
    assert name in d["names"], name     # standard names of the sphere (#43 item 9) and their h_j multiples
assert d["range"] == {"kind": "stem", "stem": 20, "max_s": 12, "max_n": 20}, d["range"]
assert d["d2"] is None' "$TMP/a.json"
ok $? "names h1, h0^3, h1^2, h2^2, h1^2 h4, c0, d0, e0, g, P h1, h3^2, h0 h3^2, h1 d0, the range, no d2 without d2.csv"
python3 -c 'import re, sys
page = open(sys.argv[1]).read()
sys.stdout.write(re.search(r"<script type=\"application/json\" id=\"extflow-data\">(.*?)</script>", page, re.S).group(1))' \
    "$D/chart.html" > "$TMP/embedded.json"
cmp -s "$TMP/embedded.json" "$TMP/a.json"
ok $? "chart.html embeds the same document"
! grep -Eq '(src|href)="(https?:)?//' "$D/chart.html" && ! grep -q '<link' "$D/chart.html"
ok $? "chart.html loads nothing from elsewhere"
$EXTFLOW export "$D" --json --out "$TMP/b.json" && cmp -s "$TMP/a.json" "$TMP/b.json"
ok $? "export --out FILE writes the same bytes"
printf 'name,name_n,name_s,n,s,i,k\nh3,7,1,7,1,0,0\nh3,7,1,15,5,0,0\nnonsense\n' > "$D/products.csv"
printf 'n,s,i,k\n15,1,0,0\n' > "$D/d2.csv"
$EXTFLOW export "$D" --json | python3 -c 'import json, sys; d = json.load(sys.stdin)
p = d["products"][3]
assert (p["name"], p["stem"], p["s"], p["source"], p["pairs"]) == ("h3", 7, 1, "products.csv", [[7, 1, 0, 0]]), p
assert d["ignored_rows"] == {"products.csv": 2, "d2.csv": 0, "sq0.csv": 0, "steenrod.csv": 0}, d["ignored_rows"]
assert d["sq0"] is None and d["sq1"] is None
assert d["d2"] == [[15, 1, 0, 0]], d["d2"]'
ok $? "products.csv and d2.csv become layers; a row naming a class outside the table and one that does not parse are ignored and counted"
printf 'name\n"</script><script>alert(1)</script>",7,1,7,1,0,0\n' > "$D/products.csv"
$EXTFLOW resolve --stem 20 --out "$D" --quiet && [ "$(grep -c '</script>' "$D/chart.html")" -eq 2 ] &&
    $EXTFLOW export "$D" --json | python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["products"][3]["name"].startswith("\"</script>")'
ok $? "a name with </script> is escaped: the page keeps its two script elements"
printf 'name\n\342\202\200tab\there,7,1,7,1,0,0\nbad\377byte,7,1,7,1,0,0\n' > "$D/products.csv"
$EXTFLOW export "$D" --json | python3 -c 'import json, sys; d = json.load(sys.stdin)
assert [p["name"] for p in d["products"][3:]] == ["\u2080tab\there", "bad\ufffdbyte"], d["products"][3:]'
ok $? "names keep their UTF-8 and tabs; a byte that is not UTF-8 becomes U+FFFD"
$EXTFLOW resolve --module C2 --stem 12 --out "$TMP/c2" --quiet &&
    $EXTFLOW export "$TMP/c2" --json > "$TMP/c2.json" &&
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert d["module"] == "C2" and d["names"] == [] and len(d["classes"]) == int(sys.argv[2]), (d["module"], d["names"])' \
    "$TMP/c2.json" "$(awk -F, 'NR > 1 { s += $3 } END { print s }' "$TMP/c2/ext.csv")"
ok $? "a module's directory (C2): export names the module, has one class per dimension and no h_j names"
# products draw in chart.svg (the layers asked for) and name classes in chart.html
P="$TMP/p"
$EXTFLOW resolve --stem 20 --out "$P" --quiet &&
    $EXTFLOW products "$P" --class c0=8,3 --class Ph1=9,5 --class h3 --chart-products h0,h1,c0 --quiet
ok $? "products with c0, Ph1, h3 and --chart-products h0,h1,c0"
c0_rows=$(grep -c '^c0,' "$P/products.csv")
[ "$c0_rows" -gt 2 ] && [ "$(grep '<line ' "$P/chart.svg" | grep -v stroke-width | grep -c 'class="c0"')" = "$c0_rows" ] &&
    [ "$(grep -c 'class="legend"' "$P/chart.svg")" = 3 ] && ! grep -q 'class="h2"\|class="h3"' "$P/chart.svg"
ok $? "chart.svg: one c0 line per row of products.csv ($c0_rows), a legend of h0, h1, c0, no h2 or h3 lines"
$EXTFLOW export "$P" --json | python3 -c 'import json, sys; d = json.load(sys.stdin)
for name in ([8, 3, 0, "c0"], [9, 4, 0, "h1 c0"], [9, 5, 0, "Ph1"], [10, 6, 0, "h1 Ph1"], [7, 1, 0, "h3"]):
    assert name in d["names"], name
assert [p["name"] for p in d["products"]] == ["h0", "h1", "h2", "c0", "Ph1", "h3"], d["products"]'
ok $? "chart.html names c0, h1 c0, Ph1, h1 Ph1 from the lifted classes, and has a layer for each"
# the Sq^1 layer: steenrod.csv's rows with k = 1, from the class (alone in its bidegree) to
# x_(2n+s-1, s+1, j); chart.html rewritten by steenrod
$EXTFLOW steenrod "$P" --class h0 --class h1 --class h2 --class h3 --class c0=8,3 --quiet &&
    python3 - "$P/chart.html" "$P/steenrod.csv" <<'PY'
import json, re, sys
d = json.loads(re.search(r'id="extflow-data">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
rows = [l.split(",") for l in open(sys.argv[2]).read().splitlines()[1:]]
want = [[int(r[1]), int(r[2]), 0, int(r[6])] for r in rows if r[3] == "1"]
assert all(int(r[4]) == 2 * int(r[1]) + int(r[2]) - int(r[3]) for r in rows)
assert d["sq1"] == want and len(want) == 5 and d["ignored_rows"]["steenrod.csv"] == 0, (d["sq1"], want)
assert [8, 3, 0, 1] in want, want                  # Sq^1 c0 = x_(18,4,1), sseq's steenrod example
names = {(n, s, i): name for n, s, i, name in d["names"]}
for n, s, i, k in want[:3]:                        # Sq^1 h_j = h_j^2 (Sq^s x = x^2 at s = 1; h3^2 is unnamed)
    assert names[(2 * n + s - 1, s + 1, k)] == names[(n, s, i)] + "^2", (n, s, names.get((2 * n + s - 1, s + 1, k)))
assert d["sq0"] is None
PY
ok $? "steenrod: chart.html's sq1 layer is steenrod.csv's Sq^1 rows (Sq^1 h_j = h_j^2 for j < 3, Sq^1 c0 = x_(18,4,1))"
cp "$P/steenrod.csv" "$TMP/steenrod.csv"
printf 'x,4,2,1,9,3,0\ny,1,1,1,3,2,0\nz,1,1\nw,40,1,1,80,2,0\n' >> "$P/steenrod.csv"   # (4,2) is zero; wrong target; short; outside
$EXTFLOW export "$P" --json | python3 -c 'import json, sys; d = json.load(sys.stdin)
assert len(d["sq1"]) == 5 and d["ignored_rows"]["steenrod.csv"] == 4, (d["sq1"], d["ignored_rows"])'
ok $? "steenrod.csv rows of a zero bidegree, a wrong target, too few fields, outside the table: ignored and counted; Sq^0, Sq^2, Sq^3 rows skipped"
cp "$TMP/steenrod.csv" "$P/steenrod.csv"
$EXTFLOW export "$D" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q -- "--json" "$TMP/err"
ok $? "export without --json is a usage error"
mkdir "$TMP/nothing"
$EXTFLOW export "$TMP/nothing" --json >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "run.json" "$TMP/err"
ok $? "export of a directory without a resolution is refused, exit 2, one line ($(head -1 "$TMP/err"))"
# export --text (what make run prints): a legend, panels of 35 stems with s and stem labels,
# at most 80 columns; one mark per non-zero bidegree of ext.csv
$EXTFLOW resolve --stem 70 --out "$TMP/s70" --quiet && $EXTFLOW export "$TMP/s70" --text > "$TMP/text" &&
    awk '{ n = 0; for (i = 1; i <= length($0); i++) { c = substr($0, i, 1); if (c < "\200" || c > "\277") n++ } if (n > 80) bad = 1 } END { exit bad }' "$TMP/text"
ok $? "export --text at stem 70: at most 80 columns ($(wc -l < "$TMP/text") lines; chart.txt's widest: $(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$TMP/s70/chart.txt") bytes)"
[ "$(grep -c '^  s -' "$TMP/text")" -eq 3 ] && grep -q '^ *0 \{9\}5 \{9\}10 ' "$TMP/text" && grep -q '^ *35 \{8\}40 ' "$TMP/text" &&
    grep -q "^ 37 |·$" "$TMP/text" && grep -q "chart.html" "$TMP/text"
ok $? "three panels (stems 0-34, 35-69, 70) with stem labels every 5 under their ticks, s labels, a pointer to chart.html"
[ "$(grep '^ *[0-9]* |' "$TMP/text" | sed 's/^ *[0-9]* |//' | grep -o '[^ ]' | wc -l)" -eq "$(awk -F, 'NR > 1 && $3 > 0' "$TMP/s70/ext.csv" | wc -l)" ] &&
    grep -q "export out/S_2 --text" Makefile
ok $? "one mark per non-zero bidegree of ext.csv; make run prints it"
done_testing

#!/bin/sh
# Derived tables carry their region (DIR/tables.json, schema/run-json.md): after resolve extends
# a directory, products.csv, d2.csv and sq0.csv computed before cover less than run.json's
# region; resolve says so in one line, export --json, chart.html, chart.svg and export --sqlite
# mark them partial, and rerunning their commands extends them. Also (#43 item 9) the chart's
# legend lists the h1 layer once after products --class h1, and chart.svg draws d2 in
# chart.html's green.
. tests/lib.sh
plan 10
D="$TMP/d"
$EXTFLOW resolve --stem 30 --out "$D" --quiet && $EXTFLOW d2 "$D" --quiet &&
    $EXTFLOW products "$D" --class h1 --class c0=8,3 --quiet && $EXTFLOW sq0 "$D" --quiet &&
    python3 - "$D/tables.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["tables"]
want = {"kind": "stem", "stem": 30, "max_s": 17}
sys.exit(0 if all(t.get(f) == want for f in ("d2.csv", "products.csv", "sq0.csv")) else 1)
PY
ok $? "d2, products and sq0 record the region they computed over in tables.json"
$EXTFLOW export "$D" --json | grep -q '^"partial":{}'
ok $? "over the same region nothing is partial"
$EXTFLOW resolve --stem 40 --out "$D" 2>"$TMP/err"
grep "cover less than" "$TMP/err" > "$TMP/line"
[ "$(wc -l < "$TMP/line")" -eq 1 ] && grep -q "d2.csv (stem 30 (s <= 17))" "$TMP/line" &&
    grep -q "products.csv (stem 30" "$TMP/line" && grep -q "sq0.csv (stem 30" "$TMP/line" &&
    grep -q "less than stem 40 (s <= 22)" "$TMP/line"
ok $? "resolve extending the directory names the tables left behind in one line ($(cut -c1-80 "$TMP/line"))"
$EXTFLOW export "$D" --json > "$TMP/doc.json" && python3 - "$TMP/doc.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["partial"]
sys.exit(0 if p == {"d2.csv": "stem 30 (s <= 17)", "products.csv": "stem 30 (s <= 17)",
                    "sq0.csv": "stem 30 (s <= 17)"} else 1)
PY
ok $? "export --json: \"partial\" names each with the region it covers"
grep -q '"partial":{"d2.csv":"stem 30 (s \\u003c= 17)"' "$D/chart.html" && grep -q '>d2 (partial)<' "$D/chart.svg"
ok $? "chart.html embeds the same, chart.svg's legend says d2 (partial)"
$EXTFLOW export "$D" --sqlite "$TMP/d.db" &&
    [ "$(sqlite3 "$TMP/d.db" "SELECT file || ':' || covers || ':' || partial FROM sources WHERE file = 'd2.csv'")" = "d2.csv:stem 30 (s <= 17):1" ]
ok $? "export --sqlite: sources says what d2.csv covers and that it is partial"
$EXTFLOW d2 "$D" --quiet && $EXTFLOW export "$D" --json | grep '^"partial":' > "$TMP/p" &&
    ! grep -q 'd2.csv' "$TMP/p" && grep -q 'sq0.csv' "$TMP/p" && ! grep -q '>d2 (partial)<' "$D/chart.svg" &&
    $EXTFLOW export "$D" --sqlite "$TMP/d2.db" && [ "$(sqlite3 "$TMP/d2.db" "SELECT partial FROM sources WHERE file = 'd2.csv'")" = 0 ]
ok $? "d2 rerun: d2.csv covers stem 40 and is no longer marked ($(cat "$TMP/p"))"
# products merged with an earlier run's rows keep the smaller region
$EXTFLOW products "$D" --class h2 --quiet && $EXTFLOW export "$D" --json | grep -q '"products.csv":"stem 30'
ok $? "products of another class, merged with the stem-30 rows: products.csv still partial"
grep -q 'stroke: #0a7a2f; stroke-dasharray: 4 2; marker-end' "$D/chart.svg" && grep -q '"#0a7a2f"' stages/out/chart.html &&
    ! grep -q '#d00' "$D/chart.svg"
ok $? "chart.svg draws d2 in chart.html's green (#0a7a2f)"
if command -v chromium > /dev/null 2>&1; then
    python3 tests/chart_browser.py legend "$D/chart.html" > "$TMP/legend" 2>"$TMP/err" && python3 - "$TMP/legend" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
labels = d["labels"]
h1 = [l for l in labels if l.startswith("h1 products")]
ok = len(h1) == 1 and not d["errors"] and any(l.startswith("Sq^0") and "partial: stem 30 (s <= 17)" in l for l in labels)
print(labels, file=sys.stderr)
sys.exit(0 if ok else 1)
PY
    ok $? "chart.html's legend: h1 once (products.csv's h1 is extflow's own), Sq^0 marked partial"
else
    ok 0 "chart.html's legend # SKIP chromium not installed"
fi
done_testing

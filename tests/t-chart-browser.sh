#!/bin/sh
# chart.html in a real browser (Debian's chromium, headless, driven over the DevTools protocol
# by tests/chart_browser.py): no console error, one dot per class, hover, layers, find, zoom,
# pan, export, an unstable run's heading (S^5's name), and the page of a real stem-160 run
# (how fast it draws is bench/chart's, not a test's: docs/perf.md, "Operations on Ext").
# Without chromium it skips, unless EXTFLOW_REQUIRE_BROWSER=1 (as .ci/run sets, after
# scripts/install-browser): then a missing browser fails.
. tests/lib.sh
need_browser
plan 18
mkdir -p "$TMP/r"    # optional layers: h3 · h3 and d2(h4) = h0 h3^2
printf 'name,name_n,name_s,n,s,i,k\nh3,7,1,7,1,0,0\n' > "$TMP/r/products.csv"
printf 'n,s,i,k\n15,1,0,0\n' > "$TMP/r/d2.csv"
$EXTFLOW resolve --stem 60 --out "$TMP/r" --quiet
ok $? "resolve --stem 60 (with a products.csv and a d2.csv)"
dims=$(awk -F, 'NR > 1 { s += $3 } END { print s }' "$TMP/r/ext.csv")
# each check once more if the first try fails: a loaded machine can starve the browser
python3 tests/chart_browser.py check "$TMP/r/chart.html" "$dims" > "$TMP/tap" 2>"$TMP/err" ||
    { diag "first try failed; once more"; sed 's/^/# /' "$TMP/tap" "$TMP/err";
      python3 tests/chart_browser.py check "$TMP/r/chart.html" "$dims" > "$TMP/tap" 2>"$TMP/err"; }
ok $? "chromium ran the checks ($(tail -1 "$TMP/err"))"
# the driver's own TAP lines, renumbered into this plan
while IFS= read -r line; do
    case $line in
        "ok "*) ok 0 "${line#ok * - }" ;;
        "not ok "*) ok 1 "${line#not ok * - }" ;;
    esac
done < "$TMP/tap"
# the page as it opens, against tests/ref/chart-stem60.png (made by the same command from
# these inputs): inside the plot (no text there at this size) at most 0.05% of the pixels may
# differ by more than a quarter of the grey scale; a missing h1 layer makes 0.2%
python3 tests/chart_browser.py shot "$TMP/r/chart.html" "$TMP/shot.png" 1100 600 > "$TMP/shot.json" 2>"$TMP/err" &&
    box=$(python3 -c 'import json, sys; print(*json.load(open(sys.argv[1]))["plot"])' "$TMP/shot.json") &&
    share=$(python3 tests/chart_browser.py differ "$REF/chart-stem60.png" "$TMP/shot.png" $box) &&
    python3 -c 'import sys; sys.exit(not float(sys.argv[1]) <= 0.0005)' "$share"
rc=$?
[ $rc -ne 0 ] && mkdir -p build && cp "$TMP/shot.png" build/chart-stem60-actual.png 2>/dev/null
ok $rc "the stem-60 screenshot matches tests/ref/chart-stem60.png (${share:-?} of the plot's pixels differ; limit 0.0005)"
# a class named by a lifted class: c0 at (8, 3), from extflow products
$EXTFLOW products "$TMP/r" --class c0=8,3 --quiet &&
    python3 tests/chart_browser.py hover "$TMP/r/chart.html" 8 3 0 > "$TMP/hover" 2>"$TMP/err" &&
    grep -q "x_(8,3,0) = c0" "$TMP/hover" && grep -q "bidegree (8, 3)" "$TMP/hover"
ok $? "after products --class c0=8,3, hovering the dot at (8,3) shows c0: $(head -c 160 "$TMP/hover" | tr '\n' ' ')"
# a module with classes in negative stems (C2[-2]): the first view fits them all in
$EXTFLOW resolve --quiet --module "C2[-2]" --stem 20 --out "$TMP/c2m2" 2>"$TMP/err" &&
    python3 tests/chart_browser.py shot "$TMP/c2m2/chart.html" "$TMP/c2m2.png" 900 500 > "$TMP/c2m2.json" 2>"$TMP/err" &&
    python3 -c 'import json, sys; p = json.load(open(sys.argv[1])); sys.exit(not (p["classes"] > 0 and p["dotsDrawn"] == p["classes"]))' "$TMP/c2m2.json"
ok $? "C2[-2] (stems from -2): every class drawn in the first view ($(cat "$TMP/c2m2.json" "$TMP/err" | cut -c1-60))"
# stem 160 of the sphere (8,225 classes, 10,005 lines): the document of a real run
# (tests/ref/chart-stem160.json) in today's page; the whole chart is in view, so nothing is
# culled (the worst case)
python3 tests/chart_browser.py inject "$TMP/r/chart.html" "$REF/chart-stem160.json" "$TMP/big.html" >/dev/null &&
    python3 tests/chart_browser.py perf "$TMP/big.html" > "$TMP/perf.json" 2>"$TMP/err"
python3 -c 'import json, sys; p = json.load(open(sys.argv[1])); sys.exit(not (p["dotsDrawn"] == 8225 and not p["errors"]))' "$TMP/perf.json"
ok $? "the stem-160 page loads and draws its 8225 classes with no console error ($(cat "$TMP/perf.json" "$TMP/err" | cut -c1-200))"
python3 -c 'import json, sys; p = json.load(open(sys.argv[1])); sys.exit(not (abs(p["pannedBy"][0] - 200) < 1 and abs(p["pannedBy"][1] - 60) < 1))' "$TMP/perf.json"
ok $? "and a drag of (200, 60) in 20 steps pans it by (200, 60)"
# an unstable run's page is S^n's unstable chart by its heading, title and line (a stable one's
# is the Adams chart of its module)
$EXTFLOW resolve --quiet --unstable --module "S_2[5]" --stem 12 --max-s 5 --out "$TMP/u5" 2>"$TMP/err" &&
    python3 tests/chart_browser.py heading "$TMP/u5/chart.html" > "$TMP/u5.json" 2>>"$TMP/err" &&
    python3 tests/chart_browser.py heading "$TMP/r/chart.html" > "$TMP/r.json" 2>>"$TMP/err"
python3 -c 'import json, sys
u, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert u["heading"] == "Unstable Adams chart of S^5 (S_2[5])" and u["title"].startswith(u["heading"]), u
assert u["meta"].startswith("Ext_U(S^5 (S_2[5])) over the unstable Steenrod algebra"), u
assert r["heading"] == "Adams chart" and r["meta"].startswith("Ext_A(S_2) ") and not u["errors"] + r["errors"], r' \
    "$TMP/u5.json" "$TMP/r.json" 2>>"$TMP/err"
ok $? "chart.html of S_2[5] --unstable: 'Unstable Adams chart of S^5', Ext_U; a stable one's unchanged $(cat "$TMP/err" | cut -c1-300)"
done_testing

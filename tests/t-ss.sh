#!/bin/sh
# extflow ss: the spectral sequence above E2 (docs/ss.md). sseq's editor scenario on S_2
# (tests/ref/ss/S_2-editor.save, in sseq's own save format: d2 on h4, d3 on h0h4, d2 on e0 and
# f0, 1 and c0 permanent, products by c0, Ph1, d0, g, product differentials on e0 and f0)
# over a resolution through stem 41 with d2 computed: the known pages of the literature, the
# propagated d3(h0^2 h4) = h0^2 d0, every page against an independent brute-force model
# (tests/ss_check.py), the history written back in extflow's spelling replays to the same
# tables, --deduce, and each kind of contradiction or bad input refused with its line, exit 2
# and nothing written.
. tests/lib.sh
plan 20
D="$TMP/s2"
H=tests/ref/ss/S_2-editor.save
$EXTFLOW resolve --stem 41 --out "$D" --quiet && $EXTFLOW d2 "$D" --quiet &&
    $EXTFLOW ss "$D" --history "$H" 2> "$TMP/err"
ok $? "ss replays sseq's editor history over stem 41 with d2 computed"
grep -q "^extflow: ss over $D: 12 facts given, [0-9]* propagated, [0-9]* computed" "$TMP/err" && [ "$(wc -l < "$TMP/err")" -le 2 ]
ok $? "one closing line says what was given, propagated and computed: $(tail -1 "$TMP/err")"
P="$D/ss/pages.csv"
page() { grep -c "^$1,$2,$3,$4\$" "$P"; }
[ "$(head -1 "$P")" = "r,n,s,dim" ] && [ "$(page 3 15 1 0)" = 1 ] && [ "$(page 2 15 1 1)" = 1 ] &&
    [ "$(page 3 14 3 0)" = 1 ] && [ "$(page 3 17 4 0)" = 1 ] && [ "$(page 3 16 6 0)" = 1 ] && [ "$(page 3 17 6 0)" = 1 ]
ok $? "E3: h4, h0h3^2, e0, h1^2d0 and h0^2e0 are gone (d2 h4 = h0h3^2, d2 e0 = h1^2d0, d2 f0 = h0^2e0)"
[ "$(page 4 15 2 0)" = 1 ] && [ "$(page 4 14 5 0)" = 1 ] && [ "$(page 3 15 2 1)" = 1 ] && [ "$(page 4 14 4 1)" = 1 ]
ok $? "E4: h0h4 and h0d0 are gone (d3 h0h4 = h0d0), d0 stays"
grep -q '^[0-9]*,3,15,3,1,14,6,1,propagated,h0 \* fact [0-9]*$' "$D/ss/differentials.csv" && [ "$(page 4 14 6 0)" = 1 ]
ok $? "d3(h0^2 h4) = h0^2 d0 is propagated by h0 from d3(h0h4), and kills h0^2 d0 on E4"
grep -q '^inf,0,0,1$' "$P" && grep -q '^inf,14,4,1$' "$P" && grep -q '^inf,15,1,0$' "$P" && ! grep -q '^inf,41,' "$P"
ok $? "E_inf settled at 1 (permanent), d0, h4 (dead); never in stem 41, whose sources lie beyond the region"
grep -q '^[0-9]*,8,3,1,given,line 8$' "$D/ss/permanent.csv" && grep -q ",9,4,1,propagated,h1 \* fact" "$D/ss/permanent.csv"
ok $? "permanent.csv: c0 given (line 8), h1 c0 propagated"
python3 tests/ss_check.py "$D" "$H" > "$TMP/check" 2>&1
ok $? "every page equals the independent brute-force model's (tests/ss_check.py)$( [ -s "$TMP/check" ] && printf ': %s' "$(tail -1 "$TMP/check")")"
mkdir -p "$TMP/first" && cp "$D"/ss/*.csv "$D/ss/history.jsonl" "$TMP/first/" &&
    head -1 "$D/ss/history.jsonl" | grep -q '^{"version":1,"action":{"Construct":' &&
    $EXTFLOW ss "$D" --history "$TMP/first/history.jsonl" --quiet && cmp -s "$TMP/first/pages.csv" "$P" &&
    cmp -s "$TMP/first/history.jsonl" "$D/ss/history.jsonl" &&
    sed 's/line [0-9]*$/line/' "$TMP/first/differentials.csv" > "$TMP/a" && sed 's/line [0-9]*$/line/' "$D/ss/differentials.csv" > "$TMP/b" &&
    cmp -s "$TMP/a" "$TMP/b"
ok $? "the history written back (version 1) replays to the same pages and differentials"
$EXTFLOW ss "$D" --history "$H" --deduce --quiet && grep -q '^(14,4) E2 1: settled, E_inf 1$' "$D/ss/deduce.txt" &&
    grep -q '^(15,4) E2 1: open; d_[0-9]* unknown' "$D/ss/deduce.txt" && grep -q '^fact [0-9]*: d_3 x_(15,3)\[1\] = x_(14,6)\[1\] (propagated by h0 from history line 4)$' "$D/ss/deduce.txt" &&
    $EXTFLOW ss "$D" --history "$H" --quiet && [ ! -e "$D/ss/deduce.txt" ]
ok $? "--deduce writes deduce.txt (settled, open with the page, the proof trail); a plain run removes it"
cp "$D"/ss/*.csv "$TMP/first/"
$EXTFLOW export "$D" --sqlite "$TMP/s2.db" &&
    python3 - "$TMP/s2.db" "$D/ss" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for table, f in (("ss_pages", "pages"), ("ss_differentials", "differentials"), ("ss_permanent", "permanent")):
    rows = [tuple(str(v) for v in r) for r in db.execute("SELECT * FROM %s ORDER BY rowid" % table)]
    csv = [tuple(l.rstrip("\n").split(",")) for l in open("%s/%s.csv" % (sys.argv[2], f))][1:]
    assert rows == csv, (table, rows[:3], csv[:3])
assert db.execute("SELECT count(*) FROM ss_pages WHERE r = 'inf'").fetchone()[0] > 0
PY
ok $? "export --sqlite: ss_pages, ss_differentials and ss_permanent hold the CSV files' rows"
# the chart's page selector, chosen as a user does: the filled dots of each page are pages.csv's
if command -v "${CHROMIUM:-chromium}" >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
    python3 tests/chart_browser.py pages "$D/chart.html" > "$TMP/pages.json" 2> "$TMP/err" &&
        python3 - "$TMP/pages.json" "$P" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))
assert not got["errors"], got["errors"]
want = {}
for line in list(open(sys.argv[2]))[1:]:
    r, n, s, d = line.strip().split(",")
    if int(d): want.setdefault(r, {})["%s,%s" % (n, s)] = int(d)
assert sorted(got["pages"]) == sorted(want), (sorted(got["pages"]), sorted(want))
for r in want:
    assert got["pages"][r]["live"] == want[r], r
    assert ("d%s" % r) in got["pages"][r]["layers"] or r in ("inf", "4"), (r, got["pages"][r]["layers"])
PY
    ok $? "chart.html's page selector shows E2, E3, E4 and E∞ dot for dot as pages.csv, each with its d_r arrows"
elif [ "${EXTFLOW_REQUIRE_BROWSER:-0}" = 1 ]; then ok 1 "chromium is installed (EXTFLOW_REQUIRE_BROWSER=1)"
else ok 0 "# SKIP no chromium"
fi
# refusals: one line naming the history line and both facts, exit 2, DIR/ss untouched
refused() {   # refused FILE PATTERN
    $EXTFLOW ss "$D" --history "$1" --quiet 2> "$TMP/err"
    rc=$?
    [ $rc -eq 2 ] && grep -q "$2" "$TMP/err" && cmp -s "$TMP/first/pages.csv" "$P" &&
        cmp -s "$TMP/first/differentials.csv" "$D/ss/differentials.csv"
}
dl() { printf '{"version":1,"action":{"AddDifferential":{"r":%s,"b":{"coords":[%s,%s]},"source":[%s],"target":[%s]}}}\n' "$@"; }
pl() { printf '{"version":1,"action":{"AddPermanentClass":{"b":{"coords":[%s,%s]},"class":[%s]}}}\n' "$@"; }
dl 2 15 1 1 0 > "$TMP/h1"
refused "$TMP/h1" "line 1 (AddDifferential) refused: a second value for the same class: d_2 x_(15,1)\[1\] = 0 (history line 1) contradicts d_2 x_(15,1)\[1\] = x_(14,3)\[1\] (computed by extflow d2)"
ok $? "d2(h4) = 0 contradicts the computed d2: refused naming both, nothing written"
{ dl 3 15 2 1 1; pl 15 2 1; } > "$TMP/h2"
refused "$TMP/h2" "line 2 (AddPermanentClass) refused: a permanent class supports a differential"
ok $? "h0h4 permanent after d3(h0h4) = h0d0: refused"
{ dl 3 15 2 1 1; dl 3 15 3 1 0; } > "$TMP/h3"
refused "$TMP/h3" "line 2 (AddDifferential) refused: Leibniz gives a second value.*propagated by h0 from history line 1.*history line 2"
ok $? "d3(h0^2h4) = 0 contradicts what h0 propagates from d3(h0h4): refused naming the propagated fact's origin"
dl 3 15 1 1 1 > "$TMP/h4"
refused "$TMP/h4" "line 1 (AddDifferential) refused: the source does not survive to this page"
ok $? "d3 on h4, which died on E3: refused"
{ pl 0 0 1; printf '{"version":1,"action":{"Remove":{}}}\n'; } > "$TMP/h5"
refused "$TMP/h5" "line 2: unknown action 'Remove'" && [ "$(wc -l < "$TMP/err")" -eq 2 ]
ok $? "an unknown action is refused by name (a usage error)"
printf '{"version":1,"action":{"Construct":{"algebra_name":"milnor","module_name":"C2"}}}\n' > "$TMP/h6"
refused "$TMP/h6" "the history is over C2, DIR holds S_2"
ok $? "a history over another module is refused"
dl 2 18 4 1 1 > "$TMP/h7" && refused "$TMP/h7" "the class at (18,4) has 1 coordinates, E2 there has dimension 2" &&
    dl 2 45 1 1 1 > "$TMP/h8" && refused "$TMP/h8" "(45,1) lies outside the resolved region"
ok $? "a vector of the wrong length, a class beyond the region: refused with the line"
C="$TMP/c2"
printf '{"version":1,"action":{"AddProductType":{"permanent":true,"b":{"coords":[0,0]},"class":[1],"name":"i"}}}\n' > "$TMP/h9"
$EXTFLOW resolve --module C2 --stem 12 --out "$C" --quiet && $EXTFLOW ss "$C" --quiet && [ -s "$C/ss/pages.csv" ] &&
    ! $EXTFLOW ss "$C" --history "$TMP/h9" --quiet 2> "$TMP/err" && grep -q 'product types need a DIR whose module is its own unit' "$TMP/err"
ok $? "over C2: pages without product types; a product type is refused (products over a module are not modelled)"
done_testing

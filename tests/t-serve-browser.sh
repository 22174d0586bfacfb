#!/bin/sh
# extflow serve in a real browser (Debian's chromium, headless, tests/chart_browser.py edit):
# sseq's editor scenario on S_2 through stem 24 entered as a user does (click a class, d, click
# the target; p; m with a name; D between two named classes; a group of two classes by its
# vector; Undo, Redo), then the page reloaded: its E2, E3, E4 and E∞ equal, dot for dot, what
# `extflow ss` computes from the history the server saved, which gives the same pages as
# tests/ref/ss/S_2-editor.save. Skips without chromium unless EXTFLOW_REQUIRE_BROWSER=1.
. tests/lib.sh
need_browser
plan 5
D="$TMP/s2"
$EXTFLOW resolve --stem 24 --out "$D" --quiet && $EXTFLOW d2 "$D" --quiet
ok $? "a resolution through stem 24 with d2"
$EXTFLOW serve "$D" --port 0 --quiet > "$TMP/serve.out" 2> "$TMP/serve.err" &
pid=$!
for _ in $(seq 300); do grep -q 'http://' "$TMP/serve.out" 2>/dev/null && break; sleep 0.1; done
URL=$(grep -o 'http://[^ ]*' "$TMP/serve.out")
python3 tests/chart_browser.py edit "$URL" > "$TMP/edit.json" 2> "$TMP/err"
ok $? "chromium ran the scenario$( [ -s "$TMP/err" ] && printf ': %s' "$(tail -1 "$TMP/err")")"
python3 - "$TMP/edit.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert not d["errors"], d["errors"]
want = [[k, k + 1] for k in range(12)] + [[12, 11], [11, 12]]
assert d["steps"] == want, d["steps"]
PY
ok $? "each of the 12 actions, the undo and the redo changed the server's history by one, with no error"
curl -s "${URL%%/\?*}/history?token=${URL##*token=}" > "$TMP/saved.jsonl"
kill -INT $pid; wait $pid
mkdir -p "$TMP/a" "$TMP/b" && for x in a b; do cp -r "$D/stages" "$D/run.json" "$D"/*.csv "$TMP/$x/"; done &&
    $EXTFLOW ss "$TMP/a" --history "$TMP/saved.jsonl" --quiet && $EXTFLOW ss "$TMP/b" --history tests/ref/ss/S_2-editor.save --quiet &&
    cmp -s "$TMP/a/ss/pages.csv" "$TMP/b/ss/pages.csv" && [ "$(wc -l < "$TMP/saved.jsonl")" -eq 12 ]
ok $? "the saved history (12 actions) gives extflow ss the pages of sseq's scenario file"
python3 - "$TMP/edit.json" "$TMP/a/ss/pages.csv" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))["pages"]
want = {}
for line in list(open(sys.argv[2]))[1:]:
    r, n, s, d = line.strip().split(",")
    if int(d): want.setdefault(r, {})["%s,%s" % (n, s)] = int(d)
assert sorted(got) == sorted(want) and all(got[r] == want[r] for r in want), (sorted(got), sorted(want))
assert {"2", "3", "4", "inf"} <= set(got)
PY
ok $? "the browser's E2, E3, E4 and E∞ equal extflow ss's pages from the saved file, dot for dot"
done_testing

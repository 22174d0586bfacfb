#!/bin/sh
# extflow serve: the editor's server (docs/ss.md, "The editor") under good and bad requests:
# the token (403 without, or with a wrong one), bad bodies (garbage: 400, an unknown action:
# 400, over 1 MiB: 413, a contradiction: 409 naming both facts) that change nothing, actions
# kept in DIR/ss/history.jsonl before the answer, two clients at once, undo and redo, a
# history loaded (sseq's save file) giving the same pages as `extflow ss` on it, a second
# server on the same DIR refused, kill -9 in the middle of a burst of actions losing nothing
# answered, and a restart where it was.
. tests/lib.sh
plan 19
D="$TMP/s2"
$EXTFLOW resolve --stem 41 --out "$D" --quiet && $EXTFLOW d2 "$D" --quiet
ok $? "a resolution through stem 41 with d2"
start() {   # start DIR: the server in the background; sets pid, URL, BASE, TOK
    : > "$TMP/serve.out"    # emptied here, not by the child's redirection: the loop below must not read the last server's address
    $EXTFLOW serve "$1" --port 0 --quiet > "$TMP/serve.out" 2> "$TMP/serve.err" &
    pid=$!
    for _ in $(seq 1200); do grep -q 'http://' "$TMP/serve.out" 2>/dev/null && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    URL=$(grep -o 'http://[^ ]*' "$TMP/serve.out")
    [ -n "$URL" ] || diag "serve $1 did not start ($(kill -0 $pid 2>/dev/null && echo 'still starting after 120 s' || echo 'it ended')): $(cat "$TMP/serve.err")"
    BASE=${URL%%/\?*}
    TOK=${URL##*token=}
}
post() {    # post PATH [BODY]: prints the status code, the answer in $TMP/ans
    curl -s -o "$TMP/ans" -w '%{http_code}' -X POST --data-binary "${2:-}" "$BASE$1?token=$TOK"
}
dl() { printf '{"version":1,"action":{"AddDifferential":{"r":%s,"b":{"coords":[%s,%s]},"source":[%s],"target":[%s]}}}' "$@"; }
pl() { printf '{"version":1,"action":{"AddPermanentClass":{"b":{"coords":[%s,%s]},"class":[%s]}}}' "$@"; }
H="$D/ss/history.jsonl"
start "$D"
[ -n "$TOK" ] && [ ${#TOK} -eq 32 ] && grep -q "^extflow: serve: $D on http://127.0.0.1:[0-9]*/?token=" "$TMP/serve.out" && [ -f "$H" ]
ok $? "serve prints its address on 127.0.0.1 with a 32-digit token"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/")" = 403 ] && [ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/?token=0$TOK")" = 403 ] &&
    [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST --data "$(pl 0 0 1)" "$BASE/action?token=${TOK%?}x")" = 403 ] && [ ! -s "$H" ]
ok $? "no token, a wrong token: 403, nothing changed"
[ "$(curl -s -o "$TMP/page" -w '%{http_code}' "$URL")" = 200 ] && grep -q 'id="extflow-data"' "$TMP/page" && grep -q 'ssbar' "$TMP/page"
ok $? "with the token: the chart with the editor"
cp "$H" "$TMP/h0"
[ "$(post /action 'garbage')" = 400 ] && grep -q 'not JSON' "$TMP/ans" &&
    [ "$(post /action '{"version":1,"action":{"Remove":{}}}')" = 400 ] && grep -q "unknown action 'Remove'" "$TMP/ans" &&
    [ "$(post /action '{"version":7,"action":{"Resolve":{"max_degree":3}}}')" = 400 ] && cmp -s "$TMP/h0" "$H"
ok $? "garbage, an unknown action, another version: 400 with the reason, nothing changed"
head -c 1100000 /dev/zero | tr '\0' ' ' > "$TMP/big"
[ "$(curl -s -o "$TMP/ans" -w '%{http_code}' -X POST --data-binary @"$TMP/big" "$BASE/action?token=$TOK")" = 413 ] && cmp -s "$TMP/h0" "$H"
ok $? "a body over 1 MiB: 413, nothing changed"
[ "$(post /action "$(dl 2 15 1 1 0)")" = 409 ] && grep -q 'contradicts d_2 x_(15,1)\[1\] = x_(14,3)\[1\] (computed by extflow d2)' "$TMP/ans" && cmp -s "$TMP/h0" "$H"
ok $? "a contradiction: 409 naming both facts, nothing changed"
[ "$(post /action "$(dl 3 15 2 1 1)")" = 200 ] && grep -q '"AddDifferential":{"r":3,"b":{"coords":\[15,2\]}' "$H" &&
    grep -q '^[0-9]*,3,15,3,1,14,6,1,propagated,h0' "$D/ss/differentials.csv"
ok $? "an action accepted: in history.jsonl and its propagation in DIR/ss/ before the answer"
# two clients at once: both answered 200, both kept
post /action "$(pl 0 0 1)" > "$TMP/c1" & c1=$!
post /action "$(pl 8 3 1)" > "$TMP/c2" & c2=$!
wait $c1 $c2
[ "$(cat "$TMP/c1")" = 200 ] && [ "$(cat "$TMP/c2")" = 200 ] && [ "$(wc -l < "$H")" -eq 3 ] &&
    grep -q '"coords":\[0,0\]' "$H" && grep -q '"coords":\[8,3\]' "$H"
ok $? "two clients at once: both accepted, both kept"
cp "$H" "$TMP/h3"
[ "$(post /undo)" = 200 ] && [ "$(wc -l < "$H")" -eq 2 ] && [ "$(post /redo)" = 200 ] && cmp -s "$TMP/h3" "$H" &&
    [ "$(post /redo)" = 409 ] && curl -s "$BASE/state?token=$TOK" | grep -q '"actions":3,"redo":0'
ok $? "undo drops the last action from history.jsonl, redo brings it back, a redo too many: 409"
$EXTFLOW serve "$D" --port 0 > "$TMP/second.out" 2> "$TMP/second.err"
[ $? -eq 4 ] && grep -q "in use" "$TMP/second.err"
ok $? "a second server on the same DIR is refused (exit 4: DIR is held)"
[ "$(curl -s -o "$TMP/ans" -w '%{http_code}' -X POST --data-binary @tests/ref/ss/S_2-editor.save "$BASE/load?token=$TOK")" = 200 ] &&
    [ "$(wc -l < "$H")" -eq 12 ] && curl -s "$BASE/history?token=$TOK" | cmp -s - "$H"
ok $? "sseq's save file loaded: its 12 actions are the history (GET /history gives it back)"
mkdir -p "$TMP/batch" && cp -r "$D/stages" "$TMP/batch/" && cp "$D"/*.csv "$D/run.json" "$TMP/batch/" &&
    $EXTFLOW ss "$TMP/batch" --history "$H" --quiet &&
    cmp -s "$TMP/batch/ss/pages.csv" "$D/ss/pages.csv"
ok $? "extflow ss on the saved history computes the server's pages.csv"
[ "$(post /load "$(dl 2 15 1 1 0)")" = 409 ] && [ "$(wc -l < "$H")" -eq 12 ]
ok $? "a history that contradicts d2 is refused whole: 409, the old history kept"
# kill -9 during a burst of actions: every action answered 200 is in the history after a restart
cp "$H" "$TMP/before"
for c in "$(pl 9 5 1)" "$(pl 20 4 1)" "$(pl 14 4 1)" "$(pl 3 1 1)" "$(pl 7 1 1)"; do
    curl -s -o /dev/null -w '%{http_code}\n' -X POST --data-binary "$c" "$BASE/action?token=$TOK" >> "$TMP/codes" &
done
sleep 0.3
kill -9 $pid
wait 2>/dev/null
n200=$(grep -c '^200$' "$TMP/codes")
ls "$D/ss" | grep -q 'tmp' && diag "temporaries: $(ls "$D/ss")"
start "$D"
lines=$(curl -s "$BASE/history?token=$TOK" | wc -l)
[ "$lines" -ge $((12 + n200)) ] || diag "codes: $(tr '\n' ' ' < "$TMP/codes"); $H: $(wc -l < "$H") lines; DIR/ss: $(ls "$D/ss" | tr '\n' ' ')"
[ -n "$TOK" ] && [ "$lines" -ge $((12 + n200)) ] && [ "$lines" -le 17 ] && head -12 "$H" | cmp -s - "$TMP/before"
ok $? "kill -9 mid-burst: a restart has every answered action ($n200 answered, $lines lines) and the earlier ones unchanged"
[ "$(post /action "$(pl 0 1 1)")" = 200 ]
ok $? "the restarted server takes actions"
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && grep -q "stopped by SIGINT; $((lines + 1)) actions kept in $H" "$TMP/serve.err"
ok $? "Ctrl-C stops it with one line and exit 130"
# resolve further: in the background, d2 too, then the history replayed over the larger region
R="$TMP/small"
$EXTFLOW resolve --stem 16 --out "$R" --quiet && $EXTFLOW d2 "$R" --quiet && start "$R" &&
    [ "$(post /action "$(dl 3 15 2 1 1)")" = 200 ] && [ "$(post /resolve '{"stem":"x"}')" = 400 ] &&
    [ "$(post /resolve '{"stem":12}')" = 409 ] && [ "$(post /resolve '{"stem":26}')" = 202 ]
ok $? "resolve further: a bad stem 400, a smaller one 409, stem 26 accepted (202)"
for _ in $(seq 3000); do curl -s "$BASE/state?token=$TOK" > "$TMP/state"; grep -q '"resolving"' "$TMP/state" || break; sleep 0.1; done
grep -q '"resolved":"resolved to stem 26, d2 computed"' "$TMP/state" || diag "state: $(cat "$TMP/state")"
awk -F, '$2 == 26' "$R/ext.csv" | grep -q . && grep -q '^2,25,' "$R/ss/pages.csv" && grep -q '^23,' "$R/d2.csv" 2>/dev/null; r1=$?
grep -q '^[0-9]*,2,2[0-9],' "$R/ss/differentials.csv" && [ "$(wc -l < "$R/ss/history.jsonl")" -eq 1 ] &&
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL")" = 200 ] && [ $r1 -eq 0 ]
ok $? "resolved to stem 26 with d2 in the background: the tables cover it, the history is kept, the page is served again"
kill -TERM $pid; wait $pid
done_testing

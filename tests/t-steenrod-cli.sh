#!/bin/sh
# extflow steenrod and sq0 from the command line: sseq's steenrod-c_0-S_2 and sq0-milnor
# byte for byte (both algorithms, the Yoneda line included), the Yoneda representatives of g and r
# with the dimensions of sseq's yoneda examples, steenrod.csv and sq0.csv agreeing with the texts,
# chart.html's Sq^0 and Sq^1 layers, a rerun without --sseq-formats removing the texts, and bad arguments
# refused with one line and exit 2; --time-limit; --basis adem against sseq's steenrod-c_0-S_2-adem.
. tests/lib.sh
plan 29
P="$REF/products"

for alg in standard nassau; do
    D="$TMP/s-$alg"
    ref="$P/steenrod-c_0-S_2-milnor"
    [ $alg = nassau ] && ref="$P/steenrod-c_0-S_2-nassau"
    $EXTFLOW resolve --algorithm $alg --stem 30 --max-s 7 --out "$D" --quiet &&
        $EXTFLOW steenrod "$D" --class c0=8,3 --sseq-formats --quiet &&
        tail -n +2 "$ref" | cmp -s - "$D/steenrod-c0.txt"
    ok $? "$alg: steenrod-c0.txt equals sseq's $(basename "$ref") byte for byte (Yoneda line included)"
    $EXTFLOW sq0 "$D" --sseq-formats --quiet && tail -n +2 "$P/sq0-milnor" | cmp -s - "$D/sq0.txt"
    ok $? "$alg: sq0.txt equals sseq's sq0-milnor (30, 7) byte for byte"
done
# the Yoneda representatives of g (20, 4) and r (30, 6) have the dimensions of sseq's yoneda example
yoneda_dims() {   # yoneda_dims REF: "1 d_0 .. d_s" from sseq's "Dimension of kth module is d_k" lines
    printf 'Dimensions of Yoneda representative: 1'
    awk 'NR > 1 { printf " %s", $NF }' "$1"
    echo
}
for run in "standard 44 8 g=20,4 yoneda-g-S_2-milnor" "nassau 44 8 g=20,4 yoneda-g-S_2-nassau" \
           "standard 60 12 r=30,6 yoneda-r-S_2-milnor"; do
    set -- $run
    D="$TMP/y-$1-$2"
    $EXTFLOW resolve --algorithm $1 --stem $2 --max-s $3 --out "$D" --quiet
    : > "$TMP/dims"
    $EXTFLOW steenrod "$D" --class $4 --sseq-formats --quiet && head -1 "$D/steenrod-${4%%=*}.txt" > "$TMP/dims" &&
        yoneda_dims "$P/$5" | cmp -s - "$TMP/dims"
    ok $? "$1: the Yoneda line of ${4%%=*} has the dimensions of sseq's $5: $(cat "$TMP/dims")"
done
# --time-limit: a run stopped there writes nothing (exit 3, one line); one that ends in time
# writes the table of a run without a limit (r takes about a second: either may happen)
R="$TMP/y-standard-60"
cp "$R/steenrod.csv" "$TMP/r.csv"
$EXTFLOW steenrod "$R" --class r=30,6 --time-limit 1 --quiet 2>"$TMP/err"
rc=$?
if [ $rc -eq 3 ]; then
    [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "stopped at the time limit.*no table was written" "$TMP/err" &&
        cmp -s "$R/steenrod.csv" "$TMP/r.csv"
else
    [ $rc -eq 0 ] && cmp -s "$R/steenrod.csv" "$TMP/r.csv"
fi
ok $? "--time-limit 1: exit $rc, $([ $rc -eq 3 ] && echo 'one line, steenrod.csv untouched' || echo 'the same table')"
D="$TMP/s-nassau"
# steenrod.csv against the text: every coefficient 1 is a row
python3 - "$D/steenrod-c0.txt" "$D/steenrod.csv" <<'PY'
import re, sys
rows = set()
for line in open(sys.argv[1]).read().splitlines()[1:]:
    m = re.match(r"Sq\^(\d+) x_\(8, 3, 0\) = \[([0-9, ]*)\]$", line)
    k = int(m.group(1))
    for j, b in enumerate(m.group(2).split(", ")):
        if b == "1": rows.add("c0,8,3,%d,%d,%d,%d" % (k, 19 - k, 3 + k, j))
lines = open(sys.argv[2]).read().splitlines()
sys.exit(0 if lines[0] == "name,name_n,name_s,k,n,s,j" and set(lines[1:]) == rows and len(rows) == 4 else 1)
PY
ok $? "steenrod.csv has a row per coefficient 1 of the text"
python3 - "$D/sq0.txt" "$D/sq0.csv" <<'PY'
import re, sys
rows = []
for line in open(sys.argv[1]):
    m = re.match(r"Sq\^0 x_\((\d+), (\d+), (\d+)\) = \[([0-9, ]*)\]$", line.strip())
    for j, b in enumerate(m.group(4).split(", ") if m.group(4) else []):
        if b == "1": rows.append("%s,%s,%s,%d" % (m.group(1), m.group(2), m.group(3), j))
lines = open(sys.argv[2]).read().splitlines()
sys.exit(0 if lines[0] == "n,s,i,k" and lines[1:] == rows and len(rows) > 20 else 1)
PY
ok $? "sq0.csv has a row per coefficient 1 of sq0.txt, in its order"
cp "$D/steenrod-c0.txt" "$TMP/c0.txt" 2>/dev/null
$EXTFLOW steenrod "$D" --class c0=8,3 --class h1 --class iota=0,0 --quiet &&
    cmp -s "$TMP/c0.txt" "$D/steenrod-c0.txt" && [ ! -e "$D/steenrod-h1.txt" ] && grep -q '^h1,1,1,0,3,1,0$' "$D/steenrod.csv" &&
    grep -q '^h1,1,1,1,2,2,0$' "$D/steenrod.csv" && grep -q '^iota,0,0,0,0,0,0$' "$D/steenrod.csv" &&
    grep -q '^c0,8,3,0,19,3,0$' "$D/steenrod.csv"
ok $? "several classes: Sq^0 h1 = h2, Sq^1 h1 = h1^2, Sq^0 1 = 1, Sq^0 c0 = c1; the old text kept current, no new one"
cp "$D/sq0.txt" "$TMP/sq0.txt"
$EXTFLOW sq0 "$D" --quiet && cmp -s "$TMP/sq0.txt" "$D/sq0.txt" && [ -s "$D/sq0.csv" ]
ok $? "sq0 without --sseq-formats keeps sq0.txt (rewritten, the same)"
# chart.html's Sq^0 layer: sq0.csv's rows, and the hover text where a browser is installed
python3 - "$D/chart.html" "$D/sq0.csv" <<'PY'
import json, re, sys
doc = json.loads(re.search(r'id="extflow-data">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
rows = [[int(v) for v in line.split(",")] for line in open(sys.argv[2]).read().splitlines()[1:]]
sys.exit(0 if doc["sq0"] == rows and doc["ignored_rows"]["sq0.csv"] == 0 and [8, 3, 0, 0] in rows else 1)
PY
ok $? "chart.html's document has sq0.csv's $(($(wc -l < "$D/sq0.csv") - 1)) rows as its sq0 layer"
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
    python3 tests/chart_browser.py hover "$D/chart.html" 8 3 0 > "$TMP/hover" 2>/dev/null &&
        grep -qx 'Sq^0(c0) = c1' "$TMP/hover" && grep -qx 'Sq^1(c0) = x_(18,4,1)' "$TMP/hover"
    ok $? "hovering c0 in chart.html says Sq^0(c0) = c1 and Sq^1(c0) = x_(18,4,1) (the standard names, #43 item 9)"
else
    ok 0 "# SKIP no chromium for the hover"
fi

usage() {   # usage DESCRIPTION ARGS...: exit 2 and one line on stderr before "try"
    what=$1
    shift
    $EXTFLOW "$@" 2>"$TMP/err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(grep -vc '^try ' "$TMP/err")" -eq 1 ]
    ok $? "$what: exit $rc, $(head -1 "$TMP/err")"
}
usage "a class outside the region" steenrod "$D" --class x=40,2
usage "a class of a zero group" steenrod "$D" --class x=4,4
usage "a class with the wrong number of coordinates" steenrod "$D" --class x=18,4,[1]
usage "bad syntax" steenrod "$D" --class x=8,three
usage "no Sq^k in range" steenrod "$D" --class x=15,5,11
usage "no --class" steenrod "$D"
usage "a bad --time-limit" sq0 "$D" --time-limit soon
usage "a bad --time-limit (steenrod)" steenrod "$D" --class c0=8,3 --time-limit soon
usage "a bad --memory" sq0 "$D" --memory lots
usage "an unknown basis" steenrod "$D" --class c0=8,3 --basis serre
for cmd in steenrod sq0; do
    $EXTFLOW $cmd --help > "$TMP/out" 2>"$TMP/err" && grep -q "^  $cmd " "$TMP/out" && [ ! -s "$TMP/err" ]
    ok $? "$cmd --help: the help on stdout, exit 0"
done
$EXTFLOW resolve --module C2 --stem 10 --out "$TMP/C2" --quiet
usage "a module's DIR (steenrod)" steenrod "$TMP/C2" --class i=0,0
usage "a module's DIR (sq0)" sq0 "$TMP/C2"
# --basis adem: sseq's S_2@adem (its resolution and E over the admissible basis): the text
# byte for byte, the table steenrod-adem.csv; steenrod.csv and chart.html as they were
cp "$D/steenrod.csv" "$TMP/st.csv" && cp "$D/chart.html" "$TMP/chart.html"
$EXTFLOW steenrod "$D" --class c0=8,3 --basis adem --sseq-formats --quiet &&
    tail -n +2 "$P/steenrod-c_0-S_2-adem" | cmp -s - "$D/steenrod-c0.txt" &&
    awk -F'[][]' 'NR > 1 { k = substr($1, 4) + 0; n = split($2, b, ", ")
        for (j = 1; j <= n; j++) if (b[j] == 1) printf "c0,8,3,%d,%d,%d,%d\n", k, 19 - k, 3 + k, j - 1 }' \
        "$D/steenrod-c0.txt" | sort > "$TMP/want" && tail -n +2 "$D/steenrod-adem.csv" | sort | cmp -s - "$TMP/want" &&
    [ "$(wc -l < "$TMP/want")" -eq 5 ] &&
    cmp -s "$D/steenrod.csv" "$TMP/st.csv" && cmp -s "$D/chart.html" "$TMP/chart.html"
ok $? "--basis adem: steenrod-c0.txt equals sseq's steenrod-c_0-S_2-adem byte for byte (1 4 5 3 1, Sq^1 c0 = [1, 1]); steenrod-adem.csv has a row per coefficient 1 of the text; steenrod.csv and chart.html untouched"
done_testing

#!/bin/sh
# extflow yoneda from the command line: sseq's yoneda outputs byte for byte (g at (20, 4) over the
# standard and Nassau resolutions, r at (30, 6) over the standard one, and both over sseq's
# admissible basis, --basis adem), yoneda-NAME.csv adding up
# to the text's dimensions with Euler characteristic 1, the line on stdout, and bad arguments
# refused with one line and exit 2. The identities the representative is checked against (and
# that the check catches a wrong one) are tests/t-yoneda.c's.
. tests/lib.sh
plan 26
P="$REF/products"

for run in "standard 44 8 g=20,4 yoneda-g-S_2-milnor milnor" "nassau 44 8 g=20,4 yoneda-g-S_2-nassau milnor" \
           "standard 60 12 r=30,6 yoneda-r-S_2-milnor milnor" "standard 44 8 g=20,4 yoneda-g-S_2-adem adem" \
           "standard 60 12 r=30,6 yoneda-r-S_2-adem adem"; do
    set -- $run
    D="$TMP/y-$1-$2"
    name=${4%%=*}
    [ -d "$D" ] || $EXTFLOW resolve --algorithm $1 --stem $2 --max-s $3 --out "$D" --quiet
    [ $6 = adem ] && cp -r "$D" "$D-adem" && D="$D-adem"   # (its texts apart from the Milnor basis's)
    $EXTFLOW yoneda "$D" --class $4 --basis $6 --sseq-formats --quiet > "$TMP/out" &&
        tail -n +2 "$P/$5" | cmp -s - "$D/yoneda-$name.txt"
    ok $? "$1, --basis $6: yoneda-$name.txt equals sseq's $5 byte for byte: $(awk '{ printf "%s ", $NF }' "$D/yoneda-$name.txt")"
    # the table: dim E_k(t) rows adding up to the text's totals, alternating sum 1
    awk -F, 'NR == FNR { if (FNR > 1) { tot[$1] += $3; eu += ($1 % 2 ? -$3 : $3) } next }
             { m = split($0, w, " "); if (w[m] != tot[FNR - 1]) bad = 1; n++ } END { exit !(n > 0 && !bad && eu == 1) }' \
        "$D/yoneda-$name.csv" "$D/yoneda-$name.txt"
    ok $? "$1, --basis $6: yoneda-$name.csv's rows add up to the text's dimensions, with Euler characteristic 1"
    dims=$(awk '{ printf " %s", $NF }' "$D/yoneda-$name.txt")
    grep -q "^$name (n=.*): dim E_0..E_[0-9]* =$dims; exact" "$TMP/out"
    ok $? "$1, --basis $6: stdout says the same dimensions and that the check passed"
done
D="$TMP/y-standard-44"
head -1 "$D/yoneda-g.csv" | grep -qx 'k,t,dim' && grep -q '"yoneda-g.csv"' "$D/tables.json"
ok $? "yoneda-g.csv has its header, and tables.json records its region"
cp "$D/yoneda-g.txt" "$TMP/g.txt"
$EXTFLOW yoneda "$D" --class g=20,4 --class h1h4=16,2 --quiet > /dev/null &&
    cmp -s "$TMP/g.txt" "$D/yoneda-g.txt" && [ ! -e "$D/yoneda-h1h4.txt" ] && [ -s "$D/yoneda-h1h4.csv" ]
ok $? "two classes: a rerun without --sseq-formats keeps yoneda-g.txt current, writes no new text"

refused "a class outside the region" yoneda "$D" --class x=50,2
refused "a zero class" yoneda "$D" --class x=18,4,[0,0]
refused "a class with the wrong number of coordinates" yoneda "$D" --class x=18,4,[1]
refused "bad syntax" yoneda "$D" --class x=8,three
refused "no --class" yoneda "$D"
refused "an unknown basis" yoneda "$D" --class g=20,4 --basis serre
$EXTFLOW resolve --stem 30 --max-s 5 --out "$TMP/short" --quiet
refused "E needs row 0 beyond the region" yoneda "$TMP/short" --class h4_2=30,2
$EXTFLOW resolve --module C2 --stem 10 --out "$TMP/C2" --quiet
refused "a module's DIR" yoneda "$TMP/C2" --class i=0,0
$EXTFLOW yoneda --help > "$TMP/out" 2>"$TMP/err" && grep -q "^  yoneda " "$TMP/out" && [ ! -s "$TMP/err" ]
ok $? "yoneda --help: the help on stdout, exit 0"
done_testing

#!/bin/sh
# Memory follows the work asked, not the largest t: the h0 tower (stem 5, s <= 1000) and
# `algebra --max-degree 1000` finish under a 2 GB address-space cap in seconds; a region whose
# fixed tables alone exceed the machine's memory is refused at once (exit 2, one line, nothing
# created) instead of being killed by the OOM killer.
. tests/lib.sh
if ldd "$EXTFLOW" | grep -q libasan; then      # its shadow memory cannot live under ulimit -v
    echo "1..0 # SKIP AddressSanitizer cannot run under an address-space cap"
    exit 0
fi
plan 9
capped() { ( ulimit -v 2000000; exec timeout 60 "$@" ); }
capped $EXTFLOW resolve --stem 5 --max-s 1000 --out "$TMP/tower" --quiet 2>"$TMP/err"
ok $? "resolve --stem 5 --max-s 1000 under ulimit -v 2 GB exits 0 ($(head -c 150 "$TMP/err"))"
[ "$(awk -F, '$2 == 0 && $3 == 1' "$TMP/tower/ext.csv" | wc -l)" -eq 1001 ]
ok $? "ext.csv has the h0 tower: dim 1 at n = 0 for every s = 0..1000"
awk -F, 'NR > 1 && $2 > 0' "$TMP/tower/ext.csv" | tr '\n' ' ' | grep -qx '1,1,1 1,3,1 2,2,1 2,3,1 3,3,1 '
ok $? "and stems 1..5 hold h1, h2, h1^2, h0 h2, h1^3 (Lin's table)"
capped $EXTFLOW verify "$TMP/tower" >"$TMP/verify" 2>&1
ok $? "verify of that directory under the same cap: $(tail -1 "$TMP/verify" | cut -c1-100)"
capped $EXTFLOW algebra --max-degree 1000 >"$TMP/dims" 2>"$TMP/err"
ok $? "algebra --max-degree 1000 under the cap exits 0"
[ "$(sed -n '2p;1002p' "$TMP/dims" | tr '\n' ' ')" = "0,1 1000,44176121 " ]
ok $? "its first and last rows: 0,1 and 1000,44176121"
capped $EXTFLOW algebra --max-degree 2046 | tail -1 | grep -qx '2046,3916110041'
ok $? "algebra --max-degree 2046: 2046,3916110041"
capped $EXTFLOW resolve --stem 1000 --max-s 5 --out "$TMP/huge" --quiet 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "needs .* GiB" "$TMP/err"
ok $? "resolve --stem 1000 (Milnor tables ~300 GiB): exit 2 ($rc), one line: $(cut -c1-100 "$TMP/err")"
[ ! -e "$TMP/huge" ]
ok $? "nothing created for the refused run"
done_testing

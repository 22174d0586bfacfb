#!/bin/sh
# Finite modules (--module NAME|FILE, docs/modules.md): the shipped modules against reference
# Ext tables through stem 20, S_2 from a file against the built-in sphere, bad module files
# refused with exit 2 and one line, and a directory of one module refused to another.
. tests/lib.sh
plan 67
res() { $EXTFLOW resolve --quiet --algorithm standard "$@"; }
# Reference tables (s,n,dim, sseq's runs through stem 20): Ceta, Cnu, C2_eta reach s = 35 (h0 towers).
for m in C2 Ceta Cnu C2_eta tmf2 A-mod-Sq1-Sq2; do
    res --module $m --stem 20 --max-s 35 --out "$TMP/$m" 2>"$TMP/err" &&
        cmp -s "$TMP/$m/ext.csv" "$REF/modules/${m}_stem20.csv"
    ok $? "$m through stem 20 equals the reference table"
done
for m in Joker RP4 Csigma DA1; do
    res --module $m --stem 12 --out "$TMP/$m" 2>"$TMP/err" && [ "$(sed -n 2p "$TMP/$m/ext.csv")" = "0,$([ $m = RP4 ] && echo 1 || echo 0),1" ]
    ok $? "$m resolves (one generator of F_0 at the bottom class)"
done
# Profiles: tmf2 (F2 over A(2)) against sseq's chart; ko (F2 over A(1)) against the closed form
# of Ext_{A(1)}(F2, F2): h0-towers in stems 0 and 4 (from s = 3), h1 and h1^2, and then periodic
# with period (s, t) = (4, 12), i.e. dim(s + 4, n + 8) = dim(s, n), checked through stem 60.
res --module tmf2 --max-t 30 --max-s 15 --out "$TMP/tmf2rect" 2>"$TMP/err" &&
    tail -n +2 "$REF/modules/resolve-tmf2" | cmp -s - "$TMP/tmf2rect/chart.txt"
ok $? "tmf2: chart.txt (t <= 30, s <= 15) equals sseq's resolve-tmf2"
res --module ko --stem 60 --max-s 40 --out "$TMP/ko" 2>"$TMP/err" && awk -F, '
    NR > 1 { d[$1 "," $2] = $3; classes++ }
    END {
        bad = 0; checked = 0
        for (s = 0; s <= 40; s++) for (n = 0; n < 8; n++) {
            want = (n == 0) || (n == 1 && s == 1) || (n == 2 && s == 2) || (n == 4 && s >= 3)
            bad += (d[s "," n] + 0) != want; checked++
        }
        for (s = 0; s + 4 <= 40; s++) for (n = 0; n + 8 <= 60; n++) {
            bad += (d[s "," n] + 0) != (d[(s + 4) "," (n + 8)] + 0); checked++
        }
        if (bad || classes < 300) { print bad " of " checked " bidegrees wrong, " classes " classes" > "/dev/stderr"; exit 1 }
    }' "$TMP/ko/ext.csv" 2>"$TMP/err"
ok $? "ko through stem 60 (s <= 40): closed form below stem 8, periodic of period (4, 12) $(cat "$TMP/err")"
# A profile module with an action: C2 over A(1) = A(1)/(Sq2, Sq2 Sq1); by change of rings its Ext
# is that of the finitely presented A/(A Sq2 + A Sq2 Sq1) over A.
printf '%s\n' '{"p": 2, "profile": {"truncated": true, "p_part": [2, 1]}, "type": "finite dimensional module", "gens": {"x0": 0, "x1": 1}, "actions": ["Sq1 x0 = x1"]}' > "$TMP/c2a1.json"
printf '%s\n' '{"p": 2, "type": "finitely presented module", "gens": {"x0": 0}, "adem_relations": ["Sq2 x0", "Sq2 Sq1 x0"]}' > "$TMP/c2fp.json"
res --module "$TMP/c2a1.json" --stem 40 --out "$TMP/c2a1" 2>"$TMP/err" &&
    res --module "$TMP/c2fp.json" --stem 40 --out "$TMP/c2fp" 2>"$TMP/err" && cmp -s "$TMP/c2a1/ext.csv" "$TMP/c2fp/ext.csv"
ok $? "C2 over A(1) = A/(A Sq2 + A Sq2 Sq1) over A through stem 40 (change of rings)"
# E(1) = E(Q0, Q1), profile [1, 1]: Ext_{E(1)}(F2) = F2[h0, v1], v1 in (n, s) = (2, 1).
printf '%s\n' '{"p": 2, "profile": {"truncated": true, "p_part": [1, 1]}, "type": "finite dimensional module", "gens": {"x0": 0}, "actions": []}' > "$TMP/e1.json"
res --module "$TMP/e1.json" --stem 30 --max-s 20 --out "$TMP/e1" 2>"$TMP/err" && awk -F, '
    NR > 1 { d[$1 "," $2] = $3 }
    END { bad = 0; for (s = 0; s <= 20; s++) for (n = 0; n <= 30; n++) bad += (d[s "," n] + 0) != (n % 2 == 0 && n / 2 <= s); exit bad > 0 }' "$TMP/e1/ext.csv"
ok $? "F2 over E(1) (profile [1, 1]): F2[h0, v1] through stem 30"
$EXTFLOW verify "$TMP/ko" > "$TMP/vout" 2>&1 && tail -1 "$TMP/vout" | grep -q "resolution of ko, .* 0 problems: ok"
ok $? "verify checks a profile module's directory (free modules over A(1))"
# Finitely presented modules, by change of rings: Ext_A(A//A(1)) = Ext_{A(1)}(F2), and
# A//A(2) (A-mod-Sq1-Sq2-Sq4) over A = F2 over A(2), through stem 40.
res --module A-mod-Sq1-Sq2 --stem 40 --max-s 30 --out "$TMP/amod" 2>"$TMP/err" &&
    res --module ko --stem 40 --max-s 30 --out "$TMP/ko40" 2>"$TMP/err" && cmp -s "$TMP/amod/ext.csv" "$TMP/ko40/ext.csv"
ok $? "A-mod-Sq1-Sq2 (A//A(1) over A) = ko (F2 over A(1)) through stem 40"
res --module A-mod-Sq1-Sq2-Sq4 --stem 40 --out "$TMP/amod4" 2>"$TMP/err" &&
    res --module tmf2 --stem 40 --out "$TMP/tmf40" 2>"$TMP/err" && cmp -s "$TMP/amod4/ext.csv" "$TMP/tmf40/ext.csv"
ok $? "A-mod-Sq1-Sq2-Sq4 (A//A(2) over A) = tmf2 (F2 over A(2)) through stem 40"
res --module A-mod-Sq1-Sq2 --stem 10 --max-s 35 --out "$TMP/amodr" 2>"$TMP/err" &&
    res --module A-mod-Sq1-Sq2 --stem 20 --max-s 35 --out "$TMP/amodr" 2>"$TMP/err" &&
    cmp -s "$TMP/amodr/ext.csv" "$REF/modules/A-mod-Sq1-Sq2_stem20.csv"
ok $? "A-mod-Sq1-Sq2 resumed from stem 10 to 20 (truncated higher the second time) equals the reference"
$EXTFLOW verify "$TMP/amod" > "$TMP/vout" 2>&1 && tail -1 "$TMP/vout" | grep -q "resolution of A-mod-Sq1-Sq2, .* 0 problems: ok"
ok $? "verify checks a finitely presented module's directory (truncated again from module.json)"
# Shifts NAME[k] and classes in negative degrees: the same resolution, stems moved by k.
res --module "A-mod-Sq1-Sq2[-2]" --max-t 30 --max-s 15 --out "$TMP/amodm2" 2>"$TMP/err" &&
    tail -n +2 "$REF/modules/resolve-A-mod-Sq1-Sq2-shift-2" | cmp -s - "$TMP/amodm2/chart.txt"
ok $? "A-mod-Sq1-Sq2[-2]: chart.txt (t <= 30, s <= 15, from stem -2) equals sseq's"
shifted() {   # shifted FILE K: FILE's rows with the stems moved by K
    awk -F, -v k="$2" 'NR == 1 { print; next } { print $1 "," $2 + k "," $3 }' "$1"
}
res --module "C2[-2]" --stem 18 --max-s 35 --out "$TMP/c2m2" 2>"$TMP/err" &&
    shifted "$REF/modules/C2_stem20.csv" -2 | cmp -s - "$TMP/c2m2/ext.csv"
ok $? "C2[-2] through stem 18 = C2's table moved down 2 stems"
printf '%s\n' '{"p": 2, "type": "finite dimensional module", "gens": {"xm3": -3, "xm1": -1}, "actions": ["Sq2 xm3 = xm1"]}' > "$TMP/cetam3.json"
res --module "$TMP/cetam3.json" --stem 17 --max-s 35 --out "$TMP/cetam3" 2>"$TMP/err" &&
    shifted "$REF/modules/Ceta_stem20.csv" -3 | cmp -s - "$TMP/cetam3/ext.csv"
ok $? "a module file with classes in degrees -3, -1 (Cη moved down 3) = Cη's table moved"
res --module "Cnu[5]" --stem 25 --max-s 35 --out "$TMP/cnu5" 2>"$TMP/err" &&
    shifted "$REF/modules/Cnu_stem20.csv" 5 | cmp -s - "$TMP/cnu5/ext.csv"
ok $? "Cnu[5] through stem 25 = Cnu's table moved up 5 stems"
# James periodicity: RP_{-4}^{4} = Σ^{-16} RP_{12}^{20} (period 2^φ(8) = 16), so the shipped
# RP_-4_4 (classes in degrees -4..4) has RP_12_20's table moved down 16 stems.
res --module RP_-4_4 --stem 16 --max-s 12 --out "$TMP/rpm4" 2>"$TMP/err" &&
    res --module "$REF/modules/RP_12_20.json" --stem 32 --max-s 12 --out "$TMP/rp12" 2>"$TMP/err" &&
    shifted "$TMP/rp12/ext.csv" -16 | cmp -s - "$TMP/rpm4/ext.csv"
ok $? "RP_-4_4 through stem 16 = RP_12_20 moved down 16 stems (James periodicity)"
# sseq's "real projective space" type: the multinomial formula against the files written out by
# hand (RP4) and by a script (RP_-4_4); RP_-4_inf (no max) truncated = RP_-4^21 through stem 20.
printf '%s\n' '{"p": 2, "type": "real projective space", "min": 1, "max": 4}' > "$TMP/rp14.json"
printf '%s\n' '{"p": 2, "type": "real projective space", "min": -4, "max": 4}' > "$TMP/rpm44.json"
printf '%s\n' '{"p": 2, "type": "real projective space", "min": -4, "max": 21}' > "$TMP/rpm421.json"
res --module "$TMP/rp14.json" --stem 20 --out "$TMP/rp14" 2>"$TMP/err" &&
    res --module RP4 --stem 20 --out "$TMP/rp4" 2>"$TMP/err" && cmp -s "$TMP/rp14/ext.csv" "$TMP/rp4/ext.csv" &&
    res --module "$TMP/rpm44.json" --stem 16 --max-s 12 --out "$TMP/rpm44" 2>"$TMP/err" &&
    cmp -s "$TMP/rpm44/ext.csv" "$TMP/rpm4/ext.csv"
ok $? "real projective space min 1 max 4 = RP4, min -4 max 4 = RP_-4_4"
$EXTFLOW resolve --quiet --module RP_-4_inf --stem 20 --out "$TMP/rpinf" 2>"$TMP/err" &&
    grep -q '"algorithm": "standard"' "$TMP/rpinf/run.json" &&
    res --module "$TMP/rpm421.json" --stem 20 --out "$TMP/rpm421" 2>"$TMP/err" && cmp -s "$TMP/rpinf/ext.csv" "$TMP/rpm421/ext.csv"
ok $? "RP_-4_inf (standard, its default) through stem 20 = the finite RP_-4^21"
$EXTFLOW verify "$TMP/c2m2" > "$TMP/vout" 2>&1 && tail -1 "$TMP/vout" | grep -q "resolution of C2\[-2\], .* 0 problems: ok" &&
    grep -q '"shift": -2' "$TMP/c2m2/module.json"
ok $? "verify reloads a shifted module (module.json carries the shift)"
res --module C2 --stem 6 --out "$TMP/c2m2" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ]
ok $? "a directory of C2[-2] refuses C2"
$EXTFLOW resolve --quiet --module "C2[x]" --stem 4 --out "$TMP/c2x" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "NAME\[k\]" "$TMP/err"
ok $? "--module C2[x]: exit 2 ($(head -1 "$TMP/err"))"
# Resume: C2 through stem 10, then stem 20 in the same directory = the reference.
res --module C2 --stem 10 --max-s 35 --out "$TMP/C2r" 2>"$TMP/err" &&
    res --module C2 --stem 20 --max-s 35 --out "$TMP/C2r" 2>"$TMP/err" && cmp -s "$TMP/C2r/ext.csv" "$REF/modules/C2_stem20.csv"
ok $? "C2 resumed from stem 10 to stem 20 equals the reference table"
$EXTFLOW verify "$TMP/C2r" > "$TMP/vout" 2>&1 && tail -1 "$TMP/vout" | grep -q "resolution of C2, .* 0 problems: ok"
ok $? "verify checks a module's directory from its module.json (d_0 d_1 = 0 into M included)"
cp modules/Ceta.json "$TMP/C2r/module.json"
$EXTFLOW verify "$TMP/C2r" > "$TMP/vout" 2>&1
[ $? -eq 1 ] && grep -q "not the module the stage files were computed for" "$TMP/vout"
ok $? "verify refuses a module.json that is not the directory's module"
# S_2 as a module file = the built-in sphere (same ext.csv and same stage files: same module id)
cp modules/S_2.json "$TMP/sphere.json"
res --module "$TMP/sphere.json" --stem 16 --out "$TMP/s2file" 2>"$TMP/err" &&
    res --stem 16 --out "$TMP/s2" 2>>"$TMP/err" && same_outputs "$TMP/s2file" "$TMP/s2"
ok $? "S_2 from a module file equals the built-in S_2"
# Bad module files: a usage error (exit 2, one line naming the file, then the hint).
bad() {   # bad DESCRIPTION JSON
    printf '%s\n' "$2" > "$TMP/bad.json"
    $EXTFLOW resolve --quiet --module "$TMP/bad.json" --stem 4 --out "$TMP/badout" >/dev/null 2>"$TMP/err"
    rc=$?
    is_usage_error $rc "$TMP/err" && grep -q "^extflow: $TMP/bad.json: " "$TMP/err"
    ok $? "$1: exit 2, one line and the hint ($(head -1 "$TMP/err"))"
}
bad "bad JSON" '{"p": 2, "type": "finite dimensional module", "gens": {"x0": 0,}'
bad "unknown class in an action" '{"p": 2, "type": "finite dimensional module", "gens": {"x0": 0, "x1": 1}, "actions": ["Sq1 x0 = y1"]}'
bad "action of the wrong degree" '{"p": 2, "type": "finite dimensional module", "gens": {"x0": 0, "x1": 1}, "actions": ["Sq2 x0 = x1"]}'
bad "not a module (Sq1 Sq1 = 0 broken)" '{"p": 2, "type": "finite dimensional module", "gens": {"x0": 0, "x1": 1, "x2": 2}, "actions": ["Sq1 x0 = x1", "Sq1 x1 = x2"]}'
bad "not a module (Sq2 Sq2 = Sq3 Sq1 broken)" '{"p": 2, "type": "finite dimensional module", "gens": {"x0": 0, "x2": 2, "x4": 4}, "actions": ["Sq2 x0 = x2", "Sq2 x2 = x4"]}'
bad "p = 3, not a module (bb = 0 broken)" '{"p": 3, "type": "finite dimensional module", "gens": {"x0": 0, "x1": 1, "x2": 2}, "actions": ["b x0 = x1", "b x1 = x2"]}'
bad "a profile that is no sub-Hopf-algebra" '{"p": 2, "profile": {"truncated": true, "p_part": [3, 1]}, "type": "finite dimensional module", "gens": {"x0": 0}, "actions": []}'
bad "an action outside the profile" '{"p": 2, "profile": {"truncated": true, "p_part": [2, 1]}, "type": "finite dimensional module", "gens": {"x0": 0, "x4": 4}, "actions": ["Sq4 x0 = x4"]}'
bad "a profile entry that is not a number" '{"p": 2, "profile": {"truncated": true, "p_part": [2, "1"]}, "type": "finite dimensional module", "gens": {"x0": 0}, "actions": []}'
bad "a degree out of range" '{"p": 2, "type": "finite dimensional module", "gens": {"x0": -1000, "x1": 0}, "actions": []}'
bad "a shift that is not a number" '{"p": 2, "type": "finite dimensional module", "gens": {"x0": 0}, "shift": "2"}'
bad "a class named twice" '{"p": 2, "type": "finite dimensional module", "gens": {"x0": 0, "x0": 1}, "actions": []}'
bad "spread over more than 128 degrees" '{"p": 2, "type": "finite dimensional module", "gens": {"x0": 0, "x200": 200}, "actions": []}'
bad "a relation on an unknown generator" '{"p": 2, "type": "finitely presented module", "gens": {"x0": 0}, "milnor_relations": ["P(1) y0"]}'
bad "a relation whose terms differ in degree" '{"p": 2, "type": "finitely presented module", "gens": {"x0": 0, "x1": 1}, "adem_relations": ["Sq2 x0 + Sq2 x1"]}'
bad "a relation with a bad operation" '{"p": 2, "type": "finitely presented module", "gens": {"x0": 0}, "milnor_relations": ["P(1,) x0"]}'
bad "real projective space without min" '{"p": 2, "type": "real projective space", "max": 4}'
bad "real projective space with clear_bottom" '{"p": 2, "type": "real projective space", "min": -4, "clear_bottom": true}'
# Nassau's algorithm for finite modules (the default for them): the same Ext as the standard
# algorithm through stem 40 for every shipped finite module without a profile (and a shifted
# one), and verify's d∘d check passes on its differentials.
for m in C2 Ceta Cnu Csigma C2_eta Joker RP4 DA1 RP_-4_4 "C2[-2]"; do
    $EXTFLOW resolve --quiet --module "$m" --stem 40 --out "$TMP/n-$m" 2>"$TMP/err" &&
        grep -q '"algorithm": "nassau"' "$TMP/n-$m/run.json" &&
        res --module "$m" --stem 40 --out "$TMP/s-$m" 2>"$TMP/err" && cmp -s "$TMP/n-$m/ext.csv" "$TMP/s-$m/ext.csv"
    ok $? "$m: Nassau (the default) = standard through stem 40"
done
$EXTFLOW verify "$TMP/n-Joker" > "$TMP/vout" 2>&1 && tail -1 "$TMP/vout" | grep -q "nassau resolution of Joker, .* 0 problems: ok"
ok $? "verify checks a Nassau resolution of the Joker"
# Nassau's algorithm is refused for a module over a sub-Hopf-algebra or a finitely presented one.
for m in ko A-mod-Sq1-Sq2; do
    $EXTFLOW resolve --quiet --module $m --algorithm nassau --stem 4 --out "$TMP/nassau-$m" >/dev/null 2>"$TMP/err"
    is_usage_error $? "$TMP/err"
    ok $? "--algorithm nassau with $m: exit 2, one line and the hint"
done
$EXTFLOW resolve --quiet --module ko --stem 6 --out "$TMP/kodefault" 2>"$TMP/err" &&
    grep -q '"algorithm": "standard"' "$TMP/kodefault/run.json" && grep -q '"module": "ko"' "$TMP/kodefault/run.json"
ok $? "a module with a profile defaults to the standard algorithm; run.json names it"
# A directory of C2 refuses Ceta; and resuming C2 there works.
res --module Ceta --stem 6 --out "$TMP/C2" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "of C2" "$TMP/err"
ok $? "a directory of C2 refuses a run with Ceta ($(head -1 "$TMP/err"))"
rm "$TMP/C2/run.json"      # without the manifest the stage files' module id still refuses it
res --module Ceta --stem 6 --out "$TMP/C2" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ]
ok $? "without run.json the stage files of C2 still refuse Ceta"
done_testing

#!/bin/sh
# Every module file sseq ships (tests/ref/module-files/table says what each must give): either
# Ext through stem 40 (s <= 40) equal to the kept table and to the independent computations the
# table names, or a refusal naming the file and the key, with nothing created. No file may
# resolve to a wrong table with exit 0 (a key ignored, as `cofiber` once was).
# REGEN=1 rewrites the kept tables from this run (then check the independent rows pass).
. tests/lib.sh
DIRM=$REF/module-files
PY="python3 tests/module_files.py"
rows=$(grep -v '^#' "$DIRM/table")
# one test per row, one per check, and one that every shipped module has a row
plan $(echo "$rows" | awk '{ n += NF - 1 } END { print n + 12 }')
missing=
for f in modules/*.json; do
    echo "$rows" | grep -q "^${f%.json} " || missing="$missing $f"
done
[ -z "$missing" ]
ok $? "every module file we ship (modules/) has a row in the table${missing:+; missing:$missing}"
res() { $EXTFLOW resolve --quiet --stem 40 --max-s 40 "$@"; }
same_table() {  # same_table A B: equal ext.csv files; on a difference, the first differing rows
    if cmp -s "$1" "$2"; then return 0; fi
    diag "$(diff "$1" "$2" | head -4 | tr '\n' ' ')"
    return 1
}
s2_products() { # S_2 through stem 40, s <= 41, and the products of the class NAME=n,s
    [ -d "$TMP/S" ] || $EXTFLOW resolve --quiet --stem 40 --max-s 41 --out "$TMP/S" || return 1
    $EXTFLOW products "$TMP/S" --class "$1" --quiet
}
while read -r name expect checks; do
    case $name in
    */*) file=$name.json ;;
    *) file=$DIRM/$name.json ;;
    esac
    out=$TMP/$(echo "$name" | tr / _)
    name=$(echo "$name" | tr / _)
    case $expect in
    ext|ext:*)
        table=${expect#ext:}
        [ "$table" = ext ] && table=${name#modules_}
        res --module "$file" --out "$out" 2>"$TMP/err"
        rc=$?
        [ "${REGEN:-0}" = 1 ] && [ $rc -eq 0 ] && [ "$expect" = ext ] && cp "$out/ext.csv" "$DIRM/ext/$table.csv"
        [ $rc -eq 0 ] && same_table "$out/ext.csv" "$DIRM/ext/$table.csv"
        ok $? "$name: Ext through stem 40 equals the kept table $table.csv ($(grep -c . "$out/ext.csv" 2>/dev/null) rows) $(head -1 "$TMP/err")"
        ;;
    refused:*)
        key=${expect#refused:}
        res --module "$file" --out "$out" 2>"$TMP/err"
        rc=$?
        is_usage_error $rc "$TMP/err" && grep -q "^extflow: $file: .*key '$key'" "$TMP/err" &&
            [ ! -e "$out" ]
        ok $? "$name: refused (exit $rc, one line naming the key '$key', nothing created): $(cut -c1-90 "$TMP/err" | sed "s|$DIRM/||")"
        ;;
    esac
    for c in $checks; do
        case $c in
        lin)
            $PY restrict "$REF/ext_S_2_stem60.csv" 40 40 > "$TMP/want" &&
                same_table "$TMP/want" "$out/ext.csv"
            ok $? "$name: equals Weinan Lin's table through stem 40" ;;
        sseqnum:*)  # sseqnum:M-N-S: sseq's num_gens table (odd primes), through stem 40 and its s <= S
            ref=$REF/oddprimes/num_gens-${c#sseqnum:}
            maxs=${c##*-}
            $PY num-gens "$ref" 40 "$maxs" > "$TMP/want" && $PY restrict "$out/ext.csv" 40 "$maxs" > "$TMP/got" &&
                same_table "$TMP/want" "$TMP/got"
            ok $? "$name: equals sseq's num_gens table through stem 40, s <= $maxs" ;;
        sseq20:*)
            $PY restrict "$out/ext.csv" 20 35 > "$TMP/got" &&
                same_table "$TMP/got" "$REF/modules/${c#sseq20:}_stem20.csv"
            ok $? "$name: equals sseq's table through stem 20" ;;
        nassau)
            alg=standard
            grep -q '"algorithm": *"standard"' "$out/run.json" && alg=nassau
            res --module "$file" --algorithm $alg --out "$TMP/$name-$alg" 2>"$TMP/err" &&
                same_table "$out/ext.csv" "$TMP/$name-$alg/ext.csv"
            ok $? "$name: the $alg algorithm gives the same table $(head -1 "$TMP/err")" ;;
        fp)
            $PY fp-over-a "$file" "$TMP/$name-fp.json" &&
                res --module "$TMP/$name-fp.json" --out "$TMP/$name-fp" 2>"$TMP/err" &&
                same_table "$out/ext.csv" "$TMP/$name-fp/ext.csv"
            ok $? "$name: change of rings, A (x)_B M presented over A, gives the same table $(head -1 "$TMP/err")" ;;
        rpfp:*)     # over a profile: written out with its Sq^(2^k), and that presented over A
            $PY rp-finite "${c#rpfp:}" 42 "$TMP/$name-fin.json" "$file" &&
                res --module "$TMP/$name-fin.json" --out "$TMP/$name-fin" 2>"$TMP/err" &&
                same_table "$out/ext.csv" "$TMP/$name-fin/ext.csv" &&
                $PY fp-over-a "$TMP/$name-fin.json" "$TMP/$name-finfp.json" &&
                res --module "$TMP/$name-finfp.json" --out "$TMP/$name-finfp" 2>"$TMP/err" &&
                same_table "$out/ext.csv" "$TMP/$name-finfp/ext.csv"
            ok $? "$name: RP_${c#rpfp:}^42 written out over the profile, and presented over A (change of rings), give the same table $(head -1 "$TMP/err")" ;;
        rp:*)
            $PY rp-finite "${c#rp:}" 42 "$TMP/$name-fin.json" &&
                res --module "$TMP/$name-fin.json" --out "$TMP/$name-fin" 2>"$TMP/err" &&
                same_table "$out/ext.csv" "$TMP/$name-fin/ext.csv"
            ok $? "$name: RP_${c#rp:}^42 written out as a finite module gives the same table $(head -1 "$TMP/err")" ;;
        les:*)
            ns=${c#les:}
            s2_products "x_$name=$ns" 2>"$TMP/err" &&
                $PY cofiber-les "$TMP/S/ext.csv" "$TMP/S/products.csv" "x_$name" ${ns%,*} ${ns#*,} 40 40 > "$TMP/want" &&
                same_table "$TMP/want" "$out/ext.csv"
            ok $? "$name: the long exact sequence of the cofiber (Ext(F2) and the products of the class at $ns) $(head -1 "$TMP/err")" ;;
        rpspace:*)
            mm=${c#rpspace:}
            printf '{"p": 2, "type": "real projective space", "min": %s, "max": %s}\n' ${mm%,*} ${mm#*,} > "$TMP/$name-rp.json" &&
                res --module "$TMP/$name-rp.json" --out "$TMP/$name-rp" 2>"$TMP/err" &&
                same_table "$out/ext.csv" "$TMP/$name-rp/ext.csv"
            ok $? "$name: the real projective space RP_${mm%,*}^${mm#*,} gives the same table $(head -1 "$TMP/err")" ;;
        sseqchart:*)
            $EXTFLOW resolve --quiet --module "$file" --max-t 30 --max-s 15 --out "$TMP/$name-chart" 2>"$TMP/err" &&
                tail -n +2 "$REF/modules/${c#sseqchart:}" | cmp -s - "$TMP/$name-chart/chart.txt"
            ok $? "$name: chart.txt (t <= 30, s <= 15) equals sseq's ${c#sseqchart:} $(head -1 "$TMP/err")" ;;
        quot:*)    # odd p: F_p over the profile without the Q_k of the mask's zero bits
            p=$(sed -n 's/.*"p": *\([0-9]*\).*/\1/p' "$file" | head -1)
            printf '{"p": %s, "type": "finite dimensional module", "gens": {"x0": 0}, "actions": [], "profile": {"q_part": %s}}\n' \
                "$p" "${c#quot:}" > "$TMP/$name-quot.json" &&
                res --module "$TMP/$name-quot.json" --out "$TMP/$name-quot" 2>"$TMP/err" &&
                same_table "$out/ext.csv" "$TMP/$name-quot/ext.csv"
            ok $? "$name: change of rings, F_$p over the profile with q_part ${c#quot:}, gives the same table $(head -1 "$TMP/err")" ;;
        cofof:*)   # cofof:F,S,T: module F with the key "cofiber" at (S, T)
            set -- $(echo "${c#cofof:}" | tr , ' ')
            python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); m["cofiber"] = {"s": int(sys.argv[2]), "t": int(sys.argv[3]), "idx": 0}; json.dump(m, open(sys.argv[4], "w"))' \
                "$DIRM/$1.json" "$2" "$3" "$TMP/$name-cof.json" &&
                res --module "$TMP/$name-cof.json" --out "$TMP/$name-cof" 2>"$TMP/err" &&
                same_table "$out/ext.csv" "$TMP/$name-cof/ext.csv"
            ok $? "$name: the same table as the cofiber of the class at (s, t) = ($2, $3) of Ext($1) $(head -1 "$TMP/err")" ;;
        lescof:*)  # lescof:F,S,T: the LES of the cofiber of a class at (S, T) of Ext(F)
            set -- $(echo "${c#lescof:}" | tr , ' ')
            $PY les-ranks 40 "$DIRM/ext/$1.csv:$2,$3" "$DIRM/ext/$1.csv" "$out/ext.csv" > "$TMP/les" 2>&1
            ok $? "$name: the long exact sequence of the cofiber of a class at ($2, $3) of Ext($1): $(cat "$TMP/les")" ;;
        ses:*)     # ses:Q,S[:DS,DT]: 0 -> S -> M -> Q -> 0
            q=${c#ses:}
            sub=${q#*,}
            q=${q%%,*}
            tab=${sub%%:*}
            shift_=
            [ "$tab" != "$sub" ] && shift_=":${sub#*:}"
            $PY les-ranks 40 "$DIRM/ext/$q.csv" "$out/ext.csv" "$DIRM/ext/$tab.csv$shift_" > "$TMP/les" 2>&1
            ok $? "$name: the long exact sequence of 0 -> $sub -> $name -> $q -> 0: $(cat "$TMP/les")" ;;
        same:*)
            same_table "$out/ext.csv" "$DIRM/ext/${c#same:}.csv"
            ok $? "$name: the same table as ${c#same:} (change of rings)" ;;
        esac
    done
done <<ROWS
$rows
ROWS
# A cofiber the program cannot take is refused before anything is written, naming the key.
cofiber_refused() {  # cofiber_refused WHAT GENS ACTIONS S T IDX PATTERN
    printf '{"p": 2, "type": "finite dimensional module", "gens": %s, "actions": %s, "cofiber": {"s": %s, "t": %s, "idx": %s}}\n' \
        "$2" "$3" "$4" "$5" "$6" > "$TMP/cof.json"
    res --module "$TMP/cof.json" --out "$TMP/cof" 2>"$TMP/err"
    rc=$?
    is_usage_error $rc "$TMP/err" && grep -q "key 'cofiber': .*$7" "$TMP/err" && [ ! -e "$TMP/cof" ]
    ok $? "cofiber $1: refused, one line, nothing created ($(cut -c1-110 "$TMP/err"))"
}
cofiber_refused "of a class that is not there" '{"x0": 0}' '[]' 2 4 1 "dimension 1, so there is no class idx = 1"
cofiber_refused "below the bottom stem" '{"x0": 0}' '[]' 2 1 0 "is zero"
cofiber_refused "of v1 on C2 (h0 v1 = h1^2: not a cocycle)" '{"x0": 0, "x1": 1}' '["Sq1 x0 = x1"]' 1 3 0 "not a cocycle"
cofiber_refused "over a module not generated by its bottom class" '{"x0": 0, "y1": 1}' '[]' 1 1 0 "not generated"
cofiber_refused "over a module with two bottom classes" '{"x0": 0, "y0": 0}' '[]' 1 1 0 "holds 2 classes"
res --module "$DIRM/Ceta2.json" --algorithm nassau --out "$TMP/cof-nassau" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "cofiber" "$TMP/err" && [ ! -e "$TMP/cof-nassau" ]
ok $? "a cofiber with --algorithm nassau: refused (as sseq does)"
# keys: one that would change the module is never ignored
bad_file() {  # bad_file WHAT JSON PATTERN: refused, one line naming it, nothing created
    printf '%s\n' "$2" > "$TMP/bad.json"
    res --module "$TMP/bad.json" --out "$TMP/bad" 2>"$TMP/err"
    rc=$?
    is_usage_error $rc "$TMP/err" && grep -q "$3" "$TMP/err" && [ ! -e "$TMP/bad" ]
    ok $? "$1: refused, one line, nothing created ($(cut -c1-110 "$TMP/err"))"
}
bad_file "an unknown key" '{"p": 2, "type": "finite dimensional module", "gens": {"x0": 0}, "actions": [], "frobnicate": 1}' "key 'frobnicate'"
bad_file "actions under milnor_actions" '{"p": 2, "type": "finite dimensional module", "gens": {"x0": 0, "x1": 1}, "milnor_actions": ["P(1) x0 = x1"]}' "key 'milnor_actions'"
bad_file "milnor_relations and adem_relations that differ" '{"p": 2, "type": "finitely presented module", "gens": {"x0": 0}, "milnor_relations": ["P(1) x0"], "adem_relations": ["Sq2 x0"]}' "differ at entry 0"
bad_file "a cofiber entry it does not know" '{"p": 2, "type": "finite dimensional module", "gens": {"x0": 0}, "actions": [], "cofiber": {"s": 2, "t": 4, "idx": 0, "twist": 1}}' "unknown entry 'twist'"
# d2 is computed for modules; the cone of a class is a complex: refused, the directory as it was
res --module "$DIRM/Ceta2.json" --out "$TMP/cof-d2" 2>/dev/null && (cd "$TMP/cof-d2" && find . | sort) > "$TMP/before" &&
    { $EXTFLOW d2 "$TMP/cof-d2" --quiet 2>"$TMP/err"; [ $? -eq 2 ]; } && grep -q "cofiber" "$TMP/err" &&
    (cd "$TMP/cof-d2" && find . | sort) | cmp -s "$TMP/before" -
ok $? "d2 over a cofiber's directory: refused, nothing written ($(head -1 "$TMP/err" | cut -c1-100))"
done_testing

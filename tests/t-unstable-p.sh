#!/bin/sh
# resolve --unstable at odd primes (docs/unstable.md) and resolve_unstable.txt (--sseq-formats) at
# every prime, checked by identities and independent code, no table written here:
# - the free unstable A_p-module F(n) has the Milnor basis Q(E)P(R) of excess #E + 2 sum r_i <= n:
#   tests/unstable_p_ref.py kraines (admissible monomials of excess > n span the Milnor elements of
#   excess > n, a left ideal whose quotient is unstable, its own product), and F(n)'s dimensions
#   (resolution_size.txt's row 0) against the Python count;
# - S^n = S_3[n], S_5[n], S_7[n] and module files (the Moore space, the cone of alpha_1) against
#   tests/unstable_p_ref.py ext, a resolver over F_p written apart in Python;
# - the stable range: Ext_U^{s,t}(S^n) equals the stable Ext of S_3 moved up n for t < n + f(n), f(n)
#   the lowest degree of an element of excess > n (the free modules agree below it), and differs at
#   t = n + f(n) (the bound is sharp there);
# - resolve_unstable.txt: byte-equal to sseq's stable chart (tests/ref) over a region inside the
#   stable range (S_2[32] against resolve_through_stem-S_2, S_3[25] against resolve-S_3), and to
#   the chart rebuilt from ext.csv outside it;
# - refusals in one line (exit 2): a module that is not unstable (b and P^1 too early), a profile, a
#   negative degree (products --map between odd-prime unstable directories: t-maps-p.sh); verify passes (its d∘d
#   summed over the wide blocks, tested on the kept columns); resume under --memory and export. (`pack` writes mod 2 stage files only,
#   so no changed odd-p differential is tried here.)
. tests/lib.sh
plan 33
REFPY="python3 tests/unstable_p_ref.py"
res() { $EXTFLOW resolve --quiet --unstable "$@"; }

$REFPY kraines 3 80 > "$TMP/k3" 2>&1
ok $? "p = 3, degrees <= 80: admissibles of excess > n span the Milnor elements of excess > n, a left ideal, quotient unstable $(cat "$TMP/k3")"
$REFPY kraines 5 160 > "$TMP/k5" 2>&1
ok $? "p = 5, degrees <= 160: the same $(cat "$TMP/k5")"

S=6; T=34
for n in 1 2 3 4 5 6; do
    res --module "S_3[$n]" --max-t $T --max-s $S --out "$TMP/s$n" 2>"$TMP/err" &&
        $REFPY ext 3 sphere:$n $S $T | cmp -s - "$TMP/s$n/ext.csv"
    ok $? "S^$n at p = 3 (t <= $T, s <= $S) equals the Python resolver's ext.csv $(cat "$TMP/err")"
done
res --module "S_5[4]" --max-t 60 --max-s 4 --out "$TMP/p5" 2>"$TMP/err" &&
    $REFPY ext 5 sphere:4 4 60 | cmp -s - "$TMP/p5/ext.csv"
ok $? "S^4 at p = 5 (t <= 60, s <= 4) equals the Python resolver's ext.csv $(cat "$TMP/err")"
res --module "S_7[3]" --max-t 64 --max-s 4 --out "$TMP/p7" 2>"$TMP/err" &&
    $REFPY ext 7 sphere:3 4 64 | cmp -s - "$TMP/p7/ext.csv"
ok $? "S^3 at p = 7 (t <= 64, s <= 4) equals the Python resolver's ext.csv $(cat "$TMP/err")"

# module files: the Moore space (b x = y) and the cone of alpha_1 (P^1 x = y), moved up
mod() {  # mod NAME N: a module file at p = 3 with its bottom class in degree N
    case $1 in
    moore) echo "{\"p\": 3, \"type\": \"finite dimensional module\", \"gens\": {\"x\": $2, \"y\": $(($2 + 1))}, \"actions\": [\"b x = y\"]}" ;;
    calpha) echo "{\"p\": 3, \"type\": \"finite dimensional module\", \"gens\": {\"x\": $2, \"y\": $(($2 + 4))}, \"actions\": [\"P1 x = y\"]}" ;;
    esac > "$TMP/$1$2.json"
}
for m in "moore 1" "moore 2" "calpha 2" "calpha 3"; do
    set -- $m
    mod $1 $2
    res --module "$TMP/$1$2.json" --max-t $T --max-s $S --out "$TMP/$1$2" 2>"$TMP/err" &&
        $REFPY ext 3 $1:$2 $S $T | cmp -s - "$TMP/$1$2/ext.csv"
    ok $? "$1 on a class of degree $2 (t <= $T, s <= $S) equals the Python resolver's ext.csv $(cat "$TMP/err")"
done

# F(n) = F_0 of S^n: dimensions by excess (row 0 of resolution_size.txt, degrees n .. n + 60)
for n in 3 8; do
    res --module "S_3[$n]" --stem $((n + 60)) --max-s 1 --sseq-formats --out "$TMP/f$n" 2>"$TMP/err" &&
        tail -1 "$TMP/f$n/resolution_size.txt" | tr -d ' ' | tr , '\n' | sed '/^$/d' > "$TMP/dims" &&
        $REFPY dims 3 $n $((60 + 1)) | cut -d, -f2 | { yes 0 | head -$n; cat; } | head -$(wc -l < "$TMP/dims") |
        cmp -s - "$TMP/dims"
    ok $? "F($n) at p = 3: dimensions through degree $((n + 60)) = the Milnor basis of excess <= $n counted apart $(cat "$TMP/err")"
done

# the stable range: f(n) = n(p - 1) + 1 for n even (Q_0 P^(n/2)), (n + 1)(p - 1) for n odd (P^((n+1)/2))
TT=80; SS=10
$EXTFLOW resolve --quiet --module S_3 --max-t $TT --max-s $SS --out "$TMP/st" 2>"$TMP/err"
for n in 4 7 12; do
    f=$(( n % 2 ? (n + 1) * 2 : 2 * n + 1 ))
    res --module "S_3[$n]" --max-t $TT --max-s $SS --out "$TMP/u$n" 2>"$TMP/err" &&
        awk -F, -v n=$n -v lim=$((n + f)) '
            FNR == 1 { f++; next }
            f == 1 { u[$1 "," $2 + $1] = $3 }          # s, t
            f == 2 { a[$1 "," $2 + $1 + n] = $3 }      # the stable Ext moved up n
            END {
                for (k in u) keys[k]; for (k in a) keys[k]
                for (k in keys) { split(k, q, ","); if (u[k] != a[k]) { if (q[2] < lim) bad++; else if (q[2] == lim) edge++ } else if (q[2] < lim && u[k]) same++ }
                printf "%d equal, %d off below t = %d, %d off at it\n", same, bad, lim, edge
                exit !(bad == 0 && edge > 0 && same >= 5)
            }' "$TMP/u$n/ext.csv" "$TMP/st/ext.csv" > "$TMP/range"
    ok $? "S^$n at p = 3: Ext_U = the stable Ext below t = n + f(n) = $((n + f)), not at it: $(cat "$TMP/range")"
done

# resolve_unstable.txt: sseq's chart from the module's bottom stem; in the stable range the stable chart
res --module "S_2[32]" --stem 62 --max-s 11 --sseq-formats --out "$TMP/c2" 2>"$TMP/err" &&
    tail -n +2 tests/ref/resolve_through_stem-S_2 | cmp -s - "$TMP/c2/resolve_unstable.txt"
ok $? "S_2[32] through stem 62, s <= 11: resolve_unstable.txt is sseq's stable S_2 chart (30, 11) $(cat "$TMP/err")"
res --module "S_3[25]" --max-t 75 --max-s 10 --sseq-formats --out "$TMP/c3" 2>"$TMP/err" &&
    tail -n +2 tests/ref/oddprimes/resolve-S_3 | cmp -s - "$TMP/c3/resolve_unstable.txt"
ok $? "S_3[25], t <= 75 (t < 25 + f(25) = 77), s <= 10: resolve_unstable.txt is sseq's stable S_3 chart (t <= 50) $(cat "$TMP/err")"
# outside the stable range: the chart rebuilt from ext.csv (sseq's symbols, a row per s from the
# top nonempty one, a column per stem from the bottom class's)
chart() {  # chart DIR BOTTOM: the chart of DIR's stem region from ext.csv
    python3 - "$1/ext.csv" "$1/run.json" "$2" <<'PY'
import json, sys
dims = {}
for line in open(sys.argv[1]).read().split()[1:]:
    s, n, d = map(int, line.split(","))
    dims[s, n] = d
run = json.load(open(sys.argv[2]))
stem, top, bottom = run["complete"]["stem"], run["complete"]["max_s"], int(sys.argv[3])
sym = [" ", "\u00b7", ":", "\u2234", "\u2058", "\u2059", "\u283f", "\u287f", "\u28ff", "9"]
rows = []
for s in range(top, -1, -1):
    if not rows and not any(dims.get((s, n)) for n in range(bottom, stem + 1)):
        continue
    rows.append("".join(sym[dims.get((s, n), 0)] + " " if dims.get((s, n), 0) < 10 else "* " for n in range(bottom, stem + 1)))
sys.stdout.write("\n".join(rows) + "\n\n")
PY
}
for m in "S_3[3] 3" "S_2[4] 4"; do
    set -- $m
    res --module "$1" --stem 40 --max-s 8 --sseq-formats --out "$TMP/r$2" 2>"$TMP/err" &&
        chart "$TMP/r$2" $2 | cmp -s - "$TMP/r$2/resolve_unstable.txt"
    ok $? "$1 through stem 40: resolve_unstable.txt is the chart rebuilt from ext.csv $(cat "$TMP/err")"
done
$EXTFLOW resolve --quiet --module S_3 --stem 10 --sseq-formats --out "$TMP/stable" && [ ! -e "$TMP/stable/resolve_unstable.txt" ]
ok $? "a stable run writes no resolve_unstable.txt"

# refusals, one line each
mod moore 0; mod calpha 1
for bad in "$TMP/moore0.json" "$TMP/calpha1.json" "C3" "S_3[-1]"; do
    res --module "$bad" --stem 10 --out "$TMP/bad" 2>"$TMP/err"
    is_usage_error $? "$TMP/err" && [ ! -e "$TMP/bad" ]
    ok $? "--unstable --module $(basename "$bad") refused in one line: $(head -1 "$TMP/err")"
done

# resume: a larger region from a smaller one's stage files, under --memory, equals a fresh run
res --module "S_3[4]" --stem 20 --max-s 6 --out "$TMP/grow" 2>"$TMP/err" &&
    $EXTFLOW resolve --unstable --module "S_3[4]" --stem 40 --max-s 8 --memory 64M --out "$TMP/grow" 2>"$TMP/gerr" </dev/null &&
    res --module "S_3[4]" --stem 40 --max-s 8 --out "$TMP/fresh" 2>>"$TMP/err" && same_outputs "$TMP/fresh" "$TMP/grow" &&
    grep -q "resumed" "$TMP/gerr"
ok $? "S^4 at p = 3 through stem 20 extended to 40 under --memory 64M reuses its stage files, equal to a fresh run $(cat "$TMP/err")"
$EXTFLOW export "$TMP/grow" --text > "$TMP/text" && grep -q "over the unstable algebra" "$TMP/text"
ok $? "export reads an unstable directory at p = 3"

# verify: d∘d over the free unstable modules (the products' terms of too large excess dropped)
for d in s5 moore2 calpha3; do
    $EXTFLOW verify "$TMP/$d" > "$TMP/v" 2>&1 && tail -1 "$TMP/v" | grep -q "0 problems: ok$"
    ok $? "verify passes on the unstable $d at p = 3: $(tail -1 "$TMP/v" | cut -c1-70)"
done
done_testing

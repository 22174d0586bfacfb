#!/bin/sh
# extflow algebra --eval (the Steenrod calculator) and --max-degree at every prime, from the
# command line: products known by hand in both bases at p = 2, 3, 5 (Adem's relations, Milnor's
# Q_1, P^1 P^1 = 2 P^2), the output read back, the admissible and Milnor dims equal (both CSVs),
# and bad input: exit 2, one line naming the column, then the hint, nothing on stdout.
# The algebra itself (round trips, Adem's relations against the formula, associativity) is
# tests/t-admissible.c's.
. tests/lib.sh
plan 50

is() {   # is EXPECTED ARGS...: `algebra ARGS` prints EXPECTED and exits 0
    want=$1; shift
    got=$($EXTFLOW algebra "$@" 2>"$TMP/err")
    rc=$?
    [ $rc -eq 0 ] && [ "$got" = "$want" ] && [ ! -s "$TMP/err" ]
    ok $? "algebra $* = $want$( [ "$got" = "$want" ] || echo " (got '$got', exit $rc)")"
}
# p = 2
is "0" --eval 'Sq^1 Sq^1' --basis adem
is "0" --eval 'Sq(1)*Sq(1)'
is "Sq^3 Sq^1" --eval 'Sq^2 Sq^2' --basis adem
is "Sq(1,1)" --eval 'Sq(2)*Sq(2)'
is "Sq^3" --eval 'Sq1 Sq2' --basis adem
is "Sq^4 Sq^1 + Sq^5" --eval 'Sq^2 Sq^3' --basis adem
is "0" --eval 'Sq^3 Sq^2' --basis adem
is "Sq(6) + Sq(3,1) + Sq(0,2)" --eval 'Sq4 Sq2'
is "Sq(5,2)" --eval 'Sq(1,2)*Sq(4)'
is "Sq^9 Sq^2 + Sq^11" --eval 'Sq(5,2)' --basis adem
is "Sq^2 Sq^1 + Sq^3" --eval 'Q_1' --basis adem
is "Sq(0,1)" --eval 'Sq^1 Sq^2 + Sq^2 Sq^1'
is "1 + Sq(1)" --eval '3 Sq(1) - 1 + 2 (Sq(1) + 1) + 1 + 1'
is "0" --eval 'Sq(0,1) - Q(1)'
# p = 3, 5
is "2 P(2)" --eval 'P^1 P^1' --prime 3
is "2 P^2" --eval 'P1*P1' --prime 3 --basis adem
is "0" --eval 'P^1 P^2' --prime 3 --basis adem
is "0" --eval 'b b' --prime 3
is "Q_0 P(1) + Q_1" --eval 'P(1)*b' --prime 3
is "P^1 b + 2 b P^1" --eval 'Q_1' --prime 3 --basis adem
is "Q_1" --eval 'P^1 beta - beta P^1' --prime 3
is "2 P(1)" --eval '-P^1' --prime 3
is "2 P(2)" --eval 'P^1 P^1' --prime 5
is "0" --eval 'P^1 P^4' --prime 5 --basis adem
is "P^6" --eval 'P(1)*P(5)' --prime 5 --basis adem
is "3 P^3" --eval 'P^2 P^1' --prime 5 --basis adem
is "P^2 b + b P^2" --eval 'P^1 b P^1' --prime 3 --basis adem
# what is printed reads back as the same element
for args in "--prime 3|P(3,1)*b P(2)*Q_0" "--prime 5|Q_2 P(1,1) + 3 P(7) Q_1" "--prime 2|Sq(3,2,1)*Sq(2,1)"; do
    p=${args%%|*} e=${args#*|}
    m=$($EXTFLOW algebra $p --eval "$e") && a=$($EXTFLOW algebra $p --eval "$e" --basis adem) &&
        [ "$($EXTFLOW algebra $p --eval "$a")" = "$m" ] && [ "$($EXTFLOW algebra $p --eval "$m" --basis adem)" = "$a" ]
    ok $? "$p: $e written in either basis reads back as the same element"
done
# the same dims in both bases (the admissible count is a recurrence of its own)
for p in 2 3 5; do
    $EXTFLOW algebra --max-degree 600 --prime $p > "$TMP/milnor$p" &&
        $EXTFLOW algebra --max-degree 600 --prime $p --basis adem > "$TMP/adem$p" &&
        [ "$(wc -l < "$TMP/adem$p")" -eq 602 ] && cmp -s "$TMP/milnor$p" "$TMP/adem$p"
    ok $? "p = $p: degree,dim through 600 the same in the Milnor and the admissible basis"
done
# bad input: exit 2, "extflow: algebra: --eval: column N: ...", the hint, nothing on stdout
bad() {   # bad COLUMN DESCRIPTION ARGS...
    col=$1 what=$2; shift 2
    $EXTFLOW algebra "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ $rc -eq 2 ] && [ ! -s "$TMP/out" ] && [ "$(wc -l < "$TMP/err")" -eq 2 ] &&
        head -1 "$TMP/err" | grep -q "^extflow: algebra: --eval: column $col: " &&
        [ "$(tail -1 "$TMP/err")" = "try 'extflow help'" ]
    ok $? "$what: exit 2 at column $col ($(head -1 "$TMP/err"))"
}
bad 7 "an unclosed Sq(" --eval 'Sq(1,2'
bad 6 "an empty entry" --eval 'Sq(1,,2)'
bad 3 "a space after a bare Sq" --eval 'Sq 4'
bad 7 "a dangling +" --eval 'Sq(1)+'
bad 6 "an unopened )" --eval 'Sq(1))'
bad 7 "an unknown character" --eval 'Sq(1) @ Sq(2)'
bad 1 "an unknown name" --eval 'Xq(1)'
bad 1 "P at p = 2" --eval 'P(1)'
bad 1 "Sq at p = 3" --eval 'Sq(1)' --prime 3
bad 1 "a degree past the limit" --eval 'Sq(99999999999999999999)'
bad 1 "an entry of 2^32" --eval 'Sq(4294967296)'
bad 1 "an exponent of 2^32 + 1 at p = 3" --eval 'P^4294967297' --prime 3
bad 9 "a product past the limit" --eval 'Sq(100)*Sq(100)'
bad 6 "a newline" --eval 'Sq(1)
Sq(2)'
bad 65 "parentheses 70 deep" --eval "$(printf '(%.0s' $(seq 70))1"
bad 1 "nothing" --eval ' '
$EXTFLOW algebra --help | grep -q -- "--eval EXPR" && $EXTFLOW algebra --help | grep -q -- "--basis milnor|adem"
ok $? "algebra --help names --eval and --basis"
done_testing

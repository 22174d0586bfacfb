#!/bin/sh
# bench/ext-agree (the check of long runs' tables against the kept ones): the kept tables agree
# with each other and with Lin's reference on their common regions; a changed dimension, a
# missing row and a row outside the stated region are caught; bad arguments are usage errors.
. tests/lib.sh
plan 6
A=bench/ext-agree
$A docs/results/ext_S_2_stem200_s102.csv:200:102 docs/results/ext_S_2_stem190_s97.csv:190:97 \
   docs/results/ext_S_2_stem180_s92.csv:180:92 \
   docs/results/ext_S_2_stem170_s87.csv:170:87 \
   docs/results/ext_S_2_stem160_s82.csv:160:82 docs/results/ext_S_2_stem130_s67.csv:130:67 \
   "$REF/ext_S_2_stem60.csv:60:40" >"$TMP/kept.out"
ok $? "the kept tables (stems 200, 190, 180, 170, 160, 130) agree with each other and with Lin's through stem 60"
n130=$(($(wc -l <docs/results/ext_S_2_stem130_s67.csv) - 1))
grep -q "n <= 130, s <= 67: $n130 non-zero" "$TMP/kept.out" && [ "$(grep -c ' 0 differ$' "$TMP/kept.out")" -eq 21 ]
ok $? "twenty-one pairs compared, those with the stem-130 table over all its $n130 non-zero bidegrees"
# one dimension changed, one row dropped: two differences at those bidegrees
awk -F, 'NR > 1 && $1 == 3 && $2 == 33 { $0 = "3,33,2" } NR > 1 && $1 == 3 && $2 == 34 { next } { print }' \
    "$REF/ext_S_2_stem60.csv" >"$TMP/bad.csv"
$A docs/results/ext_S_2_stem160_s82.csv:160:82 "$TMP/bad.csv:60:40" >"$TMP/bad.out"
[ $? -eq 1 ] && grep -q 's,n = 3,33: 1 vs 2' "$TMP/bad.out" && grep -q 's,n = 3,34: 1 vs 0' "$TMP/bad.out" &&
    grep -q '2 differ$' "$TMP/bad.out"
ok $? "a changed dimension and a missing row: exit 1, both bidegrees named"
$A docs/results/ext_S_2_stem160_s82.csv:150:82 "$REF/ext_S_2_stem60.csv:60:40" >"$TMP/out.out"
[ $? -eq 2 ] && grep -q 'lies outside n <= 150' "$TMP/out.out"
ok $? "a row outside the stated region: exit 2"
$A docs/results/ext_S_2_stem160_s82.csv:160:82 2>"$TMP/usage.err"
[ $? -eq 2 ] && [ "$(wc -l <"$TMP/usage.err")" -eq 1 ]
ok $? "one table only: exit 2, one line"
$A docs/results/ext_S_2_stem160_s82.csv:160 "$TMP/none.csv:1:1" 2>"$TMP/arg.err"
[ $? -eq 2 ] && [ "$(wc -l <"$TMP/arg.err")" -eq 1 ]
ok $? "a malformed FILE:STEM:MAXS or an unreadable file: exit 2, one line"
done_testing

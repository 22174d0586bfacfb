#!/bin/sh
# Nassau's row matrices are made unzeroed (rb_alloc_unzeroed, f2mat_init_unzeroed): the multiply
# writes every row whole (the codelet zeroes its chunk's rows first, a GPU launch writes them,
# rt_mul_submit zeroes the rows no product writes). EXTFLOW_POISON_UNZEROED=1 fills such
# matrices with 0xa5 instead of the system's fresh zero pages, so a row read before it was
# written changes the result: every output must be the same as without it, bit for bit.
. tests/lib.sh
plan 7
res() { $EXTFLOW resolve --quiet "$@"; }
res --stem 60 --out "$TMP/z"
EXTFLOW_POISON_UNZEROED=1 res --stem 60 --out "$TMP/p" && same_outputs "$TMP/z" "$TMP/p"
ok $? "sphere, stem 60, unzeroed matrices poisoned: the same ext.csv and stage files"
EXTFLOW_POISON_UNZEROED=1 STARPU_NCPU=1 res --stem 60 --out "$TMP/p1" && same_outputs "$TMP/z" "$TMP/p1"
ok $? "the same on one worker"
EXTFLOW_POISON_UNZEROED=1 EXTFLOW_FINISH_SPLIT=1 EXTFLOW_LOOKAHEAD=4 res --stem 60 --out "$TMP/ps" &&
    same_outputs "$TMP/z" "$TMP/ps"
ok $? "the same with the finish split on every step and a lookahead of 4"
bad=$(differing_modules EXTFLOW_POISON_UNZEROED=0 EXTFLOW_POISON_UNZEROED=1 "" C2 Joker Ceta)
[ -z "$bad" ]
ok $? "modules C2, Joker, Ceta (Nassau over a finite module): the same poisoned${bad:+; differ:$bad}"
two_ranks_same "$TMP/z" "unzeroed matrices poisoned" EXTFLOW_POISON_UNZEROED=1 --stem 60
res --stem 40 --keep-stages matrix,kernel --out "$TMP/k" &&
    EXTFLOW_POISON_UNZEROED=1 $EXTFLOW verify --quiet "$TMP/k" >"$TMP/k.txt" 2>&1 && grep -q " 0 problems: ok" "$TMP/k.txt"
ok $? "verify poisoned (each kept step's phase 1 rerun by rb_multiply, which zeroes its rows): every kept file agrees"
EXTFLOW_POISON_UNZEROED=2 res --stem 10 --out "$TMP/bad" 2>"$TMP/bad.err"
[ $? -eq 2 ] && head -1 "$TMP/bad.err" | grep -q EXTFLOW_POISON_UNZEROED && [ ! -e "$TMP/bad" ]
ok $? "EXTFLOW_POISON_UNZEROED=2: usage error naming it: $(head -1 "$TMP/bad.err")"
done_testing

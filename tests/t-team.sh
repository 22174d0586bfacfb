#!/bin/sh
# A large row reduction shared with idle CPU workers (stages/resolve/resolution.h res_rref, EXTFLOW_TEAM):
# the runner recruits the CPU workers that run no piece as members of the reducing piece's team
# (codelets cl_chain_member), who join while it runs. The outputs must be those of a run with
# no team, bit for bit, whoever joined: forced on small matrices (EXTFLOW_TEAM_MIN) with four
# workers under the eager scheduler (where members do join, which EXTFLOW_STATS counts), up to
# three members or the default half of the idle workers, Nassau
# and the standard algorithm with its early reductions, a module, over two MPI ranks; bad values
# are usage errors.
. tests/lib.sh
plan 6
res() { $EXTFLOW resolve --quiet "$@"; }
# the row blocks members ran, from EXTFLOW_STATS (0 when no team formed)
blocks() { sed -n 's/.*and ran \([0-9]*\) row blocks.*/\1/p' "$1" | grep . || echo 0; }
export STARPU_SCHED=eager STARPU_NCPU=4
EXTFLOW_TEAM=0 res --stem 100 --max-s 40 --out "$TMP/alone"
EXTFLOW_TEAM=3 EXTFLOW_TEAM_MIN=300000 EXTFLOW_STATS=1 res --stem 100 --max-s 40 --out "$TMP/team" 2>"$TMP/team.err" &&
    same_outputs "$TMP/alone" "$TMP/team" && [ "$(blocks "$TMP/team.err")" -gt 0 ] &&
    EXTFLOW_TEAM_MIN=300000 res --stem 100 --max-s 40 --out "$TMP/half" && same_outputs "$TMP/alone" "$TMP/half"
ok $? "sphere, stem 100 (s <= 40), teams from 300 kB of up to 3 members (and of half the idle workers, the default): the same outputs; members ran $(blocks "$TMP/team.err") row blocks"
EXTFLOW_TEAM=1 EXTFLOW_TEAM_MIN=0 res --stem 70 --out "$TMP/one" && EXTFLOW_TEAM=0 res --stem 70 --out "$TMP/a70" &&
    same_outputs "$TMP/a70" "$TMP/one"
ok $? "a team on every reduction, one member at most: the same outputs"
EXTFLOW_TEAM=0 res --algorithm standard --stem 70 --out "$TMP/sa" &&
    EXTFLOW_TEAM=3 EXTFLOW_LOOKAHEAD=4 EXTFLOW_TEAM_MIN=50000 EXTFLOW_STATS=1 res --algorithm standard --stem 70 --out "$TMP/st" \
        2>"$TMP/st.err" && same_outputs "$TMP/sa" "$TMP/st"
ok $? "standard algorithm with early reductions, teams from 50 kB: the same outputs (members ran $(blocks "$TMP/st.err") row blocks)"
export EXTFLOW_TEAM=3
bad=$(differing_modules EXTFLOW_TEAM=0 EXTFLOW_TEAM_MIN=0 "" Joker tmf2)
[ -z "$bad" ]
ok $? "modules Joker, tmf2: the same with a team on every reduction${bad:+; differ:$bad}"
STARPU_NCPU=2 two_ranks_same "$TMP/a70" "a team on every reduction" EXTFLOW_TEAM_MIN=0 --stem 70
unset EXTFLOW_TEAM
EXTFLOW_TEAM=x res --stem 10 --out "$TMP/bad" 2>"$TMP/bad.err"
r1=$?
EXTFLOW_TEAM_MIN=-1 res --stem 10 --out "$TMP/bad2" 2>"$TMP/bad2.err"
r2=$?
[ $r1 -eq 2 ] && [ $r2 -eq 2 ] && head -1 "$TMP/bad.err" | grep -q EXTFLOW_TEAM && head -1 "$TMP/bad2.err" |
    grep -q EXTFLOW_TEAM_MIN && [ ! -e "$TMP/bad" ] && [ ! -e "$TMP/bad2" ]
ok $? "EXTFLOW_TEAM=x and EXTFLOW_TEAM_MIN=-1: usage errors naming them: $(head -1 "$TMP/bad.err")"
done_testing

#!/bin/sh
# StarPU's environment: resolve checks STARPU_NCPU, STARPU_NCUDA, STARPU_SCHED and
# STARPU_MPI_IDLE_SLEEP_US (read by our StarPU-MPI build, which would abort) before StarPU
# starts (a bad value is a usage error and creates nothing), and StarPU's own messages stay
# silent unless --verbose or STARPU_SILENT asks for them.
. tests/lib.sh
plan 11
bad_env() {   # bad_env VAR=VALUE: exit 2, one line naming VAR and the hint, nothing created
    env "$1" $EXTFLOW resolve --stem 4 --out "$TMP/bad/out" --quiet >/dev/null 2>"$TMP/err"
    rc=$?
    var=${1%%=*}
    [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 2 ] && head -1 "$TMP/err" | grep -q "^extflow: $var=" &&
        [ "$(tail -1 "$TMP/err")" = "try 'extflow help'" ] && [ ! -e "$TMP/bad" ]
    ok $? "$1: exit 2, one line and the hint, nothing created ($(head -1 "$TMP/err" | cut -c1-70))"
}
bad_env STARPU_NCPU=abc
bad_env STARPU_NCPU=-1
bad_env STARPU_NCPU=
bad_env STARPU_NCUDA=2x
bad_env STARPU_SCHED=bogus
bad_env STARPU_MPI_IDLE_SLEEP_US=fast
bad_env STARPU_MPI_IDLE_SLEEP_US=20000
# the refusal lists the policies, as StarPU names them at run time
STARPU_SCHED=bogus $EXTFLOW resolve --stem 4 --out "$TMP/bad/out" 2>&1 | head -1 | sed 's/.*policies: //' |
    tr ' ' '\n' > "$TMP/policies"
grep -qx eager "$TMP/policies" && grep -qx dmdas "$TMP/policies" && grep -qx lws "$TMP/policies"
ok $? "the refusal lists StarPU's policies ($(wc -l < "$TMP/policies") of them)"
# A fresh STARPU_HOME makes StarPU calibrate the bus; dmda warns about uncalibrated models.
unset STARPU_SILENT
STARPU_HOME="$TMP/home1" STARPU_SCHED=dmda $EXTFLOW resolve --stem 16 --out "$TMP/quiet" --quiet 2>"$TMP/err" &&
    [ ! -s "$TMP/err" ] && [ -s "$TMP/quiet/ext.csv" ]
ok $? "without STARPU_SILENT, fresh STARPU_HOME, dmda: nothing on stderr ($(head -1 "$TMP/err"))"
STARPU_HOME="$TMP/home2" $EXTFLOW resolve --stem 4 --out "$TMP/verbose" --quiet --verbose 2>"$TMP/err" &&
    grep -qi "starpu" "$TMP/err"
ok $? "--verbose shows StarPU's messages ($(head -1 "$TMP/err"))"
STARPU_HOME="$TMP/home3" STARPU_SILENT=0 $EXTFLOW resolve --stem 4 --out "$TMP/silent0" --quiet 2>"$TMP/err" &&
    grep -qi "starpu" "$TMP/err"
ok $? "STARPU_SILENT=0 set by the user is kept ($(head -1 "$TMP/err"))"
done_testing

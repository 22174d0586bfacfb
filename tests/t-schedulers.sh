#!/bin/sh
# The scheduler and the worker count change the order of work, never an output byte:
# identical ext.csv and differential stage files under each policy with 1 and 2 CPU workers.
. tests/lib.sh
STEM=${SCHED_TEST_STEM:-32}
plan 28
for alg in standard nassau; do
    base="$TMP/base-$alg"
    STARPU_SCHED=eager STARPU_NCPU=1 $EXTFLOW resolve --algorithm $alg --stem $STEM --out "$base" --quiet
    ok $? "$alg: baseline run (eager, 1 CPU) through stem $STEM"
    for sched in eager lws ws prio dmda dmdas; do
        for ncpu in 1 2; do
            [ $sched = eager ] && [ $ncpu = 1 ] && continue
            d="$TMP/$sched-$ncpu"
            STARPU_SCHED=$sched STARPU_NCPU=$ncpu $EXTFLOW resolve --algorithm $alg --stem $STEM --out "$d" --quiet &&
                same_outputs "$base" "$d"
            ok $? "$alg: STARPU_SCHED=$sched STARPU_NCPU=$ncpu: identical ext.csv and stage files"
            rm -rf "$d"
        done
    done
    # a second pass over the same directory under another policy resumes everything, changes nothing
    cp -r "$base" "$TMP/again"
    STARPU_SCHED=dmdas STARPU_NCPU=2 $EXTFLOW resolve --algorithm $alg --stem $STEM --out "$TMP/again" --quiet &&
        same_outputs "$base" "$TMP/again"
    ok $? "$alg: rerun on a finished directory leaves it identical"
    rm -rf "$TMP/again"
    [ "$(wc -l < "$base/ext.csv")" -gt 100 ]
    ok $? "$alg: baseline table is not trivially small"
done
done_testing

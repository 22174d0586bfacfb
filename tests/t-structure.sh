#!/bin/sh
# The structure of stages/ and its folders (docs/design.md, "Layout"): the graph "file A calls a function
# defined in file B", read off the built objects with nm (symbols A's object needs, U, against
# those B's object defines, T/D/B/R), has no circle; Nassau's step calls the resolution's core
# only; the core calls no step and not --keep-stages (the steps reach it through res->keep).
. tests/lib.sh
plan 6
B=build
[ "${SAN:-}" = 1 ] && B=build-san
graph() {   # lines "A B": A's object uses a symbol B's object defines (A != B)
    for c in $SRC; do
        o="$B/${c%.c}.o" f=$(basename "$c" .c)
        nm "$o" | awk -v f="$f" 'NF == 3 && $2 ~ /^[TDBRC]$/ { print "def", f, $3 } $1 == "U" { print "use", f, $2 }'
    done | awk '$1 == "def" { d[$3] = $2; next } { u[++n] = $2 " " $3 }
        END { for (i = 1; i <= n; i++) { split(u[i], a, " "); if ((a[2] in d) && d[a[2]] != a[1]) e[a[1] " " d[a[2]]] = 1 }
              for (k in e) print k }' | sort
}
SRC=$(ls stages/*.c stages/*/*.c)   # stages/ and its folders (a stale object of a moved file is not read)
nc=$(echo "$SRC" | wc -l)
no=$(for c in $SRC; do [ -f "$B/${c%.c}.o" ] && echo; done | wc -l)
graph > "$TMP/edges"
[ "$nc" -eq "$no" ] && [ -s "$TMP/edges" ]
ok $? "every .c of stages/ and its folders has its object in $B/stages ($no of $nc) and the graph has $(wc -l < "$TMP/edges") edges"
# the files on a circle: A reaches A (transitive closure over the few files of stages/)
awk '{ n[$1] = 1; n[$2] = 1; r[$1, $2] = 1 }
     END { for (k in n) for (i in n) if ((i, k) in r) for (j in n) if ((k, j) in r) r[i, j] = 1
           for (i in n) if ((i, i) in r) { printf "%s", i; for (j in n) if (j != i && (i, j) in r && (j, i) in r) printf " %s", j; print "" } }' \
    "$TMP/edges" > "$TMP/circles"
[ ! -s "$TMP/circles" ]
ok $? "no circle among stages/ files$( [ -s "$TMP/circles" ] && printf ': %s' "$(head -3 "$TMP/circles" | tr '\n' ';')")"
bad=$(awk '$1 == "nassau" && $2 != "resolution" && $2 != "rowbuild"' "$TMP/edges" | tr '\n' ' ')
[ -z "$bad" ] && grep -q '^nassau resolution$' "$TMP/edges"
ok $? "Nassau's step (nassau.c) calls the core only (resolution.c, rowbuild.c)${bad:+: also $bad}"
bad=$(awk '($1 == "resolution" || $1 == "rowbuild") && $2 ~ /^(step|standard|nassau|keepstages|preimage|lift)$/' "$TMP/edges" | tr '\n' ' ')
[ -z "$bad" ]
ok $? "the core (resolution.c, rowbuild.c) calls no step, no --keep-stages, no lift${bad:+: $bad}"
bad=$(awk '$2 == "keepstages" && $1 != "verify"' "$TMP/edges" | tr '\n' ' ')
[ -z "$bad" ] && ! grep -l 'stages/resolve/keepstages.h' $SRC | grep -qv '^stages/\(resolve/keepstages\|out/verify\)\.c$'
ok $? "keepstages.c is reached from verify.c only within stages/ (the steps hand matrices to res_keep_stage)${bad:+: $bad}"
bad=$(grep -ln 'struct starpu_perfmodel\|\.cpu_funcs_name' codelets/*.c runtime/*.c | tr '\n' ' ')
[ -z "$bad" ]
ok $? "every codelet is declared with CL_CODELET or CL_CPU (codelets/codelets.h), no perfmodel by hand${bad:+: $bad}"
done_testing

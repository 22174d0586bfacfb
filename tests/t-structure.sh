#!/bin/sh
# The structure of the sources (docs/design.md, "Layout"), from two graphs between modules (a
# module: a .c and its .h, named by its path without the extension): "A includes B's header",
# read off the #include lines, and "A's object calls a function (or reads data) that B's object
# defines", read off the built objects with nm (U against T/D/B/R/C).
#   - Folders (algebra/, codelets/, runtime/, the top of stages/, each folder of stages/,
#     tools/, ss/) depend on one another one way only: no circle among folders, in either graph.
#   - The top of stages/ (the chain interface and the rows it multiplies) includes no header of
#     a folder of stages/, and stages/store/ none but algebra/'s; runtime/ and codelets/ include
#     stages/ headers from its top only (the chain interface is the contract: a run's settings
#     and outcome are its caller's, tools/, and what crosses ranks is the set's exchange); read
#     off the #include lines themselves too.
#   - No circle of modules (by calls) in any of those folders, and no circle of files (each .c,
#     .h and .cu its own node) by their #include lines. A module's header may still be included
#     by a file its .c calls (fdmodule.h's types by fdmodule_p.c, which fdmodule.c dispatches
#     to): that is a layer, types below the dispatcher, not a circle of files or of calls.
#   - Inside stages/resolve/: Nassau's step calls the resolution's core only; the core calls no
#     step and not --keep-stages (the steps reach it through res->keep), and keepstages.c is
#     reached from verify.c only.
. tests/lib.sh
plan 13
B=build
[ "${SAN:-}" = 1 ] && B=build-san
DIRS="algebra codelets runtime stages tools ss"
SRC=$(find $DIRS -name '*.c' 2>/dev/null | sort)
HDR=$(find $DIRS -name '*.h' 2>/dev/null | sort)

# modules' edges by calls: "A B" (paths without .c)
for c in $SRC; do
    o="$B/${c%.c}.o"
    [ -f "$o" ] || { echo "missing $o" >&2; continue; }
    nm "$o" | awk -v f="${c%.c}" 'NF == 3 && $2 ~ /^[TDBRC]$/ { print "def", f, $3 } $1 == "U" { print "use", f, $2 }'
done | awk '$1 == "def" { d[$3] = $2; next } { u[++n] = $2 " " $3 }
    END { for (i = 1; i <= n; i++) { split(u[i], a, " "); if ((a[2] in d) && d[a[2]] != a[1]) e[a[1] " " d[a[2]]] = 1 }
          for (k in e) print k }' | sort > "$TMP/calls"
nc=$(echo "$SRC" | wc -l)
no=$(for c in $SRC; do [ -f "$B/${c%.c}.o" ] && echo; done | wc -l)
[ "$nc" -eq "$no" ] && [ -s "$TMP/calls" ]
ok $? "every .c of $DIRS has its object in $B ($no of $nc); $(wc -l < "$TMP/calls") edges by calls"

# modules' edges by includes: "A B" (A's .c or .h includes B.h)
for f in $SRC $HDR; do
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)\.h".*/\1/p' "$f" |
        while read -r h; do [ -f "$h.h" ] && [ "$h" != "${f%.*}" ] && echo "${f%.*} $h"; done
done | sort -u > "$TMP/includes"
[ -s "$TMP/includes" ]
ok $? "$(wc -l < "$TMP/includes") edges by includes"

# circles: the nodes that reach themselves (transitive closure; a few hundred nodes at most)
circles() {
    awk '{ n[$1] = 1; n[$2] = 1; r[$1, $2] = 1 }
         END { for (k in n) for (i in n) if ((i, k) in r) for (j in n) if ((k, j) in r) r[i, j] = 1
               for (i in n) if ((i, i) in r) { printf "%s:", i; for (j in n) if (j != i && (i, j) in r && (j, i) in r) printf " %s", j; print "" } }' "$1" | sort
}
printf 'x y\ny z\nz x\nz w\n' > "$TMP/planted"
[ "$(circles "$TMP/planted" | cut -d: -f1 | tr '\n' ' ')" = "x y z " ]
planted=$?      # the check below sees a circle where there is one

# files' edges by includes: "F G" (F, a .c, .h or .cu, has #include "G"; paths from the root)
for f in $SRC $HDR $(find $DIRS -name '*.cu' | sort); do
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
        while read -r h; do [ -f "$h" ] && echo "$f $h"; done
done | sort -u > "$TMP/fileincludes"
circles "$TMP/fileincludes" > "$TMP/fcirc"
[ $planted -eq 0 ] && [ ! -s "$TMP/fcirc" ] && [ -s "$TMP/fileincludes" ]
ok $? "no circle of files by #include ($(wc -l < "$TMP/fileincludes") edges among .c, .h and .cu files)$( [ -s "$TMP/fcirc" ] && printf ': %s' "$(head -3 "$TMP/fcirc" | tr '\n' ';')")"
# folders' edges: "A B F G" for every module edge A -> B between two folders F != G
cat "$TMP/calls" "$TMP/includes" | sort -u |
    awk 'function dir(p,  n, a, f, i) { n = split(p, a, "/"); f = a[1]; for (i = 2; i < n; i++) f = f "/" a[i]; return f }
         { f = dir($1); g = dir($2); if (f != g) print $1, $2, f, g }' > "$TMP/crossing"
awk '{ print $3, $4 }' "$TMP/crossing" | sort -u > "$TMP/folders"
circles "$TMP/folders" > "$TMP/fcircles"
why=$(awk 'NR == FNR { split($1, a, ":"); c[a[1]] = 1; next } ($3 in c) && ($4 in c) { print $1 " -> " $2 }' "$TMP/fcircles" "$TMP/crossing" | head -6 | tr '\n' ';')
[ ! -s "$TMP/fcircles" ] && [ -s "$TMP/folders" ]
ok $? "no circle among the $(awk '{ print $1; print $2 }' "$TMP/folders" | sort -u | wc -l) folders ($(wc -l < "$TMP/folders") edges between them)${why:+: $why}"

bad=$(awk '$3 == "stages" && $4 ~ /^stages\//' "$TMP/crossing" | awk '{ print $1 " -> " $2 }' | sort -u | tr '\n' ' ')
[ -z "$bad" ]
ok $? "the top of stages/ (chain interface, rows, progress line, version) reaches no folder of stages/${bad:+: $bad}"
bad=$(awk '$3 == "stages/store" && $4 != "algebra"' "$TMP/crossing" | awk '{ print $1 " -> " $2 }' | sort -u | tr '\n' ' ')
[ -z "$bad" ]
ok $? "the store (stages/store/: durable writes, stage files, their commit) knows no resolution: it reaches algebra/ alone${bad:+: $bad}"

# runtime/ and codelets/ see stages/ through its top (stages/chain.h and the rows it names)
bad=$(awk '($3 == "runtime" || $3 == "codelets") && $4 ~ /^stages\//' "$TMP/crossing" | awk '{ print $1 " -> " $2 }' |
      sort -u | tr '\n' ' ')
[ -z "$bad" ]
ok $? "runtime/ and codelets/ include stages/ headers from its top only${bad:+: $bad}"
bad=$(grep -lE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"stages/[^/"]+/' runtime/*.c runtime/*.h codelets/*.c codelets/*.h |
      tr '\n' ' ')
n=$(ls runtime/*.c runtime/*.h codelets/*.c codelets/*.h | wc -l)
[ -z "$bad" ] && [ "$n" -gt 0 ]
ok $? "no file of runtime/ or codelets/ ($n) includes a header of a stages/ folder, by its #include lines${bad:+: $bad}"

circles "$TMP/calls" > "$TMP/circles"
[ $planted -eq 0 ] && [ ! -s "$TMP/circles" ]
ok $? "no circle of modules by calls in $DIRS$( [ -s "$TMP/circles" ] && printf ': %s' "$(head -3 "$TMP/circles" | tr '\n' ';')")"

bad=$(awk '$1 == "stages/resolve/nassau" && $2 !~ /^(stages\/resolve\/resolution|stages\/rowbuild|algebra\/.*)$/' "$TMP/calls" | tr '\n' ' ')
[ -z "$bad" ] && grep -q '^stages/resolve/nassau stages/resolve/resolution$' "$TMP/calls"
ok $? "Nassau's step (nassau.c) calls the core only (resolution.c, rowbuild.c)${bad:+: also $bad}"
bad=$(awk '($1 == "stages/resolve/resolution" || $1 == "stages/rowbuild") && $2 ~ /\/(step|standard|nassau|keepstages|preimage|lift)$/' "$TMP/calls" | tr '\n' ' ')
[ -z "$bad" ]
ok $? "the core (resolution.c, rowbuild.c) calls no step, no --keep-stages, no lift${bad:+: $bad}"
bad=$(awk '$2 == "stages/resolve/keepstages" && $1 ~ /^stages\// && $1 != "stages/out/verify"' "$TMP/calls" | tr '\n' ' ')
[ -z "$bad" ] && ! grep -l 'stages/resolve/keepstages.h' $(find stages -name '*.c') | grep -qv '^stages/\(resolve/keepstages\|out/verify\)\.c$'
ok $? "keepstages.c is reached from verify.c only within stages/ (the steps hand matrices to res_keep_stage)${bad:+: $bad}"
bad=$(grep -ln 'struct starpu_perfmodel\|\.cpu_funcs_name' codelets/*.c runtime/*.c | tr '\n' ' ')
[ -z "$bad" ]
ok $? "every codelet is declared with CL_CODELET or CL_CPU (codelets/codelets.h), no perfmodel by hand${bad:+: $bad}"
done_testing

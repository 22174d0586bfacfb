#!/bin/sh
# scripts/bundle-openmpi: the copy of this host's Open MPI runs extflow's ranks where the
# system's Open MPI, PMIx and libevent cannot be seen (scripts/hide-system-mpi, a private mount
# namespace: nothing changes outside it). The bundle's ompi_info reports the bundle's folders,
# and 2 ranks started by its mpirun give the outputs of one process started by its ompi-env.
# Skipped where it cannot run: not root, no mount namespaces (some containers), no Open MPI to
# copy, or $EXTFLOW built without StarPU-MPI.
. tests/lib.sh
why=""
[ "$(id -u)" = 0 ] || why="not root"
[ -z "$why" ] && ! unshare -m --propagation private true 2>/dev/null && why="no mount namespaces here (unshare -m)"
[ -z "$why" ] && ! command -v ompi_info >/dev/null 2>&1 && why="no Open MPI here to copy"
[ -z "$why" ] && ! ldd "$EXTFLOW" 2>/dev/null | grep -q libstarpumpi && why="$EXTFLOW built without StarPU-MPI"
if [ -n "$why" ]; then echo "1..0 # SKIP $why"; exit 0; fi
plan 4
P=$TMP/ompi
PREFIX=$P scripts/bundle-openmpi 2>"$TMP/bundle.err"
ok $? "bundle made, every library it holds resolves inside it ($(tail -1 "$TMP/bundle.err" | cut -c1-90))"

# HIDE_STARPU=0: $EXTFLOW is linked to Debian's StarPU, which is no part of the bundle
cat >"$TMP/inside.sh" <<EOF
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1 STARPU_MPI_NOBIND=1
! /usr/bin/mpirun --version >/dev/null 2>&1 && ! $EXTFLOW --help >/dev/null 2>&1; echo "hidden \$?" >"$TMP/r-hidden"
$P/bin/ompi-env ompi_info --path all --parsable >"$TMP/paths" 2>&1
$P/bin/ompi-env $EXTFLOW resolve --stem 30 --out "$TMP/one" --quiet 2>"$TMP/one.err"; echo "one \$?" >"$TMP/r-one"
timeout -k 5 120 $P/bin/mpirun --timeout 120 --oversubscribe -np 2 $EXTFLOW resolve --stem 30 --out "$TMP/two" --quiet \
    >"$TMP/two.err" 2>&1; echo "two \$?" >"$TMP/r-two"
EOF
HIDE_QUIET=1 HIDE_STARPU=0 scripts/hide-system-mpi sh "$TMP/inside.sh" 2>"$TMP/hide.err"
grep -qx 'hidden 0' "$TMP/r-hidden" 2>/dev/null
ok $? "inside: the system's mpirun and libmpi cannot be used ($(cut -c1-60 "$TMP/hide.err"))"
grep -q "^path:prefix:$P\$" "$TMP/paths" && grep -q "^path:pkglibdir:$P/lib/openmpi\$" "$TMP/paths" &&
    grep -q "^path:sysconfdir:$P/etc\$" "$TMP/paths"
ok $? "the bundle's ompi_info: prefix, plugins and settings in the bundle"
grep -qx 'one 0' "$TMP/r-one" && grep -qx 'two 0' "$TMP/r-two" && same_outputs "$TMP/one" "$TMP/two"
ok $? "2 ranks by the bundle's mpirun = one process, stem 30 ($(cat "$TMP/r-one" "$TMP/r-two" 2>/dev/null | tr '\n' ' ')$(grep -v '^ *$' "$TMP/two.err" | head -1 | cut -c1-60))"
done_testing

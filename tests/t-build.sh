#!/bin/sh
# The build: `make` never installs packages (a missing library stops it with one line saying
# what to run), `make test` and `make run` go through the `deps` target, objects depend on the
# headers they include only, and `make install PREFIX=...` installs the binary and a man page
# made from the help text. Runs make on the already built tree (knobs such as SAN=1 come
# through MAKEFLAGS), so it only reads, except for the install into $TMP.
. tests/lib.sh
plan 8
# Under `make -jN test` MAKEFLAGS carries the parent's jobserver: the makes below run on their
# own (their -n output and their one-line message are what is checked), so drop it.
MAKEFLAGS=$(printf ' %s ' "${MAKEFLAGS:-}" | sed -e 's/ --jobserver-[a-z]*=[^ ]*//g' -e 's/ -*j[0-9]* / /g')
export MAKEFLAGS
make -n --no-print-directory PKGS=extflow-no-such-package bin/extflow >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -ne 0 ] && [ "$(grep -c . "$TMP/err")" -eq 1 ] && grep -q "scripts/install-deps" "$TMP/err" &&
    ! grep -q "install-deps" "$TMP/out"
ok $? "a missing library: make stops with one line and runs nothing ($(cut -c1-90 "$TMP/err"))"
make -n --no-print-directory test 2>/dev/null | grep -q "scripts/install-deps"
ok $? "make test goes through scripts/install-deps (the deps target)"
make -n --no-print-directory run 2>/dev/null | grep -q "scripts/install-deps"
ok $? "make run goes through scripts/install-deps (the deps target)"
# tests/tap.h is included by the C tests only: only their objects are rebuilt when it changes
make -n --no-print-directory -W tests/tap.h all 2>/dev/null | grep -o ' -c [^ ]*\.c' | sed 's/ -c //' > "$TMP/rebuilt"
[ -s "$TMP/rebuilt" ] && ! grep -qv '^tests/' "$TMP/rebuilt"
ok $? "a header's change rebuilds its includers only ($(wc -l < "$TMP/rebuilt") objects: $(tr '\n' ' ' < "$TMP/rebuilt" | cut -c1-60))"
[ "$(grep -rli jansson algebra codelets runtime stages ss tools | grep -v '^algebra/f[dp]module\|^algebra/modops\|^ss/history\|^tools/cmd-serve\|^stages/out/manifest')" = "" ] &&
    grep -q "^PKGS .*jansson" Makefile && grep -q libjansson-dev scripts/install-deps
ok $? "jansson: only the module files' code (algebra/fdmodule.c, fpmodule.c, modops.c) the spectral sequence's histories and server (ss/history.c, tools/cmd-serve.c) and DIR/tables.json's reader and writer (stages/out/manifest.c) use it; the Makefile and install-deps ask for it"
make --no-print-directory install PREFIX="$TMP/inst" >/dev/null 2>"$TMP/err" &&
    [ -x "$TMP/inst/bin/extflow" ] && "$TMP/inst/bin/extflow" --version | grep -q "^extflow "
ok $? "make install PREFIX=DIR installs a working DIR/bin/extflow"
[ -s "$TMP/inst/share/man/man1/extflow.1" ] && grep -q '^\.TH EXTFLOW 1' "$TMP/inst/share/man/man1/extflow.1" &&
    [ -s "$TMP/inst/share/extflow/modules/C2.json" ]
ok $? "and DIR/share/man/man1/extflow.1 and the modules in DIR/share/extflow/modules"
if command -v man >/dev/null; then
    MANWIDTH=100 man -M "$TMP/inst/share/man" extflow 2>/dev/null > "$TMP/man.txt"
    grep -q "STARPU_NCPU" "$TMP/man.txt" && grep -q -- "--max-degree" "$TMP/man.txt" &&
        grep -q "$("$TMP/inst/bin/extflow" --version)" "$TMP/man.txt"
    ok $? "man extflow shows the help text and the version"
else
    echo "ok 8 # SKIP man(1) not installed"
fi
done_testing

# lib.sh — TAP helpers for extflow's shell tests (source it; run from the repository root).
EXTFLOW=${EXTFLOW:-./bin/extflow}
REF=${EXTFLOW_TEST_REF:-tests/ref}
export STARPU_SILENT=1 STARPU_WORKERS_NOBIND=1
export STARPU_HOME=${STARPU_HOME:-$(mktemp -d)}
TMP=$(mktemp -d /tmp/extflow-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
tap_n=0
tap_failed=0
plan() { echo "1..$1"; }
ok() {   # ok CONDITION-EXIT-STATUS DESCRIPTION
    tap_n=$((tap_n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"; else echo "not ok $tap_n - $2"; tap_failed=1; fi
}
diag() { echo "# $*" >&2; }   # on stderr, as Test::More does: prove shows it even when not verbose (CI logs)
hold_lock() {   # hold_lock DIR: another process holds DIR/.lock (as a run would) until
                # `kill $holder`, 60 s at most; returns once the lock is taken
    python3 -c 'import fcntl, sys, time
f = open(sys.argv[1] + "/.lock", "a"); fcntl.lockf(f, fcntl.LOCK_EX); print("locked", flush=True); time.sleep(60)' \
        "$1" > "$TMP/holder.out" &
    holder=$!
    while ! grep -q locked "$TMP/holder.out" 2>/dev/null && kill -0 $holder 2>/dev/null; do sleep 0.05; done
}
done_testing() { exit $tap_failed; }
# Compares two output directories: ext.csv and every differential stage file, byte for byte.
same_outputs() {
    cmp -s "$1/ext.csv" "$2/ext.csv" &&
    diff -r "$1/stages/differential" "$2/stages/differential" >/dev/null
}

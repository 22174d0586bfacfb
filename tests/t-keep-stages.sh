#!/bin/sh
# resolve --keep-stages matrix,kernel also saves each step's matrix and its kernel; inspect reads
# them, verify recomputes and compares them; a default run creates no kernel/ or matrix/ folder;
# each kind's aux is what schema/stage-files.md says; docs/algorithms.md §8's worked example,
# run after README's command, prints what the page shows.
. tests/lib.sh
plan 13
$EXTFLOW resolve --stem 10 --keep-stages matrix,kernel --out "$TMP/k" --quiet
ok $? "resolve --stem 10 --keep-stages matrix,kernel"
nm=$(ls "$TMP/k/stages/matrix" | wc -l); nk=$(ls "$TMP/k/stages/kernel" | wc -l)
[ "$nm" -gt 50 ] && [ "$nm" -eq "$nk" ] && [ -f "$TMP/k/stages/matrix/3_9.zst" ] && [ -f "$TMP/k/stages/kernel/0_0.zst" ]
ok $? "one matrix and one kernel file per step ($nm, $nk)"
$EXTFLOW inspect "$TMP/k/stages/matrix/3_9.zst" > "$TMP/m.txt" && grep -q "^kind: matrix$" "$TMP/m.txt" &&
    grep -q "^algorithm: nassau$" "$TMP/m.txt" && [ "$(grep -cE '^[01]+$' "$TMP/m.txt")" -eq "$(sed -n 's/^rows: //p' "$TMP/m.txt")" ]
ok $? "inspect reads a kept matrix (Nassau's zero-signature block at (3,9))"
$EXTFLOW inspect --summary "$TMP/k/stages/kernel/1_4.zst" | grep -q "^kind: kernel$"
ok $? "inspect reads a kept kernel"
$EXTFLOW verify "$TMP/k" > "$TMP/v" && grep -q "kept matrix/kernel files recomputed from the differentials, 0 disagree" "$TMP/v"
ok $? "verify recomputes every kept file and passes ($(head -1 "$TMP/v"))"
# a kept kernel whose content differs (one bit flipped, header intact) is named by verify
$EXTFLOW inspect "$TMP/k/stages/kernel/3_9.zst" | awk '/^[01]+$/ && !done { $0 = (substr($0, 1, 1) == "1" ? "0" : "1") substr($0, 2); done = 1 } { print }' > "$TMP/bad.txt"
$EXTFLOW pack "$TMP/bad.txt" "$TMP/k/stages/kernel/3_9.zst"
$EXTFLOW verify "$TMP/k" > "$TMP/v2"
[ $? -eq 1 ] && grep -q "^bad: .*kernel/3_9.zst: differs" "$TMP/v2"
ok $? "verify names a kept kernel that disagrees ($(grep "^bad:" "$TMP/v2" | head -1 | cut -c1-100))"
$EXTFLOW resolve --algorithm standard --stem 10 --keep-stages matrix --out "$TMP/s" --quiet &&
    [ -d "$TMP/s/stages/matrix" ] && [ ! -e "$TMP/s/stages/kernel" ] && $EXTFLOW verify "$TMP/s" >/dev/null
ok $? "standard algorithm, matrices only: no kernel folder, verify passes"
$EXTFLOW resolve --stem 10 --out "$TMP/d" --quiet && [ ! -e "$TMP/d/stages/kernel" ] && [ ! -e "$TMP/d/stages/matrix" ] &&
    same_outputs "$TMP/d" "$TMP/k"
ok $? "a default run creates no stages/kernel or stages/matrix, and its outputs are the same"
# aux (schema/stage-files.md, "What aux holds"): cols in a differential, 0 in a kept file
bad=
for f in "$TMP/k/stages/differential/"*.zst "$TMP/s/stages/differential/"*.zst; do
    $EXTFLOW inspect --summary "$f" | awk '/^cols:/ { c = $2 } /^aux:/ { a = $2 } END { exit a != c }' || bad="$bad $f"
done
for f in "$TMP/s/stages/matrix/"*.zst "$TMP/k/stages/kernel/"*.zst; do
    $EXTFLOW inspect --summary "$f" | grep -q '^aux: 0$' || bad="$bad $f"
done
[ -z "$bad" ]
ok $? "aux is cols in every differential file (both algorithms), 0 in every kept matrix and kernel${bad:+; not:$bad}"
# docs/algorithms.md §8: README's command first (Nassau's, into out/k), then the section's own
# resolve, then every "$ extflow ..." of its code blocks, whose output must be the lines shown
W="$TMP/worked" X="$(cd "$(dirname "$EXTFLOW")" && pwd)/$(basename "$EXTFLOW")"
mkdir -p "$W/out" && cmd=$(grep -o 'bin/extflow resolve [^#]*--keep-stages matrix,kernel --out out/k ' README.md) &&
    (cd "$W" && "$X" ${cmd#bin/extflow } --quiet)
python3 - "$X" "$W" docs/algorithms.md <<'PY'
import re, subprocess, sys
exe, cwd, doc = sys.argv[1:]
text = open(doc).read()
sec = text[text.index("## 8. "):]
sec = sec[:sec.index("\n## 9. ")] if "\n## 9. " in sec else sec
run = lambda c: subprocess.run(["sh", "-c", c.replace("extflow", exe, 1)], cwd=cwd, capture_output=True, text=True)
m = re.search(r"`(extflow\s+resolve\s+--algorithm\s+standard[^`]*)`", sec)
assert m, "no standard resolve in section 8"
r = run(" ".join(m.group(1).split()) + " --quiet")
assert r.returncode == 0, (m.group(1), r.stderr)
n = 0
for block in re.findall(r"```\n(.*?)```", sec, re.S):
    cmds = re.split(r"^\$ ", block, flags=re.M)[1:]
    for c in cmds:
        line, _, want = c.partition("\n")
        got = run(line)
        assert got.returncode == 0 and got.stdout == want, (line, got.stdout, want, got.stderr)
        n += 1
assert n >= 5, n
PY
ok $? "docs/algorithms.md §8, run after README's --keep-stages command: every command shown prints what is shown"
$EXTFLOW resolve --stem 10 --keep-stages matrix,bogus --out "$TMP/x" --quiet 2>/dev/null
[ $? -eq 2 ] && [ ! -e "$TMP/x" ]
ok $? "an unknown kind in --keep-stages is a usage error"
# a directory already complete over the region asked: no step would run, nothing would be kept
$EXTFLOW resolve --stem 10 --out "$TMP/done" --quiet
(cd "$TMP/done" && find . | sort) > "$TMP/before"
$EXTFLOW resolve --stem 8 --keep-stages matrix,kernel --out "$TMP/done" --quiet 2>"$TMP/err"
rc=$?
(cd "$TMP/done" && find . | sort) > "$TMP/after"
[ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "complete over stem 10 .*nothing would be kept" "$TMP/err" &&
    cmp -s "$TMP/before" "$TMP/after"
ok $? "--keep-stages on a finished directory: refused, one line, no folder made ($(cut -c1-80 "$TMP/err"))"
$EXTFLOW resolve --stem 12 --keep-stages matrix --out "$TMP/done" --quiet && [ -n "$(ls "$TMP/done/stages/matrix")" ]
ok $? "extending it with --keep-stages keeps the new bidegrees' matrices"
done_testing

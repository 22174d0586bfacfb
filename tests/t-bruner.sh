#!/bin/sh
# extflow bruner save: the sphere's resolution as Bruner's Diff.s files. Each file is read back by
# a strict parser of the layout schema/bruner-diff.md describes (header, blocks, empty lines, a
# line per generator below with its degree, dim A there and Milnor elements); the differentials it
# spells, printed in sseq's differentials format, equal sseq's differentials-S_2-milnor (10, 5)
# byte for byte and, through stem 30 (s <= 8), extflow's own differentials.txt; dim A_D in every
# line is sseq's algebra_dim. Refusals: a module's DIR, a missing OUTDIR, another subcommand.
# extflow bruner compare: our resolution against R. R. Bruner's own (tests/ref/bruner/hDiff.s,
# t <= 30, s <= 4: another basis) agrees, and its complex is a minimal resolution; a copy
# damaged in one entry is reported at that entry's bidegree (exit 1): a Sq(2^i) entry by h_i's
# rank, a decomposable one by d(d(g)) != 0, a cycle's differential made 0 by exactness; one
# damaged in its syntax at its file and line (exit 2);
# bruner save's files of the standard algorithm compare equal to that resolution and to
# Nassau's (other generators), and the same files with the top row's last generator dropped differ
# at that generator's bidegree.
# bruner compare --sseq-formats: DIR/bruner.txt against sseq's own copy of Bruner's files
# (tests/ref/bruner/sseq/Diff.0-7, stem 20) is sseq's bruner example output byte for byte;
# against Bruner's hDiff.0-4 (no sseq output exists for them) it is read back and checked by
# identities (tests/bruner_change.py: one row per class of ext.csv, every matrix invertible, h_i
# carried from our Sq(2^i) coefficients to Bruner's), over the standard and Nassau's
# resolutions; our own files give identity matrices; where they differ (exit 1) no bruner.txt is
# left. save into a missing parent, or with --sseq-formats: a usage error (exit 2).
. tests/lib.sh
plan 30

# Diff.0 .. Diff.S in $1 back to sseq's differentials text for stems <= $2 (exit 1 on any
# departure from the layout); dim A_D checked against sseq's algebra_dim
cat > "$TMP/read.py" <<'PY'
import re, sys
d, maxn, algdim = sys.argv[1], int(sys.argv[2]), sys.argv[3]
dimA = {int(m.group(1)): int(m.group(2)) for m in re.finditer(r"dim A_(\d+) = (\d+)", open(algdim).read())}
def fail(why):
    sys.exit("%s" % why)
rows, blocks, s = [], [], 0
while True:
    try:
        text = open("%s/Diff.%d" % (d, s)).read()
    except FileNotFoundError:
        break
    L = text.split("\n")
    m = re.fullmatch(r"s=(\d+)  n=(\d+)", L[0])
    if not m or int(m.group(1)) != s or L[1] != "":
        fail("Diff.%d: header %r" % (s, L[0]))
    n, p, gens = int(m.group(2)), 2, []
    for g in range(n):
        m = re.fullmatch(r"(\d+) : (\d+)", L[p])
        if not m or int(m.group(1)) != g or L[p + 1] != "":
            fail("Diff.%d: block %d: %r" % (s, g, L[p]))
        t, k = int(m.group(2)), int(L[p + 2])
        terms = []
        for line in L[p + 3:p + 3 + k]:
            m = re.fullmatch(r"(\d+) (\d+) (\d+) i((?:\(\d+(?:,\d+)*\))+)\.", line)
            if not m:
                fail("Diff.%d: line %r" % (s, line))
            h, D, M = int(m.group(1)), int(m.group(2)), int(m.group(3))
            ops = re.findall(r"\(([\d,]+)\)", m.group(4))
            if s == 0:
                if (h, D, M, ops) != (0, 0, 1, ["0"]):
                    fail("Diff.0: %r" % line)
                continue
            th = rows[s - 1][h]
            if D != t - th or M != dimA[D]:
                fail("Diff.%d: %r: degree %d - %d, dim A = %d" % (s, line, t, th, dimA[D]))
            i = rows[s - 1][:h].count(th)
            for op in ops:
                terms.append("P(%s) x_(%d,%d,%d)" % (", ".join(op.split(",")), th - (s - 1), s - 1, i))
        after = 3 if s == 0 else 2
        if L[p + 3 + k:p + 3 + k + after] != [""] * after:
            fail("Diff.%d: block %d ends in %r" % (s, g, L[p + 3 + k:p + 3 + k + after]))
        p += 3 + k + after
        if gens and t < gens[-1][0]:
            fail("Diff.%d: degrees go down" % s)
        gens.append((t, terms))
    if p != len(L) - 1 or L[-1] != "":
        fail("Diff.%d: %d lines after the last block" % (s, len(L) - 1 - p))
    rows.append([t for t, _ in gens])
    blocks.append(gens)
    s += 1
out = []
for n in range(maxn + 1):
    for s in range(len(rows)):
        i = 0
        for t, terms in blocks[s]:
            if t - s == n:
                out.append("d x_(%d,%d,%d) = %s\n" % (n, s, i, " + ".join(terms) or "0"))
                i += 1
sys.stdout.write("".join(out))
PY
D="$TMP/d"
$EXTFLOW resolve --algorithm standard --stem 10 --max-s 5 --out "$D" --quiet &&
    $EXTFLOW bruner save "$D" "$TMP/b" --quiet && [ "$(ls "$TMP/b" | tr '\n' ' ')" = "Diff.0 Diff.1 Diff.2 Diff.3 Diff.4 Diff.5 " ]
ok $? "bruner save writes Diff.0 .. Diff.5 for s <= 5"
printf 's=0  n=1\n\n0 : 0\n\n1\n0 0 1 i(0).\n\n\n\n' | cmp -s - "$TMP/b/Diff.0"
ok $? "Diff.0 is the unit's block"
python3 "$TMP/read.py" "$TMP/b" 10 "$REF/algebra_dim" > "$TMP/diff.txt" && tail -n +2 "$REF/differentials-S_2-milnor" | cmp -s - "$TMP/diff.txt"
ok $? "read back (the layout, dim A_D): the differentials are sseq's differentials-S_2-milnor (10, 5) byte for byte"
D="$TMP/d30"
$EXTFLOW resolve --algorithm standard --stem 30 --max-s 8 --out "$D" --quiet --sseq-formats &&
    $EXTFLOW bruner save "$D" "$TMP/b30" --quiet && python3 "$TMP/read.py" "$TMP/b30" 30 "$REF/algebra_dim" > "$TMP/diff30.txt" &&
    cmp -s "$D/differentials.txt" "$TMP/diff30.txt"
ok $? "stem 30, s <= 8: read back, they are differentials.txt ($(wc -l < "$TMP/diff30.txt") generators)"

refused "no OUTDIR" bruner save "$TMP/d"
refused "another subcommand" bruner frobnicate "$TMP/d" "$TMP/x"
refused "compare: no BRUNERDIR there" bruner compare "$TMP/d" "$TMP/x"
: > "$TMP/file"
refused "OUTDIR a file" bruner save "$TMP/d" "$TMP/file"
$EXTFLOW resolve --module C2 --stem 10 --out "$TMP/C2" --quiet
refused "a module's DIR" bruner save "$TMP/C2" "$TMP/bc"
$EXTFLOW bruner --help > "$TMP/out" 2>"$TMP/err" && grep -q "^  bruner " "$TMP/out" && [ ! -s "$TMP/err" ]
ok $? "bruner --help: the help on stdout, exit 0"

# bruner compare against Bruner's files: rows s <= 4, through t = 30 (their header's TMAX)
BR="$REF/bruner"
$EXTFLOW resolve --stem 30 --max-s 4 --out "$TMP/n30" --quiet
$EXTFLOW bruner compare "$TMP/n30" "$BR" > "$TMP/out"
ok $? "Bruner's resolution (s <= 4, t <= 30) agrees with ours: $(cat "$TMP/out")"
# the one Sq(4) on h = 3 (degree 8, h_2^2) of row 3's generator of degree 12 (n = 9) made Sq(1,1):
# h_2 from (6, 2) to (9, 3) loses its rank
mkdir "$TMP/bd" && cp "$BR"/hDiff.* "$TMP/bd/" &&
    awk '/^12 $/ { b = 1 } b && $0 == "3 4 2 i(4)." { $0 = "3 4 2 i(1,1)."; b = 0; n++ } { print } END { exit n != 1 }' \
        "$BR/hDiff.3" > "$TMP/bd/hDiff.3"
$EXTFLOW bruner compare "$TMP/n30" "$TMP/bd" > "$TMP/out"
[ $? -eq 1 ] && grep -q "differ: (n, s) = (9, 3), t = 12: h_2 from (6, 2) has rank 1 in .*, 0 in " "$TMP/out"
ok $? "one entry damaged: exit 1 at its bidegree: $(cat "$TMP/out")"
# a decomposable entry changed (Sq(10) made Sq(7,1) in the same place): the h_i ranks stay, but
# d(d(g)) of that generator (row 3, degree 12: n = 9) is no longer 0
sed 's/^0 10 6 i(10)\.$/0 10 6 i(7,1)./' "$BR/hDiff.3" > "$TMP/bd/hDiff.3"
$EXTFLOW bruner compare "$TMP/n30" "$TMP/bd" > "$TMP/out"
[ $? -eq 1 ] && grep -q "differ: (n, s) = (9, 3), t = 12: .*'s d(d(g)) is not 0 for its generator 4 of row 3" "$TMP/out"
ok $? "a decomposable entry damaged: d(d(g)) != 0 at its bidegree: $(cat "$TMP/out")"
# c0's differential (row 3, degree 11, no Sq(2^i) in it) made 0: counts, ranks and d(d) = 0
# stay, but F_3 is no longer exact at (8, 3): a cycle more in the kernel of d_3
python3 - "$BR/hDiff.3" "$TMP/bd/hDiff.3" <<'PY'
import sys
text = open(sys.argv[1]).read()
block = "11 \n\n4\n0 9 5 i(9)(3,2).\n1 7 4 i(0,0,1).\n2 6 3 i(6).\n3 3 2 i(3)(0,1).\n"
assert text.count(block) == 1
open(sys.argv[2], "w").write(text.replace(block, "11 \n\n0\n"))
PY
$EXTFLOW bruner compare "$TMP/n30" "$TMP/bd" > "$TMP/out"
[ $? -eq 1 ] && grep -q "differ: (n, s) = (8, 3), t = 11: .*'s complex is not exact at F_3: rank d_4 = 3, but the kernel of d_3 has dimension 4" "$TMP/out"
ok $? "a cycle's differential made 0: not exact at its bidegree: $(cat "$TMP/out")"
cp "$BR/hDiff.3" "$TMP/bd/hDiff.3"
L=$(grep -n '^4 9 5 i(6,1)(3,2)(0,3)(2,0,1)\.$' "$BR/hDiff.4" | cut -d: -f1)
sed "${L}s/(2,0,1)/(2,0,2)/" "$BR/hDiff.4" > "$TMP/bd/hDiff.4"
$EXTFLOW bruner compare "$TMP/n30" "$TMP/bd" > /dev/null 2> "$TMP/err"
[ $? -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "^extflow: bruner compare: $TMP/bd/hDiff.4:$L: a Milnor element of degree 16 " "$TMP/err"
ok $? "a Milnor element of the wrong degree: exit 2 at hDiff.4:$L: $(cat "$TMP/err")"
head -c 400 "$BR/hDiff.3" > "$TMP/bd/hDiff.3" && cp "$BR/hDiff.4" "$TMP/bd/hDiff.4"
$EXTFLOW bruner compare "$TMP/n30" "$TMP/bd" > /dev/null 2> "$TMP/err"
[ $? -eq 2 ] && grep -q "^extflow: bruner compare: $TMP/bd/hDiff.3:[0-9]*: " "$TMP/err"
ok $? "a file cut short: exit 2 with its line: $(cat "$TMP/err")"

# round trips through bruner save (the standard algorithm's generators, sseq's)
S="$TMP/s20"
$EXTFLOW resolve --algorithm standard --stem 20 --max-s 6 --out "$S" --quiet && $EXTFLOW bruner save "$S" "$TMP/bs" --quiet &&
    $EXTFLOW bruner compare "$S" "$TMP/bs" --quiet > "$TMP/out" && [ ! -s "$TMP/out" ]
ok $? "bruner save's files compare equal to their own resolution (--quiet: no line)"
$EXTFLOW resolve --stem 20 --max-s 6 --out "$TMP/n20" --quiet && $EXTFLOW bruner save "$TMP/n20" "$TMP/bn" --quiet &&
    ! cmp -s "$TMP/bs/Diff.3" "$TMP/bn/Diff.3" && $EXTFLOW bruner compare "$TMP/n20" "$TMP/bs" > "$TMP/out"
ok $? "Nassau's resolution (other generators: Diff.3 differs) agrees with the standard one's files: $(cat "$TMP/out")"
$EXTFLOW bruner compare "$S" "$BR" --stem 12 > "$TMP/out"
ok $? "--stem 12: $(cat "$TMP/out")"
# Diff.6 (the top row: no row above refers to it) without its last generator, the header one
# less: a generator fewer at its bidegree
cat > "$TMP/cut.py" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
n = int(re.match(r"s=6  n=(\d+)\n\n", text).group(1))
cut = text.index("\n%d : " % (n - 1)) + 1
open(sys.argv[2], "w").write("s=6  n=%d\n\n" % (n - 1) + text[text.index("\n\n") + 2:cut])
print(re.search(r"^%d : (\d+)$" % (n - 1), text, re.M).group(1))
PY
mkdir "$TMP/bt" && cp "$TMP/bs"/Diff.* "$TMP/bt/" && T=$(python3 "$TMP/cut.py" "$TMP/bs/Diff.6" "$TMP/bt/Diff.6")
$EXTFLOW bruner compare "$S" "$TMP/bt" > "$TMP/out"
[ $? -eq 1 ] && grep -q "differ: (n, s) = ($((T - 6)), 6), t = $T: [0-9]* generators in " "$TMP/out"
ok $? "Diff.6's last generator (t = $T) dropped: $(cat "$TMP/out")"

# --sseq-formats: the change of basis, as sseq's bruner example prints it
D="$TMP/sseq20"
$EXTFLOW resolve --algorithm standard --stem 20 --max-s 7 --out "$D" --quiet &&
    $EXTFLOW bruner compare "$D" "$BR/sseq" --sseq-formats --quiet > "$TMP/out" && [ ! -s "$TMP/out" ] &&
    tail -n +2 "$BR/bruner-20" | cmp -s - "$D/bruner.txt"
ok $? "against sseq's Diff.0-7 (Diff.3's header one block short, read as sseq reads it): bruner.txt is sseq's bruner output (stem 20, s <= 7) byte for byte"
tail -n +2 "$BR/bruner-20" > "$TMP/b20" && $EXTFLOW bruner save "$D" "$TMP/s20b" --quiet &&
    python3 tests/bruner_change.py "$TMP/b20" "$TMP/s20b" "$BR/sseq" "$D/ext.csv" > "$TMP/out"
ok $? "sseq's output passes the identity checks (the checks' own check): $(cat "$TMP/out")"
D="$TMP/h30"
$EXTFLOW resolve --algorithm standard --stem 30 --max-s 4 --out "$D" --quiet &&
    $EXTFLOW bruner compare "$D" "$BR" --sseq-formats --quiet && $EXTFLOW bruner save "$D" "$TMP/h30b" --quiet &&
    python3 tests/bruner_change.py "$D/bruner.txt" "$TMP/h30b" "$BR" "$D/ext.csv" > "$TMP/out"
ok $? "against Bruner's hDiff.0-4 (no sseq output exists): a row per class, invertible, h_i carried: $(cat "$TMP/out")"
$EXTFLOW bruner compare "$TMP/n30" "$BR" --sseq-formats --quiet && $EXTFLOW bruner save "$TMP/n30" "$TMP/n30b" --quiet &&
    python3 tests/bruner_change.py "$TMP/n30/bruner.txt" "$TMP/n30b" "$BR" "$TMP/n30/ext.csv" > "$TMP/out"
ok $? "the same over Nassau's resolution: $(cat "$TMP/out")"
$EXTFLOW bruner compare "$D" "$TMP/h30b" --quiet &&
    awk -F' = ' 'NR > 1 { split($1, x, /[(),]/); n = split(substr($2, 2, length($2) - 2), c, ", ");
                          for (j = 1; j <= n; j++) if (c[j] != (j - 1 == x[4])) bad++; rows++ }
                 END { exit bad || !rows }' "$D/bruner.txt"
ok $? "bruner save's own files (an earlier bruner.txt kept current without --sseq-formats): every matrix the identity"
mkdir "$TMP/bd2" && cp "$BR"/hDiff.* "$TMP/bd2/" &&
    awk '/^12 $/ { b = 1 } b && $0 == "3 4 2 i(4)." { $0 = "3 4 2 i(1,1)."; b = 0 } { print }' "$BR/hDiff.3" > "$TMP/bd2/hDiff.3"
$EXTFLOW bruner compare "$D" "$TMP/bd2" --sseq-formats > "$TMP/out" 2>&1
[ $? -eq 1 ] && grep -q " differ: " "$TMP/out" && [ ! -e "$D/bruner.txt" ]
ok $? "files that differ: exit 1 (as verify's), and the earlier bruner.txt removed"
refused "save with --sseq-formats" bruner save "$D" "$TMP/bx" --sseq-formats
refused "save into a missing parent" bruner save "$D" "$TMP/no/such/out"
[ ! -e "$TMP/no" ]
ok $? "nothing created for the missing parent"
$EXTFLOW bruner --help | grep -q "sseq-formats"
ok $? "--help names --sseq-formats"
done_testing

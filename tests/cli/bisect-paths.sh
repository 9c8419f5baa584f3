#!/bin/sh
# qopt bisect -o with trailing slashes (issue 39): the paths it reports
# and the candidate it hands the test are joined with one slash
# (bisect/last-good.onnx, never bisect//last-good.onnx), and the files
# are where it says.
. "$top_srcdir/tests/lib/common.sh"
G="--load $PL/counter.so"
CHECK="$top_builddir/tests/cli/bisect-check"
cd "$W" || exit 1
cat >p.ini <<'INI'
[t-corrupt]
count = 4
prefix = b
bad = 3
INI
# the test: the path it was given to a log, then the real check
cat >t.sh <<SH
#!/bin/sh
echo "\$1" >>"$W/given"
exec "$CHECK" "\$1"
SH
chmod +x t.sh
for dir in 'slash/' 'two//' "$W/abs/"; do
	rm -f given
	run "$QOPT" bisect $G -p p.ini m.onnx --test "./t.sh {}" -o "$dir"
	base=${dir%%/}
	base=${base%%/}
	t "-o '$dir': bisect succeeds" eval '[ $rc = 0 ]'
	t "-o '$dir': the files it names are $base/..., one slash" eval \
		'has "last good: $base/last-good.onnx (limit" "$W/out" &&
		 has "first bad: $base/first-bad.onnx (limit" "$W/out" &&
		 has "log: $base/bisect.log" "$W/out" && ! grep -q "//" "$W/out"'
	t "-o '$dir': they are there" eval '[ -f "$base/last-good.onnx" ] && [ -f "$base/first-bad.onnx" ] && [ -f "$base/bisect.log" ]'
	t "-o '$dir': the test was given $base/candidate.onnx" eval \
		'grep -qx "$base/candidate.onnx" "$W/given" && ! grep -q "//" "$W/given"'
done
done_testing

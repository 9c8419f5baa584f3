#!/bin/sh
# tests/san/gate.sh - the sanitizer gate can fail: in a sanitizer build
# (make check-sanitize), a program with undefined behaviour run as
# $QOPT (tests/san/qopt.sh) or as a test (tests/san/wrap.sh) makes the
# wrapper fail with the report, even when the test itself would pass.
: "${top_srcdir:=.}" "${top_builddir:=.}"
if [ "$QOPT_SANITIZED" != yes ]; then
	echo "1..0 # SKIP not a sanitizer build (make check-sanitize runs it)"
	exit 0
fi
ub="$top_builddir/tests/san/ub"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/qopt-san-gate.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
echo "1..5"
n=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

# A test that ignores how $QOPT ended: only the wrapper can fail it.
cat >"$tmp/lenient.sh" <<'EOT'
#!/bin/sh
"$QOPT" "$1" >/dev/null 2>&1
echo "1..1"
echo "ok 1 - whatever qopt did"
EOT
chmod +x "$tmp/lenient.sh"

wrap() {
	# A fresh wrapper run: its own report folder, $QOPT the UB program.
	(top_builddir=$tmp QOPT=$ub ASAN_OPTIONS= UBSAN_OPTIONS= \
		sh "$top_srcdir/tests/san/wrap.sh" "$tmp/lenient.sh" "$1") \
		>"$tmp/out" 2>&1
}

wrap none
ok $? "no undefined behaviour: the wrapper passes the test"
wrap misaligned
rc=$?
[ $rc = 99 ] && grep -q "^Bail out! sanitizer report" "$tmp/out" &&
	grep -q "misaligned address" "$tmp/out"
ok $? "a misaligned load in the program run as \$QOPT fails the test (exit $rc)"
wrap float-cast
rc=$?
[ $rc = 99 ] && grep -q "is outside the range of representable values" "$tmp/out"
ok $? "float-cast-overflow is checked and fails the test (exit $rc)"
# The program itself (not through $QOPT): -fno-sanitize-recover stops
# it at the report, so it cannot go on to pass.
"$ub" misaligned >"$tmp/out" 2>&1
rc=$?
[ $rc != 0 ] && ! grep -q "^1$" "$tmp/out"
ok $? "-fno-sanitize-recover: the report ends the program (exit $rc)"
"$ub" none >"$tmp/out" 2>&1
ok $? "the program runs clean without undefined behaviour"

#!/bin/sh
# tests/san/qopt.sh ARGS...: what $QOPT names in a sanitizer build
# (set by tests/san/wrap.sh). Runs the real qopt ($QOPT_REAL) and
# passes its exit status and output through; a copy of its stderr that
# holds a sanitizer report goes to $QOPT_SAN_DIR, where the wrapper
# finds it and fails the test. UBSan run beside ASan prints to stderr
# whatever log_path says, and tests that expect qopt to fail, or that
# only check its exit status, would never look.
real=${QOPT_REAL:?QOPT_REAL is not set}
dir=${QOPT_SAN_DIR:?QOPT_SAN_DIR is not set}
# On a terminal (the progress-bar tests) stderr must stay one; the
# abort that -fno-sanitize-recover makes of a report fails those.
if [ -t 2 ]; then
	exec "$real" "$@"
fi
# The copy lives in the test's report folder, not in $TMPDIR: tests
# check that qopt leaves $TMPDIR as it found it, and a stopped run must
# not leave the wrapper's file there either.
err=$(mktemp "$dir/qopt-stderr.XXXXXX") || exit 99
"$real" "$@" 2>"$err"
rc=$?
cat "$err" >&2
if grep -q -e 'runtime error:' -e 'Sanitizer' "$err"; then
	mv "$err" "$dir/qopt-report.$$"
else
	rm -f "$err"
fi
exit $rc

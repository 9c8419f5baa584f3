#!/bin/sh
# tests/san/wrap.sh TEST [ARGS...]: how `make check` starts every test
# (LOG_COMPILER). In a sanitizer build (QOPT_SANITIZED=yes, from
# tests/env.sh) reports are collected in a folder of this test's own:
# ASan's through log_path, and every qopt the test runs goes through
# tests/san/qopt.sh, which files a copy of any stderr holding a report
# (UBSan beside ASan ignores log_path). Tests that check only an exit
# status, or expect qopt to fail, would not notice a report; any report
# in the folder fails the test, with the report as diagnostics, and a
# test program's own report aborts it (-fno-sanitize-recover).
# Elsewhere it just runs the test.
if [ "$QOPT_SANITIZED" != yes ]; then
	exec "$@"
fi
name=${1##*tests/}
dir="${top_builddir:-.}/tests/san-reports/$name"
rm -rf "$dir"
mkdir -p "$dir" || { echo "Bail out! cannot create $dir"; exit 99; }
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$dir/asan"
UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:log_path=$dir/ubsan"
QOPT_REAL=${QOPT:?QOPT is not set (tests/env.sh)}
QOPT="${top_srcdir:-.}/tests/san/qopt.sh"
QOPT_SAN_DIR=$dir
export ASAN_OPTIONS UBSAN_OPTIONS QOPT QOPT_REAL QOPT_SAN_DIR
"$@"
rc=$?
found=0
for f in "$dir"/*; do
	[ -f "$f" ] || continue
	[ $found = 1 ] || echo "Bail out! sanitizer report(s) from $name or a program it ran"
	found=1
	echo "# ---- $f"
	sed 's/^/# /' "$f" | head -n 60
done
[ $found = 1 ] && exit 99
rm -rf "$dir"
exit $rc

#!/bin/sh
# The pass manager is a library without mutable globals: every object of
# the manager (core/manager, compiled into libqopt) holds no writable data (.data, .bss) but the signal
# guard's (core/manager/guard.c: what a signal handler reads must be the
# process's). What a session remembers lives in pm_session
# (tests/manager/session runs two in one process).
. "$top_srcdir/tests/lib/common.sh"

# The manager's objects as libqopt compiled them (libtool's PIC copies).
set -- "$top_builddir"/core/manager/.libs/libqopt_la-*.o
if ! command -v objdump >/dev/null 2>&1; then
	echo "1..0 # SKIP objdump not found"
	exit 0
fi
t "the manager's objects are built ($#)" test -f "$1"
# "FILE: SYMBOL SECTION" for every data object in a writable section.
objdump -t "$@" 2>/dev/null | awk '
	/^In archive/ { next }
	/file format/ { obj = $1; sub(/:$/, "", obj); next }
	$0 ~ / O / {
		for (i = 1; i <= NF; i++) if ($i == "O") sec = $(i + 1)
		# __*: what the compiler adds (the sanitizers __odr_asan.*, ...)
		if (sec ~ /^\.(data|bss)(\.|$)/ && sec !~ /^\.data\.rel\.ro/ &&
		    $NF !~ /^__/)
			print obj ": " $NF " " sec
	}' >"$W/writable"
sed 's/^/# writable: /' "$W/writable"
t "the check sees writable data (the signal guard's)" \
	grep -q 'guard\.o: running_pass ' "$W/writable"
grep -v 'guard\.o: ' "$W/writable" >"$W/globals"
t "no other object of the manager has writable data" test ! -s "$W/globals"
done_testing

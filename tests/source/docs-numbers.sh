#!/bin/sh
# Numbers the docs state about the code, read from the code's own
# constants: the plugin ABI of <qopt/version.h> (README.md once said 4.1
# while qopt -V said 4.2) and the files qm_guard_files keeps for a stop
# (docs/manager-api.md once said four where guard.c keeps 8). Each check
# fails when either side drifts.
. "$top_srcdir/tests/lib/common.sh"
cd "$top_srcdir" || exit 1

major=$(sed -n 's/^#define QOPT_ABI_MAJOR \([0-9]*\)$/\1/p' include/qopt/version.h)
minor=$(sed -n 's/^#define QOPT_ABI_MINOR \([0-9]*\)$/\1/p' include/qopt/version.h)
readme=$(sed -n 's/.*plugin ABI version of the headers (\([0-9.]*\) in this release).*/\1/p' README.md)
t "README.md's plugin ABI ($readme) is version.h's ($major.$minor)" \
	eval '[ -n "$major" ] && [ -n "$minor" ] && [ "$readme" = "$major.$minor" ]'
run "$QOPT" --version
t "qopt --version says plugin ABI $major.$minor" \
	eval '[ $rc = 0 ] && grep -q "(plugin ABI $major\.$minor)" "$W/out"'

stops=$(sed -n 's/^#define STOP_FILES \([0-9]*\)$/\1/p' core/manager/guard.c)
doc=$(sed -n 's/.*to end and up to \([0-9]*\) files and a folder to remove.*/\1/p' \
	docs/manager-api.md)
hdr=$(sed -n 's/^ \* (at most \([0-9]*\)) and then dir.*/\1/p' \
	core/manager/session-api.h)
t "docs/manager-api.md's stop files ($doc) are guard.c's STOP_FILES ($stops)" \
	eval '[ -n "$stops" ] && [ "$doc" = "$stops" ]'
t "session-api.h's qm_guard_files comment ($hdr) is STOP_FILES ($stops)" \
	eval '[ -n "$stops" ] && [ "$hdr" = "$stops" ]'
done_testing

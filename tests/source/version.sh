#!/bin/sh
# One release number: configure.ac's AC_INIT (what `qopt -V` and the
# tarball say) and <qopt/version.h> (what a plugin compiles against) must
# agree; release 0.5.0 shipped with a header still saying 0.4.0.
. "$top_srcdir/tests/lib/common.sh"
ac=$(sed -n 's/^AC_INIT(\[qopt\], \[\([0-9.]*\)\].*/\1/p' "$top_srcdir/configure.ac")
hdr=$(sed -n 's/^#define QOPT_VERSION_STRING "\(.*\)"$/\1/p' \
	"$top_srcdir/include/qopt/version.h")
parts=$(sed -n 's/^#define QOPT_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
	"$top_srcdir/include/qopt/version.h" | paste -sd.)
t "configure.ac's version ($ac) is version.h's string ($hdr)" \
	eval '[ -n "$ac" ] && [ "$ac" = "$hdr" ]'
t "version.h's MAJOR.MINOR.PATCH ($parts) is its string" [ "$parts" = "$hdr" ]
run "$QOPT" -V
t "qopt -V says $ac" eval '[ $rc = 0 ] && grep -q "^qopt $ac " "$W/out"'
done_testing

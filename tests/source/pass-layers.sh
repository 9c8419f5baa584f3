#!/bin/sh
# Each pass's own files (passes/*/) depend one way: no include circle
# among them (a file and its header are one node: act.c including
# util.h is act -> util) and no call circle among its objects (one file
# calling into another that calls back: passes/mxfp8's plugin.c,
# weight.c and act.c once did). Each check is run once on a copy with a
# planted circle, which it must find.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/cycles.sh"

# "FROM TO" (stems) for each #include "NAME.h" in folder $1's .c/.h
# that names a header of that folder.
include_edges() {
	for f in "$1"/*.[ch]; do
		[ -f "$f" ] || continue
		from=${f##*/}
		sed -n 's|^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"/]*\)\.h".*|\1|p' \
			"$f" | while read -r to; do
			[ -f "$1/$to.h" ] && echo "${from%.?} $to"
		done
	done
}

# objs FOLDER: the objects the build made for it (libtool's PIC ones
# in .libs/ where there are both: call_cycle names them by file name).
objs() {
	find "$top_builddir/$1" -maxdepth 2 -name '*.o' 2>/dev/null | sort
}

have_nm=$(command -v nm)
checked=
for d in "$top_srcdir"/passes/*/; do
	d=${d%/}
	p=${d#"$top_srcdir"/}
	include_edges "$d" | cycle_nodes >"$W/inc"
	sed "s|^|# $p include circle: |" "$W/inc"
	t "$p: no include circle among its files" test ! -s "$W/inc"
	o=$(objs "$p")
	if [ -z "$have_nm" ] || [ -z "$o" ]; then
		echo "ok $((n += 1)) # SKIP nm or the objects of $p missing"
		continue
	fi
	# shellcheck disable=SC2086 # one word per object
	call_cycle $o >"$W/call"
	sed "s|^|# $p call circle: |" "$W/call"
	t "$p: no call circle among its objects ($(echo "$o" | wc -l))" \
		test ! -s "$W/call"
	checked="$checked $p"
done
case "$checked " in
*" passes/mxfp8 "*) ok 0 "passes/mxfp8's objects were among those checked" ;;
*) [ -n "$have_nm" ] && ok 1 "passes/mxfp8's objects were among those checked" ;;
esac

# --- planted circles ---
P="$W/planted"
mkdir -p "$P"
cp "$top_srcdir"/passes/mxfp8/*.[ch] "$P/"
printf '#include "weight.h"\n' >>"$P/util.h"
include_edges "$P" | cycle_nodes >"$W/pi"
t "control: mxfp8's util.h including weight.h (weight.c includes util.h) is a circle" \
	sh -c "grep -qx util '$W/pi' && grep -qx weight '$W/pi'"
if got=$(planted_call_cycle "$W"); then
	t "control: ping.o <-> pong.o is a call circle (top.o is not on it)" \
		test "$got" = "ping.o pong.o "
else
	echo "ok $((n += 1)) # SKIP nm or a C compiler missing"
fi
done_testing

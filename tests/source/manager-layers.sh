#!/bin/sh
# The pass manager's seams (docs/manager-api.md): core/cli/*.c include
# no core/manager header but the public session header
# (core/manager/session-api.h); no file outside core/manager includes a
# manager header but that one (the white-box tests and fuzzers listed in
# $WHITE_BOX excepted); no include circle among core/manager's headers,
# and no call circle among its object files (one file calling into
# another that calls back: alias.c <-> loader.c once). Each check is run
# once on a copy with a planted violation, which it must find.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/cycles.sh"

PUBLIC=manager/session-api.h
# White-box: unit tests of the manager's internals and the fuzzers.
WHITE_BOX="tests/manager/unit.c tests/manager/session.c tests/abi/loader.c
fuzz/fuzz-passes.c tests/base/utf8.c"

# "FILE HEADER" for each include of a manager header of the .c/.h under
# $1's folders given after it, in any spelling (the header's path from
# core/ or from the top, or with ../ in front; quotes or angle
# brackets), named by its path from core/.
manager_includes() {
	root=$1
	shift
	(cd "$root" && find "$@" \( -name '*.c' -o -name '*.h' \) \
		-type f 2>/dev/null | sort | while read -r f; do
		sed -n 's|^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]\(\.\./\)*\(core/\)\{0,1\}\(manager/[^">]*\)[">].*|\3|p' \
			"$f" | sed "s|^|$f |"
	done)
}

# (a) core/cli includes only the public header; prints the violations.
cli_violations() {
	manager_includes "$1" core/cli | awk -v pub="$PUBLIC" '$2 != pub'
}

# (b) outside core/manager, only the public header (white box aside).
outside_violations() {
	manager_includes "$1" core include ir kernels passes plugins tools \
		bench examples fuzz tests |
		awk -v pub="$PUBLIC" -v wb="$WHITE_BOX" '
		BEGIN { n = split(wb, w, /[ \n]+/); for (i = 1; i <= n; i++) ok[w[i]] = 1 }
		$1 !~ /^core\/manager\// && $2 != pub && !ok[$1]'
}

# (c) include edges among core/manager's files.
include_cycle() {
	manager_includes "$1" core/manager |
		sed 's|^core/||' | cycle_nodes
}
# (c') call edges among objects: call_cycle (tests/lib/cycles.sh).

# --- the tree as it is ---
cli_violations "$top_srcdir" >"$W/a"
sed 's/^/# core\/cli includes: /' "$W/a"
t "core/cli includes no core/manager header but $PUBLIC" test ! -s "$W/a"
outside_violations "$top_srcdir" >"$W/b"
sed 's/^/# outside core\/manager: /' "$W/b"
t "no file outside core/manager includes a manager header but $PUBLIC" \
	test ! -s "$W/b"
include_cycle "$top_srcdir" >"$W/c"
sed 's/^/# include circle: /' "$W/c"
t "no include circle among core/manager's headers" test ! -s "$W/c"
# The manager's objects as libqopt compiled them (libtool's PIC copies).
set -- "$top_builddir"/core/manager/.libs/libqopt_la-*.o
if command -v nm >/dev/null 2>&1 && test -f "$1"; then
	call_cycle "$@" >"$W/d"
	sed 's/^/# call circle: /' "$W/d"
	t "no call circle among core/manager's objects ($#)" test ! -s "$W/d"
else
	echo "ok $((n += 1)) # SKIP nm or $1 missing"
fi

# --- planted violations, in a copy ---
P="$W/planted"
mkdir -p "$P/core/cli" "$P/core/manager" "$P/ir/model" "$P/tests"
cp "$top_srcdir"/core/cli/*.[ch] "$P/core/cli/"
cp "$top_srcdir"/core/manager/*.[ch] "$P/core/manager/"
printf '#include "manager/run.h"\n' >>"$P/core/cli/main.c"
printf '#include "core/manager/run.h"\n' >>"$P/core/cli/cli.c"
printf '# include "../manager/registry.h"\n' >>"$P/core/cli/setup.c"
printf '#include "manager/msg.h"\nint x;\n' >"$P/ir/model/planted.c"
printf '#include "manager/run.h"\n' >>"$P/core/manager/msg.h"
cli_violations "$P" >"$W/pa"
t "control: a core/cli file including manager/run.h is found" \
	grep -q '^core/cli/main.c manager/run.h$' "$W/pa"
t "control: ... spelled core/manager/run.h, and ../manager/registry.h" \
	eval 'grep -q "^core/cli/cli.c manager/run.h$" "$W/pa" && grep -q "^core/cli/setup.c manager/registry.h$" "$W/pa"'
outside_violations "$P" >"$W/pb"
t "control: an ir/ file including manager/msg.h is found" \
	grep -q '^ir/model/planted.c manager/msg.h$' "$W/pb"
include_cycle "$P" >"$W/pc"
t "control: msg.h including run.h (which includes msg.h) is a circle" \
	grep -q '^manager/msg.h$' "$W/pc"
if got=$(planted_call_cycle "$W"); then
	t "control: ping.o <-> pong.o is a call circle (top.o is not on it)" \
		test "$got" = "ping.o pong.o "
else
	echo "ok $((n += 1)) # SKIP nm or a C compiler missing"
fi
done_testing

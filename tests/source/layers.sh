#!/bin/sh
# The library's layers depend only downward. Includes: the file layer
# (ir/file/) includes nothing of the IR, and the IR proper (ir/model/)
# nothing of the ONNX layer above it. Calls: no object of a layer leaves
# undefined a symbol that an object of a higher layer defines (nm over
# the built objects), from base/ (status names, version) up to
# core/cli/. base/ includes no public header that pulls in the IR or the
# kernels (qopt/pass.h once did, for the pass context API, which now
# lives with the manager that serves it). A stray include or call would
# tie them again.
. "$top_srcdir/tests/lib/common.sh"
cd "$top_srcdir" || exit 1

# up_from DIR ERE: DIR's includes of a path matching ERE, in any
# spelling: "x/...", <x/...>, "ir/x/...", "../x/...", space after '#'.
up_from() {
	grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<](\\.\\./)*(ir/)?($2)" \
		"$1"/*.[ch] >"$W/up" 2>/dev/null
	sed 's/^/# up: /' "$W/up"
	test ! -s "$W/up"
}

t "ir/file has sources" test -f ir/file/atomic_file.c
t "ir/file includes nothing of model, onnx, infer or transforms" \
	up_from ir/file 'model/|onnx/|infer/|transforms/|ir/'
t "ir/file uses no public qopt header (no qir_error, no qopt_status)" \
	sh -c '! grep -n "^#include <qopt/" ir/file/*.[ch]'
t "ir/file's own names use its prefix, not qir_/qopt_/qk_" \
	sh -c '! grep -nE "^[a-z].*\\b(qir|qopt|qk)_[a-z_]+\\(" ir/file/*.c'
t "ir/model includes nothing of the onnx layer" up_from ir/model 'onnx/'

# base_heavy DIR: base/'s includes of a public header other than
# status.h and version.h, in any spelling (angle brackets or quotes,
# with or without a leading include/).
base_heavy() {
	grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](\.\./)*(include/)?qopt/' \
		"$1"/*.[ch] 2>/dev/null |
		grep -vE 'qopt/(status|version)\.h[>"]' >"$W/heavy"
	sed 's/^/# base includes: /' "$W/heavy"
	test ! -s "$W/heavy"
}
t "base/ includes no public header but status.h and version.h (not pass.h)" \
	base_heavy base
mkdir -p "$W/b" && printf '#include "../include/qopt/pass.h"\n' >"$W/b/x.c"
if base_heavy "$W/b" >/dev/null; then ok 1 "the check finds a planted base/ include of qopt/pass.h"
else ok 0 "the check finds a planted base/ include of qopt/pass.h"; fi
t "the pass context API is not in base/ (no qopt_log source there)" \
	sh -c '! grep -ln "^void qopt_log(" base/*.c'

mkdir -p "$W/p"
for spelling in '"onnx/onnx_io.h"' '"ir/onnx/onnx_io.h"' '"../onnx/onnx_io.h"' \
	'<ir/onnx/onnx_io.h>'; do
	printf '#  include %s\n' "$spelling" >"$W/p/x.c"
	if up_from "$W/p" 'onnx/' >/dev/null; then
		ok 1 "the check finds a planted upward include $spelling"
	else
		ok 0 "the check finds a planted upward include $spelling"
	fi
done

# Calls, from the objects the build made. Layers, lowest first.
layers="base kernels ir/file ir/model ir/infer ir/onnx ir/transforms core/manager core/cli"
# objs LAYER: its objects (PIC ones in .libs/ where libtool made them).
objs() {
	find "$top_builddir/$1" -maxdepth 2 -name '*.o' ! -name '*.cu.o' \
		! -name 'cuda-*.o' 2>/dev/null | sort
}
: >"$W/objs"
for l in $layers; do
	objs "$l" | sed "s#^#$l #" >>"$W/objs"
done
# upcalls OBJLIST: "LOW -> HIGH: SYMBOL (OBJECT)" for every call from a
# layer into one above it; OBJLIST has "LAYER OBJECT" lines.
upcalls() {
	rank=0
	: >"$W/defs.u"
	: >"$W/undefs.u"
	for l in $layers; do
		rank=$((rank + 1))
		awk -v l="$l" '$1 == l { print $2 }' "$1" >"$W/list"
		[ -s "$W/list" ] || continue
		# nm -A: "OBJECT: [ADDR] TYPE SYMBOL", one nm per layer.
		xargs nm -A -g --defined-only <"$W/list" 2>/dev/null |
			awk -v r=$rank -v l="$l" '{ print $NF, r, l }' >>"$W/defs.u"
		xargs nm -A -u <"$W/list" 2>/dev/null |
			awk -v r=$rank -v l="$l" '{ o = $1; sub(/:$/, "", o);
				print $NF, r, l, o }' >>"$W/undefs.u"
	done
	LC_ALL=C sort -u -k1,1 "$W/defs.u" >"$W/defs"
	LC_ALL=C sort -k1,1 "$W/undefs.u" >"$W/undefs"
	LC_ALL=C join "$W/undefs" "$W/defs" |
		awk '$5 > $2 { print $3 " -> " $6 ": " $1 " (" $4 ")" }' | sort -u
}
every_layer_built() {
	for l in $layers; do
		grep -q "^$l " "$W/objs" || { echo "# no objects in $l"; return 1; }
	done
}
t "the built objects of every layer are there ($(wc -l <"$W/objs"))" \
	every_layer_built
upcalls "$W/objs" >"$W/calls"
sed 's/^/# up: /' "$W/calls"
t "no layer calls into one above it (kernels -> core, ir/model -> ir/infer, ...)" \
	test ! -s "$W/calls"
# Control: a copy of the command line's main object counted as a kernel
# file calls up into core/ and must be reported.
cp "$(awk '$1 == "core/cli" { print $2; exit }' "$W/objs")" "$W/planted.o"
{ cat "$W/objs"; echo "kernels $W/planted.o"; } >"$W/objs-planted"
upcalls "$W/objs-planted" >"$W/calls-planted"
t "the check finds a planted upward call" \
	grep -q "^kernels -> core/.*planted.o" "$W/calls-planted"
done_testing

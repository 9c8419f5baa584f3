#!/bin/sh
# The SDK: install qopt into a scratch DESTDIR, build the out-of-tree
# example pass with pkg-config against it, load it with --load.
. "$top_srcdir/tests/core-lib.sh"

D=$(mktemp -d "${TMPDIR:-/tmp}/qopt-sdk.XXXXXX") || exit 1
trap 'rm -rf "$D"' EXIT
if ! make -C "$top_builddir" install DESTDIR="$D" >"$W/install.log" 2>&1; then
	sed 's/^/# /' "$W/install.log" | tail -20
	echo "Bail out! make install DESTDIR failed"
	exit 1
fi
pc=$(find "$D" -name qopt.pc | head -1)
bin=$(find "$D" -path '*/bin/qopt' -type f | head -1)
t "make install puts qopt.pc, the binary and the headers in DESTDIR" \
	eval '[ -n "$pc" ] && [ -n "$bin" ] && [ -n "$(find "$D" -path "*/include/qopt/pass.h")" ]'
bindir=$(dirname "$bin")
t "make install puts the ORT launchers beside qopt and their scripts in libexec/qopt" \
	eval '[ -x "$bindir/qopt-ort-check" ] && [ -f "$bindir/qopt-calibrate-ort" ] && [ -n "$(find "$D" -path "*/libexec/qopt/qopt-ort-lib.js")" ]'
t "make install puts the bash completion for qopt and qopt-ort-check in share/bash-completion" \
	eval '[ -n "$(find "$D" -path "*/share/bash-completion/completions/qopt")" ] && [ -n "$(find "$D" -path "*/share/bash-completion/completions/qopt-ort-check")" ]'
libdir=$(dirname "$(dirname "$pc")")
PKG_CONFIG_PATH=$(dirname "$pc")
PKG_CONFIG_SYSROOT_DIR=$D
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

mkdir -p "$W/ex"
run make -C "$W/ex" -f "$top_srcdir/plugins/example/Makefile" \
	SRCDIR="$top_srcdir/plugins/example"
t "the example builds with pkg-config against the installed qopt" \
	eval '[ $rc = 0 ] && [ -f "$W/ex/example-rename.so" ]'

Q() { LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$bin" "$@"; }
run Q --load "$W/ex/example-rename.so" --list-passes
t "the installed qopt loads it" \
	eval '[ $rc = 0 ] && grep "^example-rename " "$W/out" | grep -q "1.0"'
run Q --load "$W/ex/example-rename.so" --passes 'example-rename:match=A;B' \
	--stats "$W/m.onnx" -o "$W/out.onnx"
t "it runs and reports statistics" \
	eval '[ $rc = 0 ] && has "example-rename: 2 values renamed" "$W/err"'
"$top_builddir/tests/core-check" "$W/out.onnx" --meta >"$W/meta.txt"
t "its result carries the metadata entry" grep -qx "example-rename.count=2" "$W/meta.txt"
run Q --load "$W/ex/example-rename.so" --passes 'example-rename:match=A;B' \
	--bisect-limit=2 "$W/m.onnx" --dry-run
t "its rewrites go through the bisect gate" \
	has "BISECT: NOT running rewrite (3) example-rename: rename B" "$W/err"
run Q --load "$W/ex/example-rename.so" --passes 'example-rename:match=nothing*' \
	"$W/m.onnx" --dry-run
t "matching nothing warns (QOPT_PASS_HAS_TARGETS)" \
	has "qopt: example-rename: warning: changed nothing" "$W/err"

passdir=$(find "$D" -path '*/qopt/passes' -type d | head -1)
for so in "$passdir"/*.so; do
	[ -e "$so" ] || continue
	run Q -L "$passdir" --list-passes
	t "installed built-in passes load from $(basename "$passdir")" \
		eval '[ $rc = 0 ] && has "$so" "$W/out"'
	break
done

done_testing

#!/bin/sh
# The SDK: install qopt into a scratch DESTDIR, build the out-of-tree
# example pass with pkg-config against it, load it with --load.
. "$top_srcdir/tests/lib/common.sh"

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
"$top_builddir/tests/cli/bisect-check" "$W/out.onnx" --meta >"$W/meta.txt"
t "its result carries the metadata entry" grep -qx "example-rename.count=2" "$W/meta.txt"
run Q --load "$W/ex/example-rename.so" --passes 'example-rename:match=A;B' \
	--bisect-limit=2 "$W/m.onnx" --dry-run
t "its rewrites go through the bisect gate" \
	has "BISECT: NOT running rewrite (3) example-rename: rename B" "$W/err"
run Q --load "$W/ex/example-rename.so" --passes 'example-rename:match=nothing*' \
	"$W/m.onnx" --dry-run
t "matching nothing warns (QOPT_PASS_HAS_TARGETS)" \
	has "qopt: example-rename: warning: changed nothing" "$W/err"

# The example is a third-party plugin with two passes and a named
# pipeline (ABI 3.0), built out of tree against the installed headers.
X="--load $W/ex/example-rename.so"
run Q $X --list-passes
t "its second pass and its pipeline are listed, the pipeline with its steps" \
	eval '[ $rc = 0 ] && grep -q "^example-stamp " "$W/out" && grep -q "^example-tidy .*(pipeline; " "$W/out" && has "= example-rename, example-stamp [if stamp]" "$W/out"'
run Q $X --print-pipeline --passes 'example-tidy:match=A;B:text=hi'
t "--print-pipeline shows the pipeline expanded, each step naming it" \
	eval '[ $rc = 0 ] && [ "$(grep -c "^; from pipeline .example-tidy.$" "$W/out")" = 2 ] && [ "$(grep "^\[" "$W/out" | tr "\n" " ")" = "[example-rename] [example-stamp] " ]'
t "its options are forwarded to the steps (set by the user, or the pipeline's default)" \
	eval 'grep -qx "match = A,B" "$W/out" && grep -qx "prefix = tidy_" "$W/out" && grep -qx "text = hi" "$W/out"'
run Q $X --print-pipeline --passes 'example-tidy:stamp=no'
t "a step whose 'when' option is off is left out" \
	eval '[ $rc = 0 ] && has "[example-rename]" "$W/out" && ! has "[example-stamp]" "$W/out"'
run Q $X --passes 'example-tidy:match=A;B:text=hi' "$W/m.onnx" -o "$W/tidy.onnx" \
	--stats-json "$W/tidy.json" --print-after example-rename --print-after example-stamp
"$top_builddir/tests/cli/bisect-check" "$W/tidy.onnx" --meta >"$W/tidy-meta.txt"
t "the pipeline runs both steps with the forwarded options" \
	eval '[ $rc = 0 ] && grep -qx "example-stamp=hi" "$W/tidy-meta.txt" && grep -qx "example-rename.count=2" "$W/tidy-meta.txt"'
t "--print-after prints after each step" \
	eval 'has "; *** IR after example-rename (pass 1, from example-tidy) ***" "$W/out" && has "; *** IR after example-stamp (pass 2, from example-tidy) ***" "$W/out"'
t "--stats-json names the pipeline each step came from" \
	eval 'grep -q "\"pass\": \"example-rename\", \"from\": \"example-tidy\"" "$W/tidy.json" && grep -q "\"pass\": \"example-stamp\", \"from\": \"example-tidy\"" "$W/tidy.json"'
# Points: 1 example-rename, 2-3 its renames, 4 its metadata, 5 example-stamp.
run Q $X --passes 'example-tidy:match=A;B' --bisect-limit=4 "$W/m.onnx" --dry-run
t "bisect stops between the two steps" \
	eval 'has "BISECT: running rewrite (4) example-rename: metadata" "$W/err" && has "BISECT: NOT running pass (5) example-stamp" "$W/err"'
run Q $X --passes 'example-tidy:match=nothing*:stamp=no' "$W/m.onnx" --dry-run
t "the pipeline warns once, as itself, when no step changed anything" \
	eval '[ "$(grep -c "changed nothing" "$W/err")" = 1 ] && has "qopt: example-tidy: warning: changed nothing" "$W/err"'

# The staged qopt's built-in passes are the staged ones: what is (or is
# not) installed in the configured prefix changes nothing here.
passdir=$(find "$D" -path '*/qopt/passes' -type d | head -1)
for so in "$passdir"/*.so; do
	[ -e "$so" ] || continue
	run Q --list-passes
	t "the DESTDIR qopt loads its built-in passes from DESTDIR's $(basename "$passdir")" \
		eval '[ $rc = 0 ] && has "$so" "$W/out"'
	t "... and none from the configured prefix" \
		eval '! grep "/passes/" "$W/out" | grep -v -F "$D/" | grep -q .'
	break
done

done_testing

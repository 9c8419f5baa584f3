#!/bin/sh
# ir/'s layers depend only downward: the file layer (ir/file/) includes
# nothing of the IR, and the IR proper (ir/model/) nothing of the ONNX
# layer above it. A stray include would tie them again.
. "$top_srcdir/tests/lib/common.sh"
cd "$top_srcdir" || exit 1

up_from() {	# dir, pattern of includes it must not have
	grep -n "^#include \"\\($2\\)" "$1"/*.[ch] >"$W/up" 2>/dev/null
	sed 's/^/# up: /' "$W/up"
	test ! -s "$W/up"
}

t "ir/file has sources" test -f ir/file/atomic_file.c
t "ir/file includes nothing of model, onnx, infer or transforms" \
	up_from ir/file 'model/\|onnx/\|infer/\|transforms/\|ir/'
t "ir/file uses no public qopt header (no qir_error, no qopt_status)" \
	sh -c '! grep -n "^#include <qopt/" ir/file/*.[ch]'
t "ir/file's own names use its prefix, not qir_/qopt_/qk_" \
	sh -c '! grep -nE "^[a-z].*\\b(qir|qopt|qk)_[a-z_]+\\(" ir/file/*.c'
t "ir/model includes nothing of the onnx layer" up_from ir/model 'onnx/'

mkdir -p "$W/p" && printf '#include "onnx/onnx_io.h"\n' >"$W/p/x.c"
if up_from "$W/p" 'onnx/' >/dev/null; then ok 1 "the check finds a planted upward include"
else ok 0 "the check finds a planted upward include"; fi
done_testing

#!/bin/sh
# tests/hostile-load.sh - adversarial model files are refused at load
# with a message naming the file and the problem, exit 1, no output
# written, no crash: subgraphs nested thousands deep (the unpacker
# would overflow its stack), an unknown field numbered 0 (written back
# it is unreadable), a NUL inside a name (it would cut the name short).
. "$top_srcdir/tests/core-lib.sh"
GEN="$top_srcdir/tests/hostile-gen.py"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$PYTHON3

# refused NAME FILE TEXT: load, verify and dump of FILE exit 1 saying TEXT.
refused() {
	for cmd in "" verify dump; do
		rm -f "$W/o.onnx"
		if [ -z "$cmd" ]; then
			run "$QOPT" "$2" -o "$W/o.onnx"
		else
			run "$QOPT" "$cmd" "$2"
		fi
		t "$1: qopt ${cmd:-run} exits 1" [ "$rc" = 1 ]
		t "$1: qopt ${cmd:-run} says what is wrong" has "qopt: $2: error: $3" "$W/err"
		t "$1: qopt ${cmd:-run} writes nothing" [ ! -e "$W/o.onnx" ]
	done
}

"$PY" "$GEN" deep 3000 "$W/deep.onnx"
t "the deep file is small (about 400 KB)" [ "$(wc -c <"$W/deep.onnx")" -lt 500000 ]
refused "If nested 3000 deep" "$W/deep.onnx" "not a valid ONNX model (at byte "
t "the depth message says why" has "messages nested more than 100 deep" "$W/err"
"$PY" "$GEN" deep 30 "$W/deep30.onnx"
run "$QOPT" verify "$W/deep30.onnx"
t "If nested 30 deep still loads and verifies" [ "$rc" = 0 ]
run "$QOPT" "$W/deep30.onnx" -o "$W/deep30.out.onnx"
t "If nested 30 deep round-trips" [ "$rc" = 0 ]

"$PY" "$GEN" field0 "$W/field0.onnx"
refused "unknown field number 0" "$W/field0.onnx" \
	"not a valid ONNX model (at byte 30, NodeProto has a field with number 0"

"$PY" "$GEN" nulname "$W/nul.onnx"
refused "NUL in a name" "$W/nul.onnx" \
	"not a valid ONNX model (at byte 13, NodeProto string field 2 holds a NUL byte"

done_testing

#!/bin/sh
# tests/hostile/load.sh - adversarial model files are refused at load
# with a message naming the file and the problem, exit 1, no output
# written, no crash: subgraphs nested thousands deep (the unpacker
# would overflow its stack), an unknown field numbered 0 (written back
# it is unreadable), a NUL inside a name (it would cut the name short).
. "$top_srcdir/tests/lib/common.sh"
GEN="$top_srcdir/tests/hostile/gen.py"
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

"$PY" "$GEN" field2p32 "$W/field2p32.onnx"
refused "unknown field number 2^32" "$W/field2p32.onnx" \
	"not a valid ONNX model (at byte 30, NodeProto has a field number above 536870911"

"$PY" "$GEN" nulname "$W/nul.onnx"
refused "NUL in a name" "$W/nul.onnx" \
	"not a valid ONNX model (at byte 13, NodeProto string field 2 holds a NUL byte"

# Control bytes in names: escaped wherever qopt prints them.
ESC=$(printf '\033')
"$PY" "$GEN" ctrlname "$W/ctrl.onnx"
run "$QOPT" dump "$W/ctrl.onnx"
t "dump with ESC and newline in a node name: exit 0" [ "$rc" = 0 ]
t "dump shows the name escaped" has '# n\x1b[31mred\x0aline' "$W/out"
t "dump writes no ESC byte" eval '! grep -q "$ESC" "$W/out"'
t "dump: the name does not start a line of its own" eval '! grep -q "^line" "$W/out"'
"$PY" "$GEN" utf8name "$W/utf8.onnx"
run "$QOPT" dump "$W/utf8.onnx"
t "dump keeps good UTF-8, escapes a C1 control and broken UTF-8" \
	has "# ok-$(printf '\344\270\255')-\xc2\x9b2J-\xff" "$W/out"
"$PY" "$GEN" ctrlerr "$W/ctrlerr.onnx"
run "$QOPT" verify "$W/ctrlerr.onnx"
t "an error naming a value with control bytes: exit 1" [ "$rc" = 1 ]
t "the error shows the name escaped" has 'u\x1b]0;pwned\x07\x0aqopt: fake line' "$W/err"
t "the error is one line, without ESC" eval '[ "$(wc -l <"$W/err")" = 1 ] && ! grep -q "$ESC" "$W/err"'

# A path with control bytes is shown escaped too (verify's "ok" line).
cp "$W/m.onnx" "$W/a${ESC}b.onnx"
run "$QOPT" verify "$W/a${ESC}b.onnx"
t "verify of a path holding ESC: exit 0" [ "$rc" = 0 ]
t "verify shows the path escaped" has 'a\x1bb.onnx: ok' "$W/out"
t "verify writes no ESC byte" eval '! grep -q "$ESC" "$W/out"'

done_testing

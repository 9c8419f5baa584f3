#!/bin/sh
# qopt command line: usage errors, round trip, dump, verify, the input
# is never modified.
. "$top_srcdir/tests/lib/common.sh"

run "$QOPT" --version
pc="$top_builddir/qopt.pc"
want="qopt $(sed -n 's/^Version: //p' "$pc") (plugin ABI $(sed -n 's/^abi_version=//p' "$pc").$(sed -n 's/^abi_minor=//p' "$pc"))"
t "--version names the version and the plugin ABI as qopt.pc does ($want)" \
	eval '[ $rc = 0 ] && [ "$(cat "$W/out")" = "$want" ]'
t "the man page's footer names the same version" \
	grep -q "^\.TH QOPT 1 .* \"qopt $(sed -n 's/^Version: //p' "$pc")\"" "$top_builddir/qopt.1"
run "$QOPT" --help
t "--help prints usage and exits 0" eval '[ $rc = 0 ] && has "usage: qopt" "$W/out"'
t "--help's calibrate line names --random" has "qopt calibrate MODEL.onnx --data DIR | --random N" "$W/out"
run "$QOPT"
t "no arguments: exit 2" eval '[ $rc = 2 ] && has "no input model" "$W/err"'
run "$QOPT" --no-such-option "$W/m.onnx"
t "unknown option: exit 2" eval '[ $rc = 2 ] && has "unknown option" "$W/err"'
run "$QOPT" "$W/m.onnx"
t "no -o: writes MODEL.qopt.onnx beside the input" \
	eval '[ $rc = 0 ] && [ -s "$W/m.qopt.onnx" ] && has "m.qopt.onnx: wrote" "$W/err"'
rm -f "$W/m.qopt.onnx"
run "$QOPT" "$W/m.onnx" -o "$W/a.onnx" extra
t "extra argument: exit 2" eval '[ $rc = 2 ] && has "unexpected argument" "$W/err"'
run "$QOPT" --device=gpu "$W/m.onnx" -o "$W/a.onnx"
t "bad --device: exit 2" eval '[ $rc = 2 ] && has "cpu, cuda or auto" "$W/err"'
run "$QOPT" --bisect-limit=x "$W/m.onnx" -o "$W/a.onnx"
t "bad --bisect-limit: exit 2" eval '[ $rc = 2 ]'
for big in 2147483648 4294967297 99999999999999999999; do
	run "$QOPT" --threads=$big "$W/m.onnx" -o "$W/a.onnx"
	t "--threads $big (above INT_MAX) is a usage error, not wrapped" \
		eval '[ $rc = 2 ] && has "--threads expects an integer" "$W/err" && [ ! -e "$W/a.onnx" ]'
done
run "$QOPT" --threads=2147483647 "$W/m.onnx" -o "$W/a.onnx"
t "--threads INT_MAX is accepted" eval '[ $rc = 0 ]'
rm -f "$W/a.onnx"
run "$QOPT" -p a.ini --passes t-opts "$W/m.onnx" -o "$W/a.onnx"
t "-p with --passes: exit 2" eval '[ $rc = 2 ]'

sum0=$(cksum <"$W/m.onnx")
run "$QOPT" --device=cpu "$W/m.onnx" -o "$W/rt.onnx"
t "round trip without a pipeline" eval '[ $rc = 0 ] && [ -s "$W/rt.onnx" ]'
run "$QOPT" verify "$W/rt.onnx"
t "the round trip verifies" eval '[ $rc = 0 ] && has ": ok" "$W/out"'
run "$QOPT" "$W/m.onnx" -o "$W/m.onnx"
t "output = input is refused (exit 2)" eval '[ $rc = 2 ] && has "never modifies its input" "$W/err"'
t "the input is unchanged" eval '[ "$(cksum <"$W/m.onnx")" = "$sum0" ]'
run "$QOPT" --dry-run "$W/m.onnx"
t "--dry-run needs no -o and writes nothing" eval '[ $rc = 0 ] && [ ! -s "$W/out" ]'

run "$QOPT" dump "$W/m.onnx"
t "dump lists the nodes" eval '[ $rc = 0 ] && has relu1 "$W/out" && has add1 "$W/out"'
run "$QOPT" dump "$top_srcdir/examples/mlp.onnx"
t "dump gives each node output's type: inferred ones marked, declared ones plain" \
	eval '[ $rc = 0 ] && grep -qx "  h16: FLOAT16\[batch,64\] (inferred)" "$W/out" && grep -qx "  y: FLOAT\[batch,64\]" "$W/out"'
printf 'not a model' >"$W/junk.onnx"
run "$QOPT" verify "$W/junk.onnx"
t "verify of junk: exit 1, error names the file" \
	eval '[ $rc = 1 ] && has "qopt: $W/junk.onnx: error:" "$W/err"'
run "$QOPT" "$W/missing.onnx" -o "$W/b.onnx"
t "missing input: exit 1 naming it, no output" \
	eval '[ $rc = 1 ] && has "qopt: $W/missing.onnx: error:" "$W/err" && [ ! -e "$W/b.onnx" ]'
run "$QOPT" dump
t "dump without a model: exit 2" eval '[ $rc = 2 ]'

# --stats-json stays JSON (UTF-8) whatever the input path holds: bytes
# that are not UTF-8 as \udcXX, as in the calibration file (issue 28).
odd=$(printf '%s/odd\377\033.onnx' "$W")
cp "$W/m.onnx" "$odd"
run "$QOPT" --passes cast-fold "$odd" -o "$W/odd-out.onnx" --stats-json "$W/odd.json"
t "--stats-json with an input path that is not UTF-8: valid UTF-8 JSON, the path byte-exact" \
	eval '[ $rc = 0 ] && /usr/bin/python3 -c "
import json, os, sys
d = json.load(open(sys.argv[1], encoding=\"utf-8\"))
sys.exit(d[\"input\"].encode(\"utf-8\", \"surrogateescape\") != os.fsencode(sys.argv[2]))" "$W/odd.json" "$odd"'

# An opset newer than qopt knows: passes may misread changed operators.
known=$(sed -n 's/^#define IR_UPGRADE_MAX_OPSET \([0-9]*\)$/\1/p' \
	"$top_srcdir/ir/transforms/opset_upgrade.h")
for o in 26 30 99; do
	"$top_builddir/tests/lib/mkmodel" --opset=$o "$W/o$o.onnx"
	run "$QOPT" --passes cast-fold "$W/o$o.onnx" --dry-run
	t "opset $o: a warning at load names it and the newest qopt knows" \
		eval '[ $rc = 0 ] && [ "$(grep -c "warning: the model.s opset $o is newer than the newest this qopt knows ($known)" "$W/err")" = 1 ]'
done
run "$QOPT" --passes cast-fold "$W/m.onnx" --dry-run
t "... and none for an opset it knows" eval '[ $rc = 0 ] && ! has "is newer" "$W/err"'

done_testing

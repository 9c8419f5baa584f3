#!/bin/sh
# tests/cli/plan-hostile.sh - `qopt plan` on hostile input (models of
# tests/cli/plan-hostile.py): a layer named like another node's output
# value (the plan selects the node, never the attention MatMul behind
# the value); a 150-byte name of * ? [ ] (its INI still reads); a name
# no include list holds (float, counted as 16 bits); a candidate that
# computes NaN (never chosen, whatever --max-loss allows); outputs that
# are one file with another, the input, a sample or a derived
# calibration file (by path, symlink or hard link), and -o names the
# INI's calibration line cannot hold: exit 2 before any work, naming
# both, nothing written; budgets at the ends (1e16 bits, --max-loss 0,
# 4.49999999999 bits); a --data path longer than an INI line; a
# malformed sample; a stop signal while ONNX
# Runtime runs (the temporary folder with every candidate model goes,
# the child ends).
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir plan-hostile
qopt_calib_env
. "$top_srcdir/tests/cli/plan-lib.sh"
W=$work
"$py" "$top_srcdir/tests/cli/plan-hostile.py" "$W" >"$work/log" 2>&1 ||
	{ echo "Bail out! tests/cli/plan-hostile.py failed"; cat "$work/log"; exit 1; }

echo "1..29"

plan() { "$QOPT" plan "$@" >"$work/log" 2>&1; }
jq() { "$py" -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# nothing_written: no file of the plan's outputs in $W/o
nothing_written() { [ -z "$(ls "$W/o")" ]; }
mkdir -p "$W/o"

# ---- a layer named like another node's output ----
C="$W/collide.onnx"
plan "$C" --data "$W/data" --formats fp8 --effective-bits 8 \
	-o "$W/c.ini" --json "$W/c.json" --save-model "$W/c.onnx"
check $? "collide: qopt plan --formats fp8 runs"
"$py" - "$W/c.onnx" "$W/c.json" >>"$work/log" 2>&1 <<'PY'
import json, sys, onnx
m = onnx.load(sys.argv[1])
j = json.load(open(sys.argv[2]))
assert sorted(l["node"] for l in j["layers"]) == ["X", "Y"], j["layers"]
users = {}
for n in m.graph.node:
    for i in n.input:
        users.setdefault(i, []).append(n.name)
att = [n for n in m.graph.node if n.name == "attention"][0]
# the attention MatMul (its output value named X) reads its float inputs
prod = {o: n for n in m.graph.node for o in n.output}
for i in att.input:
    assert prod[i].op_type != "DequantizeLinear", (i, prod[i].name)
for n in m.graph.node:
    if n.op_type == "DequantizeLinear":
        assert set(users[n.output[0]]) <= {"X", "Y"}, (n.name, users[n.output[0]])
PY
check $? "collide: FP8 on the planned layers X and Y only: the attention MatMul whose output is named X keeps its float inputs"
grep -q '^include = node=X$' "$W/c.ini" &&
	"$QOPT" -q --strict -p "$W/c.ini" "$C" -o "$W/c2.onnx" >>"$work/log" 2>&1 &&
	cmp "$W/c.onnx" "$W/c2.onnx" >>"$work/log" 2>&1
check $? "collide: the INI selects each layer by node name alone (node=X) and rebuilds the plan's model byte for byte under --strict"

# a --data path too long for one INI line: the INI's header wraps it
D="$W/$(printf '%0200d' 0)"
cp -r "$W/data" "$D"
plan "$C" --data "$D" --formats fp8 --effective-bits 8 -o "$W/d.ini" \
	--save-model "$W/d.onnx" &&
	"$QOPT" -q -p "$W/d.ini" "$C" -o "$W/d2.onnx" >>"$work/log" 2>&1 &&
	cmp "$W/d.onnx" "$W/d2.onnx" >>"$work/log" 2>&1
check $? "a --data path of 200 bytes: the INI's header comment is wrapped, the INI reads and rebuilds the model"

# ---- names ----
N="$W/names.onnx"
plan "$N" --data "$W/data" --formats fp8,none --effective-bits 12 \
	-o "$W/n.ini" --json "$W/n.json" --save-model "$W/n.onnx"
r=$?
cp "$work/log" "$W/n.log"
check $r "names: qopt plan runs"
star=$(cat "$W/star.txt")
[ "$(jq "$W/n.json" '[l["chosen"] for l in j["layers"] if l["node"] == open(sys.argv[1][:-6] + "star.txt").read()]')" = "['fp8']" ] &&
	"$py" -c 'import sys; sys.exit(max(len(l) for l in open(sys.argv[1]).read().split("\n")) > 198)' "$W/n.ini" &&
	"$QOPT" -q --strict -p "$W/n.ini" "$N" -o "$W/n2.onnx" >>"$work/log" 2>&1 &&
	cmp "$W/n.onnx" "$W/n2.onnx" >>"$work/log" 2>&1
check $? "names: a 150-byte name of * ? [ ] is planned; its INI (no line over 198) rebuilds the model byte for byte"
grep -q "warning: layer 'a,b' (MatMul): its name cannot be written in an include list; it stays float and out of the plan (counted as 16 bits)" "$W/n.log" &&
	grep -q "warning: layer '' (MatMul): it has no name, so no include list can name it alone; it stays float" "$W/n.log" &&
	[ "$(jq "$W/n.json" 'sorted(l["node"] for l in j["layers"])')" = "['$star', 'plain']" ]
check $? "names: a name an include list cannot hold, and none: float with a warning each"
"$py" - "$N" "$W/n.json" >>"$work/log" 2>&1 <<'PY'
import json, sys, onnx
from onnx import numpy_helper
m = onnx.load(sys.argv[1])
j = json.load(open(sys.argv[2]))
size = {t.name: numpy_helper.to_array(t).size for t in m.graph.initializer}
layers = [(n.name, size[n.input[1]]) for n in m.graph.node if n.op_type == "MatMul"]
planned = {l["node"]: l for l in j["layers"]}
total = sum(v for _, v in layers)
out = sum(v for k, v in layers if k not in planned)
bits = sum(planned[k]["bits"] * v if k in planned else 16 * v
           for k, v in layers) / total
assert len(layers) == 4 and out == 2 * 256, layers
assert j["total_params"] == total and j["left_out_params"] == out, j
assert abs(j["effective_bits"] - bits) < 1e-9, (j["effective_bits"], bits)
PY
check $? "names: the effective bits count the left-out layers as 16 bits over every candidate weight"

# ---- a candidate that computes NaN ----
plan "$W/nan.onnx" --data "$W/nan" --formats nvfp4,none --max-loss 1e30 \
	-o "$W/q.ini" --json "$W/q.json"
r=$?
[ $r = 0 ] && [ "$(jq "$W/q.json" '{l["node"]: l["chosen"] for l in j["layers"]}')" = "{'good': 'nvfp4', 'bad': 'none'}" ] &&
	[ "$(jq "$W/q.json" '[l["formats"]["nvfp4"].get("why") for l in j["layers"] if l["node"] == "bad"]')" = \
	  "[\"its model's outputs held NaN or Inf in ONNX Runtime\"]" ]
check $? "nan: under --max-loss 1e30 a candidate whose outputs hold NaN is never chosen (falls back, the reason in the report)"

# ---- outputs ----
# refused: exit 2, the message naming both, the input untouched,
# nothing written (QOPT_NODE=false: any measuring would fail with 1)
cp "$C" "$W/m.calib.json"
cp "$C" "$W/keep.onnx"
refused() {
	want=$1 desc=$2
	shift 2
	QOPT_NODE=/bin/false "$QOPT" plan "$@" >"$work/log" 2>&1
	[ $? = 2 ] && grep -q -- "$want" "$work/log" && nothing_written &&
		cmp "$C" "$W/keep.onnx" >>"$work/log" 2>&1
	check $? "outputs: $desc (exit 2, before any work, nothing written)"
}
F="--data $W/data --formats fp8 --effective-bits 8"
refused "error: --json ('$W/o/x.ini') and -o ('$W/o/x.ini') are one file" \
	"--json the INI itself" "$C" $F -o "$W/o/x.ini" --json "$W/o/x.ini"
refused "error: --save-model ('$W/o/x.ini') and -o ('$W/o/x.ini') are one file" \
	"--save-model the INI itself" "$C" $F -o "$W/o/x.ini" --save-model "$W/o/x.ini"
refused "error: -o's fp8 calibration file ('$W/o/x.calib.json') and --json ('$W/o/x.calib.json') are one file" \
	"--json the INI's calibration file" "$C" $F -o "$W/o/x.ini" --json "$W/o/x.calib.json"
refused "error: -o's w4a4 calibration file ('$W/o/x.w4a4.calib.json') and --save-model ('$W/o/./x.w4a4.calib.json') are one file" \
	"--save-model w4a4's calibration file, spelt otherwise" "$C" --data "$W/data" --formats w4a4 --effective-bits 5 \
	-o "$W/o/x.ini" --save-model "$W/o/./x.w4a4.calib.json"
refused "error: -o's fp8 calibration file ('$W/./m.calib.json') is the input model" \
	"the calibration file beside the INI would be the input model" "$W/m.calib.json" $F -o "$W/./m.ini"
rm -f "$W/m.calib.json"
ln -s "$C" "$W/link.onnx"
refused "error: --save-model ('$W/link.onnx') is the input model" \
	"--save-model a symlink to the input" "$C" $F -o "$W/o/x.ini" --save-model "$W/link.onnx"
ln "$C" "$W/hard.onnx"
refused "error: --json ('$W/hard.onnx') is the input model" \
	"--json a hard link to the input" "$C" $F -o "$W/o/x.ini" --json "$W/hard.onnx"
refused "error: --json ('$W/data/s0/x.npy') is the sample $W/data/s0/x.npy" \
	"--json a sample file" "$C" $F -o "$W/o/x.ini" --json "$W/data/s0/x.npy"
refused "error: -o '$W/o/a ;b.ini': the INI would name its calibration file 'a ;b.calib.json' on a line" \
	"an -o name whose calibration line would end at ' ;'" "$C" $F -o "$W/o/a ;b.ini"
long=$(printf '%0180d' 0)
refused "error: -o '$W/o/$long.ini': the INI would name its calibration file" \
	"an -o name too long for the calibration line" "$C" $F -o "$W/o/$long.ini"

# ---- budgets at the ends ----
plan "$C" --data "$W/data" --formats fp8 --effective-bits 1e16 -o "$W/b.ini" --json "$W/b.json"
[ $? = 0 ] && [ "$(jq "$W/b.json" '[l["chosen"] for l in j["layers"]]')" = "['fp8', 'fp8']" ]
check $? "--effective-bits 1e16 is any plan (no overflow)"
plan "$C" --data "$W/data" --formats fp8,none --max-loss 0 -o "$W/o/l.ini"
[ $? = 1 ] && grep -q "every layer in float (none): no pass to write; raise --max-loss" "$work/log" && nothing_written
check $? "--max-loss 0 keeping every layer float says to raise --max-loss"
plan "$C" --data "$W/data" --formats nvfp4 --effective-bits 4.49999999999 -o "$W/o/l.ini"
[ $? = 2 ] && grep -q "effective-bits 4.49999999999 is below the cheapest format given (4.5 bits)" "$work/log" && nothing_written
check $? "--effective-bits 4.49999999999 is shown with every digit"

# ---- a malformed sample after a good one (no leak: check-sanitize) ----
plan "$C" --data "$W/bad" --formats fp8 --effective-bits 8 -o "$W/o/l.ini"
[ $? = 1 ] && grep -q "bad/s1/x.npy: " "$work/log" && nothing_written
check $? "a malformed sample is refused by name (exit 1), nothing written"

# ---- a stop while ONNX Runtime measures (qopt_interrupt's stand-in
# for node; it sees the temporary folder qopt plan gives it) ----
printf '#!/bin/sh\necho "$TMPDIR" >"%s/slow.dir"\nls "$TMPDIR" >"%s/slow.ls"\necho $$ >"%s/slow.pid"\nexec sleep 60\n' \
	"$work" "$work" "$work" >"$work/slow-node" && chmod +x "$work/slow-node"
for s in TERM:143:qopt INT:130:qopt HUP:129:qopt INT:130:script; do
	sig=${s%%:*} who=${s##*:}
	qopt_interrupt "$sig" "$who" "$QOPT" plan "$C" --data "$W/data" \
		--formats nvfp4,mxfp8 --effective-bits 9 -o "$W/o/s.ini"
	dir=$(cat "$work/slow.dir" 2>/dev/null)
	code=${s#*:}
	[ "$st" = "${code%:*}" ] && grep -q '^c0\.onnx$' "$work/slow.ls" &&
		case $dir in "$TMPDIR"/qopt-plan-*) true;; *) false;; esac &&
		[ ! -e "$dir" ] && [ -z "$(ls "$TMPDIR")" ] &&
		! kill -0 "$spid" 2>/dev/null && nothing_written
	check $? "SIG$sig to $who while ONNX Runtime runs: qopt ends by it ($st), the child ended, the temporary folder with the candidate models removed"
done

# ---- a measuring child that never ends: --ort-timeout ends it ----
# (the stand-in becomes the sleep: its pid is the process to be gone;
# 3 s so that it has started before the bound, on a loaded machine too)
printf '#!/bin/sh\necho $$ >"%s/hang.pid"\nexec sleep 1000\n' "$work" \
	>"$work/hang-node" && chmod +x "$work/hang-node"
rm -f "$work/hang.pid"
QOPT_NODE="$work/hang-node" plan "$C" --data "$W/data" --formats nvfp4,mxfp8 \
	--effective-bits 9 --ort-timeout 3 -o "$W/o/h.ini"
[ $? = 1 ] && grep -q "qopt plan: error: ONNX Runtime did not finish within 3 s (--ort-timeout, QOPT_ORT_TIMEOUT): .*hang-node .* ended (SIGTERM, then SIGKILL)" "$work/log" &&
	hpid=$(cat "$work/hang.pid") && ! kill -0 "$hpid" 2>/dev/null &&
	nothing_written && [ -z "$(ls "$TMPDIR")" ]
check $? "--ort-timeout 3 on a measuring child that never ends: exit 1, said, the child ended, nothing written, nothing left"

ls "$TMPDIR" >"$work/log"
[ ! -s "$work/log" ]
check $? "no temporary folder left behind"

exit $failed

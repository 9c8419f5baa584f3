#!/bin/sh
# qopt-ort-check (tools/qopt-ort-check.in + .js): the comparison table,
# --json, the sample layouts qopt calibrate reads (.npy and input_N.pb,
# one folder or one sub-folder per sample), exit statuses (0 pass, 1
# differ, 2 usage, 3 original cannot run, 125 candidate cannot run, 127
# node or onnxruntime-node missing, saying what installs it), QOPT_NODE,
# and its use as the test command of qopt bisect. Skipped without node
# or onnxruntime-node (QOPT_ORT_DIR).
. "$top_srcdir/tests/lib/common.sh"
CHK="$top_builddir/tools/qopt-ort-check"
if [ "$NODE" = no ] || [ ! -d "$QOPT_ORT_DIR/node_modules/onnxruntime-node" ]; then
	echo "1..0 # SKIP node or onnxruntime-node not available ($QOPT_ORT_DIR)"
	exit 0
fi
[ -x "$CHK" ] || { echo "Bail out! $CHK not built"; exit 1; }
cd "$W" || exit 1
export QOPT_NODE="$NODE"
ck() { "$CHK" "$@"; }

run ck m.onnx m.onnx
t "a model against itself is good" eval '[ $rc = 0 ] && has "PASS: all 1 outputs" "$W/out"'
t "the table has one row per output with every metric" \
	eval 'grep -q "^output  *shape  *max abs  *max rel  *rms rel  *cosine  *top-1  *outside  *result" "$W/out" && grep -q "^Y  *\[1,4\]  *0  *0  *0  *1.000000  *1.0000  *0/4  *PASS" "$W/out"'
printf 'junk' >junk.onnx
run ck m.onnx junk.onnx
t "a candidate ORT cannot load: 125 naming it" eval '[ $rc = 125 ] && has "junk.onnx" "$W/err"'
run ck junk.onnx m.onnx
t "an original ORT cannot load: 3 naming it" eval '[ $rc = 3 ] && has "junk.onnx: ONNX Runtime cannot load the original" "$W/err"'
run ck m.onnx
t "usage error: 2" eval '[ $rc = 2 ]'
run ck m.onnx m.onnx --rtol x
t "a bad tolerance: 2" eval '[ $rc = 2 ] && has "--rtol expects a number" "$W/err"'

"$QOPT" --load "$PL/counter.so" --passes t-perturb:bad=3 m.onnx -o p.onnx 2>"$W/err"
run ck m.onnx p.onnx --seed 7 --random 3
t "a changed weight makes the outputs differ: 1, worst element named" \
	eval '[ $rc = 1 ] && has "FAIL: 1 of 1 outputs" "$W/out" && has "Y: worst element 2 of random sample" "$W/out"'
run ck m.onnx p.onnx --atol 2 --random 3
t "within --atol it is good" eval '[ $rc = 0 ]'
run ck m.onnx p.onnx --atol 2 --min-cosine 0.999999
t "--min-cosine fails what --atol lets through" \
	eval '[ $rc = 1 ] && has "cosine" "$W/out" && has "below 0.999999" "$W/out"'

run ck m.onnx p.onnx --json --random 2
t "--json: one JSON document with the metrics" \
	eval '[ $rc = 1 ] && "$NODE" -e "
		const r = JSON.parse(require(\"fs\").readFileSync(\"$W/out\", \"utf8\"));
		const y = r.outputs[0];
		process.exit(r.samples === 2 && r.pass === false && y.name === \"Y\" &&
			y.elements === 8 && y.max_abs > 0 && y.cosine < 1 &&
			y.top1 !== undefined && y.rms_rel > 0 && y.outside > 0 ? 0 : 1);"'

# Samples as qopt calibrate reads them: NAME.npy, input_N.npy, and one
# sub-folder per sample; a .npy of the wrong shape is refused by name.
"$NODE" -e '
const fs = require("fs");
function npy(file, vals, shape) {
	let h = `{\x27descr\x27: \x27<f4\x27, \x27fortran_order\x27: False, \x27shape\x27: (${shape.join(", ")}${shape.length === 1 ? "," : ""}), }`;
	while ((10 + h.length + 1) % 64) h += " ";
	h += "\n";
	const head = Buffer.alloc(10);
	head.write("\x93NUMPY", 0, "latin1");
	head[6] = 1; head[7] = 0;
	head.writeUInt16LE(h.length, 8);
	fs.writeFileSync(file, Buffer.concat([head, Buffer.from(h, "latin1"),
		Buffer.from(new Float32Array(vals).buffer)]));
}
fs.mkdirSync("one");
npy("one/X.npy", [1, -2, 3, -4], [1, 4]);
fs.mkdirSync("many/s0", { recursive: true });
fs.mkdirSync("many/s1");
fs.mkdirSync("many/s2");
npy("many/s0/X.npy", [1, 2, 3, 4], [1, 4]);
npy("many/s1/input_0.npy", [-1, 5, 0.5, 2], [1, 4]);
npy("many/s2/X.npy", [0.1, 0.2, 0.3, 0.4], [1, 4]);
fs.mkdirSync("bad");
npy("bad/X.npy", [1, 2, 3], [3]);
' 2>"$W/err"
t "sample folders written" eval '[ -f many/s2/X.npy ]'
run ck m.onnx m.onnx --inputs one
t ".npy samples, one folder: good" eval '[ $rc = 0 ] && has "1 sample (one)" "$W/out"'
run ck m.onnx p.onnx --inputs many
t "one sub-folder per sample (.npy by name and input_N.npy): 3 samples, differ" \
	eval '[ $rc = 1 ] && has "3 samples (many)" "$W/out"'
run ck m.onnx m.onnx --inputs bad
t "a sample of the wrong shape: 2 naming the file" \
	eval '[ $rc = 2 ] && has "bad/X.npy: input '"'"'X'"'"' has shape [3]" "$W/err"'
run ck m.onnx m.onnx --inputs nowhere
t "a missing sample folder: 2" eval '[ $rc = 2 ] && has "nowhere" "$W/err"'

D="$QOPT_TESTDATA/node/test_abs"
if [ -f "$D/model.onnx" ]; then
	run ck "$D/model.onnx" "$D/model.onnx" --inputs "$D/test_data_set_0"
	t "inputs from input_N.pb" eval '[ $rc = 0 ]'
	run ck "$D/model.onnx" "$QOPT_TESTDATA/node/test_neg/model.onnx" --inputs "$D"
	t "abs vs neg on the same inputs differ (a folder of test_data_set_N samples)" \
		eval '[ $rc = 1 ] && has "1 sample" "$W/out"'
fi

# node and onnxruntime-node missing: 127, saying what installs them.
run env QOPT_NODE="$W/no-node" "$CHK" m.onnx m.onnx
t "node missing (QOPT_NODE honoured): 127 naming install-deps.sh" \
	eval '[ $rc = 127 ] && has "no-node" "$W/err" && has "tools/install-deps.sh" "$W/err"'
run env QOPT_ORT_DIR="$W/no-ort" "$CHK" m.onnx m.onnx
t "onnxruntime-node missing (QOPT_ORT_DIR honoured): 127 naming install-deps.sh" \
	eval '[ $rc = 127 ] && has "not found in QOPT_ORT_DIR" "$W/err" && has "tools/install-deps.sh" "$W/err"'

# Installed into a prefix: the launcher runs the installed scripts with
# the onnxruntime-node folder recorded at build time, no variable set.
make -C "$top_builddir" install-ort-tools prefix="$W/inst" \
	ORT_NODE_DIR="$QOPT_ORT_DIR" NODE="$NODE" MAKEFLAGS= >"$W/err" 2>&1
t "make install-ort-tools into a prefix" \
	eval '[ -x inst/bin/qopt-ort-check ] && [ -f inst/libexec/qopt/qopt-ort-lib.js ] && [ -f inst/bin/qopt-calibrate-ort ]'
run env -u QOPT_ORT_DIR -u QOPT_NODE -u NODE_PATH PATH=/usr/bin:/bin \
	inst/bin/qopt-ort-check m.onnx p.onnx --atol 2
t "the installed qopt-ort-check works with no variable set" \
	eval '[ $rc = 0 ] && has "PASS" "$W/out" && ! grep -q "$top_srcdir/tools" inst/bin/qopt-ort-check'

run "$QOPT" bisect --load "$PL/counter.so" --passes t-count:count=5,t-perturb:bad=3 \
	m.onnx --test "'$CHK' m.onnx {}" -o bis
t "bisect with qopt-ort-check finds the perturbing rewrite" \
	has "first bad point: (10) rewrite in pass run (7) t-perturb: W[2]" "$W/out"
run env QOPT_NODE="$W/no-node" "$QOPT" bisect --load "$PL/counter.so" \
	--passes t-count:count=5,t-perturb:bad=3 m.onnx --test "'$CHK' m.onnx {}" -o bis2
t "bisect with qopt-ort-check but no node: exit 2, not 'bad'" \
	eval '[ $rc = 2 ] && has "cannot run (exit 127" "$W/err" && ! has "is bad" "$W/err"'

done_testing

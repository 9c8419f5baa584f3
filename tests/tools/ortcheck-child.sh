#!/bin/sh
# qopt-ort-check's ONNX Runtime child (issue 39): a Conv over zero input
# channels (ORT 1.30 never returns from it) refused naming the node; a
# run that never returns (a stand-in onnxruntime-node whose run spins
# and ignores SIGTERM, through QOPT_ORT_DIR) ended at --ort-timeout or
# QOPT_ORT_TIMEOUT, its process group killed and reaped, the status
# that of the model it was running; ORT's files (mat-debug-PID.log,
# .ses) never left in TMPDIR; --reference-model catching a planted bug
# an absolute --min-cosine bound misses; the fake-form hints for real
# W4A4 and MXFP8 models. Bounds here only end a hang: every check is on
# what happened, none on how long it took.
. "$top_srcdir/tests/lib/common.sh"
CHK="$top_builddir/tools/qopt-ort-check"
if [ "$NODE" = no ] || [ ! -d "$QOPT_ORT_DIR/node_modules/onnxruntime-node" ]; then
	echo "1..0 # SKIP node or onnxruntime-node not available ($QOPT_ORT_DIR)"
	exit 0
fi
if ! "$PYTHON3" -c 'import numpy, onnx' 2>/dev/null; then
	echo "1..0 # SKIP no python3 with numpy and onnx"
	exit 0
fi
cd "$W" || exit 1
export QOPT_NODE="$NODE"
mkdir tmp && TMPDIR="$W/tmp" && export TMPDIR
unset QOPT_ORT_TIMEOUT
ck() { "$CHK" "$@"; }
"$PYTHON3" "$top_srcdir/tests/tools/ortcheck-child-gen.py" "$W" ||
	{ echo "Bail out! ortcheck-child-gen.py failed"; exit 1; }
S="--inputs $W/samples"
empty_tmp() { [ -z "$(ls -A "$W/tmp")" ]; }

# 1. the zero-channel Conv: refused before ORT sees it
run ck zc.onnx zc.onnx
t "a Conv over zero input channels as the original: 3, naming the node" \
	eval '[ $rc = 3 ] && has "zc.onnx: node '"'conv_zero'"' (Conv): its input '"'x'"' has size 0 on axis 1" "$W/err"'
run ck mlp.onnx zc.onnx
t "as the candidate: 125 (bisect skips it), naming the node" \
	eval '[ $rc = 125 ] && has "node '"'conv_zero'"' (Conv)" "$W/err" && has "refused before ORT runs it" "$W/err"'

# 2. a run that never returns: a stand-in ORT (QOPT_ORT_DIR) whose run
# spins for the model named hang*.onnx and whose process ignores SIGTERM
# (only SIGKILL ends it); it writes its pid and starts a sleep in its
# group, both of which must be gone. The bounds are 3 s so that node
# has loaded it and it has written its pids before the bound ends it,
# on a loaded machine too.
mkdir -p fakeort/node_modules/onnxruntime-node
cat >fakeort/node_modules/onnxruntime-node/index.js <<'JS'
'use strict';
const fs = require('fs'), cp = require('child_process');
process.on('SIGTERM', () => {});
const kid = cp.spawn('sleep', ['1000'], { stdio: 'ignore' });
kid.unref();	// the worker may end while it runs
fs.writeFileSync(process.env.FAKE_PIDS, `${process.pid} ${kid.pid}\n`);
fs.writeFileSync(`${process.env.TMPDIR}/mat-debug-${process.pid}.log`, '');
fs.writeFileSync(`${process.env.TMPDIR}/.ses`, '');
class Tensor {
	constructor(type, data, dims) { Object.assign(this, { type, data, dims }); }
}
const InferenceSession = {
	async create(file) {
		return { outputNames: ['y'], run: async (feeds) => {
			if (/hang[^/]*$/.test(file))
				for (;;);
			return { y: feeds.x };
		} };
	},
};
module.exports = { Tensor, InferenceSession, env: {} };
JS
cp mlp.onnx hang.onnx
# gone FILE: the child (the first pid) ended and reaped: no process, no
# zombie; what it started (the second) ended: gone, or a zombie of init
# (which reaps it; a container's init may not)
gone() {
	set -- $(cat "$1")
	[ $# = 2 ] && [ -z "$(ps -o stat= -p "$1" 2>/dev/null)" ] &&
		case $(ps -o stat= -p "$2" 2>/dev/null | tr -d ' ') in ''|Z*) true;; *) false;; esac
}
FAKE_PIDS="$W/pids1" QOPT_ORT_DIR="$W/fakeort" run ck hang.onnx mlp.onnx $S --ort-timeout 3
t "an original ORT never finishes running: 3 after --ort-timeout, said" \
	eval '[ $rc = 3 ] && has "hang.onnx: ONNX Runtime did not finish running the original on" "$W/err" && has "within 3 s (--ort-timeout, QOPT_ORT_TIMEOUT): ended (SIGTERM, then SIGKILL)" "$W/err"'
t "the stand-in (deaf to SIGTERM) and the process it started are gone, reaped" gone "$W/pids1"
t "its files in TMPDIR gone with its private folder" empty_tmp
FAKE_PIDS="$W/pids2" QOPT_ORT_DIR="$W/fakeort" QOPT_ORT_TIMEOUT=3 run ck mlp.onnx hang.onnx $S
t "a candidate ORT never finishes (QOPT_ORT_TIMEOUT): 125, bisect skips it" \
	eval '[ $rc = 125 ] && has "hang.onnx: ONNX Runtime did not finish running the candidate" "$W/err"'
t "killed and reaped again, nothing left in TMPDIR" eval 'gone "$W/pids2" && empty_tmp'
FAKE_PIDS="$W/pids3" QOPT_ORT_DIR="$W/fakeort" QOPT_ORT_TIMEOUT=1 run ck mlp.onnx mlp.onnx $S --ort-timeout 0
t "--ort-timeout 0 (no bound) wins over QOPT_ORT_TIMEOUT; a run that ends is good" \
	eval '[ $rc = 0 ] && gone "$W/pids3"'
for bad in -1 1.5 x 31536001 ''; do
	run ck mlp.onnx mlp.onnx --ort-timeout "$bad"
	t "--ort-timeout '$bad': usage, 2" eval '[ $rc = 2 ] && has "--ort-timeout takes seconds" "$W/err"'
done
QOPT_ORT_TIMEOUT=soon run ck mlp.onnx mlp.onnx
t "a malformed QOPT_ORT_TIMEOUT: usage, 2, named" eval '[ $rc = 2 ] && has "QOPT_ORT_TIMEOUT takes seconds" "$W/err"'

# 3. the real ORT leaves nothing in TMPDIR (it writes mat-debug-PID.log
# and .ses there)
run ck mlp.onnx mlp.onnx $S
t "a run in real ORT passes" eval '[ $rc = 0 ]'
t "and leaves TMPDIR as it was (empty)" empty_tmp
run ck mlp.onnx mlp.onnx --dim nosuch=3
t "--dim naming no dimension of the model: usage, 2" \
	eval '[ $rc = 2 ] && has "no input dimension '"'nosuch'"'" "$W/err"'

# 4. --reference-model: the lossy pass's own output sets the bar
fake() { "$QOPT" -q --passes nvfp4-weights:mode=fake:min_size=0 "$1" -o "$2"; }
fake mlp.onnx ref.onnx && fake mlp-bug.onnx bug.onnx ||
	echo "Bail out! nvfp4-weights mode=fake failed"
cos() {	# the cosine of output y, from --json
	"$CHK" mlp.onnx "$1" $S --stats-only --min-cosine 0 --json |
		"$PYTHON3" -c 'import json,sys; print(json.load(sys.stdin)["outputs"][0]["cosine"])'
}
cref=$(cos ref.onnx)
cbug=$(cos bug.onnx)
# the documented absolute recipe: a bound the lossy pass meets
bound=$("$PYTHON3" -c "import math; print(math.floor($cref * 100) / 100)")
t "the planted bug is worse than the lossy pass alone ($cbug < $cref)" \
	"$PYTHON3" -c "import sys; sys.exit(not $cbug < $cref)"
run ck mlp.onnx bug.onnx $S --stats-only --min-cosine "$bound"
t "an absolute --min-cosine $bound (the lossy pass meets it) misses the bug" eval '[ $rc = 0 ]'
run ck mlp.onnx bug.onnx $S --reference-model ref.onnx
t "--reference-model catches it: 1, both cosines said" \
	eval '[ $rc = 1 ] && has "below the reference'"'"'s" "$W/out" && has "reference ref.onnx: cosine" "$W/out"'
run ck mlp.onnx ref.onnx $S --reference-model ref.onnx
t "the lossy pass's own output against itself as the reference: good" eval '[ $rc = 0 ]'
run ck mlp.onnx mlp.onnx $S --reference-model ref.onnx
t "the float model (bisect's limit 0): good" eval '[ $rc = 0 ]'
run ck mlp.onnx bug.onnx $S --reference-model ref.onnx --margin 1
t "a margin of 1 (twice the reference's loss) lets it through" eval '[ $rc = 0 ]'
run ck mlp.onnx bug.onnx $S --reference-model ref.onnx --json
t "--json gives each output the reference's figures" \
	eval '[ $rc = 1 ] && grep -q "\"reference\": \"ref.onnx\"" "$W/out"'
run ck mlp.onnx bug.onnx --reference-model nosuch.onnx
t "a missing reference: usage, 2" eval '[ $rc = 2 ] && has "nosuch.onnx: no such file" "$W/err"'
run ck mlp.onnx bug.onnx --reference-model zc.onnx
t "a reference ORT would hang on: 3, naming the node" eval '[ $rc = 3 ] && has "conv_zero" "$W/err"'

# ... and in qopt bisect: a planted bug (t-perturb adds 1 to one weight
# element, rewrite 1000) ahead of the lossy pass. The absolute recipe
# calls the full pipeline good; the documented relative one (the lossy
# pass applied in the test, --reference-model) finds the rewrite, and a
# bisect leaves nothing in TMPDIR (one test run each).
G="--load $PL/counter.so"
run "$QOPT" bisect $G --passes t-perturb:bad=1000,nvfp4-weights:mode=fake:min_size=0 \
	mlp.onnx -o abs/ --test "'$CHK' mlp.onnx {} $S --stats-only --min-cosine $bound"
t "bisect with the absolute bound: the buggy pipeline looks good, nothing to bisect" \
	eval '[ $rc = 1 ] && has "the fully optimized model is good" "$W/err"'
run "$QOPT" bisect $G --passes t-perturb:bad=1000 mlp.onnx -o rel/ --test \
	"'$QOPT' -q --passes nvfp4-weights:mode=fake:min_size=0 {} -o '$W/cand.onnx' &&
	 '$CHK' mlp.onnx '$W/cand.onnx' $S --reference-model ref.onnx"
t "bisect relative to the lossy pass's output finds the planted rewrite" \
	eval '[ $rc = 0 ] && has "first bad point: (1001) rewrite in pass run (1) t-perturb: w1[999]" "$W/out"'
t "the bisect's test runs left nothing in TMPDIR" empty_tmp

# 5. real forms ORT has no kernel for: the hint names the fake form of
# the pass that wrote them
CAL="$QOPT calibrate"
QOPT_NODE=$NODE QOPT_CALIBRATE_ORT="$top_builddir/tools/qopt-calibrate-ort" \
	$CAL --passes nvfp4:activations=yes mlp.onnx --random 1 -o w4.json 2>"$W/err" &&
	"$QOPT" -q --passes "nvfp4:activations=yes:min_size=0:calibration=$W/w4.json" mlp.onnx -o w4a4.onnx 2>>"$W/err"
run ck mlp.onnx w4a4.onnx
t "a real W4A4 model: 125, pointing at nvfp4 activations=yes mode=fake" \
	eval '[ $rc = 125 ] && has "run nvfp4 with activations=yes and mode=fake" "$W/err" && ! has "run nvfp4-weights" "$W/err"'
"$QOPT" -q --passes mxfp8:min_size=0 mlp.onnx -o mx.onnx 2>"$W/err"
run ck mlp.onnx mx.onnx
t "a real MXFP8 model: 125, pointing at mxfp8 mode=fake" \
	eval '[ $rc = 125 ] && has "run mxfp8 with mode=fake" "$W/err"'
"$QOPT" -q --passes nvfp4-weights:min_size=0 mlp.onnx -o w4.onnx 2>"$W/err"
run ck mlp.onnx w4.onnx
t "a real NVFP4 weight-only model still points at nvfp4-weights mode=fake" \
	eval '[ $rc = 125 ] && has "nvfp4-weights with mode=fake" "$W/err"'
t "nothing left in TMPDIR by any run" empty_tmp

done_testing

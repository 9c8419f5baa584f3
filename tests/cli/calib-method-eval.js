// tests/cli/calib-method-eval.js REF.onnx CAND.onnx DIR: both models in
// ONNX Runtime (graph optimization basic) on every sample of DIR
// (input_0.pb); prints {"top1": A, "rms": E, "rows": N}: A the share of
// rows (last axis) whose argmax agrees with REF's, E = RMS(cand - ref) /
// RMS(ref) pooled over every output element of every sample.
'use strict';
const fs = require('fs');
const path = require('path');
const lib = require(path.join(__dirname, '..', '..', 'tools', 'qopt-ort-lib.js'));

async function main() {
	const [refPath, candPath, dir] = process.argv.slice(2);
	const ort = lib.loadOrt();
	const opt = { graphOptimizationLevel: 'basic' };
	const ref = await ort.InferenceSession.create(refPath, opt);
	const cand = await ort.InferenceSession.create(candPath, opt);
	let agree = 0, rows = 0, se = 0, sr = 0;
	for (const s of fs.readdirSync(dir).sort()) {
		const t = lib.readTensorProto(ort, path.join(dir, s, 'input_0.pb'));
		const feeds = { [ref.inputNames[0]]: t.tensor };
		const name = ref.outputNames[0];
		const ta = (await ref.run(feeds))[name], tb = (await cand.run(feeds))[name];
		const a = lib.asNumbers(ta), b = lib.asNumbers(tb);
		const w = ta.dims[ta.dims.length - 1];
		for (let i = 0; i < a.length; i++) {
			se += (a[i] - b[i]) ** 2;
			sr += a[i] ** 2;
		}
		for (let o = 0; o < a.length; o += w) {
			let ia = o, ib = o;
			for (let j = o; j < o + w; j++) {
				if (a[j] > a[ia])
					ia = j;
				if (b[j] > b[ib])
					ib = j;
			}
			agree += ia - o === ib - o;
			rows++;
		}
	}
	console.log(JSON.stringify({ top1: agree / rows, rms: Math.sqrt(se / sr), rows }));
}

main().catch((e) => {
	console.error(`calib-method-eval.js: ${e && e.message || e}`);
	process.exit(1);
});

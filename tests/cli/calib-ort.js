// tests/cli/calib-ort.js REF.onnx CAND.onnx DIR: runs both models in ONNX
// Runtime (graph optimization basic) on every sample folder of DIR
// (input_N.pb) and prints {"maxrel": R, "top1": A, "n": N}: R is the
// largest |cand - ref| over the largest |ref| of the same sample, A the
// share of rows (last axis) whose argmax agrees.
'use strict';
const fs = require('fs');
const path = require('path');
const check = require(path.join(__dirname, '..', '..', 'tools', 'qopt-ort-lib.js'));

async function main() {
	const [refPath, candPath, dir] = process.argv.slice(2);
	const ort = check.loadOrt();
	const opt = { graphOptimizationLevel: 'basic' };
	const ref = await ort.InferenceSession.create(refPath, opt);
	const cand = await ort.InferenceSession.create(candPath, opt);
	let maxrel = 0, agree = 0, rows = 0;
	for (const s of fs.readdirSync(dir).sort()) {
		const t = check.readTensorProto(ort, path.join(dir, s, 'input_0.pb'));
		const feeds = { [t.name || ref.inputNames[0]]: t.tensor };
		const name = ref.outputNames[0];
		const ta = (await ref.run(feeds))[name], tb = (await cand.run(feeds))[name];
		const a = { data: check.asNumbers(ta), dims: ta.dims };
		const b = { data: check.asNumbers(tb) };
		let big = 0, diff = 0;
		for (let i = 0; i < a.data.length; i++) {
			big = Math.max(big, Math.abs(a.data[i]));
			diff = Math.max(diff, Math.abs(a.data[i] - b.data[i]));
		}
		maxrel = Math.max(maxrel, diff / big);
		const w = a.dims[a.dims.length - 1];
		for (let r = 0; r < a.data.length; r += w) {
			let ia = r, ib = r;
			for (let i = r; i < r + w; i++) {
				if (a.data[i] > a.data[ia]) ia = i;
				if (b.data[i] > b.data[ib]) ib = i;
			}
			agree += ia === ib;
			rows++;
		}
	}
	process.stdout.write(JSON.stringify({ maxrel, top1: agree / rows, n: rows }) + '\n');
}

main().catch((e) => {
	process.stderr.write(`calib-ort: ${e.stack || e}\n`);
	process.exit(1);
});

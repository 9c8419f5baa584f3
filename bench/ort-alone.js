// bench/ort-alone.js - the floor of `qopt calibrate` (make bench-scale):
// ONNX Runtime alone, as the calibration script uses it (a session with
// basic optimizations), running N random samples of the model's one
// FLOAT input [1, K] and reading every output.
//
//     node bench/ort-alone.js MODEL.onnx N K
'use strict';
const path = require('path');
const lib = require(path.join(process.env.top_srcdir || '.', 'tools',
			      'qopt-ort-lib.js'));

async function main() {
	const [model, n, k] = process.argv.slice(2);
	const ort = lib.loadOrt();
	ort.env.logLevel = 'fatal';
	const sess = await ort.InferenceSession.create(model,
		{ graphOptimizationLevel: 'basic', logSeverityLevel: 4 });
	const x = new Float32Array(Number(k));
	for (let s = 0; s < Number(n); s++) {
		for (let i = 0; i < x.length; i++)
			x[i] = Math.random() * 2 - 1;
		const out = await sess.run({ x: new ort.Tensor('float32', x,
							      [1, x.length]) });
		for (const name of Object.keys(out))
			out[name].data.reduce((a, v) => Math.max(a, Math.abs(v)), 0);
	}
}

main().catch((e) => { console.error(`ort-alone: ${e.message}`); process.exit(1); });

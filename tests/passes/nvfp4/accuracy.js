'use strict';
/*
 * tests/passes/nvfp4/accuracy.js REF CAND SAMPLES - the accuracy of a quantized
 * model against its float original in ONNX Runtime (graph optimization
 * basic, as tests/torch/ort.js): over every sample folder of SAMPLES
 * (INPUT.npy per input), the first output's max |cand - ref| / max |ref|,
 * mean |cand - ref| / mean |ref|, and top-1 agreement (argmax over the
 * last axis, per row). Prints one line of JSON.
 */
const path = require('path');
const lib = require(path.join(__dirname, '..', '..', 'ort', 'lib.js'));

async function run(file, feeds) {
	const s = await lib.createSession(file, { intraOpNumThreads: 1,
		graphOptimizationLevel: 'basic' });
	try {
		const o = await s.run(feeds);
		return o[s.outputNames[0]];
	} finally {
		await s.release();
	}
}

async function main() {
	const [ref, cand, dir] = process.argv.slice(2);
	let md = 0, mr = 0, sd = 0, sr = 0, n = 0, agree = 0, rows = 0;
	for (const feeds of lib.npySamples(dir)) {
		const a = await run(ref, feeds), b = await run(cand, feeds);
		const c = a.dims[a.dims.length - 1];
		for (let i = 0; i < a.data.length; i++) {
			const d = Math.abs(a.data[i] - b.data[i]);
			md = Math.max(md, Number.isNaN(d) ? Infinity : d);
			mr = Math.max(mr, Math.abs(a.data[i]));
			sd += d;
			sr += Math.abs(a.data[i]);
			n++;
		}
		for (let r = 0; r < a.data.length / c; r++) {
			let ia = 0, ib = 0;
			for (let j = 1; j < c; j++) {
				if (a.data[r * c + j] > a.data[r * c + ia]) ia = j;
				if (b.data[r * c + j] > b.data[r * c + ib]) ib = j;
			}
			agree += ia === ib;
			rows++;
		}
	}
	console.log(JSON.stringify({ maxrel: md / mr, meanrel: sd / sr,
		top1: agree / rows, rows }));
}

main().catch((e) => {
	console.log(`error: ${e.message}`);
	process.exit(1);
});

'use strict';
/*
 * tests/passes/nvfp4/ort.js ORIG.onnx FAKE.onnx MAX_ABS MEAN_ABS MIN_AGREE
 *
 * Runs the PP-OCRv4 recognizer and its nvfp4-weights fake-mode copy in
 * ONNX Runtime on the same seeded inputs and reports the accuracy cost:
 * max and mean absolute error of the output probabilities and how often
 * the per-step argmax (the decoded character) agrees. Exit 0 within the
 * bounds, 1 outside, 77 when ORT cannot run the original.
 */
const path = require('path');
const lib = require(path.join(__dirname, '..', '..', 'ort', 'lib.js'));

async function outputs(file, feeds) {
	const s = await lib.createSession(file, { intraOpNumThreads: 1 });
	try {
		const o = await s.run(feeds);
		return o[s.outputNames[0]];
	} finally {
		await s.release();
	}
}

async function main() {
	const [orig, fake, maxAbs, meanAbs, minAgree] = process.argv.slice(2);
	const ort = lib.ort();
	let maxe = 0, sum = 0, n = 0, agree = 0, steps = 0;
	for (const [shape, seed] of [[[1, 3, 48, 320], 42], [[2, 3, 48, 160], 7]]) {
		const count = shape.reduce((a, b) => a * b, 1);
		const feeds = { x: new ort.Tensor('float32',
				lib.randomFloats(count, seed), shape) };
		let a;
		try {
			a = await outputs(orig, feeds);
		} catch (e) {
			console.log(`ORT cannot run ${orig}: ${lib.ortReason(e)}`);
			return 77;
		}
		const b = await outputs(fake, feeds);
		const c = a.dims[a.dims.length - 1];
		for (let i = 0; i < a.data.length; i++) {
			const e = Math.abs(a.data[i] - b.data[i]);
			maxe = Math.max(maxe, Number.isNaN(e) ? Infinity : e);
			sum += e;
			n++;
		}
		for (let t = 0; t < a.data.length / c; t++) {
			let ia = 0, ib = 0;
			for (let j = 1; j < c; j++) {
				if (a.data[t * c + j] > a.data[t * c + ia]) ia = j;
				if (b.data[t * c + j] > b.data[t * c + ib]) ib = j;
			}
			agree += ia === ib;
			steps++;
		}
	}
	const rate = agree / steps;
	const ok = maxe <= Number(maxAbs) && sum / n <= Number(meanAbs) &&
		   rate >= Number(minAgree);
	console.log(`max abs error ${maxe.toExponential(3)} (bound ${maxAbs}), ` +
		    `mean ${(sum / n).toExponential(3)} (bound ${meanAbs}), argmax ` +
		    `agreement ` +
		    `${agree}/${steps} = ${rate.toFixed(4)} (bound ${minAgree})`);
	return ok ? 0 : 1;
}

main().then(rc => { process.exitCode = rc; },
	    e => { console.log(`error: ${e.stack || e}`); process.exitCode = 2; });

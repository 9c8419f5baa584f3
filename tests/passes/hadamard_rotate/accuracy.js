'use strict';
/*
 * tests/passes/hadamard_rotate/accuracy.js REF.onnx PLAIN.onnx ROTATED.onnx SEEDS
 *
 * Output error against the FP32 model REF, in ONNX Runtime, of two
 * quantized variants (PLAIN: without the rotation, ROTATED: with it),
 * over SEEDS seeded random inputs: the relative L2 error of each
 * output, averaged over the seeds. Prints both; exit 0 when ROTATED is
 * no worse than PLAIN, 1 when it is, 2 when a model does not run.
 */
const path = require('path');
const lib = require(path.join(__dirname, '..', '..', 'ort', 'lib.js'));

async function outputs(file, feedsList) {
	const s = await lib.createSession(file, { intraOpNumThreads: 1 });
	try {
		const res = [];
		for (const f of feedsList) {
			const o = await s.run(f);
			res.push(Float32Array.from(o[s.outputNames[0]].data));
		}
		return res;
	} finally {
		await s.release();
	}
}

function relErr(a, ref) {
	let e = 0, n = 0;
	for (let i = 0; i < ref.length; i++) {
		e += (a[i] - ref[i]) ** 2;
		n += ref[i] ** 2;
	}
	return Math.sqrt(e / n);
}

async function main() {
	const [ref, plain, rot, seedsArg] = process.argv.slice(2);
	const seeds = Number(seedsArg || 5);
	const ort = lib.ort();
	const s = await lib.createSession(ref, { intraOpNumThreads: 1 });
	const feedsList = [];
	for (let seed = 1; seed <= seeds; seed++) {
		const feeds = {};
		s.inputMetadata.forEach((m, k) => {
			const dims = m.shape.map(d => (typeof d === 'number' && d >= 0) ? d : 1);
			const n = dims.reduce((a, b) => a * b, 1);
			feeds[m.name] = new ort.Tensor('float32',
				lib.randomFloats(n, seed * 7919 + k), dims);
		});
		feedsList.push(feeds);
	}
	await s.release();
	let r, p, q;
	try {
		r = await outputs(ref, feedsList);
		p = await outputs(plain, feedsList);
		q = await outputs(rot, feedsList);
	} catch (e) {
		console.log(`ORT failed: ${lib.ortReason(e)}`);
		return 2;
	}
	let ep = 0, eq = 0;
	for (let i = 0; i < seeds; i++) {
		ep += relErr(p[i], r[i]) / seeds;
		eq += relErr(q[i], r[i]) / seeds;
	}
	console.log(`relative output error over ${seeds} seeds: ` +
		    `${ep.toPrecision(3)} without rotation, ` +
		    `${eq.toPrecision(3)} with hadamard-rotate`);
	return eq <= ep ? 0 : 1;
}

main().then(c => process.exit(c), e => {
	console.log(`error: ${e.message}`);
	process.exit(2);
});

'use strict';
/*
 * tests/passes/fp8/ort.js BEFORE.onnx AFTER.onnx BOUND [f32|f16] [D]
 *
 * Runs both models in ONNX Runtime with graph optimization `basic` (the
 * default level fuses DQ -> MatMul + Add into QGemm, which has no FP8
 * kernel) on the same seeded input x [1, 8, D] (FLOAT or FLOAT16, as the
 * model declares), and compares output y: the error is
 * max |after - before| / max |before|. Prints it; exit 0 within BOUND,
 * 1 outside, 77 when ORT cannot run BEFORE.
 */
const path = require('path');
const lib = require(path.join(__dirname, '..', '..', 'ort', 'lib.js'));

async function run(file, feeds) {
	const s = await lib.createSession(file,
		{ graphOptimizationLevel: 'basic' });
	try {
		const o = await s.run(feeds);
		return o[s.outputNames[0]];
	} finally {
		await s.release();
	}
}

function values(t) {
	const out = new Float64Array(t.data.length);
	for (let i = 0; i < out.length; i++)
		out[i] = t.type === 'float16' ? lib.halfToFloat(t.data[i]) :
			 t.data[i];
	return out;
}

async function main() {
	const [before, after, bound, dtype, width] = process.argv.slice(2);
	const ort = lib.ort();
	const f16 = dtype === 'f16';
	let worst = 0;
	for (const seed of [3, 17]) {
		const probe = await lib.createSession(before,
			{ graphOptimizationLevel: 'basic' }).catch(e => e);
		if (probe instanceof Error) {
			console.log(`ORT cannot run ${before}: ${lib.ortReason(probe)}`);
			return 77;
		}
		const meta = probe.inputNames[0];
		await probe.release();
		const n = 8 * Number(width || 32);
		const r = lib.randomFloats(n, seed).map(v => 2 * v);
		const data = f16 ? Uint16Array.from(r, lib.floatToHalf) : r;
		const feeds = { [meta]: new ort.Tensor(f16 ? 'float16' : 'float32',
				data, [1, 8, n / 8]) };
		const a = values(await run(before, feeds));
		const b = values(await run(after, feeds));
		let amax = 0, emax = 0;
		for (let i = 0; i < a.length; i++) {
			amax = Math.max(amax, Math.abs(a[i]));
			const e = Math.abs(a[i] - b[i]);
			emax = Math.max(emax, Number.isNaN(e) ? Infinity : e);
		}
		worst = Math.max(worst, emax / amax);
	}
	console.log(`max relative error ${worst.toExponential(3)} (bound ${bound})`);
	return worst <= Number(bound) ? 0 : 1;
}

main().then(rc => process.exit(rc), e => {
	console.log(lib.ortReason(e));
	process.exit(1);
});

'use strict';
/*
 * tests/passes/fp8/rotate.js BEFORE.onnx AFTER.onnx LEVEL BOUND
 *
 * Runs both models in ONNX Runtime at graph optimization LEVEL
 * (disabled|basic) on the same seeded inputs (every float input, its
 * declared shape, symbolic dims 1; two seeds) and compares every output:
 * BOUND `exact` wants the same bits, a number bounds
 * max |after - before| / max |before|. Prints the result; exit 0 within
 * the bound, 1 outside, 77 when ORT cannot run BEFORE.
 */
const path = require('path');
const lib = require(path.join(__dirname, '..', '..', 'ort', 'lib.js'));

async function run(file, level, seed) {
	const ort = lib.ort();
	const s = await lib.createSession(file, { graphOptimizationLevel: level });
	try {
		const feeds = {};
		s.inputMetadata.forEach((m, k) => {
			const dims = m.shape.map(d => typeof d === 'number' && d >= 0 ?
						 d : 1);
			const n = dims.reduce((a, b) => a * b, 1);
			const r = lib.randomFloats(n, seed * 131 + k).map(v => 2 * v);
			const f16 = m.type === 'float16';
			feeds[m.name] = new ort.Tensor(m.type, f16 ?
				Uint16Array.from(r, lib.floatToHalf) : r, dims);
		});
		const o = await s.run(feeds);
		return s.outputNames.map(n => o[n]);
	} finally {
		await s.release();
	}
}

function value(t, i) {
	return t.type === 'float16' ? lib.halfToFloat(t.data[i]) : t.data[i];
}

async function main() {
	const [before, after, level, bound] = process.argv.slice(2);
	let worst = 0, diffbits = 0, count = 0;
	for (const seed of [3, 17]) {
		let a;
		try {
			a = await run(before, level, seed);
		} catch (e) {
			console.log(`ORT cannot run ${before}: ${lib.ortReason(e)}`);
			return 77;
		}
		const b = await run(after, level, seed);
		for (let j = 0; j < a.length; j++) {
			let amax = 0, emax = 0;
			for (let i = 0; i < a[j].data.length; i++) {
				const x = value(a[j], i), y = value(b[j], i);
				amax = Math.max(amax, Math.abs(x));
				const e = Math.abs(x - y);
				emax = Math.max(emax, Number.isNaN(e) ? Infinity : e);
				diffbits += a[j].data[i] === b[j].data[i] ||
					(Number.isNaN(x) && Number.isNaN(y)) ? 0 : 1;
				count++;
			}
			worst = Math.max(worst, amax ? emax / amax : emax);
		}
	}
	console.log(`${count} output values, ${diffbits} differ; max relative ` +
		    `error ${worst.toExponential(3)} (bound ${bound}, level ${level})`);
	return (bound === 'exact' ? diffbits === 0 : worst <= Number(bound)) ?
		0 : 1;
}

main().then(rc => process.exit(rc), e => {
	console.log(lib.ortReason(e));
	process.exit(1);
});

'use strict';
/*
 * tests/torch/ort.js JOBS - runs pairs of models in ONNX Runtime (graph
 * optimization `basic`: the default level fuses FP8 DQ -> MatMul into
 * QGemm, which has no FP8 kernel) on the same samples, in one process.
 *
 * Each line of JOBS: KEY MODE REF CAND SAMPLES
 *   MODE   exact       every output bit-identical
 *          maxrel=B    max |cand - ref| / max |ref| over all outputs and
 *                      samples <= B (and every value finite)
 *   SAMPLES a folder of sample folders, each with INPUT.npy per input
 * Prints one line per job: "KEY ok DETAIL" or "KEY fail DETAIL".
 * References are run once per (REF, SAMPLES).
 */
const fs = require('fs');
const path = require('path');
const lib = require(path.join(__dirname, '..', 'ort', 'lib.js'));

/* Outputs of FILE on every sample: [[plain tensor per output]]. */
function runAll(file, samples) {
	return lib.runEach(file, { graphOptimizationLevel: 'basic' }, samples,
		(o, s) => s.outputNames.map(n => lib.plain(o[n])));
}

function num(t, i) {
	return t.type === 'float16' ? lib.halfToFloat(t.data[i]) : Number(t.data[i]);
}

function compare(mode, ref, cand) {
	let amax = 0, emax = 0;
	for (let s = 0; s < ref.length; s++) {
		if (ref[s].length !== cand[s].length)
			return `${cand[s].length} outputs, expected ${ref[s].length}`;
		for (let o = 0; o < ref[s].length; o++) {
			const a = ref[s][o], b = cand[s][o];
			if (mode === 'exact') {
				const d = lib.compareTensor(a, b, { exact: true });
				if (d)
					return `sample ${s}, output ${o}: ${d}`;
				continue;
			}
			if (a.type !== b.type || a.data.length !== b.data.length)
				return `sample ${s}, output ${o}: ${b.type}[${b.data.length}], expected ${a.type}[${a.data.length}]`;
			for (let i = 0; i < a.data.length; i++) {
				const x = num(a, i), y = num(b, i);
				if (!Number.isFinite(y))
					return `sample ${s}, output ${o}, element ${i}: ${y}`;
				amax = Math.max(amax, Math.abs(x));
				emax = Math.max(emax, Math.abs(x - y));
			}
		}
	}
	if (mode === 'exact')
		return null;
	const bound = Number(mode.split('=')[1]);
	const rel = amax ? emax / amax : emax;
	return rel <= bound ? `=max relative error ${rel.toExponential(3)}` :
		`max relative error ${rel.toExponential(3)} > ${bound}`;
}

async function main() {
	const jobs = fs.readFileSync(process.argv[2], 'utf8').split('\n')
		.filter(l => l.trim()).map(l => l.trim().split(/\s+/));
	const samples = new Map(), refs = new Map();
	for (const [key, mode, ref, cand, dir] of jobs) {
		let line;
		try {
			if (!samples.has(dir))
				samples.set(dir, lib.npySamples(dir));
			const sm = samples.get(dir);
			const rk = ref + '\0' + dir;
			if (!refs.has(rk))
				refs.set(rk, await runAll(ref, sm));
			const d = compare(mode, refs.get(rk), await runAll(cand, sm));
			if (d === null)
				line = 'ok bit-identical';
			else if (d.startsWith('='))
				line = 'ok ' + d.slice(1);
			else
				line = 'fail ' + d;
		} catch (e) {
			line = 'fail ' + lib.ortReason(e);
		}
		console.log(`${key} ${line}`);
	}
}

main().catch(e => {
	console.log(lib.ortReason(e));
	process.exit(1);
});

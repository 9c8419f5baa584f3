'use strict';
/*
 * tests/passes/nvfp4_weights/accuracy.js REF CAND SAMPLES - the accuracy of a quantized
 * model against its float original in ONNX Runtime (graph optimization
 * basic, as tests/torch/ort.js): over every sample folder of SAMPLES
 * (INPUT.npy per input), the first output's max |cand - ref| / max |ref|,
 * mean |cand - ref| / mean |ref|, and top-1 agreement (argmax over the
 * last axis, per row). Prints one line of JSON.
 */
const fs = require('fs');
const path = require('path');
const lib = require(path.join(__dirname, '..', '..', 'ort', 'lib.js'));

const NPY = { '<f4': ['float32', Float32Array], '<i8': ['int64', BigInt64Array],
	'<f2': ['float16', Uint16Array], '<i4': ['int32', Int32Array] };

function readNpy(file) {
	const buf = fs.readFileSync(file);
	const v1 = buf[6] === 1;
	const hlen = v1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
	const start = v1 ? 10 : 12;
	const h = buf.toString('latin1', start, start + hlen);
	const descr = /'descr':\s*'([^']+)'/.exec(h)[1];
	const shape = /'shape':\s*\(([^)]*)\)/.exec(h)[1].split(',')
		.map(s => s.trim()).filter(s => s).map(Number);
	const t = NPY[descr];
	if (!t)
		throw new Error(`${file}: dtype ${descr} not supported`);
	const body = new Uint8Array(buf.subarray(start + hlen));
	const n = shape.reduce((a, b) => a * b, 1);
	return new (lib.ort().Tensor)(t[0], new t[1](body.buffer, 0, n), shape);
}

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
	for (const sdir of fs.readdirSync(dir).sort()) {
		const feeds = {};
		for (const f of fs.readdirSync(path.join(dir, sdir)))
			if (f.endsWith('.npy'))
				feeds[f.slice(0, -4)] = readNpy(path.join(dir, sdir, f));
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

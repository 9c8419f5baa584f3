'use strict';
/*
 * tests/ort/run-compare.js [options] A.onnx B.onnx
 *
 * Runs two models in ONNX Runtime on the same seeded random inputs and
 * compares their outputs (by position). For passes that must keep a
 * model's meaning, and for round trips (--exact).
 *
 *   --shape NAME=D0,D1,...  dims for an input (symbolic dims else 1)
 *   --seed N                random seed (default 1)
 *   --exact                 outputs must be bitwise identical
 *   --rtol X --atol Y       tolerances otherwise (default 1e-3, 1e-5)
 *   --threads N             intra-op threads (default 1)
 *   --cosine C              instead of tolerances: each float output's
 *                           cosine similarity >= C and the same argmax
 *                           (a lossy rewrite of a model)
 *   --opt LEVEL             graph optimization for both models
 *                           (disabled, basic, extended, all; default ORT's)
 *   --opt-b LEVEL           ... for B alone (FP8 Conv in a FLOAT16 model
 *                           needs disabled where FLOAT FP8 needs basic)
 *
 * Prints "ok" or the first difference. Exit 0 equal, 1 different,
 * 77 when ORT cannot run A (the reason on stdout: the caller SKIPs),
 * 2 on usage errors or when ORT runs A but not B.
 */
const path = require('path');
const lib = require(path.join(__dirname, 'lib.js'));

function parseArgs(argv) {
	const o = { shapes: {}, seed: 1, exact: false, rtol: 1e-3,
		    atol: 1e-5, threads: 1, files: [] };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		const next = () => {
			if (i + 1 >= argv.length)
				throw new Error(`${a} needs a value`);
			return argv[++i];
		};
		if (a === '--shape') {
			const [n, d] = next().split('=');
			o.shapes[n] = d.split(',').map(Number);
		} else if (a === '--seed') {
			o.seed = Number(next());
		} else if (a === '--exact') {
			o.exact = true;
		} else if (a === '--rtol') {
			o.rtol = Number(next());
		} else if (a === '--atol') {
			o.atol = Number(next());
		} else if (a === '--threads') {
			o.threads = Number(next());
		} else if (a === '--cosine') {
			o.cosine = Number(next());
		} else if (a === '--opt') {
			o.opt = next();
		} else if (a === '--opt-b') {
			o.optB = next();
		} else if (a.startsWith('--')) {
			throw new Error(`unknown option ${a}`);
		} else {
			o.files.push(a);
		}
	}
	if (o.files.length !== 2)
		throw new Error('two models expected');
	return o;
}

/* Seeded inputs for every tensor input of the session. */
function makeFeeds(session, o) {
	const ort = lib.ort();
	const feeds = {};
	session.inputMetadata.forEach((m, k) => {
		if (!m.isTensor)
			throw new Error(`input ${m.name} is not a tensor`);
		const dims = o.shapes[m.name] ||
			m.shape.map(d => (typeof d === 'number' && d >= 0) ? d : 1);
		const n = dims.reduce((a, b) => a * b, 1);
		const r = lib.randomFloats(n, o.seed * 7919 + k);
		let data;
		switch (m.type) {
		case 'float32': data = r; break;
		case 'float16': data = Uint16Array.from(r, lib.floatToHalf); break;
		case 'float64': data = Float64Array.from(r); break;
		case 'int64': data = BigInt64Array.from(r, x => BigInt(Math.floor(x * 4))); break;
		case 'int32': data = Int32Array.from(r, x => Math.floor(x * 4)); break;
		case 'bool': data = Uint8Array.from(r, x => x > 0 ? 1 : 0); break;
		case 'uint8': data = Uint8Array.from(r, x => Math.floor((x + 1) * 127)); break;
		case 'int8': data = Int8Array.from(r, x => Math.floor(x * 127)); break;
		default:
			throw new Error(`input ${m.name}: random ${m.type} not supported`);
		}
		feeds[m.name] = new ort.Tensor(m.type, data, dims);
	});
	return feeds;
}

async function run(file, o, feeds, level) {
	const so = { intraOpNumThreads: o.threads };
	if (level)
		so.graphOptimizationLevel = level;
	const s = await lib.createSession(file, so);
	try {
		const f = feeds || makeFeeds(s, o);
		const out = await s.run(f);
		return { feeds: f, outs: s.outputNames.map(n => [n, out[n]]) };
	} finally {
		await s.release();
	}
}

async function main() {
	let o;
	try {
		o = parseArgs(process.argv.slice(2));
	} catch (e) {
		console.log(`usage error: ${e.message}`);
		return 2;
	}
	let a;
	try {
		a = await run(o.files[0], o, undefined, o.opt);
	} catch (e) {
		console.log(`ORT cannot run ${o.files[0]}: ${lib.ortReason(e)}`);
		return 77;
	}
	let b;
	try {
		b = await run(o.files[1], o, a.feeds, o.optB || o.opt);
	} catch (e) {
		console.log(`ORT runs ${o.files[0]} but not ${o.files[1]}: ${lib.ortReason(e)}`);
		return 2;
	}
	if (a.outs.length !== b.outs.length) {
		console.log(`${a.outs.length} vs ${b.outs.length} outputs`);
		return 1;
	}
	for (let i = 0; o.cosine !== undefined && i < a.outs.length; i++) {
		const d = cosineDiff(lib.plain(a.outs[i][1]),
				     lib.plain(b.outs[i][1]), o.cosine);
		if (d) {
			console.log(`output ${a.outs[i][0]}: ${d}`);
			return 1;
		}
	}
	for (let i = 0; o.cosine === undefined && i < a.outs.length; i++) {
		const d = lib.compareTensor(lib.plain(a.outs[i][1]),
					    lib.plain(b.outs[i][1]),
					    { exact: o.exact, rtol: o.rtol, atol: o.atol });
		if (d) {
			console.log(`output ${a.outs[i][0]}: ${d}`);
			return 1;
		}
	}
	const shapes = a.outs.map(([n, t]) => `${n}[${t.dims}]`).join(' ');
	console.log(`ok: ${a.outs.length} outputs ${o.cosine !== undefined ? 'agree (cosine)' : 'equal'}${o.exact ? ' bitwise' : ''}: ${shapes}`);
	return 0;
}

/* null when B's values point where A's do (cosine >= min, one argmax),
 * else what differs. */
function cosineDiff(want, got, min) {
	const num = t => Array.from(t.data, x => t.type === 'float16' ?
				    lib.halfToFloat(x) : Number(x));
	const x = num(want), y = num(got);
	if (x.length !== y.length)
		return `${y.length} elements, expected ${x.length}`;
	let xy = 0, xx = 0, yy = 0, ax = 0, ay = 0;
	for (let i = 0; i < x.length; i++) {
		if (Number.isNaN(x[i]) && Number.isNaN(y[i]))
			continue;	/* NaN where A has NaN too */
		if (!Number.isFinite(y[i]))
			return `element ${i}: ${y[i]}, expected ${x[i]}`;
		xy += x[i] * y[i];
		xx += x[i] * x[i];
		yy += y[i] * y[i];
		if (x[i] > x[ax])
			ax = i;
		if (y[i] > y[ay])
			ay = i;
	}
	const c = xx && yy ? xy / Math.sqrt(xx * yy) : (xx === yy ? 1 : 0);
	if (!(c >= min))
		return `cosine ${c.toFixed(6)}, below ${min}`;
	if (ax !== ay)
		return `argmax ${ay}, expected ${ax} (cosine ${c.toFixed(6)})`;
	return null;
}

main().then(rc => { process.exitCode = rc; },
	    e => { console.log(`error: ${e.stack || e}`); process.exitCode = 2; });

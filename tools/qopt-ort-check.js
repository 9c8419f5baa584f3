#!/usr/bin/env node
// qopt-ort-check: the common `qopt bisect --test` checker. Runs the
// original and a candidate model in ONNX Runtime on the same inputs and
// compares the outputs.
//
//   qopt-ort-check ORIGINAL.onnx CANDIDATE.onnx [--rtol R] [--atol A]
//       [--inputs DIR] [--seed S] [--dim NAME=VALUE]...
//       [--opt-level disabled|basic|extended|all]
//
// Exit: 0 outputs match (good), 1 they differ (bad), 125 ORT cannot
// load or run the candidate (skip), 2 usage error or the original
// cannot run. Inputs: DIR/input_N.pb (TensorProto, ONNX test layout)
// or seeded random data shaped from the model (symbolic dims: --dim,
// else 1). onnxruntime-node is taken from $QOPT_ORT_DIR (a folder with
// node_modules/) or normal module resolution. Graph optimization is
// `basic` unless --opt-level says otherwise: ORT's higher levels fuse
// DequantizeLinear -> MatMul + Add into QGemm, which has no FP8 kernel.
'use strict';
const fs = require('fs');
const path = require('path');

// Who is speaking in messages (qopt-calibrate-ort borrows these readers).
let me = 'qopt-ort-check';

function die(msg) {
	process.stderr.write(`${me}: ${msg}\n`);
	process.exit(2);
}

function loadOrt() {
	const tries = [];
	const dir = process.env.QOPT_ORT_DIR;
	if (dir) {
		tries.push(path.join(dir, 'node_modules', 'onnxruntime-node'));
		tries.push(path.join(dir, 'onnxruntime-node'));
	}
	tries.push('onnxruntime-node');
	for (const t of tries) {
		try {
			return require(t);
		} catch (e) {
			if (e.code !== 'MODULE_NOT_FOUND')
				die(`cannot load ${t}: ${e.message}`);
		}
	}
	die('onnxruntime-node not found (set QOPT_ORT_DIR)');
}

// ---- protobuf: just enough wire format for ModelProto inputs and
// TensorProto (field numbers from onnx.proto) ----
function* fields(buf, start = 0, end = buf.length) {
	let p = start;
	const varint = () => {
		let v = 0n, shift = 0n;
		for (;;) {
			if (p >= end)
				throw new Error('truncated varint');
			const b = buf[p++];
			v |= BigInt(b & 0x7f) << shift;
			if (!(b & 0x80))
				return v;
			shift += 7n;
		}
	};
	while (p < end) {
		const key = Number(varint());
		const num = key >>> 3, wire = key & 7;
		if (wire === 0) {
			yield { num, wire, v: varint() };
		} else if (wire === 1) {
			yield { num, wire, s: p, e: p + 8 };
			p += 8;
		} else if (wire === 2) {
			const len = Number(varint());
			if (p + len > end)
				throw new Error('truncated field');
			yield { num, wire, s: p, e: p + len };
			p += len;
		} else if (wire === 5) {
			yield { num, wire, s: p, e: p + 4 };
			p += 4;
		} else {
			throw new Error(`unsupported wire type ${wire}`);
		}
	}
}

function str(buf, f) {
	return buf.toString('utf8', f.s, f.e);
}

function varints(buf, f) {
	if (f.wire === 0)
		return [f.v];
	// packed: a run of varints
	const out = [];
	let p = f.s, v = 0n, shift = 0n;
	while (p < f.e) {
		const b = buf[p++];
		v |= BigInt(b & 0x7f) << shift;
		shift += 7n;
		if (!(b & 0x80)) {
			out.push(v);
			v = 0n;
			shift = 0n;
		}
	}
	return out;
}

// Graph inputs that are not initializers: [{name, elem, dims}].
function modelInputs(file, dimOverride) {
	const buf = fs.readFileSync(file);
	let graph = null;
	for (const f of fields(buf))
		if (f.num === 7 && f.wire === 2)
			graph = f;
	if (!graph)
		die(`${file}: no graph`);
	const inits = new Set(), inputs = [];
	for (const f of fields(buf, graph.s, graph.e)) {
		if (f.num === 5 && f.wire === 2) {
			for (const g of fields(buf, f.s, f.e))
				if (g.num === 8)
					inits.add(str(buf, g));
		} else if (f.num === 11 && f.wire === 2) {
			const inp = { name: '', elem: 0, dims: [] };
			for (const g of fields(buf, f.s, f.e)) {
				if (g.num === 1)
					inp.name = str(buf, g);
				if (g.num === 2)
					readType(buf, g, inp, dimOverride);
			}
			inputs.push(inp);
		}
	}
	return inputs.filter((i) => !inits.has(i.name));
}

function readType(buf, t, inp, dimOverride) {
	for (const f of fields(buf, t.s, t.e)) {
		if (f.num !== 1 || f.wire !== 2)
			continue;
		for (const g of fields(buf, f.s, f.e)) {
			if (g.num === 1)
				inp.elem = Number(g.v);
			if (g.num !== 2)
				continue;
			for (const d of fields(buf, g.s, g.e)) {
				if (d.num !== 1)
					continue;
				let val = 1;
				for (const x of fields(buf, d.s, d.e)) {
					if (x.num === 1)
						val = Number(x.v);
					if (x.num === 2) {
						const name = str(buf, x);
						val = name in dimOverride ? dimOverride[name] : 1;
					}
				}
				inp.dims.push(val < 0 ? 1 : val);
			}
		}
	}
}

const TYPES = {
	1: ['float32', Float32Array], 2: ['uint8', Uint8Array],
	3: ['int8', Int8Array], 4: ['uint16', Uint16Array],
	5: ['int16', Int16Array], 6: ['int32', Int32Array],
	7: ['int64', BigInt64Array], 9: ['bool', Uint8Array],
	10: ['float16', Uint16Array], 11: ['float64', Float64Array],
	12: ['uint32', Uint32Array], 13: ['uint64', BigUint64Array],
};

function f32ToF16(x) {
	const f = new Float32Array([x]), u = new Uint32Array(f.buffer)[0];
	const sign = (u >>> 16) & 0x8000, exp = ((u >>> 23) & 0xff) - 112;
	if (exp <= 0)
		return sign;
	return sign | (exp << 10) | ((u >>> 13) & 0x3ff);
}

function mulberry32(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

function randomTensor(ort, inp, rnd) {
	const t = TYPES[inp.elem];
	if (!t)
		die(`input ${inp.name}: element type ${inp.elem} not supported`);
	const n = inp.dims.reduce((a, b) => a * b, 1);
	const data = new t[1](n);
	for (let i = 0; i < n; i++) {
		const r = rnd();
		if (t[0] === 'float32' || t[0] === 'float64')
			data[i] = 2 * r - 1;
		else if (t[0] === 'float16')
			data[i] = f32ToF16(2 * r - 1);
		else if (t[0] === 'int64' || t[0] === 'uint64')
			data[i] = BigInt(Math.floor(r * 4));
		else if (t[0] === 'bool')
			data[i] = r < 0.5 ? 0 : 1;
		else
			data[i] = Math.floor(r * 4);
	}
	return new ort.Tensor(t[0], data, inp.dims);
}

// TensorProto: dims 1, data_type 2, float_data 4, int32_data 5,
// int64_data 7, name 8, raw_data 9, double_data 10.
// buf: the file's bytes when the caller read them (bounded); else read.
function readTensorProto(ort, file, buf) {
	buf = buf || fs.readFileSync(file);
	let name = '', elem = 0, raw = null;
	const dims = [], f32 = [], i32 = [], i64 = [], f64 = [];
	for (const f of fields(buf)) {
		if (f.num === 1)
			dims.push(...varints(buf, f).map(Number));
		else if (f.num === 2)
			elem = Number(f.v);
		else if (f.num === 8)
			name = str(buf, f);
		else if (f.num === 9)
			raw = buf.subarray(f.s, f.e);
		else if (f.num === 4)
			for (let p = f.s; p + 4 <= f.e; p += 4)
				f32.push(buf.readFloatLE(p));
		else if (f.num === 10)
			for (let p = f.s; p + 8 <= f.e; p += 8)
				f64.push(buf.readDoubleLE(p));
		else if (f.num === 5)
			i32.push(...varints(buf, f).map((v) => Number(BigInt.asIntN(32, v))));
		else if (f.num === 7)
			i64.push(...varints(buf, f).map((v) => BigInt.asIntN(64, v)));
	}
	const t = TYPES[elem];
	if (!t)
		die(`${file}: element type ${elem} not supported`);
	const n = dims.reduce((a, b) => a * b, 1);
	let data;
	if (raw) {
		if (raw.length !== n * t[1].BYTES_PER_ELEMENT)
			die(`${file}: raw_data holds ${raw.length} bytes, shape [${dims}] needs ${n * t[1].BYTES_PER_ELEMENT}`);
		const copy = new Uint8Array(raw);
		data = new t[1](copy.buffer, 0, n);
	} else if (f32.length || t[0] === 'float32') {
		data = Float32Array.from(f32);
	} else if (f64.length || t[0] === 'float64') {
		data = Float64Array.from(f64);
	} else if (t[0] === 'int64') {
		data = BigInt64Array.from(i64);
	} else {
		data = t[1].from(i32);
	}
	return { name, tensor: new ort.Tensor(t[0], data, dims) };
}

function parseArgs(argv) {
	const a = { files: [], rtol: 1e-3, atol: 1e-4, inputs: null, seed: 1, dims: {},
		opt: 'basic' };
	for (let i = 0; i < argv.length; i++) {
		const k = argv[i], next = () => {
			if (i + 1 >= argv.length)
				die(`${k} needs a value`);
			return argv[++i];
		};
		if (k === '--rtol')
			a.rtol = Number(next());
		else if (k === '--atol')
			a.atol = Number(next());
		else if (k === '--inputs')
			a.inputs = next();
		else if (k === '--seed')
			a.seed = Number(next());
		else if (k === '--opt-level') {
			a.opt = next();
			if (!['disabled', 'basic', 'extended', 'all'].includes(a.opt))
				die('--opt-level is disabled, basic, extended or all');
		}
		else if (k === '--dim') {
			const m = /^([^=]+)=(\d+)$/.exec(next());
			if (!m)
				die('--dim expects NAME=VALUE');
			a.dims[m[1]] = Number(m[2]);
		} else if (k === '-h' || k === '--help') {
			process.stdout.write('usage: qopt-ort-check ORIGINAL.onnx CANDIDATE.onnx [--rtol R] [--atol A] [--inputs DIR] [--seed S] [--dim NAME=VALUE] [--opt-level L]\n');
			process.exit(0);
		} else if (k.startsWith('-'))
			die(`unknown option ${k}`);
		else
			a.files.push(k);
	}
	if (a.files.length !== 2)
		die('usage: qopt-ort-check ORIGINAL.onnx CANDIDATE.onnx [options]');
	if (!(a.rtol >= 0) || !(a.atol >= 0))
		die('--rtol and --atol must be numbers >= 0');
	return a;
}

function makeFeeds(ort, a, inputs) {
	const feeds = {};
	if (a.inputs) {
		const files = fs.readdirSync(a.inputs)
			.filter((f) => /^input_\d+\.pb$/.test(f))
			.sort((x, y) => parseInt(x.slice(6)) - parseInt(y.slice(6)));
		files.forEach((f, i) => {
			const t = readTensorProto(ort, path.join(a.inputs, f));
			const name = t.name || (inputs[i] && inputs[i].name);
			if (!name)
				die(`${f}: no input to feed it to`);
			feeds[name] = t.tensor;
		});
		return feeds;
	}
	const rnd = mulberry32(a.seed);
	for (const inp of inputs)
		feeds[inp.name] = randomTensor(ort, inp, rnd);
	return feeds;
}

function asNumbers(t) {
	if (t.type === 'float16' && !(t.data instanceof Float32Array)) {
		const out = new Float64Array(t.data.length);
		for (let i = 0; i < t.data.length; i++) {
			const h = Number(t.data[i]), e = (h >> 10) & 0x1f, m = h & 0x3ff;
			const v = e === 0 ? m * 2 ** -24 : e === 31 ? (m ? NaN : Infinity) :
				(1 + m / 1024) * 2 ** (e - 15);
			out[i] = h & 0x8000 ? -v : v;
		}
		return out;
	}
	return Array.from(t.data, Number);
}

function compare(name, want, got, a) {
	if (want.dims.join(',') !== got.dims.join(','))
		return `${name}: shape [${got.dims}] differs from [${want.dims}]`;
	const x = asNumbers(want), y = asNumbers(got);
	let worst = -1, worstDiff = 0;
	for (let i = 0; i < x.length; i++) {
		if (Number.isNaN(x[i]) && Number.isNaN(y[i]))
			continue;
		const d = Math.abs(x[i] - y[i]);
		if (!(d <= a.atol + a.rtol * Math.abs(x[i])) && (worst < 0 || !(d <= worstDiff))) {
			worst = i;
			worstDiff = d;
		}
	}
	if (worst >= 0)
		return `${name}: element ${worst}: ${y[worst]} vs ${x[worst]} (|diff| ${worstDiff}, atol ${a.atol}, rtol ${a.rtol})`;
	return null;
}

async function main() {
	const a = parseArgs(process.argv.slice(2));
	const ort = loadOrt();
	let ref, cand;
	try {
		ref = await ort.InferenceSession.create(a.files[0],
			{ graphOptimizationLevel: a.opt });
	} catch (e) {
		die(`${a.files[0]}: ORT cannot load the original: ${e.message}`);
	}
	try {
		cand = await ort.InferenceSession.create(a.files[1],
			{ graphOptimizationLevel: a.opt });
	} catch (e) {
		process.stderr.write(`qopt-ort-check: ${a.files[1]}: ORT cannot load it: ${e.message}\n`);
		process.exit(125);
	}
	const feeds = makeFeeds(ort, a, modelInputs(a.files[0], a.dims));
	let want, got;
	try {
		want = await ref.run(feeds);
	} catch (e) {
		die(`${a.files[0]}: ORT cannot run the original: ${e.message}`);
	}
	try {
		got = await cand.run(feeds);
	} catch (e) {
		process.stderr.write(`qopt-ort-check: ${a.files[1]}: ORT cannot run it: ${e.message}\n`);
		process.exit(125);
	}
	let bad = 0;
	for (const name of ref.outputNames) {
		const why = !(name in got) ? `${name}: missing from the candidate` :
			compare(name, want[name], got[name], a);
		if (why) {
			process.stderr.write(`qopt-ort-check: ${why}\n`);
			bad = 1;
		}
	}
	process.exit(bad);
}

// Run as a program, or required for its readers (qopt-calibrate-ort).
if (require.main === module)
	main().catch((e) => die(e.stack || String(e)));
else
	module.exports = { loadOrt, readTensorProto, randomTensor, mulberry32,
		asNumbers, TYPES, setName: (n) => { me = n; } };

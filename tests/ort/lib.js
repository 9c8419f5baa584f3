'use strict';
/*
 * tests/ort/lib.js - helpers for tests that run models in ONNX Runtime:
 * a small protobuf reader (TensorProto .pb files, model input types),
 * .npy files, tensor conversion, running a model, comparing outputs.
 *
 * ORT is resolved from $QOPT_ORT_DIR/node_modules (tests/ort/setup.sh
 * installs it into the build tree), so this file works from a VPATH
 * source tree.
 */
const fs = require('fs');
const path = require('path');

function loadOrt() {
	const dirs = [];
	if (process.env.QOPT_ORT_DIR)
		dirs.push(process.env.QOPT_ORT_DIR);
	dirs.push(__dirname);
	for (const d of dirs) {
		try {
			return require(require.resolve('onnxruntime-node',
						       { paths: [d] }));
		} catch (e) {
			if (e.code !== 'MODULE_NOT_FOUND')
				throw e;
		}
	}
	throw new Error('onnxruntime-node not found (run tests/ort/setup.sh)');
}

let ortCache = null;
function ort() {
	if (!ortCache)
		ortCache = loadOrt();
	return ortCache;
}

/* ---------------------------------------------------------------- */
/* Protobuf wire format                                               */

const WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2, WIRE_I32 = 5;

/* Returns [value as BigInt, next offset]. */
function readVarint(buf, pos) {
	let result = 0n, shift = 0n;
	for (;;) {
		if (pos >= buf.length)
			throw new Error('truncated varint');
		const b = buf[pos++];
		result |= BigInt(b & 0x7f) << shift;
		if (!(b & 0x80))
			return [result, pos];
		shift += 7n;
		if (shift > 63n)
			throw new Error('varint too long');
	}
}

/* Fast path for varints that fit in 31 bits (tags, lengths). */
function readSmallVarint(buf, pos) {
	let v = 0, shift = 0;
	for (;;) {
		if (pos >= buf.length)
			throw new Error('truncated varint');
		const b = buf[pos++];
		if (shift >= 28) {
			const [big, next] = readVarint(buf, pos - 1 - shift / 7);
			if (big > 0x7fffffffn)
				throw new Error('length or tag too large');
			return [Number(big), next];
		}
		v |= (b & 0x7f) << shift;
		if (!(b & 0x80))
			return [v, pos];
		shift += 7;
	}
}

/*
 * Splits a message into its fields: [{field, wire, value}], value a
 * BigInt (varint), a Buffer view (LEN, I32, I64). Submessages are
 * decoded by calling this again on the view.
 */
function pbFields(buf) {
	const out = [];
	let pos = 0;
	while (pos < buf.length) {
		let tag;
		[tag, pos] = readSmallVarint(buf, pos);
		const field = tag >>> 3, wire = tag & 7;
		let value;
		switch (wire) {
		case WIRE_VARINT:
			[value, pos] = readVarint(buf, pos);
			break;
		case WIRE_I64:
			value = buf.subarray(pos, pos + 8);
			pos += 8;
			break;
		case WIRE_I32:
			value = buf.subarray(pos, pos + 4);
			pos += 4;
			break;
		case WIRE_LEN: {
			let len;
			[len, pos] = readSmallVarint(buf, pos);
			if (pos + len > buf.length)
				throw new Error(`field ${field}: truncated`);
			value = buf.subarray(pos, pos + len);
			pos += len;
			break;
		}
		default:
			throw new Error(`field ${field}: wire type ${wire} unsupported`);
		}
		if (pos > buf.length)
			throw new Error(`field ${field}: truncated`);
		out.push({ field, wire, value });
	}
	return out;
}

/* Every varint of a repeated integer field, packed or not, as BigInt. */
function repeatedVarints(fields, num) {
	const vals = [];
	for (const f of fields) {
		if (f.field !== num)
			continue;
		if (f.wire === WIRE_VARINT) {
			vals.push(f.value);
		} else if (f.wire === WIRE_LEN) {
			let p = 0;
			while (p < f.value.length) {
				let v;
				[v, p] = readVarint(f.value, p);
				vals.push(v);
			}
		} else {
			throw new Error(`field ${num}: unexpected wire type ${f.wire}`);
		}
	}
	return vals;
}

/* Concatenated bytes of a repeated fixed-width field (packed or not). */
function repeatedFixed(fields, num, width) {
	const parts = [];
	const single = width === 4 ? WIRE_I32 : WIRE_I64;
	for (const f of fields) {
		if (f.field !== num)
			continue;
		if (f.wire !== single && f.wire !== WIRE_LEN)
			throw new Error(`field ${num}: unexpected wire type ${f.wire}`);
		if (f.value.length % width)
			throw new Error(`field ${num}: length not a multiple of ${width}`);
		parts.push(f.value);
	}
	return Buffer.concat(parts);
}

function lastField(fields, num) {
	let r;
	for (const f of fields)
		if (f.field === num)
			r = f;
	return r;
}

/* ---------------------------------------------------------------- */
/* TensorProto                                                        */

/* ONNX data type -> [ORT tensor type, typed array, bytes per element] */
const DTYPES = {
	1: ['float32', Float32Array, 4],
	2: ['uint8', Uint8Array, 1],
	3: ['int8', Int8Array, 1],
	4: ['uint16', Uint16Array, 2],
	5: ['int16', Int16Array, 2],
	6: ['int32', Int32Array, 4],
	7: ['int64', BigInt64Array, 8],
	8: ['string', null, 0],
	9: ['bool', Uint8Array, 1],
	10: ['float16', Uint16Array, 2],
	11: ['float64', Float64Array, 8],
	12: ['uint32', Uint32Array, 4],
	13: ['uint64', BigUint64Array, 8],
};
const DTYPE_NAMES = {
	0: 'UNDEFINED', 1: 'FLOAT', 2: 'UINT8', 3: 'INT8', 4: 'UINT16',
	5: 'INT16', 6: 'INT32', 7: 'INT64', 8: 'STRING', 9: 'BOOL',
	10: 'FLOAT16', 11: 'DOUBLE', 12: 'UINT32', 13: 'UINT64',
	14: 'COMPLEX64', 15: 'COMPLEX128', 16: 'BFLOAT16',
	17: 'FLOAT8E4M3FN', 18: 'FLOAT8E4M3FNUZ', 19: 'FLOAT8E5M2',
	20: 'FLOAT8E5M2FNUZ', 21: 'UINT4', 22: 'INT4', 23: 'FLOAT4E2M1',
	24: 'FLOAT8E8M0', 25: 'UINT2', 26: 'INT2',
};

class Unsupported extends Error {}

/* Copies bytes into a fresh, aligned typed array. */
function typedFromBytes(Ctor, bytes) {
	const copy = new Uint8Array(bytes.length);
	copy.set(bytes);
	return new Ctor(copy.buffer, 0, bytes.length / Ctor.BYTES_PER_ELEMENT);
}

/* Elements stored in int32_data for the narrow types (one per int32). */
function fromInt32Data(Ctor, vals) {
	const a = new Ctor(vals.length);
	for (let i = 0; i < vals.length; i++)
		a[i] = Number(BigInt.asIntN(32, vals[i]));
	return a;
}

/*
 * Decodes a TensorProto into {name, dtype, dims, data} where data is
 * the typed array (or string[]) ORT takes. Throws Unsupported for
 * types ORT's JavaScript API has no tensor for.
 */
function decodeTensor(buf) {
	const fields = pbFields(buf);
	const dims = repeatedVarints(fields, 1).map(Number);
	const dtf = lastField(fields, 2);
	const dtype = dtf ? Number(dtf.value) : 0;
	const nf = lastField(fields, 8);
	const name = nf ? nf.value.toString('utf8') : '';
	const loc = lastField(fields, 14);
	if (loc && Number(loc.value) === 1)
		throw new Unsupported(`tensor ${name}: external data in a .pb`);
	const t = DTYPES[dtype];
	if (!t)
		throw new Unsupported(`ORT's JavaScript API has no ${DTYPE_NAMES[dtype] || dtype} tensor`);
	const [type, Ctor, width] = t;
	const numel = dims.reduce((a, b) => a * b, 1);
	const raw = lastField(fields, 9);
	let data;
	if (dtype === 8) {
		data = fields.filter(f => f.field === 6)
			.map(f => f.value.toString('utf8'));
	} else if (raw) {
		if (raw.value.length !== numel * width)
			throw new Error(`tensor ${name}: raw_data has ${raw.value.length} bytes, ${numel * width} expected`);
		data = typedFromBytes(Ctor, raw.value);
	} else if (dtype === 1) {
		data = typedFromBytes(Float32Array, repeatedFixed(fields, 4, 4));
	} else if (dtype === 11) {
		data = typedFromBytes(Float64Array, repeatedFixed(fields, 10, 8));
	} else if (dtype === 7) {
		data = BigInt64Array.from(repeatedVarints(fields, 7),
					  v => BigInt.asIntN(64, v));
	} else if (dtype === 12 || dtype === 13) {
		const vals = repeatedVarints(fields, 11);
		data = dtype === 13 ?
			BigUint64Array.from(vals, v => BigInt.asUintN(64, v)) :
			Uint32Array.from(vals, v => Number(BigInt.asUintN(32, v)));
	} else {
		/* INT32, INT16, INT8, UINT16, UINT8, BOOL, FLOAT16 (bits). */
		data = fromInt32Data(Ctor, repeatedVarints(fields, 5));
	}
	if (data.length !== numel)
		throw new Error(`tensor ${name}: ${data.length} elements, dims ${JSON.stringify(dims)} need ${numel}`);
	return { name, dtype, type, dims, data };
}

function tensorFromPbFile(file) {
	const d = decodeTensor(fs.readFileSync(file));
	d.tensor = new (ort().Tensor)(d.type, d.data, d.dims);
	return d;
}

/*
 * The kind of each graph input and output of a model file ('tensor',
 * 'sequence', 'map', 'optional', 'sparse_tensor', 'opaque' or
 * 'unknown'): {inputs: {name: kind}, outputs: {name: kind}}, from
 * ModelProto.graph.{input,output}[].type.
 */
const TYPE_KINDS = { 1: 'tensor', 4: 'sequence', 5: 'map', 7: 'opaque',
	8: 'sparse_tensor', 9: 'optional' };
function valueInfoKind(buf) {
	const vi = pbFields(buf);
	const nm = lastField(vi, 1);
	const ty = lastField(vi, 2);
	let kind = 'unknown';
	if (ty)
		for (const tf of pbFields(ty.value))
			if (TYPE_KINDS[tf.field])
				kind = TYPE_KINDS[tf.field];
	return [nm ? nm.value.toString('utf8') : '', kind];
}

function modelIoKinds(file) {
	const model = pbFields(fs.readFileSync(file));
	const g = lastField(model, 7);
	const r = { inputs: {}, outputs: {} };
	if (!g)
		return r;
	for (const f of pbFields(g.value)) {
		if (f.field !== 11 && f.field !== 12)
			continue;
		const [name, kind] = valueInfoKind(f.value);
		(f.field === 11 ? r.inputs : r.outputs)[name] = kind;
	}
	return r;
}

/* ---------------------------------------------------------------- */
/* Running and comparing                                              */

const defaultSessionOptions = {
	/* One thread: results must not depend on the thread split. */
	intraOpNumThreads: 1,
	interOpNumThreads: 1,
	logSeverityLevel: 4,
};

async function createSession(file, opts) {
	return ort().InferenceSession.create(file,
		Object.assign({}, defaultSessionOptions, opts || {}));
}

/* First line of an ORT error, without the noisy prefix. */
function ortReason(e) {
	let s = String(e && e.message ? e.message : e).split('\n')[0];
	s = s.replace(/^\[ONNXRuntimeError\] : \d+ : [A-Z_]+ : /, '');
	return s.length > 240 ? s.slice(0, 240) + '...' : s;
}

function halfToFloat(h) {
	const s = h & 0x8000 ? -1 : 1;
	const e = (h >> 10) & 0x1f, m = h & 0x3ff;
	if (e === 0)
		return s * m * Math.pow(2, -24);
	if (e === 31)
		return m ? NaN : s * Infinity;
	return s * (1 + m / 1024) * Math.pow(2, e - 15);
}

/* Nearest FLOAT16 bits of a number (round half to even). */
function floatToHalf(x) {
	const f = new Float32Array([x]);
	const u = new Uint32Array(f.buffer)[0];
	const sign = (u >>> 16) & 0x8000;
	const exp = (u >>> 23) & 0xff;
	let mant = u & 0x7fffff;
	if (exp === 0xff)
		return sign | 0x7c00 | (mant ? 0x200 : 0);
	let e = exp - 127 + 15;
	if (e >= 31)
		return sign | 0x7c00;
	if (e <= 0) {
		if (e < -10)
			return sign;
		mant |= 0x800000;
		const shift = 14 - e;
		let h = mant >>> shift;
		const rem = mant & ((1 << shift) - 1), half = 1 << (shift - 1);
		if (rem > half || (rem === half && (h & 1)))
			h++;
		return sign | h;
	}
	let h = (e << 10) | (mant >>> 13);
	const rem = mant & 0x1fff;
	if (rem > 0x1000 || (rem === 0x1000 && (h & 1)))
		h++;
	return sign | h;
}

const FLOAT_TYPES = new Set(['float32', 'float64', 'float16']);

function elemToNumber(type, v) {
	return type === 'float16' ? halfToFloat(v) : v;
}

/*
 * Compares an ORT output with the expected tensor ({type, dims, data}).
 * Floats: |got - want| <= atol + rtol * |want| (numpy's allclose, as
 * ONNX's backend tests), NaN equals NaN, infinities must match; every
 * other type exactly. Returns null when equal, else a description of
 * the first difference. opts.exact compares floats bitwise.
 */
function compareTensor(want, got, opts) {
	const rtol = opts && opts.rtol !== undefined ? opts.rtol : 1e-3;
	const atol = opts && opts.atol !== undefined ? opts.atol : 1e-7;
	const exact = opts && opts.exact;
	if (want.type !== got.type)
		return `type ${got.type}, expected ${want.type}`;
	const gd = Array.from(got.dims), wd = Array.from(want.dims);
	if (gd.length !== wd.length || gd.some((d, i) => d !== wd[i]))
		return `shape [${gd}], expected [${wd}]`;
	const a = want.data, b = got.data;
	if (a.length !== b.length)
		return `${b.length} elements, expected ${a.length}`;
	if (exact && a.buffer && b.buffer) {
		const ab = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
		const bb = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
		for (let i = 0; i < ab.length; i++)
			if (ab[i] !== bb[i]) {
				const e = Math.floor(i / a.BYTES_PER_ELEMENT);
				return `element ${e}: ${b[e]}, expected ${a[e]} (bitwise)`;
			}
		return null;
	}
	const isFloat = FLOAT_TYPES.has(want.type);
	let worst = null, nbad = 0;
	for (let i = 0; i < a.length; i++) {
		if (!isFloat) {
			if (a[i] !== b[i])
				return `element ${i}: ${b[i]}, expected ${a[i]}`;
			continue;
		}
		const x = elemToNumber(want.type, a[i]);
		const y = elemToNumber(want.type, b[i]);
		if (Number.isNaN(x) || Number.isNaN(y)) {
			if (Number.isNaN(x) && Number.isNaN(y))
				continue;
		} else if (x === y) {
			continue;
		} else if (Number.isFinite(x) && Number.isFinite(y) &&
			   Math.abs(y - x) <= atol + rtol * Math.abs(x)) {
			continue;
		}
		nbad++;
		if (!worst)
			worst = `element ${i}: ${y}, expected ${x}`;
	}
	if (nbad)
		return `${worst} (${nbad} of ${a.length} elements outside rtol ${rtol} atol ${atol})`;
	return null;
}

/* Plain {type, dims, data} of an ORT tensor. */
function plain(t) {
	return { type: t.type, dims: t.dims, data: t.data };
}

/* FILE run on each of feedsList in one session (options as
 * createSession's): pick(outputs, session) of each, in order. */
async function runEach(file, opts, feedsList, pick) {
	const s = await createSession(file, opts);
	try {
		const res = [];
		for (const feeds of feedsList)
			res.push(pick(await s.run(feeds), s));
		return res;
	} finally {
		if (s.release)
			await s.release();
	}
}

/* ---------------------------------------------------------------- */
/* .npy files                                                         */

const NPY_TYPES = { '<f4': ['float32', Float32Array],
	'<f2': ['float16', Uint16Array], '<i8': ['int64', BigInt64Array],
	'<i4': ['int32', Int32Array], '|b1': ['bool', Uint8Array],
	'|u1': ['uint8', Uint8Array] };

/* A little-endian .npy file (C order) as {type (ORT's), data, shape}. */
function readNpy(file) {
	const buf = fs.readFileSync(file);
	if (buf.toString('latin1', 0, 6) !== '\x93NUMPY')
		throw new Error(`${file}: not a .npy file`);
	const v1 = buf[6] === 1;
	const hlen = v1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
	const start = v1 ? 10 : 12;
	const h = buf.toString('latin1', start, start + hlen);
	const descr = /'descr':\s*'([^']+)'/.exec(h)[1];
	if (/'fortran_order':\s*True/.test(h))
		throw new Error(`${file}: Fortran order not supported`);
	const shape = /'shape':\s*\(([^)]*)\)/.exec(h)[1].split(',')
		.map(s => s.trim()).filter(s => s).map(Number);
	const t = NPY_TYPES[descr];
	if (!t)
		throw new Error(`${file}: dtype ${descr} not supported`);
	const n = shape.reduce((a, b) => a * b, 1);
	const size = n * t[1].BYTES_PER_ELEMENT;
	/* copied: the body's offset need not be aligned for the array */
	const body = new Uint8Array(buf.subarray(start + hlen,
		start + hlen + size));
	if (body.length !== size)
		throw new Error(`${file}: truncated`);
	return { type: t[0], data: new t[1](body.buffer, 0, n), shape };
}

/* A .npy file as an ORT tensor. */
function npyTensor(file) {
	const a = readNpy(file);
	return new (ort().Tensor)(a.type, a.data, a.shape);
}

/* The feeds of each sample folder of DIR (sorted): INPUT.npy fed to
 * input INPUT. */
function npySamples(dir) {
	return fs.readdirSync(dir).sort().map(s => {
		const feeds = {};
		for (const f of fs.readdirSync(path.join(dir, s)).sort())
			if (f.endsWith('.npy'))
				feeds[f.slice(0, -4)] = npyTensor(path.join(dir, s, f));
		return feeds;
	});
}

/* Deterministic pseudo-random floats in [-1, 1) (xorshift32). */
function randomFloats(n, seed) {
	let s = (seed >>> 0) || 1;
	const out = new Float32Array(n);
	for (let i = 0; i < n; i++) {
		s ^= s << 13; s >>>= 0;
		s ^= s >>> 17;
		s ^= s << 5; s >>>= 0;
		out[i] = s / 2147483648 - 1;
	}
	return out;
}

/* test_data_set_* folders of a backend test, sorted. */
function dataSets(dir) {
	return fs.readdirSync(dir)
		.filter(n => n.startsWith('test_data_set_'))
		.sort()
		.map(n => path.join(dir, n));
}

function pbFilesOf(dir, prefix) {
	const files = fs.readdirSync(dir)
		.filter(n => n.startsWith(prefix) && n.endsWith('.pb'));
	const idx = n => Number(n.slice(prefix.length, -3));
	return files.sort((x, y) => idx(x) - idx(y))
		.map(n => path.join(dir, n));
}

module.exports = {
	ort, pbFields, readVarint, repeatedVarints, repeatedFixed, lastField,
	decodeTensor, tensorFromPbFile, modelIoKinds, Unsupported,
	DTYPE_NAMES, createSession, ortReason, compareTensor, plain,
	halfToFloat, floatToHalf, randomFloats, dataSets, pbFilesOf, runEach,
	readNpy, npyTensor, npySamples,
};

// qopt-ort-lib.js: what qopt's ONNX Runtime tools share (qopt-ort-check,
// qopt-calibrate-ort): finding onnxruntime-node, a protobuf reader just
// big enough for ModelProto inputs and TensorProto, .npy files, the
// sample folders both tools read, and seeded random inputs.
//
// Errors a user can fix (a bad sample, a model input the tools cannot
// feed) are thrown as InputError with a message naming the file; a
// missing onnxruntime-node as OrtMissing, whose message says which
// command installs it. Each tool prints them under its own name.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

class InputError extends Error {}
class OrtMissing extends Error {}

// Where tools/install-deps.sh puts onnxruntime-node unless told
// otherwise (QOPT_ORT_PREFIX); keep the two in step.
const DEFAULT_ORT_DIR = '/usr/local/lib/qopt-ort';
const INSTALL_HINT = 'install it with ./tools/install-deps.sh from qopt\'s source tree ' +
	`(or: npm install --prefix ${DEFAULT_ORT_DIR} --ignore-scripts onnxruntime-node), ` +
	'or set QOPT_ORT_DIR to a folder holding node_modules/onnxruntime-node';

// onnxruntime-node from, in order: $QOPT_ORT_DIR alone when it is set
// (an override: nothing else is tried), else the folder configure
// recorded (the installed scripts set $QOPT_ORT_RECORDED_DIR), the
// default install folder, and node's own module resolution.
function loadOrt() {
	const env = process.env.QOPT_ORT_DIR;
	const dirs = env ? [env] :
		[process.env.QOPT_ORT_RECORDED_DIR, DEFAULT_ORT_DIR].filter(Boolean);
	const tries = [];
	for (const d of dirs) {
		tries.push(path.join(d, 'node_modules', 'onnxruntime-node'));
		tries.push(path.join(d, 'onnxruntime-node'));
	}
	if (!env)
		tries.push('onnxruntime-node');
	for (const t of tries) {
		try {
			return require(t);
		} catch (e) {
			if (e.code !== 'MODULE_NOT_FOUND')
				throw new OrtMissing(`cannot load ${t}: ${e.message}`);
		}
	}
	throw new OrtMissing(env ?
		`onnxruntime-node not found in QOPT_ORT_DIR (${env}): ${INSTALL_HINT}` :
		`onnxruntime-node not found (looked in ${dirs.join(', ')} and node's module path): ${INSTALL_HINT}`);
}

// ---- protobuf: just enough wire format for ModelProto inputs and
// TensorProto (field numbers from onnx.proto) ----
function* fields(buf, start = 0, end = buf.length) {
	let p = start;
	const varint = () => {
		let v = 0n, shift = 0n;
		for (;;) {
			if (p >= end)
				throw new InputError('truncated varint');
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
				throw new InputError('truncated field');
			yield { num, wire, s: p, e: p + len };
			p += len;
		} else if (wire === 5) {
			yield { num, wire, s: p, e: p + 4 };
			p += 4;
		} else {
			throw new InputError(`unsupported wire type ${wire}`);
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

const TYPES = {
	1: ['float32', Float32Array], 2: ['uint8', Uint8Array],
	3: ['int8', Int8Array], 4: ['uint16', Uint16Array],
	5: ['int16', Int16Array], 6: ['int32', Int32Array],
	7: ['int64', BigInt64Array], 9: ['bool', Uint8Array],
	10: ['float16', Uint16Array], 11: ['float64', Float64Array],
	12: ['uint32', Uint32Array], 13: ['uint64', BigUint64Array],
};
const ELEM_NAMES = { 1: 'FLOAT', 2: 'UINT8', 3: 'INT8', 4: 'UINT16', 5: 'INT16',
	6: 'INT32', 7: 'INT64', 9: 'BOOL', 10: 'FLOAT16', 11: 'DOUBLE',
	12: 'UINT32', 13: 'UINT64', 16: 'BFLOAT16' };
const ORT_ELEM = { float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6,
	int64: 7, bool: 9, float16: 10, float64: 11, uint32: 12, uint64: 13 };
const NPY = { '<f4': 1, '|u1': 2, '|i1': 3, '<u2': 4, '<i2': 5, '<i4': 6,
	'<i8': 7, '|b1': 9, '<f2': 10, '<f8': 11, '<u4': 12, '<u8': 13 };

// Graph inputs that are not initializers: [{name, elem, dtype, dims}],
// dims as in calibrate's job: a number, a symbolic name, or null.
function modelInputs(file) {
	const buf = fs.readFileSync(file);
	let graph = null;
	for (const f of fields(buf))
		if (f.num === 7 && f.wire === 2)
			graph = f;
	if (!graph)
		throw new InputError(`${file}: no graph`);
	const inits = new Set(), inputs = [];
	for (const f of fields(buf, graph.s, graph.e)) {
		if (f.num === 5 && f.wire === 2) {
			for (const g of fields(buf, f.s, f.e))
				if (g.num === 8)
					inits.add(str(buf, g));
		} else if (f.num === 11 && f.wire === 2) {
			const inp = { name: '', elem: 0, dims: null };
			for (const g of fields(buf, f.s, f.e)) {
				if (g.num === 1)
					inp.name = str(buf, g);
				if (g.num === 2)
					readType(buf, g, inp);
			}
			inp.dtype = ELEM_NAMES[inp.elem] || `type ${inp.elem}`;
			inputs.push(inp);
		}
	}
	return inputs.filter((i) => !inits.has(i.name));
}

function readType(buf, t, inp) {
	for (const f of fields(buf, t.s, t.e)) {
		if (f.num !== 1 || f.wire !== 2)
			continue;
		for (const g of fields(buf, f.s, f.e)) {
			if (g.num === 1)
				inp.elem = Number(g.v);
			if (g.num !== 2)
				continue;
			inp.dims = [];
			for (const d of fields(buf, g.s, g.e)) {
				if (d.num !== 1)
					continue;
				let val = null;
				for (const x of fields(buf, d.s, d.e)) {
					if (x.num === 1)
						val = Number(x.v);
					if (x.num === 2)
						val = str(buf, x);
				}
				inp.dims.push(typeof val === 'number' && val < 0 ? null : val);
			}
		}
	}
}

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

// inp: {name, elem, dims} with every dim a number.
function randomTensor(ort, inp, rnd) {
	const t = TYPES[inp.elem];
	if (!t)
		throw new InputError(`input ${inp.name}: element type ${inp.elem} not supported`);
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

// The symbolic dimension names of the inputs, sorted.
function symbolicDims(inputs) {
	const names = new Set();
	for (const inp of inputs)
		for (const d of inp.dims || [])
			if (typeof d === 'string')
				names.add(d);
	return [...names].sort();
}

// Sizes for random samples; qopt-ort-check and qopt calibrate --random
// share the rule. --dim NAME=VALUE for a NAME no input has is an error
// naming the model's symbolic dims (a misspelled name must not go
// unnoticed). A symbolic dim not given, and an axis with neither a size
// nor a name, is 1, said through note() (one line naming them and how
// to set them). Returns inputs with every dim a number: [{name, elem,
// dims}].
function randomShapes(inputs, dimOverride, note) {
	const known = symbolicDims(inputs);
	const list = known.length ? known.map((d) => `'${escapeText(d)}'`).join(', ') :
		'none: every input shape is fixed';
	for (const d of Object.keys(dimOverride))
		if (!known.includes(d))
			throw new InputError(`--dim ${escapeText(d)}: the model has no input dimension '${escapeText(d)}' (its symbolic dimensions: ${list})`);
	const unset = known.filter((d) => !(d in dimOverride));
	const unnamed = [];
	const shapes = inputs.map((inp) => ({ name: inp.name, elem: inp.elem,
		dims: (inp.dims || []).map((d, k) => {
			if (typeof d === 'number')
				return d;
			if (typeof d === 'string')
				return d in dimOverride ? dimOverride[d] : 1;
			unnamed.push(`axis ${k} of input '${escapeText(inp.name)}'`);
			return 1;
		}) }));
	if (note && unset.length)
		note(`symbolic dimension${unset.length > 1 ? 's' : ''} ${unset.map((d) => `'${escapeText(d)}'`).join(', ')} not set: 1 used (set ${unset.length > 1 ? 'them' : 'it'} with ${unset.map((d) => `--dim ${escapeText(d)}=VALUE`).join(' ')})`);
	if (note && unnamed.length)
		note(`${unnamed.join(', ')}: no size and no name in the model: 1 used`);
	return shapes;
}

// Text taken from a model or a file name, for a message: control
// bytes (C0, DEL, C1) and what is not UTF-8 become \\xNN, as qopt's
// qir_escape_text() does. s: a Buffer (the exact bytes) or a string; in
// a string a lone surrogate U+DC80..U+DCFF is the byte 80..FF that was
// not UTF-8 (qopt writes such bytes so in the job file, the scheme
// Python calls surrogateescape).
function escapeText(s) {
	if (Buffer.isBuffer(s))
		return escapeBytes(s);
	s = String(s);
	let out = '', seg = 0;
	for (let i = 0; i < s.length; i++) {
		const c = s.charCodeAt(i);
		const hi = i > 0 ? s.charCodeAt(i - 1) : 0;
		if (c >= 0xdc80 && c <= 0xdcff && !(hi >= 0xd800 && hi < 0xdc00)) {
			out += escapeBytes(Buffer.from(s.slice(seg, i), 'utf8')) +
				`\\x${(c - 0xdc00).toString(16)}`;
			seg = i + 1;
		}
	}
	return out + escapeBytes(Buffer.from(s.slice(seg), 'utf8'));
}

function escapeBytes(b) {
	let out = '';
	for (let i = 0; i < b.length;) {
		const n = utf8Len(b, i);
		if (n === 0) {
			out += `\\x${b[i].toString(16).padStart(2, '0')}`;
			i++;
			continue;
		}
		const cp = n === 1 ? b[i] : n === 2 ? ((b[i] & 0x1f) << 6) | (b[i + 1] & 0x3f) : -1;
		if (cp >= 0 && (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))) {
			for (let k = 0; k < n; k++)
				out += `\\x${b[i + k].toString(16).padStart(2, '0')}`;
		} else {
			out += b.toString('utf8', i, i + n);
		}
		i += n;
	}
	return out;
}

// Length of the valid UTF-8 sequence at b[i] (1..4), or 0.
function utf8Len(b, i) {
	const c = b[i];
	let n, cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		[n, cp] = [2, c & 0x1f];
	else if (c >= 0xe0 && c <= 0xef)
		[n, cp] = [3, c & 0x0f];
	else if (c >= 0xf0 && c <= 0xf4)
		[n, cp] = [4, c & 0x07];
	else
		return 0;
	for (let k = 1; k < n; k++) {
		if (i + k >= b.length || (b[i + k] & 0xc0) !== 0x80)
			return 0;
		cp = (cp << 6) | (b[i + k] & 0x3f);
	}
	if ((n === 3 && cp < 0x800) || (n === 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp < 0xe000) || cp > 0x10ffff)
		return 0;
	return n;
}

// TensorProto: dims 1, data_type 2, float_data 4, int32_data 5,
// int64_data 7, name 8, raw_data 9, double_data 10.
// The largest sample file read (qopt calibrate checks the same bound in
// C before node starts, core/calib/calib-samples.c).
const SAMPLE_MAX_BYTES = 0x7fffffff;

// A sample file, read only if it is a regular file (opened without
// blocking, so a FIFO swapped in after qopt's check cannot hang us) of
// at most SAMPLE_MAX_BYTES.
function readSampleFile(file) {
	let fd;
	try {
		fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
	} catch (e) {
		throw new InputError(`${file}: cannot open it: ${e.code || e.message}`);
	}
	try {
		const st = fs.fstatSync(fd);
		if (!st.isFile())
			throw new InputError(`${file}: not a regular file; a sample must be one`);
		if (st.size > SAMPLE_MAX_BYTES)
			throw new InputError(`${file}: ${st.size} bytes; a sample file may hold at most ${SAMPLE_MAX_BYTES}`);
		const buf = Buffer.alloc(st.size);
		let got = 0;
		while (got < st.size) {
			const k = fs.readSync(fd, buf, got, st.size - got, got);
			if (k <= 0)
				throw new InputError(`${file}: shorter than its size (${got} of ${st.size} bytes)`);
			got += k;
		}
		return buf;
	} catch (e) {
		if (e instanceof InputError)
			throw e;
		throw new InputError(`${file}: cannot read it: ${e.code || e.message}`);
	} finally {
		fs.closeSync(fd);
	}
}

// buf: the file's bytes when the caller read them; else read (bounded).
function readTensorProto(ort, file, buf) {
	buf = buf || readSampleFile(file);
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
		throw new InputError(`${file}: element type ${elem} not supported`);
	const n = dims.reduce((a, b) => a * b, 1);
	let data;
	if (raw) {
		if (raw.length !== n * t[1].BYTES_PER_ELEMENT)
			throw new InputError(`${file}: raw_data holds ${raw.length} bytes, shape [${dims}] needs ${n * t[1].BYTES_PER_ELEMENT}`);
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

// file names it in messages; buf: its bytes when the caller has them
// (an .npz member), else read (bounded).
function readNpy(ort, file, buf) {
	buf = buf || readSampleFile(file);
	if (buf.length < 12 || buf.toString('latin1', 0, 6) !== '\x93NUMPY')
		throw new InputError(`${file}: not a .npy file`);
	const major = buf[6];
	if (major < 1 || major > 3 || buf[7] !== 0)
		throw new InputError(`${file}: .npy format version ${major}.${buf[7]}; numpy defines 1.0, 2.0 and 3.0`);
	const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
	const start = major === 1 ? 10 : 12;
	if (start + hlen > buf.length)
		throw new InputError(`${file}: the .npy header runs past the end of the file`);
	const header = buf.toString('latin1', start, start + hlen);
	// A Python dict literal: numpy writes single quotes, its reader
	// (ast.literal_eval) takes double ones too, as qopt's check does
	// (core/calib/calib-samples.c).
	const descr = /(['"])descr\1\s*:\s*(['"])([^'"]+)\2/.exec(header);
	const fortran = /(['"])fortran_order\1\s*:\s*(True|False)/.exec(header);
	const shape = /(['"])shape\1\s*:\s*\(([^)]*)\)/.exec(header);
	if (!descr || !fortran || !shape)
		throw new InputError(`${file}: unreadable .npy header`);
	if (fortran[2] === 'True')
		throw new InputError(`${file}: Fortran-order arrays are not supported (save with C order)`);
	const elem = NPY[descr[3]];
	if (!elem)
		throw new InputError(`${file}: dtype '${descr[3]}' not supported`);
	const dims = shape[2].split(',').map((x) => x.trim()).filter((x) => x)
		.map((x) => /^[0-9]+$/.test(x) ? Number(x) : NaN);
	if (!dims.every(Number.isSafeInteger))
		throw new InputError(`${file}: the .npy shape (${shape[2]}) is not a tuple of non-negative integers`);
	const t = TYPES[elem];
	const n = dims.reduce((a, b) => a * b, 1);
	const body = buf.subarray(start + hlen);
	if (body.length !== n * t[1].BYTES_PER_ELEMENT)
		throw new InputError(`${file}: ${body.length} data bytes, shape [${dims}] needs ${n * t[1].BYTES_PER_ELEMENT}`);
	const data = new t[1](new Uint8Array(body).buffer, 0, n);
	return new ort.Tensor(t[0], data, dims);
}

// The members of an .npz (a zip of NAME.npy: numpy.savez stores them,
// savez_compressed deflates them): NAME -> the .npy's bytes. The zip
// is read as core/calib/calib-npz.c checks it, with its messages.
function readNpz(file) {
	const buf = readSampleFile(file);
	const bad = (what) => new InputError(`${file}: ${what}`);
	const stop = Math.max(0, buf.length - 22 - 65535);
	let k = buf.length - 22;
	while (k >= stop && buf.readUInt32LE(k) !== 0x06054b50)
		k--;
	if (k < stop)
		throw bad('not an .npz file (no zip end record)');
	const count = buf.readUInt16LE(k + 10), cdLen = buf.readUInt32LE(k + 12);
	const cdOff = buf.readUInt32LE(k + 16);
	if (count === 0xffff || cdOff === 0xffffffff)
		throw bad('a zip64 .npz; at most 65534 arrays in a file under 4 GiB are read');
	if (cdOff + cdLen > k)
		throw bad(`the zip directory (${cdLen} bytes at ${cdOff}) runs past the end record`);
	if (!count)
		throw bad('the .npz holds no array');
	const out = new Map();
	let at = cdOff;
	for (let i = 0; i < count; i++) {
		if (at + 46 > cdOff + cdLen || buf.readUInt32LE(at) !== 0x02014b50)
			throw bad(`a zip directory entry at byte ${at - cdOff} is malformed`);
		const flags = buf.readUInt16LE(at + 8), method = buf.readUInt16LE(at + 10);
		const csize = buf.readUInt32LE(at + 20), usize = buf.readUInt32LE(at + 24);
		const nlen = buf.readUInt16LE(at + 28), local = buf.readUInt32LE(at + 42);
		const raw = buf.subarray(at + 46, at + 46 + nlen);
		const name = escapeText(raw);
		at += 46 + nlen + buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
		if (at > cdOff + cdLen)
			throw bad(`a zip directory entry at byte ${at - cdOff} runs past the directory`);
		if (nlen < 5 || raw.toString('latin1', nlen - 4) !== '.npy')
			throw bad(`member '${name}' is not a NAME.npy (numpy.savez writes one per array)`);
		if (flags & 1)
			throw bad(`member '${name}' is encrypted`);
		if (method !== 0 && method !== 8)
			throw bad(`member '${name}' uses zip method ${method}; numpy.savez stores (0), savez_compressed deflates (8)`);
		if (local + 30 > cdOff || buf.readUInt32LE(local) !== 0x04034b50)
			throw bad(`member '${name}': no zip local header at byte ${local}`);
		const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
		if (start + csize > cdOff)
			throw bad(`member '${name}': ${csize} bytes at ${start} run past the zip directory`);
		let body = buf.subarray(start, start + csize);
		if (method === 8) {
			if (usize > SAMPLE_MAX_BYTES)
				throw bad(`member '${name}' inflates to ${usize} bytes; at most ${SAMPLE_MAX_BYTES} are read`);
			try {
				body = zlib.inflateRawSync(body, { maxOutputLength: Math.max(usize, 1) });
			} catch (e) {
				throw bad(`member '${name}': cannot inflate it: ${e.code || e.message}`);
			}
		}
		if (body.length !== usize)
			throw bad(`member '${name}' ${method ? 'inflates to' : 'is stored with'} ${body.length} bytes but claims ${usize}`);
		const key = raw.subarray(0, nlen - 4).toString('utf8');
		if (out.has(key))
			throw bad(`member '${name}' given twice`);
		out.set(key, body);
	}
	return out;
}

// --data FILE, a regular file: a batch of N samples on the first axis,
// as ModelOpt takes them: FILE.npy [N, *input shape] for the input it
// names (NAME.npy or input_N.npy), or an .npz with one such array per
// input (NAME or input_N). Returns {n, sample(s) -> feeds}.
function readBatch(ort, file, inputs) {
	const byName = new Map(inputs.map((i) => [i.name, i]));
	const arrays = new Map();	// input name -> [label, tensor]
	const add = (key, label, tensor) => {
		let name = key;
		const idx = /^input_(\d+)$/.exec(key);
		if (!byName.has(name) && idx && inputs[Number(idx[1])])
			name = inputs[Number(idx[1])].name;
		if (!byName.has(name))
			throw new InputError(`${label}: the model has no input '${escapeText(key)}' (inputs: ${inputs.map((i) => escapeText(i.name)).join(', ')})`);
		if (arrays.has(name))
			throw new InputError(`${label}: input '${escapeText(name)}' given twice in ${file}`);
		if (!tensor.dims.length)
			throw new InputError(`${label}: shape (): no sample axis (a batch is [N, *input shape])`);
		arrays.set(name, [label, tensor]);
	};
	if (/\.npz$/.test(file)) {
		for (const [key, body] of readNpz(file)) {
			const label = `${file}: member '${escapeText(key)}.npy'`;
			add(key, label, readNpy(ort, label, body));
		}
	} else if (/\.npy$/.test(file)) {
		add(path.basename(file).slice(0, -4), file, readNpy(ort, file));
	} else {
		throw new InputError(`${file}: not a folder, an .npz or a .npy file`);
	}
	for (const i of inputs)
		if (!arrays.has(i.name))
			throw new InputError(`${file}: no array for input '${escapeText(i.name)}' (${i.dtype}${fmtDims(i.dims)})`);
	let n = null, first = null;
	for (const [name, [, t]] of arrays) {
		if (n === null) {
			n = t.dims[0];
			first = name;
		} else if (t.dims[0] !== n) {
			throw new InputError(`${file}: the arrays of '${escapeText(first)}' and '${escapeText(name)}' hold ${n} and ${t.dims[0]} samples (the first axis); each input needs one per sample`);
		}
	}
	if (!n)
		throw new InputError(`${file}: 0 samples (the first axis is 0)`);
	const sample = (s) => {
		const feeds = {};
		for (const [name, [label, t]] of arrays) {
			const dims = t.dims.slice(1);
			const per = dims.reduce((a, b) => a * b, 1);
			feeds[name] = new ort.Tensor(t.type, t.data.slice(s * per, (s + 1) * per), dims);
			checkInput(`${label}: sample ${s}`, byName.get(name), feeds[name]);
		}
		checkSymbolicDims(`${file}: sample ${s}`, inputs, feeds);
		return feeds;
	};
	return { n, sample };
}

// --data names a file (a batch), not a folder of samples.
function isBatchFile(data) {
	try {
		return fs.statSync(data).isFile();
	} catch (e) {
		return false;
	}
}

function fmtDims(d) {
	return d ? `[${d.map((x) => x === null ? '?' : x).join(',')}]` : '';
}

function checkInput(file, inp, t) {
	const elem = ORT_ELEM[t.type];
	if (elem !== inp.elem)
		throw new InputError(`${file}: input '${inp.name}' is ${ELEM_NAMES[elem] || t.type}, the model wants ${inp.dtype}`);
	if (!inp.dims)
		return;
	if (t.dims.length !== inp.dims.length)
		throw new InputError(`${file}: input '${inp.name}' has shape [${t.dims}], the model wants ${fmtDims(inp.dims)} (rank ${inp.dims.length})`);
	inp.dims.forEach((d, k) => {
		if (typeof d === 'number' && d !== t.dims[k])
			throw new InputError(`${file}: input '${inp.name}' has shape [${t.dims}], the model wants ${fmtDims(inp.dims)} (axis ${k})`);
	});
}

// A dangling link or an entry that vanished is not a sample folder.
function isDir(p) {
	try {
		return fs.statSync(p).isDirectory();
	} catch (e) {
		return false;
	}
}

// The sample folders of a data folder: one sample per sub-folder (sorted
// by name), or the folder itself as the only sample.
function sampleDirs(data) {
	let st;
	try {
		st = fs.statSync(data);
	} catch (e) {
		throw new InputError(`${data}: ${e.message}`);
	}
	if (!st.isDirectory())
		throw new InputError(`${data}: not a folder`);
	const subs = fs.readdirSync(data).sort()
		.filter((f) => isDir(path.join(data, f)));
	return subs.length ? subs.map((f) => path.join(data, f)) : [data];
}

// One sample folder -> feeds, checked against the model's inputs
// (modelInputs() or calibrate's job). input_N.pb is a TensorProto fed by
// its name, else to input N; NAME.npy is fed to input NAME, input_N.npy
// to input N.
function readSample(ort, dir, inputs) {
	const feeds = {};
	const byName = new Map(inputs.map((i) => [i.name, i]));
	const feed = (file, name, tensor) => {
		if (!byName.has(name))
			throw new InputError(`${file}: the model has no input '${name}' (inputs: ${inputs.map((i) => i.name).join(', ')})`);
		if (name in feeds)
			throw new InputError(`${file}: input '${name}' given twice in ${dir}`);
		feeds[name] = tensor;
		checkInput(file, byName.get(name), tensor);
	};
	const files = fs.readdirSync(dir).sort();
	for (const f of files) {
		const full = path.join(dir, f);
		let m = /^input_(\d+)\.pb$/.exec(f);
		if (m) {
			let t;
			try {
				t = readTensorProto(ort, full);
			} catch (e) {
				if (e instanceof InputError && e.message.startsWith(`${full}: `))
					throw e;
				throw new InputError(`${full}: not a TensorProto qopt can read: ${e.message}`);
			}
			const idx = Number(m[1]);
			const name = t.name || (inputs[idx] && inputs[idx].name);
			if (!name)
				throw new InputError(`${full}: no name, and the model has no input ${idx}`);
			feed(full, name, t.tensor);
			continue;
		}
		m = /^(.+)\.npy$/.exec(f);
		if (m) {
			let name = m[1];
			const idx = /^input_(\d+)$/.exec(name);
			if (!byName.has(name) && idx && inputs[Number(idx[1])])
				name = inputs[Number(idx[1])].name;
			feed(full, name, readNpy(ort, full));
		}
	}
	for (const i of inputs)
		if (!(i.name in feeds))
			throw new InputError(`${dir}: no data for input '${i.name}' (${i.dtype}${fmtDims(i.dims)})`);
	checkSymbolicDims(dir, inputs, feeds);
	return feeds;
}

// The inputs of one sample must agree on each symbolic dimension (two
// inputs with axis 'seq' give it one value); else ORT fails deep in the
// graph (a Reshape) without naming the sample.
function checkSymbolicDims(dir, inputs, feeds) {
	const seen = new Map();	// dim name -> [input name, value]
	for (const inp of inputs) {
		(inp.dims || []).forEach((d, k) => {
			if (typeof d !== 'string')
				return;
			const v = feeds[inp.name].dims[k];
			const first = seen.get(d);
			if (!first)
				seen.set(d, [inp.name, v]);
			else if (first[1] !== v)
				throw new InputError(`${dir}: inputs '${first[0]}' and '${inp.name}' disagree on dimension '${d}' (${first[1]} and ${v}); one sample gives each symbolic dimension one value`);
		});
	}
}

// 1 when an initializer of the model file holds FLOAT4E2M1 (type 23):
// ONNX Runtime has no kernel for it, and a message should say so.
function hasFp4(file) {
	try {
		const buf = fs.readFileSync(file);
		for (const f of fields(buf)) {
			if (f.num !== 7 || f.wire !== 2)
				continue;
			for (const g of fields(buf, f.s, f.e)) {
				if (g.num !== 5 || g.wire !== 2)
					continue;
				for (const h of fields(buf, g.s, g.e))
					if (h.num === 2 && h.wire === 0 && Number(h.v) === 23)
						return true;
			}
		}
	} catch (e) {
		return false;
	}
	return false;
}

// The Convs of a model's main graph in ONNX Runtime's quantized-Conv
// unit, DequantizeLinear -> Conv -> QuantizeLinear, whose DQ scale is
// FLOAT16: ORT 1.30 at graph optimization basic and above turns the
// unit into an int32 bias quantization whose quotient bias / (input
// scale x weight scale) overflows FLOAT16, so the model computes
// garbage there while it is right at `disabled` (docs/fp8.md). Names
// of those Convs (at most a few), [] when none or unreadable.
// anyQ false: every Conv reading a FLOAT16-scale DequantizeLinear,
// followed by a QuantizeLinear or not (qopt plan measures a model
// autocast made at disabled whenever it has one: a mixed plan corrupts
// at basic without the Q after the Conv, measured on resnet_cnn).
function fp16DqConvQ(file, anyQ = true) {
	const str = (buf, f) => buf.toString('utf8', f.s, f.e);
	try {
		const buf = fs.readFileSync(file);
		const nodes = [], f16 = new Set();
		for (const f of fields(buf)) {
			if (f.num !== 7 || f.wire !== 2)
				continue;
			for (const g of fields(buf, f.s, f.e)) {
				if (g.num === 1 && g.wire === 2) {
					const n = { inputs: [], outputs: [], op: '', domain: '', name: '' };
					for (const h of fields(buf, g.s, g.e)) {
						if (h.wire !== 2)
							continue;
						if (h.num === 1) n.inputs.push(str(buf, h));
						else if (h.num === 2) n.outputs.push(str(buf, h));
						else if (h.num === 3) n.name = str(buf, h);
						else if (h.num === 4) n.op = str(buf, h);
						else if (h.num === 7) n.domain = str(buf, h);
					}
					nodes.push(n);
				} else if (g.num === 5 && g.wire === 2) {
					let name = '', type = 0;
					for (const h of fields(buf, g.s, g.e)) {
						if (h.num === 8 && h.wire === 2) name = str(buf, h);
						else if (h.num === 2 && h.wire === 0) type = Number(h.v);
					}
					if (type === 10)
						f16.add(name);
				}
			}
		}
		const std = (n, op) => n.op === op && (n.domain === '' || n.domain === 'ai.onnx');
		const prod = new Map(), users = new Map();
		for (const n of nodes) {
			for (const o of n.outputs)
				prod.set(o, n);
			for (const i of n.inputs)
				users.set(i, (users.get(i) || []).concat([n]));
		}
		const hits = [];
		for (const n of nodes) {
			if (!std(n, 'Conv') || !n.outputs.length)
				continue;
			const dq = prod.get(n.inputs[0]);
			if (!dq || !std(dq, 'DequantizeLinear') || !f16.has(dq.inputs[1]))
				continue;
			if (!anyQ ||
			    (users.get(n.outputs[0]) || []).some((u) => std(u, 'QuantizeLinear')))
				hits.push(n.name || n.outputs[0]);
		}
		return hits;
	} catch (e) {
		return [];
	}
}

const FP4_HINT = 'ONNX Runtime has no kernel for FLOAT4E2M1 (FP4) tensors ' +
	'(DequantizeLinear of FP4 weights); to check an NVFP4 pipeline in ORT, ' +
	'run nvfp4-weights with mode=fake (FP32 weights holding the FP4-rounded ' +
	'values, e.g. --passes nvfp4-weights:mode=fake)';

// The main graph's nodes (op, domain, name, inputs), initializer dims
// and declared value dims of a model file, read with the wire reader
// above; null when the file cannot be read as a model.
function graphSummary(file) {
	const str = (buf, f) => buf.toString('utf8', f.s, f.e);
	try {
		const buf = fs.readFileSync(file);
		const out = { nodes: [], dims: new Map(), types: new Set() };
		for (const f of fields(buf)) {
			if (f.num !== 7 || f.wire !== 2)
				continue;
			for (const g of fields(buf, f.s, f.e)) {
				if (g.wire !== 2)
					continue;
				if (g.num === 1) {
					const n = { op: '', domain: '', name: '', inputs: [] };
					for (const h of fields(buf, g.s, g.e)) {
						if (h.wire !== 2)
							continue;
						if (h.num === 1) n.inputs.push(str(buf, h));
						else if (h.num === 3) n.name = str(buf, h);
						else if (h.num === 4) n.op = str(buf, h);
						else if (h.num === 7) n.domain = str(buf, h);
					}
					out.nodes.push(n);
				} else if (g.num === 5) {
					let name = '';
					const dims = [];
					for (const h of fields(buf, g.s, g.e)) {
						if (h.num === 8 && h.wire === 2)
							name = str(buf, h);
						else if (h.num === 1)
							dims.push(...varints(buf, h).map(Number));
						else if (h.num === 2 && h.wire === 0)
							out.types.add(Number(h.v));
					}
					out.dims.set(name, dims);
				} else if (g.num === 11 || g.num === 12 || g.num === 13) {
					const v = { name: '', elem: 0, dims: null };
					for (const h of fields(buf, g.s, g.e)) {
						if (h.num === 1 && h.wire === 2)
							v.name = str(buf, h);
						if (h.num === 2 && h.wire === 2)
							readType(buf, h, v);
					}
					if (v.elem)
						out.types.add(v.elem);
					if (v.dims && !out.dims.has(v.name))
						out.dims.set(v.name, v.dims);
				}
			}
		}
		return out;
	} catch (e) {
		return null;
	}
}

// ONNX Runtime 1.30 never returns from `run` on a Conv over zero input
// channels (weight [8,0,3,3], input [1,0,9,9]), so the tools refuse a
// Conv or ConvTranspose whose input or weight has a dimension of size
// 0 in the model (qopt's rule too: core/calib/calib-ort-refuse.c). The first
// such node as {node, op, tensor, what, axis}, or null.
function zeroSizeConv(file) {
	const g = graphSummary(file);
	if (!g)
		return null;
	for (const n of g.nodes) {
		if ((n.domain && n.domain !== 'ai.onnx') ||
		    (n.op !== 'Conv' && n.op !== 'ConvTranspose'))
			continue;
		for (let k = 0; k < 2 && k < n.inputs.length; k++) {
			const d = g.dims.get(n.inputs[k]) || [];
			const axis = d.findIndex((x) => x === 0);
			if (axis >= 0)
				return { node: n.name, op: n.op, tensor: n.inputs[k],
					what: k ? 'weight' : 'input', axis };
		}
	}
	return null;
}

function zeroSizeConvMessage(z) {
	return `node '${escapeText(z.node)}' (${z.op}): its ${z.what} '${escapeText(z.tensor)}' ` +
		`has size 0 on axis ${z.axis}: ONNX Runtime does not return from a Conv over an ` +
		'empty tensor (zero input channels); refused before ORT runs it';
}

const W4A4_HINT = 'ONNX Runtime has no kernel for FLOAT4E2M1 (FP4) tensors nor for ' +
	'trt::TRT_FP4DynamicQuantize (NVFP4 activations, W4A4); to check a W4A4 pipeline ' +
	'in ORT, run nvfp4 with activations=yes and mode=fake (e.g. --passes ' +
	'nvfp4:activations=yes:mode=fake:calibration=FILE)';
const MXFP8_HINT = 'ONNX Runtime has no kernel for MXFP8 (trt::TRT_MXFP8DynamicQuantize, ' +
	'trt::TRT_MXFP8DequantizeLinear, FLOAT8E8M0 scales); to check an MXFP8 pipeline in ' +
	'ORT, run mxfp8 with mode=fake (e.g. --passes mxfp8:mode=fake)';

// What to tell a user whose model ORT cannot load because a pass wrote
// its real (TensorRT) form: the fake form that ORT runs, for the pass
// that wrote it; '' when the model holds none of those forms.
function realFormHint(file) {
	const g = graphSummary(file);
	if (!g)
		return '';
	const ops = new Set(g.nodes.filter((n) => n.domain === 'trt').map((n) => n.op));
	if (ops.has('TRT_FP4DynamicQuantize'))
		return W4A4_HINT;
	if (ops.has('TRT_MXFP8DynamicQuantize') || ops.has('TRT_MXFP8DequantizeLinear') ||
	    g.types.has(24))	// FLOAT8E8M0: mxfp8's format=onnx scales
		return MXFP8_HINT;
	return hasFp4(file) ? FP4_HINT : '';
}

// Any tensor's elements as plain numbers (float16 decoded).
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
	if (t.data instanceof Float32Array || t.data instanceof Float64Array)
		return t.data;
	return Array.from(t.data, Number);
}

module.exports = { InputError, OrtMissing, DEFAULT_ORT_DIR, INSTALL_HINT,
	loadOrt, modelInputs, symbolicDims, randomShapes, escapeText, readTensorProto, readNpy, readNpz, readBatch, isBatchFile, readSampleFile, randomTensor,
	mulberry32, asNumbers, sampleDirs, readSample, fmtDims, TYPES, hasFp4, FP4_HINT, fp16DqConvQ,
	ELEM_NAMES, ORT_ELEM, zeroSizeConv, zeroSizeConvMessage, realFormHint,
	W4A4_HINT, MXFP8_HINT };

#!/usr/bin/env node
// qopt-calibrate-ort: the ONNX Runtime half of `qopt calibrate` (qopt
// runs it with a job file; it is not meant to be run by hand).
//
// The job (written by qopt) names the probe model (a copy of the model
// whose selected tensors are graph outputs), the model's inputs with
// their types and shapes, the tensors to measure, the model hash, and
// either a data folder or a random-sample count. For each tensor the
// script writes the absolute maximum over every element of every sample
// (or, with a percentile below 100, the nearest-rank percentile of the
// absolute values) into the job's result file, one line per tensor in
// job order; qopt checks it and writes the calibration JSON (names
// byte-exact, only numbers JSON can hold, -o's rules). An Inf or NaN in
// a measured tensor is an error naming the tensor and the sample.
//
// Data folder: one sample per sub-folder (sorted by name), or the folder
// itself as the only sample. A sample holds input_N.pb (TensorProto,
// the ONNX test-data layout; fed by its name, else to input N) and/or
// NAME.npy (NumPy, little-endian, C order; fed to input NAME, or input_N
// to input N).
'use strict';
const fs = require('fs');
const path = require('path');

const ME = 'qopt calibrate';

function die(msg) {
	process.stderr.write(`${ME}: error: ${msg}\n`);
	process.exit(1);
}

// The readers of qopt-ort-check, installed beside this script (or
// beside it in the source tree as qopt-ort-check.js).
function loadCheck() {
	for (const f of ['qopt-ort-check', 'qopt-ort-check.js']) {
		const p = path.join(__dirname, f);
		if (fs.existsSync(p))
			return require(p);
	}
	die(`qopt-ort-check not found beside ${__filename}`);
}
const check = loadCheck();
check.setName(`${ME}: error`);

const ELEM_NAMES = { 1: 'FLOAT', 2: 'UINT8', 3: 'INT8', 4: 'UINT16', 5: 'INT16',
	6: 'INT32', 7: 'INT64', 9: 'BOOL', 10: 'FLOAT16', 11: 'DOUBLE',
	12: 'UINT32', 13: 'UINT64', 16: 'BFLOAT16' };
const ORT_ELEM = { float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6,
	int64: 7, bool: 9, float16: 10, float64: 11, uint32: 12, uint64: 13 };
// The largest sample file read (as qopt checks it, calib-samples.h).
const SAMPLE_MAX_BYTES = 0x7fffffff;

// A sample file, read only if it is a regular file (opened without
// blocking, so a FIFO swapped in after qopt's check cannot hang us) of
// at most SAMPLE_MAX_BYTES.
function readSampleFile(file) {
	let fd;
	try {
		fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
	} catch (e) {
		die(`${file}: cannot open it: ${e.code || e.message}`);
	}
	try {
		const st = fs.fstatSync(fd);
		if (!st.isFile())
			die(`${file}: not a regular file; a sample must be one`);
		if (st.size > SAMPLE_MAX_BYTES)
			die(`${file}: ${st.size} bytes; a sample file may hold at most ${SAMPLE_MAX_BYTES}`);
		const buf = Buffer.alloc(st.size);
		let got = 0;
		while (got < st.size) {
			const k = fs.readSync(fd, buf, got, st.size - got, got);
			if (k <= 0)
				die(`${file}: shorter than its size (${got} of ${st.size} bytes)`);
			got += k;
		}
		return buf;
	} catch (e) {
		die(`${file}: cannot read it: ${e.code || e.message}`);
	} finally {
		fs.closeSync(fd);
	}
}

const NPY = { '<f4': 1, '|u1': 2, '|i1': 3, '<u2': 4, '<i2': 5, '<i4': 6,
	'<i8': 7, '|b1': 9, '<f2': 10, '<f8': 11, '<u4': 12, '<u8': 13 };

function readNpy(ort, file) {
	const buf = readSampleFile(file);
	if (buf.length < 12 || buf.toString('latin1', 0, 6) !== '\x93NUMPY')
		die(`${file}: not a .npy file`);
	const major = buf[6];
	if (major < 1 || major > 3 || buf[7] !== 0)
		die(`${file}: .npy format version ${major}.${buf[7]}; numpy defines 1.0, 2.0 and 3.0`);
	const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
	const start = major === 1 ? 10 : 12;
	if (start + hlen > buf.length)
		die(`${file}: the .npy header runs past the end of the file`);
	const header = buf.toString('latin1', start, start + hlen);
	const descr = /'descr':\s*'([^']+)'/.exec(header);
	const fortran = /'fortran_order':\s*(True|False)/.exec(header);
	const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
	if (!descr || !fortran || !shape)
		die(`${file}: unreadable .npy header`);
	if (fortran[1] === 'True')
		die(`${file}: Fortran-order arrays are not supported (save with C order)`);
	const elem = NPY[descr[1]];
	if (!elem)
		die(`${file}: dtype '${descr[1]}' not supported`);
	const dims = shape[1].split(',').map((x) => x.trim()).filter((x) => x)
		.map((x) => /^[0-9]+$/.test(x) ? Number(x) : NaN);
	if (!dims.every(Number.isSafeInteger))
		die(`${file}: the .npy shape (${shape[1]}) is not a tuple of non-negative integers`);
	const t = check.TYPES[elem];
	const n = dims.reduce((a, b) => a * b, 1);
	const body = buf.subarray(start + hlen);
	if (body.length !== n * t[1].BYTES_PER_ELEMENT)
		die(`${file}: ${body.length} data bytes, shape [${dims}] needs ${n * t[1].BYTES_PER_ELEMENT}`);
	const data = new t[1](new Uint8Array(body).buffer, 0, n);
	return new ort.Tensor(t[0], data, dims);
}

// One sample folder -> feeds, checked against the model's inputs.
function readSample(ort, dir, inputs) {
	const feeds = {};
	const byName = new Map(inputs.map((i) => [i.name, i]));
	const feed = (file, name, tensor) => {
		if (!byName.has(name))
			die(`${file}: the model has no input '${name}' (inputs: ${inputs.map((i) => i.name).join(', ')})`);
		if (name in feeds)
			die(`${file}: input '${name}' given twice in ${dir}`);
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
				t = check.readTensorProto(ort, full, readSampleFile(full));
			} catch (e) {
				die(`${full}: not a TensorProto qopt can read: ${e.message}`);
			}
			const idx = Number(m[1]);
			const name = t.name || (inputs[idx] && inputs[idx].name);
			if (!name)
				die(`${full}: no name, and the model has no input ${idx}`);
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
			die(`${dir}: no data for input '${i.name}' (${i.dtype}${fmtDims(i.dims)})`);
	return feeds;
}

function fmtDims(d) {
	return d ? `[${d.map((x) => x === null ? '?' : x).join(',')}]` : '';
}

function checkInput(file, inp, t) {
	const elem = ORT_ELEM[t.type];
	if (elem !== inp.elem)
		die(`${file}: input '${inp.name}' is ${ELEM_NAMES[elem] || t.type}, the model wants ${inp.dtype}`);
	if (!inp.dims)
		return;
	if (t.dims.length !== inp.dims.length)
		die(`${file}: input '${inp.name}' has shape [${t.dims}], the model wants ${fmtDims(inp.dims)} (rank ${inp.dims.length})`);
	inp.dims.forEach((d, k) => {
		if (typeof d === 'number' && d !== t.dims[k])
			die(`${file}: input '${inp.name}' has shape [${t.dims}], the model wants ${fmtDims(inp.dims)} (axis ${k})`);
	});
}

function* samples(ort, job) {
	if (job.random) {
		const rnd = check.mulberry32(job.seed);
		for (let s = 0; s < job.random; s++) {
			const feeds = {};
			for (const inp of job.inputs) {
				const dims = (inp.dims || []).map((d) => {
					if (typeof d === 'number')
						return d;
					if (typeof d === 'string' && d in job.dims)
						return job.dims[d];
					die(`input '${inp.name}': dimension '${d === null ? '?' : d}' is not fixed; give --dim ${d === null ? 'NAME' : d}=VALUE`);
				});
				feeds[inp.name] = check.randomTensor(ort,
					{ name: inp.name, elem: inp.elem, dims }, rnd);
			}
			yield [`random sample ${s}`, feeds];
		}
		return;
	}
	let st;
	try {
		st = fs.statSync(job.data);
	} catch (e) {
		die(`${job.data}: ${e.message}`);
	}
	if (!st.isDirectory())
		die(`${job.data}: not a folder`);
	const subs = fs.readdirSync(job.data).sort()
		.filter((f) => isDir(path.join(job.data, f)));
	const dirs = subs.length ? subs.map((f) => path.join(job.data, f)) : [job.data];
	for (const d of dirs)
		yield [d, null];
}

// A folder (through symlinks); a dangling link is none.
function isDir(p) {
	try {
		return fs.statSync(p).isDirectory();
	} catch (e) {
		return false;
	}
}

function countSamples(job) {
	if (job.random)
		return job.random;
	try {
		const n = fs.readdirSync(job.data)
			.filter((f) => isDir(path.join(job.data, f))).length;
		return n || 1;
	} catch (e) {
		return 1;
	}
}

function progress(done, total) {
	if (!process.stderr.isTTY)
		return;
	const w = 30, k = Math.round(w * done / total);
	process.stderr.write(`\r${ME}: [${'#'.repeat(k)}${' '.repeat(w - k)}] ${done}/${total} samples`);
	if (done === total)
		process.stderr.write('\n');
}

// Per tensor: the running max, and with a percentile every |x| seen.
class Range {
	constructor(keep) {
		this.amax = 0;
		this.count = 0;
		this.keep = keep ? [] : null;
	}
	add(name, where, t) {
		const x = t.type === 'float32' || t.type === 'float64' ? t.data :
			check.asNumbers(t);
		let m = this.amax;
		for (let i = 0; i < x.length; i++) {
			const a = Math.abs(x[i]);
			if (!(a < Infinity))
				die(`${where}: tensor '${name}' holds ${a === Infinity ? 'Inf' : 'NaN'}; a calibration file cannot hold its range`);
			if (a > m)
				m = a;
		}
		this.amax = m;
		this.count += x.length;
		if (this.keep)
			this.keep.push(Float64Array.from(x, Math.abs));
	}
	// null: no element in any sample (qopt writes amax 0 and says so).
	value(p) {
		if (!this.count)
			return null;
		if (!this.keep || p >= 100)
			return this.amax;
		const all = new Float64Array(this.count);
		let o = 0;
		for (const a of this.keep) {
			all.set(a, o);
			o += a.length;
		}
		all.sort();
		const rank = Math.max(1, Math.ceil(p / 100 * all.length));
		return all[rank - 1];
	}
}

async function main() {
	if (process.argv.length !== 3)
		die('usage: qopt-calibrate-ort JOB.json (run by qopt calibrate)');
	let job;
	try {
		job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
	} catch (e) {
		die(`${process.argv[2]}: not a job file of qopt calibrate: ${e.message}`);
	}
	const ort = check.loadOrt();
	let sess;
	try {
		sess = await ort.InferenceSession.create(job.probe,
			{ graphOptimizationLevel: 'basic' });
	} catch (e) {
		die(`${job.model}: ONNX Runtime cannot load it: ${e.message}`);
	}
	const keep = job.percentile < 100;
	const ranges = job.tensors.map(() => new Range(keep));
	const inputNames = new Set(job.inputs.map((i) => i.name));
	const total = countSamples(job);
	if (job.random)
		process.stderr.write(`${ME}: warning: ${job.random} seeded random samples (seed ${job.seed}): a smoke test only, not a calibration\n`);
	let n = 0;
	for (let [where, feeds] of samples(ort, job)) {
		if (!feeds)
			feeds = readSample(ort, where, job.inputs);
		let out;
		try {
			out = await sess.run(feeds);
		} catch (e) {
			die(`${where}: ONNX Runtime cannot run the model: ${e.message}`);
		}
		for (const [k, spec] of job.tensors.entries()) {
			// by index: a name that is not UTF-8 reaches us mangled
			const name = spec.name, r = ranges[k];
			const idx = job.output_index[k];
			const t = idx >= 0 ? out[sess.outputNames[idx]] :
				inputNames.has(name) ? feeds[name] : out[name];
			if (!t)
				die(`${where}: ONNX Runtime returned no '${name}'`);
			r.add(name, where, t);
		}
		progress(++n, total);
	}
	const lines = ['qopt-calibrate-result 1', `samples ${n}`];
	for (const r of ranges) {
		const v = r.value(job.percentile);
		lines.push(v === null ? 'none' : String(v));
	}
	try {
		fs.writeFileSync(job.result, lines.join('\n') + '\n');
	} catch (e) {
		die(`${job.result}: ${e.message}`);
	}
}

// Whatever escaped the checks above: its message, not a stack trace.
main().catch((e) => die(e && e.message ? e.message : String(e)));

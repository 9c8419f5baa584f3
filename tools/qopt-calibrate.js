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

// Who speaks: the job's "who" (qopt's one-command form names the pass).
let ME = 'qopt calibrate';
// The exit status that says "the error is said": qopt adds no line of
// its own (core/cli/calib-run.c, SCRIPT_SAID).
const EXIT_SAID = 3;
// The same for an error of qopt's command line (--dim naming no
// dimension of the model): qopt exits 2, as qopt-ort-check does
// (SCRIPT_USAGE_SAID).
const EXIT_USAGE_SAID = 4;

// The sample readers and ORT discovery it shares with qopt-ort-check,
// installed beside this script (tools/ in the source tree).
const lib = require(path.join(__dirname, 'qopt-ort-lib.js'));

// One error line, names and file names escaped as qopt escapes them
// (control bytes and what is not UTF-8 as \xNN): a tensor name holding
// terminal escapes must not reach the terminal.
function die(msg, status = EXIT_SAID) {
	process.stderr.write(`${ME}: error: ${lib.escapeText(msg)}\n`);
	process.exit(status);
}

function warn(msg) {
	process.stderr.write(`${ME}: warning: ${lib.escapeText(msg)}\n`);
}

// lib's readers throw InputError naming the file: calibrate's error.
function readSample(ort, dir, inputs) {
	try {
		return lib.readSample(ort, dir, inputs);
	} catch (e) {
		if (e instanceof lib.InputError)
			die(e.message);
		throw e;
	}
}

function* samples(ort, job) {
	if (job.random) {
		const rnd = lib.mulberry32(job.seed);
		const shapes = randomShapes(job);
		for (let s = 0; s < job.random; s++) {
			const feeds = {};
			for (const inp of shapes)
				feeds[inp.name] = lib.randomTensor(ort, inp, rnd);
			yield [`random sample ${s}`, feeds];
		}
		return;
	}
	for (const d of lib.sampleDirs(job.data))
		yield [d, null];
}

// qopt-ort-check's rule (lib.randomShapes): an unknown --dim name is
// an error, a symbolic dim not given is 1 with a warning.
function randomShapes(job) {
	try {
		return lib.randomShapes(job.inputs, job.dims, warn);
	} catch (e) {
		if (e instanceof lib.InputError)
			die(e.message, EXIT_USAGE_SAID);
		throw e;
	}
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
			lib.asNumbers(t);
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
	if (typeof job.who === 'string')
		ME = job.who;
	const ort = lib.loadOrt();
	if (job.random)	// --dim checked before ORT starts
		randomShapes(job);
	// ORT's own log lines (coloured, before ours) only with qopt -v: its
	// failures reach the user as one error line below
	const quiet = !job.verbose;
	ort.env.logLevel = quiet ? 'fatal' : 'warning';
	let sess;
	try {
		sess = await ort.InferenceSession.create(job.probe,
			{ graphOptimizationLevel: 'basic',
			  logSeverityLevel: quiet ? 4 : 2 });
	} catch (e) {
		die(`${job.model}: ONNX Runtime cannot load it: ${firstLine(e)}` +
			(lib.hasFp4(job.probe) ? `; ${lib.FP4_HINT}` : ''));
	}
	const keep = job.percentile < 100;
	const ranges = job.tensors.map(() => new Range(keep));
	const inputNames = new Set(job.inputs.map((i) => i.name));
	const total = countSamples(job);
	if (job.random)
		warn(`${job.random} seeded random samples (seed ${job.seed}): a smoke test only, not a calibration`);
	let n = 0;
	for (let [where, feeds] of samples(ort, job)) {
		if (!feeds)
			feeds = readSample(ort, where, job.inputs);
		let out;
		try {
			out = await sess.run(feeds);
		} catch (e) {
			die(`${where}: ONNX Runtime cannot run the model: ${firstLine(e)}`);
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

function firstLine(e) {
	return String(e && e.message || e).split('\n')[0];
}

// Whatever escaped the checks above: its message, not a stack trace.
main().catch((e) => die(e && e.message ? e.message : String(e)));

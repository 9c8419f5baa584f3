#!/usr/bin/env node
// qopt-calibrate-ort: the ONNX Runtime half of `qopt calibrate` (qopt
// runs it with a job file; it is not meant to be run by hand).
//
// The job (written by qopt) names the probe model (a copy of the model
// whose selected tensors are graph outputs), the model's inputs with
// their types and shapes, the tensors to measure, the model hash, and
// either a data folder or a random-sample count. For each tensor the
// script writes the tensor's range by the job's method (the absolute
// maximum over every element of every sample, or from a histogram of
// |x| the percentile, entropy or mse threshold: qopt-calib-hist.js)
// into the job's result file, one line per tensor in
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
// its own (core/cli/calib-runner.c, SCRIPT_SAID).
const EXIT_SAID = 3;
// The same for an error of qopt's command line (--dim naming no
// dimension of the model): qopt exits 2, as qopt-ort-check does
// (SCRIPT_USAGE_SAID).
const EXIT_USAGE_SAID = 4;

// The sample readers and ORT discovery it shares with qopt-ort-check,
// installed beside this script (tools/ in the source tree).
const lib = require(path.join(__dirname, 'qopt-ort-lib.js'));
// The methods' histogram math (max, percentile, entropy, mse).
const hist = require(path.join(__dirname, 'qopt-calib-hist.js'));

// One error line, names and file names escaped as qopt escapes them
// (control bytes and what is not UTF-8 as \xNN): a tensor name holding
// terminal escapes must not reach the terminal.
function die(msg, status = EXIT_SAID) {
	process.stderr.write(`${ME}: error: ${lib.escapeText(msg)}\n`);
	process.exit(status);
}

function debug(msg) {
	process.stderr.write(`${ME}: debug: ${lib.escapeText(msg)}\n`);
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
		const shapes = randomShapes(job, null);	// said in main()
		for (let s = 0; s < job.random; s++) {
			const feeds = {};
			for (const inp of shapes)
				feeds[inp.name] = lib.randomTensor(ort, inp, rnd);
			yield [`random sample ${s}`, feeds];
		}
		return;
	}
	if (lib.isBatchFile(job.data)) {	// FILE.npz, FILE.npy: N samples
		const b = batch(ort, job);
		for (let s = 0; s < b.n; s++)
			yield [`${job.data}: sample ${s}`, b.sample(s)];
		return;
	}
	for (const d of lib.sampleDirs(job.data))
		yield [d, null];
}

// The batch file, read once (its count is the progress bar's total).
let batchRead = null;
function batch(ort, job) {
	if (!batchRead)
		batchRead = lib.readBatch(ort, job.data, job.inputs);
	return batchRead;
}

// qopt-ort-check's rule (lib.randomShapes): an unknown --dim name is
// an error, a symbolic dim not given is 1 with a warning (note: warn,
// or null once main() has said it).
function randomShapes(job, note) {
	try {
		return lib.randomShapes(job.inputs, job.dims, note);
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

function countSamples(ort, job) {
	if (job.random)
		return job.random;
	if (lib.isBatchFile(job.data))
		return batch(ort, job).n;
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

// Per tensor: the running max, and for the other methods the
// histogram (qopt-calib-hist.js: fixed memory whatever the samples).
class Range {
	constructor(job) {
		this.amax = 0;
		this.count = 0;
		this.hist = job.method && job.method !== 'max' ?
			new hist.Histogram(job.bins || hist.NBINS,
				job.method === 'percentile') : null;
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
		if (this.hist) {
			try {
				this.hist.add(x);
			} catch (e) {
				if (e instanceof RangeError)
					die(`${where}: tensor '${name}': ${e.message}`);
				throw e;
			}
		}
	}
	// null: no element in any sample (qopt writes amax 0 and says so).
	value(job) {
		if (!this.hist)
			return this.count ? this.amax : null;
		return hist.amaxOf(this.hist, job.method, job.percentile);
	}
	// --verbose: what this tensor holds, constant in the sample count.
	stat(name) {
		const h = this.hist;
		return h ? `tensor '${name}': ${h.nbins} bins, ${h.kept()} values kept, ${this.count} elements` :
			`tensor '${name}': running max only, ${this.count} elements`;
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
	// a job of an older qopt has no method: its percentile says
	if (!job.method)
		job.method = job.percentile < 100 ? 'percentile' : 'max';
	if (!hist.METHODS.includes(job.method))
		die(`unknown calibration method '${job.method}' (known: ${hist.METHODS.join(', ')})`);
	const ort = lib.loadOrt();
	if (job.random)	// --dim checked before ORT starts
		randomShapes(job, warn);
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
	const ranges = job.tensors.map(() => new Range(job));
	const inputNames = new Set(job.inputs.map((i) => i.name));
	const total = countSamples(ort, job);
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
	for (const [k, r] of ranges.entries()) {
		const v = r.value(job);
		lines.push(v === null ? 'none' : String(v));
		if (job.verbose)
			debug(r.stat(job.tensors[k].name));
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

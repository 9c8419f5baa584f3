// qopt-ort-job.js: what the ONNX Runtime children qopt runs with a job
// file share (tools/qopt-plan.js for `qopt plan`, tools/qopt-autocast-tune.js
// for `qopt autocast-tune`): the job file, onnxruntime-node with its log
// level, the samples fed to the model, a session at the graph
// optimization the model needs, one run, the result file, and the
// normalised MSE and cosine both score with. Every failure is one line
// under the command's name and exit status 3, which the C side reads as
// "said" (core/cli/plan-runner.c, core/cli/tune-run.c), so it adds none.
'use strict';
const fs = require('fs');
const path = require('path');

const lib = require(path.join(__dirname, 'qopt-ort-lib.js'));
const EXIT_SAID = 3;

function firstLine(e) {
	return String(e && e.message || e).split('\n')[0];
}

// The sums of y against r over their first n elements, in one order
// (the figures must not change with the caller): the normalised MSE
// sum (y - r)^2 / sum (r - mean r)^2 (a constant r: the error relative
// to its size, else the absolute error), the cosine y.r / (|y| |r|),
// and whether every y read was finite.
function nmseCosine(y, r, n) {
	let se = 0, mean = 0, vr = 0, dot = 0, yy = 0, rr = 0, finite = true;
	for (let i = 0; i < n; i++)
		mean += r[i];
	mean = n ? mean / n : 0;
	for (let i = 0; i < n; i++) {
		if (!Number.isFinite(y[i]))
			finite = false;
		const d = y[i] - r[i], c = r[i] - mean;
		se += d * d;
		vr += c * c;
		dot += y[i] * r[i];
		yy += y[i] * y[i];
		rr += r[i] * r[i];
	}
	const nmse = se === 0 ? 0 : se / (vr > 0 ? vr : rr > 0 ? rr : 1);
	const cosine = yy === 0 && rr === 0 ? 1 :
		yy === 0 || rr === 0 ? 0 : dot / Math.sqrt(yy * rr);
	return { nmse, cosine, finite };
}

// The helpers of one child, its messages under me ('qopt plan').
function child(me) {
	function die(msg) {
		process.stderr.write(`${me}: error: ${lib.escapeText(msg)}\n`);
		process.exit(EXIT_SAID);
	}

	// The job file argv names; usage is said when there is none.
	function readJob(usage) {
		if (process.argv.length !== 3)
			die(usage);
		try {
			return JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
		} catch (e) {
			die(`${process.argv[2]}: not a job file of ${me}: ${e.message}`);
		}
	}

	function loadOrt(job) {
		const ort = lib.loadOrt();
		ort.env.logLevel = job.verbose ? 'warning' : 'fatal';
		return ort;
	}

	// [where, feeds] per sample of data (a folder of sample folders, or
	// a batch file: FILE.npz, FILE.npy, as calibration takes), for
	// model's inputs.
	function readFeeds(ort, model, data) {
		const feeds = [];
		try {
			const inputs = lib.modelInputs(model);
			if (lib.isBatchFile(data)) {
				const b = lib.readBatch(ort, data, inputs);
				for (let s = 0; s < b.n; s++)
					feeds.push([`${data}: sample ${s}`, b.sample(s)]);
				return feeds;
			}
			for (const d of lib.sampleDirs(data))
				feeds.push([d, lib.readSample(ort, d, inputs)]);
		} catch (e) {
			if (e instanceof lib.InputError)
				die(e.message);
			throw e;
		}
		return feeds;
	}

	// A model with a Conv reading a FLOAT16-scale DequantizeLinear runs
	// at disabled (ORT folds it wrongly at basic: docs/fp8.md).
	async function session(ort, job, file, what) {
		const level = lib.fp16DqConvQ(file, false).length ? 'disabled' : 'basic';
		try {
			return await ort.InferenceSession.create(file,
				{ graphOptimizationLevel: level,
				  logSeverityLevel: job.verbose ? 2 : 4 });
		} catch (e) {
			die(`${what}: ONNX Runtime cannot load it: ${firstLine(e)}` +
				(lib.hasFp4(file) ? `; ${lib.FP4_HINT}` : ''));
		}
	}

	async function run(sess, feeds, where, what) {
		try {
			return await sess.run(feeds);
		} catch (e) {
			die(`${what}: ${where}: ONNX Runtime cannot run it: ${firstLine(e)}`);
		}
	}

	function writeResult(file, lines) {
		try {
			fs.writeFileSync(file, lines.join('\n') + '\n');
		} catch (e) {
			die(`${file}: ${e.message}`);
		}
	}

	function main(fn) {
		fn().catch((e) => die(e && e.message ? e.message : String(e)));
	}

	return { die, readJob, loadOrt, readFeeds, session, run, writeResult,
		main };
}

module.exports = { EXIT_SAID, firstLine, nmseCosine, child };

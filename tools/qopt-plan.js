#!/usr/bin/env node
// qopt-plan-ort: the ONNX Runtime half of `qopt plan` (qopt runs it with
// a job file; it is not meant to be run by hand).
//
// The job names the float model, a data folder (qopt calibrate's
// layout: one sample per sub-folder) and candidate models, each the
// float model with one change (one layer in one format, or the whole
// plan). The script runs the float model once per sample and keeps its
// outputs, then each candidate over the same samples, one session per
// model, and writes per candidate three figures against the float
// outputs, averaged over samples and outputs:
//   nmse    sum (y - r)^2 / sum (r - mean r)^2 (the score the plan adds
//           up: 0 is exact, 1 is as far off as a constant output);
//   cosine  y.r / (|y| |r|);
//   top1    the share of rows (last axis) whose argmax agrees, over the
//           outputs whose last axis is longer than 1 ("-" when none).
// A model with FP8 Q/DQ runs at graph optimization basic, one with a
// Conv reading a FLOAT16-scale DequantizeLinear (which ORT folds wrongly
// at basic: DQ -> Conv -> Q units, and a mixed FLOAT16 plan's Convs
// without the Q) runs at disabled (docs/fp8.md).
'use strict';
const fs = require('fs');
const path = require('path');

const ME = 'qopt plan';
const EXIT_SAID = 3;	// core/cli/cmd-plan.c: the error is said
const lib = require(path.join(__dirname, 'qopt-ort-lib.js'));

function die(msg) {
	process.stderr.write(`${ME}: error: ${lib.escapeText(msg)}\n`);
	process.exit(EXIT_SAID);
}

function firstLine(e) {
	return String(e && e.message || e).split('\n')[0];
}

function progress(job, done, total) {
	if (!process.stderr.isTTY || job.quiet)
		return;
	const w = 30, k = Math.round(w * done / total);
	process.stderr.write(`\r${ME}: [${'#'.repeat(k)}${' '.repeat(w - k)}] ${done}/${total} models x ${job.nsamples} samples`);
	if (done === total)
		process.stderr.write('\n');
}

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

async function outputs(sess, feeds, where, what) {
	let out;
	try {
		out = await sess.run(feeds);
	} catch (e) {
		die(`${what}: ${where}: ONNX Runtime cannot run it: ${firstLine(e)}`);
	}
	return sess.outputNames.map((n) => lib.asNumbers(out[n]));
}

// The figures of one output against the float one.
function compare(y, r, last) {
	let se = 0, mean = 0, dot = 0, yy = 0, rr = 0;
	const n = r.length;
	for (let i = 0; i < n; i++)
		mean += r[i];
	mean = n ? mean / n : 0;
	let vr = 0;
	for (let i = 0; i < n; i++) {
		const d = y[i] - r[i], c = r[i] - mean;
		se += d * d;
		vr += c * c;
		dot += y[i] * r[i];
		yy += y[i] * y[i];
		rr += r[i] * r[i];
	}
	// a constant float output: the error relative to its size, else
	// the absolute error
	const nmse = se === 0 ? 0 : se / (vr > 0 ? vr : rr > 0 ? rr : 1);
	const cosine = yy === 0 && rr === 0 ? 1 :
		yy === 0 || rr === 0 ? 0 : dot / Math.sqrt(yy * rr);
	let rows = 0, agree = 0;
	if (last > 1) {
		for (let o = 0; o + last <= n; o += last) {
			let ay = o, ar = o;
			for (let i = o + 1; i < o + last; i++) {
				if (y[i] > y[ay]) ay = i;
				if (r[i] > r[ar]) ar = i;
			}
			rows++;
			agree += ay === ar;
		}
	}
	return { nmse, cosine, rows, agree };
}

async function main() {
	if (process.argv.length !== 3)
		die('usage: qopt-plan-ort JOB.json (run by qopt plan)');
	let job;
	try {
		job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
	} catch (e) {
		die(`${process.argv[2]}: not a job file of qopt plan: ${e.message}`);
	}
	const ort = lib.loadOrt();
	ort.env.logLevel = job.verbose ? 'warning' : 'fatal';
	const inputs = lib.modelInputs(job.float);
	const feeds = [];
	try {
		for (const d of lib.sampleDirs(job.data))
			feeds.push([d, lib.readSample(ort, d, inputs)]);
	} catch (e) {
		if (e instanceof lib.InputError)
			die(e.message);
		throw e;
	}
	job.nsamples = feeds.length;
	const total = job.candidates.length + 1;
	const fsess = await session(ort, job, job.float, job.model);
	const ref = [], lastDim = [];
	for (const [where, f] of feeds) {
		const out = await fsess.run(f).catch((e) =>
			die(`${job.model}: ${where}: ONNX Runtime cannot run it: ${firstLine(e)}`));
		ref.push(fsess.outputNames.map((n) => lib.asNumbers(out[n])));
		if (!lastDim.length)
			for (const n of fsess.outputNames) {
				const d = out[n].dims;
				lastDim.push(d.length ? d[d.length - 1] : 1);
			}
	}
	progress(job, 1, total);
	const lines = ['qopt-plan-result 1', `samples ${feeds.length}`];
	for (const [k, c] of job.candidates.entries()) {
		const sess = await session(ort, job, c.file, c.what);
		let nmse = 0, cosine = 0, rows = 0, agree = 0, terms = 0;
		for (const [s, [where, f]] of feeds.entries()) {
			const got = await outputs(sess, f, where, c.what);
			for (let o = 0; o < got.length && o < ref[s].length; o++) {
				const r = compare(got[o], ref[s][o], lastDim[o]);
				nmse += r.nmse;
				cosine += r.cosine;
				rows += r.rows;
				agree += r.agree;
				terms++;
			}
		}
		nmse /= terms || 1;
		cosine /= terms || 1;
		// NaN (a broken candidate) is as bad as it gets
		lines.push(`${Number.isFinite(nmse) ? nmse : 'inf'} ` +
			`${Number.isFinite(cosine) ? cosine : 0} ` +
			`${rows ? agree / rows : '-'}`);
		if (typeof sess.release === 'function')
			await sess.release();
		progress(job, k + 2, total);
	}
	try {
		fs.writeFileSync(job.result, lines.join('\n') + '\n');
	} catch (e) {
		die(`${job.result}: ${e.message}`);
	}
}

main().catch((e) => die(e && e.message ? e.message : String(e)));

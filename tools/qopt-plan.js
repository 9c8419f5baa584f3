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
const path = require('path');

const ME = 'qopt plan';
const lib = require(path.join(__dirname, 'qopt-ort-lib.js'));
const ortJob = require(path.join(__dirname, 'qopt-ort-job.js'));
const { readJob, loadOrt, readFeeds, session, run, writeResult, main } =
	ortJob.child(ME);

function progress(job, done, total) {
	if (!process.stderr.isTTY || job.quiet)
		return;
	const w = 30, k = Math.round(w * done / total);
	process.stderr.write(`\r${ME}: [${'#'.repeat(k)}${' '.repeat(w - k)}] ${done}/${total} models x ${job.nsamples} samples`);
	if (done === total)
		process.stderr.write('\n');
}

async function outputs(sess, feeds, where, what) {
	const out = await run(sess, feeds, where, what);
	return sess.outputNames.map((n) => lib.asNumbers(out[n]));
}

// The figures of one output against the float one.
function compare(y, r, last) {
	const n = r.length;
	const { nmse, cosine } = ortJob.nmseCosine(y, r, n);
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

async function plan() {
	const job = readJob('usage: qopt-plan-ort JOB.json (run by qopt plan)');
	const ort = loadOrt(job);
	const feeds = readFeeds(ort, job.float, job.data);
	job.nsamples = feeds.length;
	const total = job.candidates.length + 1;
	const fsess = await session(ort, job, job.float, job.model);
	const ref = [], lastDim = [];
	for (const [where, f] of feeds) {
		const out = await run(fsess, f, where, job.model);
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
	writeResult(job.result, lines);
}

main(plan);

#!/usr/bin/env node
// qopt-autocast-tune-ort: the ONNX Runtime half of `qopt autocast-tune`
// (qopt runs it with a job file; it is not meant to be run by hand).
//
// The job names the FLOAT model and autocast's fake form of it, both
// with every FLOAT tensor a graph output, a data folder (qopt
// calibrate's layout), the pairs [fake tensor, FLOAT tensor] to compare
// (a fake tensor rounded through the low type stands for the FLOAT
// tensor it rounds) and the graph outputs. Per sample the script runs
// both models once (one session each: two ONNX Runtime runs in all)
// and writes, averaged over the samples:
//   per pair, the normalised MSE sum (y - r)^2 / sum (r - mean r)^2, as
//   qopt plan scores (qopt-plan.js), "inf" when y holds Inf or NaN;
//   then the graph outputs' mean normalised MSE and mean cosine.
'use strict';
const fs = require('fs');
const path = require('path');

const ME = 'qopt autocast-tune';
const EXIT_SAID = 3;	// core/cli/tune-run.c: the error is said
const lib = require(path.join(__dirname, 'qopt-ort-lib.js'));

function die(msg) {
	process.stderr.write(`${ME}: error: ${lib.escapeText(msg)}\n`);
	process.exit(EXIT_SAID);
}

function firstLine(e) {
	return String(e && e.message || e).split('\n')[0];
}

async function session(ort, job, file, what) {
	const level = lib.fp16DqConvQ(file, false).length ? 'disabled' : 'basic';
	try {
		return await ort.InferenceSession.create(file,
			{ graphOptimizationLevel: level,
			  logSeverityLevel: job.verbose ? 2 : 4 });
	} catch (e) {
		die(`${what}: ONNX Runtime cannot load it: ${firstLine(e)}`);
	}
}

async function run(sess, feeds, where, what) {
	try {
		return await sess.run(feeds);
	} catch (e) {
		die(`${what}: ${where}: ONNX Runtime cannot run it: ${firstLine(e)}`);
	}
}

// Normalised MSE and cosine of y against r.
function compare(y, r) {
	let se = 0, mean = 0, vr = 0, dot = 0, yy = 0, rr = 0, bad = false;
	const n = Math.min(y.length, r.length);
	for (let i = 0; i < n; i++)
		mean += r[i];
	mean = n ? mean / n : 0;
	for (let i = 0; i < n; i++) {
		if (!Number.isFinite(y[i]))
			bad = true;
		const d = y[i] - r[i], c = r[i] - mean;
		se += d * d;
		vr += c * c;
		dot += y[i] * r[i];
		yy += y[i] * y[i];
		rr += r[i] * r[i];
	}
	if (bad || y.length !== r.length)
		return { nmse: Infinity, cosine: 0 };
	const nmse = se === 0 ? 0 : se / (vr > 0 ? vr : rr > 0 ? rr : 1);
	const cosine = yy === 0 && rr === 0 ? 1 :
		yy === 0 || rr === 0 ? 0 : dot / Math.sqrt(yy * rr);
	return { nmse, cosine };
}

function fmt(x) {
	return Number.isFinite(x) ? String(x) : 'inf';
}

async function main() {
	if (process.argv.length !== 3)
		die('usage: qopt-autocast-tune-ort JOB.json (run by qopt autocast-tune)');
	let job;
	try {
		job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
	} catch (e) {
		die(`${process.argv[2]}: not a job file of qopt autocast-tune: ${e.message}`);
	}
	const ort = lib.loadOrt();
	ort.env.logLevel = job.verbose ? 'warning' : 'fatal';
	const inputs = lib.modelInputs(job.ref);
	const feeds = [];
	try {
		for (const d of lib.sampleDirs(job.data))
			feeds.push([d, lib.readSample(ort, d, inputs)]);
	} catch (e) {
		if (e instanceof lib.InputError)
			die(e.message);
		throw e;
	}
	const rs = await session(ort, job, job.ref, job.model);
	const fsess = await session(ort, job, job.fake, `${job.model} (fake)`);
	const sum = new Float64Array(job.pairs.length);
	let onmse = 0, ocos = 0, terms = 0;
	for (const [where, f] of feeds) {
		const ro = await run(rs, f, where, job.model);
		const fo = await run(fsess, f, where, `${job.model} (fake)`);
		const ref = (n) => ro[n] ? lib.asNumbers(ro[n]) :
			f[n] ? lib.asNumbers(f[n]) : null;
		job.pairs.forEach(([a, b], k) => {
			const r = ref(b);
			if (!fo[a] || !r) {
				sum[k] = Infinity;
				return;
			}
			sum[k] += compare(lib.asNumbers(fo[a]), r).nmse;
		});
		for (const o of job.outputs) {
			const r = ref(o);
			const c = fo[o] && r ? compare(lib.asNumbers(fo[o]), r) :
				{ nmse: Infinity, cosine: 0 };
			onmse += c.nmse;
			ocos += c.cosine;
			terms++;
		}
	}
	const lines = [`qopt-autocast-tune-result 1 samples ${feeds.length}`];
	for (const s of sum)
		lines.push(fmt(s / (feeds.length || 1)));
	lines.push(fmt(onmse / (terms || 1)));
	lines.push(fmt(ocos / (terms || 1)));
	try {
		fs.writeFileSync(job.result, lines.join('\n') + '\n');
	} catch (e) {
		die(`${job.result}: ${e.message}`);
	}
}

main().catch((e) => die(e && e.message ? e.message : String(e)));

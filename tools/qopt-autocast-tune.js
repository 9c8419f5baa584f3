#!/usr/bin/env node
// qopt-autocast-tune-ort: the ONNX Runtime half of `qopt autocast-tune`
// (qopt runs it with a job file; it is not meant to be run by hand).
//
// The job names the FLOAT model and autocast's fake form of it, both
// with every FLOAT tensor a graph output, a data folder (qopt
// calibrate's layout), the pairs [fake tensor, FLOAT tensor] to compare
// (a fake tensor rounded through the low type stands for the FLOAT
// tensor it rounds), the graph outputs, and where the FLOAT model's
// tensors are cached ("cache", a path prefix in qopt's private
// temporary folder) with "reference": "run" (the first measurement:
// run the FLOAT model, one session, once per sample, and cache what it
// gives) or "cached" (every later one: read it back, no FLOAT session).
// The fake model runs in one session, once per sample. It writes,
// averaged over the samples:
//   per pair, the normalised MSE sum (y - r)^2 / sum (r - mean r)^2, as
//   qopt plan scores (qopt-ort-job.js), "inf" when y holds Inf or NaN;
//   then the graph outputs' mean normalised MSE and mean cosine;
// and first what it ran: the FLOAT model's sessions and runs, the fake
// model's, which the command's cost line adds up.
'use strict';
const fs = require('fs');
const path = require('path');

const ME = 'qopt autocast-tune';
const lib = require(path.join(__dirname, 'qopt-ort-lib.js'));
const ortJob = require(path.join(__dirname, 'qopt-ort-job.js'));
const { die, readJob, loadOrt, readFeeds, session, run, writeResult, main } =
	ortJob.child(ME);

// Normalised MSE and cosine of y against r (qopt plan's figures): Inf
// and 0 when y holds Inf or NaN or its size is not r's.
function compare(y, r) {
	const c = ortJob.nmseCosine(y, r, Math.min(y.length, r.length));
	if (!c.finite || y.length !== r.length)
		return { nmse: Infinity, cosine: 0 };
	return c;
}

function fmt(x) {
	return Number.isFinite(x) ? String(x) : 'inf';
}

// The FLOAT model's tensors of one sample, cached in the private
// temporary folder: the FLOAT model is the same every round, so only
// the first measurement runs it. A file holds its header's length (4
// bytes, little endian), the header (JSON: the sample folder, and per
// tensor its name, 4 or 8 bytes an element, and its element count),
// then each tensor's elements as the comparison reads them (FLOAT as
// FLOAT, anything else as doubles), each 8-byte aligned.
function cacheFile(job, k) {
	return `${job.cache}-${k}.bin`;
}

const pad8 = (n) => (8 - n % 8) % 8;

function writeCache(file, where, got) {
	const names = Object.keys(got);
	const head = Buffer.from(JSON.stringify({ sample: where,
		tensors: names.map((n) => [n, got[n].BYTES_PER_ELEMENT,
			got[n].length]) }));
	const len = Buffer.alloc(4);
	len.writeUInt32LE(head.length + pad8(4 + head.length));
	let fd;
	try {
		fd = fs.openSync(file, 'wx', 0o600);
		fs.writeSync(fd, len);
		fs.writeSync(fd, Buffer.concat([head,
			Buffer.alloc(pad8(4 + head.length), 0x20)]));
		for (const n of names) {
			const d = got[n];
			fs.writeSync(fd, Buffer.from(d.buffer, d.byteOffset,
				d.byteLength));
			fs.writeSync(fd, Buffer.alloc(pad8(d.byteLength)));
		}
		fs.closeSync(fd);
	} catch (e) {
		die(`${file}: cannot cache the FLOAT model's tensors: ${e.message}`);
	}
}

// What writeCache wrote, as { name: Float32Array or Float64Array }.
function readCache(file, where) {
	try {
		const buf = fs.readFileSync(file);
		const n = buf.readUInt32LE(0);
		const head = JSON.parse(buf.subarray(4, 4 + n).toString());
		if (head.sample !== where)
			throw new Error(`made for ${head.sample}, not ${where}`);
		// the views need the elements aligned in memory: a copy if not
		const mem = buf.byteOffset % 8 ? new Uint8Array(buf) : buf;
		const out = {};
		let at = 4 + n;
		for (const [name, size, len] of head.tensors) {
			const T = size === 4 ? Float32Array : Float64Array;
			if (at + size * len > mem.length)
				throw new Error('shorter than its header says');
			out[name] = new T(mem.buffer, mem.byteOffset + at, len);
			at += size * len + pad8(size * len);
		}
		return out;
	} catch (e) {
		die(`${file}: the FLOAT model's cached tensors cannot be read: ${e.message}`);
	}
}

// The FLOAT model's tensors per sample: run (one session, then each
// sample) and cached when job.reference is 'run', else read back.
async function reference(ort, job, feeds, count) {
	if (job.reference !== 'run' && job.reference !== 'cached')
		die(`${process.argv[2]}: reference '${job.reference}': not run or cached`);
	if (job.reference === 'cached')
		return async (k, where) => readCache(cacheFile(job, k), where);
	const rs = await session(ort, job, job.ref, job.model);
	count.refSessions = 1;
	return async (k, where, f) => {
		const ro = await run(rs, f, where, job.model);
		const got = {};
		count.refRuns++;
		for (const n of Object.keys(ro)) {
			const v = lib.asNumbers(ro[n]);
			got[n] = v instanceof Float32Array ||
				v instanceof Float64Array ? v : Float64Array.from(v);
		}
		writeCache(cacheFile(job, k), where, got);
		return got;
	};
}

async function tune() {
	const job = readJob('usage: qopt-autocast-tune-ort JOB.json (run by qopt autocast-tune)');
	const ort = loadOrt(job);
	const feeds = readFeeds(ort, job.ref, job.data);
	const count = { refSessions: 0, refRuns: 0, fakeRuns: 0 };
	const refOf = await reference(ort, job, feeds, count);
	const fsess = await session(ort, job, job.fake, `${job.model} (fake)`);
	const sum = new Float64Array(job.pairs.length);
	let onmse = 0, ocos = 0, terms = 0;
	for (const [k, [where, f]] of feeds.entries()) {
		const ro = await refOf(k, where, f);
		const fo = await run(fsess, f, where, `${job.model} (fake)`);
		count.fakeRuns++;
		const ref = (n) => ro[n] ? ro[n] :
			f[n] ? lib.asNumbers(f[n]) : null;
		job.pairs.forEach(([a, b], i) => {
			const r = ref(b);
			if (!fo[a] || !r) {
				sum[i] = Infinity;
				return;
			}
			sum[i] += compare(lib.asNumbers(fo[a]), r).nmse;
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
	const lines = [`qopt-autocast-tune-result 2 samples ${feeds.length} ` +
		`reference ${count.refSessions} ${count.refRuns} fake 1 ${count.fakeRuns}`];
	for (const s of sum)
		lines.push(fmt(s / (feeds.length || 1)));
	lines.push(fmt(onmse / (terms || 1)));
	lines.push(fmt(ocos / (terms || 1)));
	writeResult(job.result, lines);
}

main(tune);

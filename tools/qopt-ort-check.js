#!/usr/bin/env node
// qopt-ort-check: runs an original and a candidate model in ONNX Runtime
// on the same inputs and compares every output: max abs and max relative
// error, RMS relative error, cosine similarity, top-1 agreement (outputs
// with a class axis) and the elements outside the tolerance. Also the
// common `qopt bisect --test` checker. Usage: see usage() below and
// qopt-ort-check(1) in qopt.1.
'use strict';
const fs = require('fs');
const path = require('path');
const lib = require(path.join(__dirname, 'qopt-ort-lib.js'));

const ME = 'qopt-ort-check';
// Exit statuses (documented in qopt.1, section BISECT).
const EXIT = { PASS: 0, FAIL: 1, USAGE: 2, ORIGINAL: 3, CANDIDATE: 125,
	NO_ORT: 127 };

const USAGE = `usage: qopt-ort-check ORIGINAL.onnx CANDIDATE.onnx [options]
  --inputs DIR        samples: DIR holds input_N.pb (TensorProto) and/or
                      NAME.npy files, or one sub-folder of them per sample
                      (the layouts qopt calibrate reads)
  --random N          N seeded random samples (default 1 without --inputs)
  --seed S            random seed (default 1)
  --dim NAME=VALUE    a symbolic input dimension for random samples (one
                      not given is 1, said on stderr; a NAME the model
                      has not is an error)
  --rtol R --atol A   every element: |cand - orig| <= A + R * |orig|
                      (default rtol 1e-3, atol 1e-4; float outputs; others
                      must be equal)
  --stats-only        no element-wise check: pass on the --min-cosine,
                      --min-top1 and --max-rms-rel bounds alone (at least
                      one needed); for pipelines with a lossy pass
  --min-cosine C      also fail an output whose cosine similarity is below C
  --min-top1 F        also fail an output whose top-1 agreement is below F
  --max-rms-rel E     also fail an output whose RMS relative error is above E
  --reference-model REF.onnx
                      thresholds relative to REF (the lossy pass's own
                      output): each output of the candidate must lose no
                      more than REF's against the original, within
                      --margin (cosine and RMS relative error);
                      no element-wise check, as --stats-only
  --margin M          how much more loss than REF's passes: loss <=
                      REF's loss * (1 + M) + 1e-7, the loss 1 - cosine
                      and the RMS relative error (default 0.05)
  --opt-level L       ORT graph optimization: disabled, basic (default),
                      extended or all
  --ort-timeout S     bound on ONNX Runtime's run, seconds (0: none; also
                      QOPT_ORT_TIMEOUT; default 600 + per sample 10 + 60
                      per GiB of the models): past it ORT is ended and
                      the model it was running counts as one it cannot run
  --json              the results as JSON on stdout instead of the table
exit: 0 every output within the tolerances, 1 not, 2 usage or unreadable
input, 3 ORT cannot load or run the original (or REF), 125 ORT cannot
load or run the candidate (qopt bisect skips it), 127 node or
onnxruntime-node missing
`;

function fail(status, msg) {
	process.stderr.write(`${ME}: ${msg}\n`);
	process.exit(status);
}

function parseArgs(argv) {
	const a = { files: [], rtol: 1e-3, atol: 1e-4, inputs: null, random: 0,
		seed: 1, dims: {}, opt: 'basic', json: false, minCosine: null,
		minTop1: null, maxRmsRel: null, statsOnly: false, dimSeen: false,
		reference: null, margin: 0.05, ortTimeout: null };
	const num = (k, v) => {
		const x = Number(v);
		if (/^[+-]?(inf|infinity)$/i.test(v) && (k === '--atol' || k === '--rtol'))
			fail(EXIT.USAGE, `${k} ${v}: an infinite tolerance checks nothing element-wise; use --stats-only with --min-cosine, --min-top1 or --max-rms-rel`);
		if (v === '' || !(x >= 0) || !Number.isFinite(x))
			fail(EXIT.USAGE, `${k} expects a number >= 0, got '${v}'`);
		return x;
	};
	for (let i = 0; i < argv.length; i++) {
		const k = argv[i], next = () => {
			if (i + 1 >= argv.length)
				fail(EXIT.USAGE, `${k} needs a value`);
			return argv[++i];
		};
		if (k === '--rtol')
			a.rtol = num(k, next());
		else if (k === '--atol')
			a.atol = num(k, next());
		else if (k === '--min-cosine')
			a.minCosine = Number(next());
		else if (k === '--min-top1')
			a.minTop1 = num(k, next());
		else if (k === '--max-rms-rel')
			a.maxRmsRel = num(k, next());
		else if (k === '--inputs')
			a.inputs = next();
		else if (k === '--random') {
			a.random = num(k, next());
			if (!Number.isInteger(a.random) || a.random < 1)
				fail(EXIT.USAGE, '--random expects a count >= 1');
		} else if (k === '--seed')
			a.seed = num(k, next());
		else if (k === '--json')
			a.json = true;
		else if (k === '--reference-model')
			a.reference = next();
		else if (k === '--margin')
			a.margin = num(k, next());
		else if (k === '--ort-timeout')
			a.ortTimeout = timeoutArg(k, next());
		else if (k === '--stats-only')
			a.statsOnly = true;
		else if (k === '--opt-level') {
			a.opt = next();
			if (!['disabled', 'basic', 'extended', 'all'].includes(a.opt))
				fail(EXIT.USAGE, '--opt-level is disabled, basic, extended or all');
		} else if (k === '--dim') {
			const m = /^([^=]+)=(\d+)$/.exec(next());
			if (!m)
				fail(EXIT.USAGE, '--dim expects NAME=VALUE');
			a.dims[m[1]] = Number(m[2]);
			a.dimSeen = true;
		} else if (k === '-h' || k === '--help') {
			process.stdout.write(USAGE);
			process.exit(0);
		} else if (k.startsWith('-'))
			fail(EXIT.USAGE, `unknown option ${k}\n${USAGE}`);
		else
			a.files.push(k);
	}
	if (a.files.length !== 2)
		fail(EXIT.USAGE, USAGE.trimEnd());
	if (a.minCosine !== null && !(a.minCosine >= -1 && a.minCosine <= 1))
		fail(EXIT.USAGE, '--min-cosine expects a number in [-1, 1]');
	if (a.inputs && a.random)
		fail(EXIT.USAGE, '--inputs and --random exclude each other');
	if (a.inputs && a.dimSeen)
		fail(EXIT.USAGE, '--dim belongs to random samples; with --inputs the samples give the sizes');
	if (a.statsOnly && a.minCosine === null && a.minTop1 === null &&
	    a.maxRmsRel === null)
		fail(EXIT.USAGE, '--stats-only needs a bound: --min-cosine, --min-top1 or --max-rms-rel');
	if (!a.inputs && !a.random)
		a.random = 1;
	if (a.reference !== null)
		a.statsOnly = true;
	return a;
}

// Seconds for --ort-timeout and QOPT_ORT_TIMEOUT: digits, 0 (no bound)
// to a year, qopt's rule (core/cli/ort-child.c).
function timeoutArg(what, v) {
	if (!/^[0-9]+$/.test(v) || Number(v) > 31536000)
		fail(EXIT.USAGE, `${what} takes seconds from 0 (no bound) to 31536000, got '${lib.escapeText(v)}'`);
	return Number(v);
}

// Yields [label, feeds] for every sample.
function* samples(ort, a, inputs) {
	if (a.inputs) {
		for (const d of lib.sampleDirs(a.inputs))
			yield [d, lib.readSample(ort, d, inputs)];
		return;
	}
	const rnd = lib.mulberry32(a.seed);
	for (let s = 0; s < a.random; s++) {
		const feeds = {};
		for (const inp of a.shapes)
			feeds[inp.name] = lib.randomTensor(ort, inp, rnd);
		yield [`random sample ${s} (seed ${a.seed})`, feeds];
	}
}

// Outputs compared with the tolerances; every other type (integers,
// bool, string) must be equal element for element.
const FLOAT_TYPES = new Set(['float32', 'float64', 'float16', 'bfloat16']);

// Running sums for one output over every sample.
class Stats {
	constructor(name) {
		this.name = name;
		this.shapes = [];	// each distinct shape, in order seen
		this.type = null;
		this.n = 0;
		this.outside = 0;
		this.special = 0;	// Inf/NaN on one side, not the same on the other
		this.maxAbs = 0;
		this.maxRel = 0;
		this.sdd = 0;	// sum of squared differences
		this.soo = 0;	// sum of squared original values
		this.scc = 0;
		this.soc = 0;
		this.rows = 0;
		this.top1 = 0;
		this.worst = null;
		this.problem = null;	// shape or type mismatch, missing output
	}

	add(o, c, a, where) {
		if (this.problem)
			return;
		if (!c) {
			this.problem = 'missing from the candidate';
			return;
		}
		if (o.type !== c.type) {
			this.problem = `${where}: type ${c.type} differs from ${o.type}`;
			return;
		}
		if (o.dims.join(',') !== c.dims.join(',')) {
			this.problem = `${where}: shape [${c.dims}] differs from [${o.dims}]`;
			return;
		}
		if (!this.shapes.some((d) => d.join(',') === o.dims.join(',')))
			this.shapes.push(o.dims.slice());
		this.type = o.type;
		if (FLOAT_TYPES.has(o.type)) {
			const x = lib.asNumbers(o), y = lib.asNumbers(c);
			this.addFloat(x, y, a, where);
			this.addTop1(o, x, y);
		} else {
			this.addExact(o.data, c.data, where);
		}
	}

	// Strings, bools and integers (BigInt for 64 bits) compared as they
	// are: no conversion to double loses a difference.
	addExact(x, y, where) {
		const numeric = typeof x[0] === 'number' || typeof x[0] === 'bigint';
		for (let i = 0; i < x.length; i++) {
			if (x[i] === y[i]) {
				if (numeric) {
					const v = Number(x[i]);
					this.soo += v * v;
					this.scc += v * v;
					this.soc += v * v;
				}
				continue;
			}
			this.outside++;
			if (!this.worst)
				this.worst = { where, index: i, orig: show(x[i]),
					cand: show(y[i]), diff: null };
			if (numeric) {
				const xo = Number(x[i]), yc = Number(y[i]);
				// BigInt: the exact difference (2^60 + 1 - 2^60 is 1)
				const d = Math.abs(typeof x[i] === 'bigint' ?
					Number(x[i] - y[i]) : xo - yc);
				this.maxAbs = Math.max(this.maxAbs, d);
				this.maxRel = Math.max(this.maxRel, xo ? d / Math.abs(xo) : Infinity);
				this.sdd += d * d;
				this.soo += xo * xo;
				this.scc += yc * yc;
				this.soc += xo * yc;
			}
		}
		this.n += x.length;
	}

	addFloat(x, y, a, where) {
		for (let i = 0; i < x.length; i++) {
			const xo = x[i], yc = y[i];
			// NaN on both sides, or the same infinity: equal, and kept
			// out of the sums (Inf - Inf is NaN)
			if ((Number.isNaN(xo) && Number.isNaN(yc)) ||
			    (xo === yc && !Number.isFinite(xo)))
				continue;
			if (!Number.isFinite(xo) || !Number.isFinite(yc)) {
				// Inf or NaN against anything else: a mismatch in
				// every mode, kept out of the sums too
				this.special++;
				this.outside++;
				if (!this.worst || this.worst.diff !== Infinity)
					this.worst = { where, index: i, orig: xo, cand: yc,
						diff: Infinity };
				this.maxAbs = this.maxRel = Infinity;
				continue;
			}
			const d = Math.abs(xo - yc);
			const within = a.statsOnly || d <= a.atol + a.rtol * Math.abs(xo);
			if (!within) {
				this.outside++;
				if (!this.worst || !(d <= this.worst.diff))
					this.worst = { where, index: i, orig: xo, cand: yc, diff: d };
			}
			if (!(d <= this.maxAbs))
				this.maxAbs = d;
			const rel = d === 0 ? 0 : d / Math.abs(xo);
			if (!(rel <= this.maxRel))
				this.maxRel = rel;
			this.sdd += d * d;
			this.soo += xo * xo;
			this.scc += yc * yc;
			this.soc += xo * yc;
		}
		this.n += x.length;
	}

	// Top-1 agreement along the last axis, for float outputs whose last
	// axis has at least 2 classes.
	addTop1(o, x, y) {
		const k = o.dims.length ? o.dims[o.dims.length - 1] : 0;
		if (!/^float/.test(o.type) || k < 2)
			return;
		for (let r = 0; r + k <= x.length; r += k) {
			let bo = r, bc = r;
			for (let i = r + 1; i < r + k; i++) {
				if (x[i] > x[bo])
					bo = i;
				if (y[i] > y[bc])
					bc = i;
			}
			this.rows++;
			if (bo === bc)
				this.top1++;
		}
	}

	// ref: the reference model's result for this output (--reference-model)
	result(a, ref) {
		// one shape, or every distinct one (samples of several sizes)
		const r = { name: this.name,
			shape: this.shapes.length === 1 ? this.shapes[0] : null,
			shapes: this.shapes, type: this.type, elements: this.n };
		if (this.problem)
			return Object.assign(r, { pass: false, problem: this.problem });
		const ratio = (p, q) => q > 0 ? p / q : p > 0 ? Infinity : 0;
		// strings have no distance: only equal or not
		const text = this.type === 'string';
		r.max_abs = text ? null : this.maxAbs;
		r.max_rel = text ? null : this.maxRel;
		r.rms_rel = text ? null : Math.sqrt(ratio(this.sdd, this.soo));
		r.cosine = text ? null : this.soo > 0 && this.scc > 0 ?
			this.soc / Math.sqrt(this.soo * this.scc) :
			this.soo === this.scc ? 1 : 0;
		r.top1 = this.rows ? this.top1 / this.rows : null;
		r.outside = this.outside;
		r.worst = this.worst;
		const why = [];
		if (this.special)
			why.push(`${this.special} of ${this.n} elements Inf or NaN on one side only (or Inf of the other sign)`);
		if (this.outside > this.special)
			why.push(FLOAT_TYPES.has(this.type) ?
				`${this.outside - this.special} of ${this.n} elements outside atol ${a.atol} + rtol ${a.rtol}` :
				`${this.outside} of ${this.n} elements differ (${this.type}: compared exactly)`);
		if (a.minCosine !== null && r.cosine !== null && !(r.cosine >= a.minCosine))
			why.push(`cosine ${fmt(r.cosine, 6)} below ${a.minCosine}`);
		if (a.minTop1 !== null && r.top1 !== null && !(r.top1 >= a.minTop1))
			why.push(`top-1 ${fmt(r.top1, 4)} below ${a.minTop1}`);
		if (a.maxRmsRel !== null && r.rms_rel !== null && !(r.rms_rel <= a.maxRmsRel))
			why.push(`RMS relative error ${fmt(r.rms_rel)} above ${a.maxRmsRel}`);
		if (ref)
			this.relative(a, r, ref, why);
		r.pass = why.length === 0;
		if (why.length)
			r.problem = why.join('; ');
		return r;
	}

	// --reference-model: no more loss than the reference's, within
	// the margin (a lossy pass's own cost is the bar, not a number
	// guessed for the model).
	relative(a, r, ref, why) {
		r.reference = { cosine: ref.cosine, rms_rel: ref.rms_rel, top1: ref.top1 };
		if (ref.problem && !ref.pass) {
			why.push(`the reference: ${ref.problem}`);
			return;
		}
		const within = (loss, bar) => loss <= bar * (1 + a.margin) + 1e-7;
		if (r.cosine !== null && ref.cosine !== null && !within(1 - r.cosine, 1 - ref.cosine))
			why.push(`cosine ${fmt(r.cosine, 6)} below the reference's ${fmt(ref.cosine, 6)} ` +
				`(1 - cosine ${fmt(1 - r.cosine)} > ${fmt(1 - ref.cosine)} x ${1 + a.margin})`);
		if (r.rms_rel !== null && ref.rms_rel !== null && !within(r.rms_rel, ref.rms_rel))
			why.push(`RMS relative error ${fmt(r.rms_rel)} above the reference's ${fmt(ref.rms_rel)} x ${1 + a.margin}`);
	}
}

// An element of an exactly compared output, for the report.
function show(v) {
	return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

function fmt(v, digits) {
	if (v === null || v === undefined)
		return '-';
	if (!Number.isFinite(v))
		return String(v).replace('Infinity', 'inf');
	return digits ? v.toFixed(digits) : v === 0 ? '0' : v.toExponential(2);
}

function table(rep) {
	const head = ['output', 'shape', 'max abs', 'max rel', 'rms rel',
		'cosine', 'top-1', 'outside', 'result'];
	const rows = rep.outputs.map((o) => [lib.escapeText(o.name),
		o.shapes.length ? o.shapes.map((d) => `[${d.join(',')}]`).join(' ') : '-',
		fmt(o.max_abs), fmt(o.max_rel), fmt(o.rms_rel), fmt(o.cosine, 6),
		fmt(o.top1, 4), o.outside === undefined ? '-' : `${o.outside}/${o.elements}`,
		o.pass ? 'PASS' : 'FAIL']);
	const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
	const line = (r) => r.map((c, i) => c.padEnd(w[i])).join('  ').trimEnd();
	const out = [`${ME}: ${rep.original} vs ${rep.candidate}: ${rep.samples} sample${rep.samples === 1 ? '' : 's'} (${rep.source}), ORT graph optimization ${rep.opt_level}`,
		line(head), ...rows.map(line)];
	if (rep.reference)
		for (const o of rep.outputs)
			if (o.reference)
				out.push(`${lib.escapeText(o.name)}: reference ${lib.escapeText(rep.reference)}: cosine ${fmt(o.reference.cosine, 6)}, rms rel ${fmt(o.reference.rms_rel)}, top-1 ${fmt(o.reference.top1, 4)}`);
	for (const o of rep.outputs) {
		if (!o.problem)
			continue;
		const name = lib.escapeText(o.name);
		out.push(`${name}: ${lib.escapeText(o.problem)}`);
		if (o.worst)
			out.push(`${name}: ${o.worst.diff === null ? 'first differing' : 'worst'} element ${o.worst.index} of ${lib.escapeText(o.worst.where)}: ${lib.escapeText(o.worst.cand)} vs ${lib.escapeText(o.worst.orig)}${o.worst.diff === null ? '' : ` (|diff| ${fmt(o.worst.diff)})`}`);
	}
	const bad = rep.outputs.filter((o) => !o.pass).length;
	out.push((rep.reference ? `relative to the reference (margin ${rep.margin}); ` :
		rep.stats_only ? 'statistics only (no element-wise tolerance); ' :
		`tolerance: |cand - orig| <= ${rep.atol} + ${rep.rtol} * |orig|; `) +
		(bad ? `FAIL: ${bad} of ${rep.outputs.length} outputs` : `PASS: all ${rep.outputs.length} outputs`));
	return out.join('\n') + '\n';
}

// Tells the supervising process what ORT is busy with, for the message
// if the bound is reached.
function phase(what, where) {
	if (process.send)
		process.send({ what, where });
}

async function session(ort, file, a, status, what) {
	phase(what, null);
	try {
		return await ort.InferenceSession.create(file,
			{ graphOptimizationLevel: a.opt, logSeverityLevel: 4 });
	} catch (e) {
		fail(status, `${lib.escapeText(file)}: ONNX Runtime cannot load the ${what}: ${lib.escapeText(e.message.split('\n')[0])}` +
			(lib.realFormHint(file) ? `; ${lib.realFormHint(file)}` : ''));
	}
}

async function run(sess, feeds, file, where, status, what) {
	phase(what, where);
	try {
		return await sess.run(feeds);
	} catch (e) {
		fail(status, `${lib.escapeText(file)}: ONNX Runtime cannot run the ${what} on ${lib.escapeText(where)}: ${lib.escapeText(e.message.split('\n')[0])}`);
	}
}

// The run itself, in the worker process (supervise() below).
async function work() {
	const a = parseArgs(process.argv.slice(2));
	let ort;
	try {
		ort = lib.loadOrt();
	} catch (e) {
		fail(EXIT.NO_ORT, e.message);
	}
	// ORT's own log lines (coloured) would come before ours and say the
	// same: its failures are reported below, one line each
	ort.env.logLevel = 'fatal';
	const ref = await session(ort, a.files[0], a, EXIT.ORIGINAL, 'original');
	const cand = await session(ort, a.files[1], a, EXIT.CANDIDATE, 'candidate');
	const bar = a.reference === null ? null :
		await session(ort, a.reference, a, EXIT.ORIGINAL, 'reference');
	if (a.opt !== 'disabled') {
		const convs = lib.fp16DqConvQ(a.files[1]);
		if (convs.length)
			process.stderr.write(`${ME}: warning: ${a.files[1]}: ${convs.length} FLOAT16 ` +
				`DequantizeLinear -> Conv -> QuantizeLinear unit${convs.length > 1 ? 's' : ''} ` +
				`(first: '${lib.escapeText(convs[0])}'): ONNX Runtime at graph optimization ` +
				`${a.opt} rewrites them with an int32 bias quantization that overflows ` +
				`FLOAT16, so its results there are wrong even for a right model; check with ` +
				`--opt-level disabled (docs/fp8.md)\n`);
	}
	const inputs = lib.modelInputs(a.files[0]);
	if (!a.inputs)	// a misspelled --dim before any sample runs
		a.shapes = lib.randomShapes(inputs, a.dims,
			(msg) => process.stderr.write(`${ME}: note: ${msg}\n`));
	const stats = ref.outputNames.map((n) => new Stats(n));
	const barStats = bar ? ref.outputNames.map((n) => new Stats(n)) : null;
	let n = 0;
	for (const [where, feeds] of samples(ort, a, inputs)) {
		const want = await run(ref, feeds, a.files[0], where, EXIT.ORIGINAL, 'original');
		const got = await run(cand, feeds, a.files[1], where, EXIT.CANDIDATE, 'candidate');
		for (const s of stats)
			s.add(want[s.name], got[s.name], a, where);
		if (bar) {
			const base = await run(bar, feeds, a.reference, where, EXIT.ORIGINAL, 'reference');
			for (const s of barStats)
				s.add(want[s.name], base[s.name], a, where);
		}
		n++;
	}
	const rep = { original: a.files[0], candidate: a.files[1], samples: n,
		source: a.inputs || `random, seed ${a.seed}`, opt_level: a.opt,
		rtol: a.rtol, atol: a.atol, stats_only: a.statsOnly,
		outputs: stats.map((s, k) => s.result(a, barStats && barStats[k].result(a))) };
	if (bar) {
		rep.reference = a.reference;
		rep.margin = a.margin;
	}
	rep.pass = rep.outputs.every((o) => o.pass);
	if (a.json)
		process.stdout.write(JSON.stringify(rep, (k, v) =>
			typeof v === 'number' && !Number.isFinite(v) ? String(v) : v, 1) + '\n');
	else
		process.stdout.write(table(rep));
	process.exitCode = rep.pass ? EXIT.PASS : EXIT.FAIL;
}

// ---- the supervisor: ORT runs in a child process (the worker, this
// script again) so that a run ORT never returns from (1.30 spins for
// ever on a Conv over zero input channels) is ended at a bound, and so
// that the files ORT's node binding leaves in TMPDIR (mat-debug-PID.log,
// .ses: telemetry) go to a private folder removed afterwards. ----

const WORKER_ENV = 'QOPT_ORT_CHECK_WORKER';
// SIGTERM's grace before SIGKILL, as qopt's (core/cli/ort-child.c)
const GRACE_MS = 5000;

// The default bound: qopt's (core/cli/ort-child.c, docs/calibration.md).
function defaultBound(a) {
	let bytes = 0;
	for (const f of [...a.files, a.reference].filter((x) => x !== null))
		for (const p of [f, `${f}.data`])
			try {
				bytes += fs.statSync(p).size;
			} catch (e) { /* no external data */ }
	let n = a.random;
	if (a.inputs)
		try {
			n = lib.sampleDirs(a.inputs).length;
		} catch (e) {
			n = 1;
		}
	return Math.min(31536000, Math.floor(600 + Math.max(n, 1) * (10 + 60 * bytes / 2 ** 30)));
}

function bound(a) {
	if (a.ortTimeout !== null)
		return a.ortTimeout;
	const env = process.env.QOPT_ORT_TIMEOUT;
	if (env)
		return timeoutArg('QOPT_ORT_TIMEOUT', env);
	return defaultBound(a);
}

// A model the worker must never be given (lib.zeroSizeConv): the exit
// status of a model ORT cannot run.
function refuseHangs(a) {
	const which = [[a.files[0], EXIT.ORIGINAL], [a.files[1], EXIT.CANDIDATE]];
	if (a.reference !== null)
		which.push([a.reference, EXIT.ORIGINAL]);
	for (const [f, status] of which) {
		const z = lib.zeroSizeConv(f);
		if (z)
			fail(status, `${lib.escapeText(f)}: ${lib.zeroSizeConvMessage(z)}`);
	}
}

function supervise() {
	const os = require('os');
	const cp = require('child_process');
	const a = parseArgs(process.argv.slice(2));
	for (const f of [...a.files, a.reference].filter((x) => x !== null))
		if (!fs.existsSync(f))
			fail(EXIT.USAGE, `${lib.escapeText(f)}: no such file`);
	refuseHangs(a);
	const limit = bound(a);
	let tmp;
	try {
		tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qopt-ort-check-'));
	} catch (e) {
		fail(EXIT.USAGE, `cannot make a temporary folder in ${lib.escapeText(os.tmpdir())}: ${e.message}`);
	}
	const clean = () => fs.rmSync(tmp, { recursive: true, force: true });
	// its own process group (detached): a bound or a stop ends all of it
	const child = cp.spawn(process.execPath, [__filename, ...process.argv.slice(2)], {
		stdio: ['inherit', 'inherit', 'inherit', 'ipc'], detached: true,
		env: Object.assign({}, process.env, { TMPDIR: tmp, [WORKER_ENV]: '1' }) });
	let busy = { what: 'original', where: null }, timedOut = false, stopped = null;
	child.on('message', (m) => { busy = m; });
	const end = () => {
		try {
			process.kill(-child.pid, 'SIGTERM');
		} catch (e) { /* gone already */ }
		setTimeout(() => {
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch (e) { /* gone */ }
		}, GRACE_MS).unref();
	};
	const timer = limit > 0 ? setTimeout(() => {
		timedOut = true;
		end();
	}, limit * 1000) : null;
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'])
		process.on(sig, () => {
			stopped = sig;
			end();
		});
	child.on('error', (e) => {
		clean();
		fail(EXIT.NO_ORT, `cannot run ${process.execPath}: ${e.message}`);
	});
	child.on('exit', (code, sig) => {
		if (timer)
			clearTimeout(timer);
		// whatever the worker started goes with it
		try {
			process.kill(-child.pid, 'SIGKILL');
		} catch (e) { /* none left */ }
		clean();
		if (stopped) {
			process.removeAllListeners(stopped);
			process.kill(process.pid, stopped);
			return;
		}
		const file = { original: a.files[0], candidate: a.files[1],
			reference: a.reference }[busy.what];
		const status = busy.what === 'candidate' ? EXIT.CANDIDATE : EXIT.ORIGINAL;
		if (timedOut)
			fail(status, `${lib.escapeText(file)}: ONNX Runtime did not finish ${busy.where ?
				`running the ${busy.what} on ${lib.escapeText(busy.where)}` :
				`loading the ${busy.what}`} within ${limit} s (--ort-timeout, QOPT_ORT_TIMEOUT): ended (SIGTERM, then SIGKILL)`);
		if (sig)
			fail(status, `${lib.escapeText(file)}: ONNX Runtime ended by ${sig} while ${busy.where ?
				`running the ${busy.what} on ${lib.escapeText(busy.where)}` :
				`loading the ${busy.what}`}`);
		process.exitCode = code;
	});
}

if (process.env[WORKER_ENV] === '1')
	work().catch((e) => fail(EXIT.USAGE, e instanceof lib.InputError ?
		lib.escapeText(e.message) : e.stack || String(e)));
else
	supervise();

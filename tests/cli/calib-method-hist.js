// tests/cli/calib-method-hist.js: the histogram math of qopt calibrate's
// methods (tools/qopt-calib-hist.js) on known distributions, as TAP:
// growing and merging histograms equal the one-shot histogram bin for
// bin; entropy and mse clip a Gaussian with one outlier far below the
// max and a uniform distribution not at all; the percentile from the
// bins within one bin of the exact nearest rank; memory fixed.
'use strict';
const path = require('path');
const H = require(path.join(__dirname, '..', '..', 'tools', 'qopt-calib-hist.js'));

let n = 0, failed = 0;
function ok(cond, what) {
	n++;
	if (!cond)
		failed++;
	console.log(`${cond ? 'ok' : 'not ok'} ${n} - ${what}`);
}

// Seeded: the same numbers every run.
function rng(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}
function gaussian(r, count, sigma) {
	const x = new Float64Array(count);
	for (let i = 0; i < count; i++)
		x[i] = sigma * Math.sqrt(-2 * Math.log(1 - r())) *
			Math.cos(2 * Math.PI * r());
	return x;
}
function concat(parts) {
	const all = new Float64Array(parts.reduce((s, p) => s + p.length, 0));
	let o = 0;
	for (const p of parts) {
		all.set(p, o);
		o += p.length;
	}
	return all;
}
function sameBins(a, b) {
	if (a.range !== b.range || a.count !== b.count || a.amax !== b.amax)
		return false;
	return a.counts.every((c, j) => c === b.counts[j]);
}
// Exact nearest rank of |x|.
function nearestRank(x, p) {
	const a = Float64Array.from(x, Math.abs).sort();
	return a[Math.max(1, Math.ceil(p / 100 * a.length)) - 1];
}

const r = rng(42);
console.log('1..16');

// Samples of growing spread: the range doubles several times on the way.
const parts = [0.01, 0.3, 1, 7, 2, 150, 3].map((s) => gaussian(r, 5000, s));
const grown = new H.Histogram();
for (const p of parts)
	grown.add(p);
const once = new H.Histogram();
once.add(concat(parts));
ok(sameBins(grown, once), `a histogram grown over 7 samples (range ${grown.range}) equals the one-shot histogram bin for bin`);
const left = new H.Histogram(), right = new H.Histogram();
parts.forEach((p, i) => (i % 2 ? right : left).add(p));
right.merge(left);
ok(sameBins(right, once), 'two histograms of alternate samples merged equal the one-shot histogram bin for bin');
ok(grown.counts.length === H.NBINS && grown.kept() === 0,
	`its memory is ${H.NBINS} bins and no kept value, whatever the samples`);
ok(grown.range > grown.amax && grown.range <= 2 * grown.amax &&
	grown.used() > H.NBINS / 2, 'the range is the power of two above the max, the data fills over half the bins');

// A Gaussian (sigma 1) with one outlier at 100.
const g = gaussian(r, 200000, 1);
g[12345] = 100;
const gh = new H.Histogram();
gh.add(g);
const ent = H.entropyAmax(gh), mse = H.mseAmax(gh);
ok(ent > 2 && ent < 20, `entropy clips a Gaussian with an outlier at 100: amax ${ent.toFixed(3)} (max 100)`);
ok(mse > 2 && mse < 100, `mse clips it too: amax ${mse.toFixed(3)} (the outlier's squared error weighs in)`);
// The quantity mse minimizes, on the values themselves: no clip value
// on a fine grid does better than 1% below its threshold's.
function qerr(x, c) {
	let e = 0;
	for (let i = 0; i < x.length; i++) {
		const a = Math.abs(x[i]), d = a - H.int8Quant(a, c, 127);
		e += d * d;
	}
	return e;
}
let gridBest = Infinity;
for (let c = 4; c <= 100; c += 0.25)
	gridBest = Math.min(gridBest, qerr(g, c));
ok(qerr(g, mse) <= gridBest * 1.01 && qerr(g, mse) < qerr(g, 100) / 1.5,
	`mse's INT8 error on the values is the grid's least (${(qerr(g, mse) / gridBest).toFixed(4)}x), ${(qerr(g, 100) / qerr(g, mse)).toFixed(2)}x below max's`);

// Uniform in [0, 1): nothing to clip.
const u = new Float64Array(200000).map(() => r());
const uh = new H.Histogram();
uh.add(u);
ok(H.mseAmax(uh) > 0.97 * uh.amax, `mse keeps a uniform distribution's range: ${H.mseAmax(uh).toFixed(4)} of ${uh.amax.toFixed(4)}`);
ok(H.entropyAmax(uh) > 0.9 * uh.amax, `entropy nearly so: ${H.entropyAmax(uh).toFixed(4)}`);

// Few bins used (every bin resolves): the max, exactly.
const few = new H.Histogram();
few.add([0.5, 1, 3, 0.25]);
ok(H.entropyAmax(few) === 3 && H.mseAmax(few) === 3, 'data in fewer bins than levels: entropy and mse give the max');

// Percentile: exact while the values are kept, else from the bins.
const small = new H.Histogram(H.NBINS, true);
small.add(g.subarray(0, 1000));
small.add(g.subarray(1000, 3000));
ok(H.percentileAmax(small, 99) === nearestRank(g.subarray(0, 3000), 99),
	'3000 values: the percentile is the exact nearest rank');
const big = new H.Histogram(H.NBINS, true);
for (let o = 0; o < g.length; o += 10000)
	big.add(g.subarray(o, o + 10000));
const exact = nearestRank(g, 99.9), binned = H.percentileAmax(big, 99.9);
ok(big.kept() === 0 && binned >= exact && binned - exact <= big.binWidth(),
	`200000 values: none kept, the 99.9th percentile ${binned} within one bin (${big.binWidth()}) above the exact ${exact}`);

// Round half to even on the INT8 grid.
ok(H.int8Quant(2.5, 127, 127) === 2 && H.int8Quant(3.5, 127, 127) === 4 &&
	H.int8Quant(500, 127, 127) === 127, 'the INT8 grid rounds half to even and saturates at 127');

// Entropy against the algorithm written out plainly (arrays of bins per
// level, KL by definition), on a small histogram of a skewed sample.
function entropyRef(counts, zeros, w, amax) {
	const c = Array.from(counts);
	c[0] -= zeros;
	let used = c.length;
	while (used && !c[used - 1])
		used--;
	const smoothed = (v) => {
		const nz = v.filter((x) => x !== 0).length, z = v.length - nz;
		if (!nz)
			return null;
		const out = v.map((x) => (x === 0 ? 1e-4 : x - 1e-4 * z / nz));
		return out.some((x) => x <= 0) ? null : out;
	};
	let best = Infinity, arg = used;
	for (let i = 128; i <= used; i++) {
		const P = c.slice(0, i);
		P[i - 1] += c.slice(i).reduce((s, x) => s + x, 0);
		const width = Math.floor(i / 128), levels = [];
		for (let j = 0; j < i; j++) {
			const l = Math.min(Math.floor(j / width), 127);
			(levels[l] = levels[l] || []).push(j);
		}
		const Q = new Array(i).fill(0);
		for (const members of levels) {
			const full = members.filter((k) => c[k]);
			const mean = full.reduce((s, k) => s + c[k], 0) / full.length;
			for (const k of full)
				Q[k] = mean;
		}
		const ps = smoothed(P), qs = smoothed(Q);
		if (!ps || !qs)
			continue;
		const sp = ps.reduce((s, x) => s + x, 0), sq = qs.reduce((s, x) => s + x, 0);
		const kl = ps.reduce((s, x, j) => s + x / sp * Math.log((x / sp) / (qs[j] / sq)), 0);
		if (kl < best) {
			best = kl;
			arg = i;
		}
	}
	return Math.min(arg * w, amax);
}
const sk = new H.Histogram(512);
const skew = gaussian(r, 20000, 1).map((v) => v * v);	// chi-square, with zeros
skew.fill(0, 0, 3000);
skew[7] = 60;
sk.add(skew);
const mine = H.entropyAmax(sk), ref = entropyRef(sk.counts, sk.zeros, sk.binWidth(), sk.amax);
ok(mine === ref && mine < 60, `entropy equals the algorithm written out plainly on 512 bins: ${mine} (${ref})`);

// A value no power of two is above: refused, not binned wrong.
let threw = '';
try {
	new H.Histogram().add([1, 1e308 * 1.5]);
} catch (e) {
	threw = e instanceof RangeError ? e.message : '';
}
ok(/too large for a histogram/.test(threw), `|x| of 2^1023 or more is an error: ${threw}`);

// Empty: no value at all.
ok(H.entropyAmax(new H.Histogram()) === null && H.amaxOf(new H.Histogram(), 'mse') === null,
	'no element: no amax (qopt says so)');
process.exit(failed ? 1 : 0);

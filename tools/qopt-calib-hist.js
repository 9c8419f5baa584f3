// tools/qopt-calib-hist.js: the range of one tensor for `qopt calibrate`
// (qopt-calibrate.js feeds it), by each method qopt knows: max,
// percentile, entropy (TensorRT's legacy KL-divergence calibrator) and
// mse. docs/calibration.md, "Methods", says what each is for.
//
// Memory is fixed per tensor: a histogram of |x| in NBINS bins over
// [0, R), R the smallest power of two above the largest |x| seen. When a
// sample's max reaches R, R doubles and pairs of bins merge, so the bin
// edges of the coarser histogram are edges of the finer one: a histogram
// grown sample by sample holds exactly the counts of one built over all
// samples at once (Histogram.merge adds two the same way). The data
// then fills between NBINS/2 and NBINS bins, never fewer than TensorRT's
// 2048 over [0, amax] with the default 4096.
'use strict';

const NBINS = 4096;
// Up to this many elements per tensor the percentile is the exact
// nearest rank (the values are kept); beyond, the kept values are
// dropped and it comes from the histogram (at most one bin above).
const EXACT_MAX = 65536;
const METHODS = ['max', 'percentile', 'entropy', 'mse'];

// The smallest power of two above m (m > 0, finite); Infinity past
// 2^1023, which the caller refuses.
function pow2Above(m) {
	let r = 2 ** Math.floor(Math.log2(m));
	while (r <= m)
		r *= 2;
	while (r < Infinity && r / 2 > m)
		r /= 2;
	return r;
}

class Histogram {
	constructor(nbins = NBINS, keepExact = false) {
		if (!(nbins >= 2 && (nbins & (nbins - 1)) === 0))
			throw new RangeError(`bins must be a power of two, got ${nbins}`);
		this.nbins = nbins;
		this.counts = new Float64Array(nbins);	// exact below 2^53
		this.range = 0;		// 0 until a value above 0 is seen
		this.amax = 0;		// exact, whatever the bins
		this.count = 0;
		this.zeros = 0;		// exact zeros, in bin 0 too
		this.keep = keepExact ? [] : null;
	}

	// Doubles the range until it is above m, merging pairs of bins.
	grow(m) {
		if (this.range === 0) {
			this.range = pow2Above(m);
			if (this.range === Infinity)
				throw new RangeError(`|x| = ${m} is too large for a histogram (2^1023 or more)`);
			return;
		}
		const c = this.counts, half = this.nbins / 2;
		while (this.range <= m) {
			for (let j = 0; j < half; j++)
				c[j] = c[2 * j] + c[2 * j + 1];
			c.fill(0, half);
			this.range *= 2;
			if (this.range === Infinity)
				throw new RangeError(`|x| = ${m} is too large for a histogram (2^1023 or more)`);
		}
	}

	// x: an array of finite numbers (the caller checks for Inf/NaN).
	add(x) {
		let m = 0;
		for (let i = 0; i < x.length; i++) {
			const a = Math.abs(x[i]);
			if (a > m)
				m = a;
		}
		if (m > 0 && m >= this.range)
			this.grow(m);
		if (m > this.amax)
			this.amax = m;
		const c = this.counts, r = this.range, nb = this.nbins;
		// a / r is exact (r a power of two), so the bin of a value
		// does not depend on how the range got there
		let z = 0;
		for (let i = 0; i < x.length; i++) {
			const a = Math.abs(x[i]);
			c[r ? Math.floor(a / r * nb) : 0]++;
			if (a === 0)
				z++;
		}
		this.zeros += z;
		this.count += x.length;
		if (this.keep) {
			if (this.count > EXACT_MAX)
				this.keep = null;
			else
				this.keep.push(Float64Array.from(x, Math.abs));
		}
	}

	// Adds other's counts (the histograms of two sample sets give the
	// one of both). Exact values are kept only while both had them.
	merge(other) {
		if (other.nbins !== this.nbins)
			throw new RangeError('histograms of different bin counts');
		const o = other.clone();
		if (o.range > this.range)
			this.grow(o.range / 2);
		else if (this.range > o.range && o.range)
			o.grow(this.range / 2);
		for (let j = 0; j < this.nbins; j++)
			this.counts[j] += o.counts[j];
		this.amax = Math.max(this.amax, o.amax);
		this.count += o.count;
		this.zeros += o.zeros;
		this.keep = this.keep && o.keep && this.count <= EXACT_MAX ?
			this.keep.concat(o.keep) : null;
	}

	clone() {
		const h = new Histogram(this.nbins, false);
		h.counts.set(this.counts);
		h.range = this.range;
		h.amax = this.amax;
		h.count = this.count;
		h.zeros = this.zeros;
		h.keep = this.keep ? this.keep.slice() : null;
		return h;
	}

	binWidth() {
		return this.range / this.nbins;
	}

	// The counts without the exact zeros (a ReLU's half of the values):
	// 0 is on every grid, so they say nothing about the threshold, and
	// in bin 0 they would outweigh the rest of the distribution in
	// entropy's KL divergence.
	nonzeroCounts() {
		const c = Float64Array.from(this.counts);
		c[0] -= this.zeros;
		return c;
	}

	// Bins up to the last one holding a count.
	used() {
		let u = this.nbins;
		while (u > 0 && this.counts[u - 1] === 0)
			u--;
		return u;
	}

	// How many |x| values are held besides the bins (the debug stat
	// of --verbose: bounded by EXACT_MAX whatever the sample count).
	kept() {
		return this.keep ? this.count : 0;
	}
}

// Nearest-rank P-th percentile of |x|: exact while the values are
// kept, else the upper edge of the bin holding that rank (at most one
// bin width above the exact value), never above the max.
function percentileAmax(h, p) {
	if (!h.count)
		return null;
	if (p >= 100)
		return h.amax;
	const rank = Math.max(1, Math.ceil(p / 100 * h.count));
	if (h.keep) {
		const all = new Float64Array(h.count);
		let o = 0;
		for (const a of h.keep) {
			all.set(a, o);
			o += a.length;
		}
		all.sort();
		return all[rank - 1];
	}
	let cum = 0, j = 0;
	for (; j < h.nbins - 1; j++) {
		cum += h.counts[j];
		if (cum >= rank)
			break;
	}
	return Math.min((j + 1) * h.binWidth(), h.amax);
}

// MXNet's smoothing of a distribution for the KL divergence: eps moved
// onto the empty bins from the others, so that log(p / q) is finite.
// False when it cannot (no count, or a count smaller than its share).
function smooth(p, n, eps) {
	let zeros = 0;
	for (let j = 0; j < n; j++)
		if (p[j] === 0)
			zeros++;
	if (zeros === n)
		return false;
	const take = eps * zeros / (n - zeros);
	for (let j = 0; j < n; j++) {
		if (p[j] === 0)
			p[j] = eps;
		else if ((p[j] -= take) <= 0)
			return false;
	}
	return true;
}

// TensorRT's legacy entropy calibrator (IInt8EntropyCalibrator2), on
// the histogram: for each candidate of i bins (levels to the last bin
// used), P = the first i bins with every count above them added to bin
// i-1; Q = those i bins merged into `levels` groups (the last group
// takes the remainder) and spread back evenly over the group's non-empty
// bins (empty ones stay empty); both smoothed; exact zeros left out
// (nonzeroCounts); the i with the smallest
// KL(P || Q) wins (the first on a tie) and amax is its upper edge. With
// no more bins used than levels there is nothing to clip: the max.
function entropyAmax(h, levels = 128) {
	if (!h.count)
		return null;
	const used = h.used();
	if (used <= levels)
		return h.amax;
	const c = h.nonzeroCounts();
	const above = new Float64Array(used + 1);	// counts from bin j up
	for (let j = used - 1; j >= 0; j--)
		above[j] = above[j + 1] + c[j];
	const p = new Float64Array(used), q = new Float64Array(used);
	let best = Infinity, bestI = used;
	for (let i = levels; i <= used; i++) {
		for (let j = 0; j < i; j++)
			p[j] = c[j];
		p[i - 1] += above[i];
		const width = Math.floor(i / levels);
		for (let k = 0; k < levels; k++) {
			const lo = k * width, hi = k === levels - 1 ? i : lo + width;
			let sum = 0, nz = 0;
			for (let j = lo; j < hi; j++)
				if (c[j]) {
					sum += c[j];
					nz++;
				}
			for (let j = lo; j < hi; j++)
				q[j] = c[j] ? sum / nz : 0;
		}
		if (!smooth(p, i, 1e-4) || !smooth(q, i, 1e-4))
			continue;
		let ps = 0, qs = 0;
		for (let j = 0; j < i; j++) {
			ps += p[j];
			qs += q[j];
		}
		let kl = 0;
		for (let j = 0; j < i; j++)
			kl += p[j] / ps * Math.log((p[j] / ps) / (q[j] / qs));
		if (kl < best) {
			best = kl;
			bestI = i;
		}
	}
	return Math.min(bestI * h.binWidth(), h.amax);
}

// Round half to even, for v >= 0.
function rne(v) {
	const r = Math.round(v);
	return r - v === 0.5 && r % 2 ? r - 1 : r;
}

// The symmetric INT8 grid (levels = 127): clip to c, round to a
// multiple of c / levels, half to even.
function int8Quant(x, c, levels) {
	return Math.min(rne(x / (c / levels)), levels) * (c / levels);
}

// The clip value minimizing the expected squared quantization error
// over the histogram, each bin's count at its center: candidates are
// the upper edges of bins `levels`+1 .. the last bin used (the last is
// the max). With fewer bins used, the max.
function mseAmax(h, levels = 127, quant = int8Quant) {
	if (!h.count)
		return null;
	const used = h.used();
	if (used <= levels + 1)
		return h.amax;
	const c = h.nonzeroCounts(), w = h.binWidth();
	let best = Infinity, bestI = used;
	for (let i = levels + 1; i <= used; i++) {
		const clip = i * w;
		let err = 0;
		for (let j = 0; j < used; j++) {
			if (!c[j])
				continue;
			const x = (j + 0.5) * w, d = x - quant(x, clip, levels);
			err += c[j] * d * d;
		}
		if (err < best) {
			best = err;
			bestI = i;
		}
	}
	return Math.min(bestI * w, h.amax);
}

// The tensor's amax by method (null: no element in any sample).
function amaxOf(h, method, percentile) {
	switch (method) {
	case 'max': return h.count ? h.amax : null;
	case 'percentile': return percentileAmax(h, percentile);
	case 'entropy': return entropyAmax(h);
	case 'mse': return mseAmax(h);
	}
	throw new RangeError(`unknown calibration method '${method}' (known: ${METHODS.join(', ')})`);
}

module.exports = { NBINS, EXACT_MAX, METHODS, Histogram, percentileAmax,
	entropyAmax, mseAmax, int8Quant, amaxOf };

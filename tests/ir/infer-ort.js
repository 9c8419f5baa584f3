'use strict';
/*
 * tests/ir/infer-ort.js SEED COUNT WORKDIR - qopt's shape inference against
 * the shapes ONNX Runtime computes when it runs the model. COUNT small
 * random graphs of shape arithmetic (Shape, Slice, Gather, Concat,
 * Cast, Add/Sub/Mul/Div, Reshape, Unsqueeze, Squeeze, ConstantOfShape,
 * Expand, Range, Transpose, Tile), model i from seed SEED + i, every
 * value a graph output. Each is run in ORT (x of zeros) and through
 * `qopt --passes infer-shapes`; every element type and static dim qopt
 * claims must be what ORT produced. A model ORT rejects is skipped and
 * counted (QOPT_INFER_ORT_SHOW=1 lists the models instead of running
 * them). On a disagreement: the seed, the value, both shapes, and the
 * model kept as WORKDIR/fail-SEED.onnx. TAP out, one line per model
 * that fails plus a summary line.
 *
 * The generator follows the true shapes and int values itself (BigInt,
 * the run-time wraparound included) only to stay clear of what would
 * make ORT allocate much; ORT alone says what is right.
 */
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const lib = require('../ort/lib.js');

const [seed0, count] = [Number(process.argv[2]), Number(process.argv[3])];
const work = process.argv[4];
const QOPT = process.env.QOPT;

/* ---- protobuf writer (the fields of onnx.proto used here) ---- */
function varint(v) {
	let x = BigInt.asUintN(64, BigInt(v));
	const out = [];
	do {
		let b = Number(x & 0x7fn);
		x >>= 7n;
		if (x) b |= 0x80;
		out.push(b);
	} while (x);
	return Buffer.from(out);
}
const key = (f, w) => varint((f << 3) | w);
const fVar = (f, v) => Buffer.concat([key(f, 0), varint(v)]);
function fLen(f, b) {
	if (typeof b === 'string') b = Buffer.from(b);
	return Buffer.concat([key(f, 2), varint(b.length), b]);
}
const cat = (a) => Buffer.concat(a.filter(Boolean));

const T = { FLOAT: 1, INT32: 6, INT64: 7 };
function tensorPb(name, dtype, dims, vals) {
	const w = dtype === T.INT64 ? 8 : 4;
	const raw = Buffer.alloc(w * vals.length);
	vals.forEach((v, i) => {
		if (dtype === T.INT64) raw.writeBigInt64LE(BigInt.asIntN(64, BigInt(v)), i * w);
		else if (dtype === T.INT32) raw.writeInt32LE(Number(BigInt.asIntN(32, BigInt(v))), i * w);
		else raw.writeFloatLE(Number(v), i * w);
	});
	return cat([...dims.map((d) => fVar(1, d)), fVar(2, dtype), fLen(8, name), fLen(9, raw)]);
}
function valueInfoPb(name, dtype, dims) {
	let shape = null;
	if (dims)
		shape = fLen(2, cat(dims.map((d) => fLen(1, typeof d === 'string' ? fLen(2, d) : fVar(1, d)))));
	return cat([fLen(1, name), fLen(2, fLen(1, cat([fVar(1, dtype), shape])))]);
}
function attrPb(name, v) {
	if (typeof v === 'object' && v.tensor)
		return cat([fLen(1, name), fLen(5, v.tensor), fVar(20, 4)]);
	if (Array.isArray(v))
		return cat([fLen(1, name), ...v.map((x) => fVar(8, x)), fVar(20, 7)]);
	return cat([fLen(1, name), fVar(3, v), fVar(20, 2)]);
}
function nodePb(n, i) {
	return cat([...n.inputs.map((s) => fLen(1, s)), fLen(2, n.output), fLen(3, 'n' + i),
		    fLen(4, n.op), ...Object.entries(n.attrs || {}).map(([k, v]) => fLen(5, attrPb(k, v)))]);
}
function modelPb(m) {
	const g = cat([...m.nodes.map((n, i) => fLen(1, nodePb(n, i))), fLen(2, 'g'),
		       ...m.inits.map((t) => fLen(5, tensorPb(t.name, t.dtype, t.dims, t.vals))),
		       fLen(11, valueInfoPb('x', T.FLOAT, m.xdecl)),
		       ...m.outs.map((o) => fLen(12, fLen(1, o.name)))]);
	return cat([fVar(1, 8), fLen(8, cat([fLen(1, ''), fVar(2, m.opset)])), fLen(7, g)]);
}

/* ---- protobuf reader: the types qopt wrote ---- */
function fields(buf) {
	const out = [];
	let p = 0;
	const rv = () => {
		let x = 0n, s = 0n, b;
		do { b = buf[p++]; x |= BigInt(b & 0x7f) << s; s += 7n; } while (b & 0x80);
		return x;
	};
	while (p < buf.length) {
		const k = Number(rv()), f = k >> 3, w = k & 7;
		if (w === 0) out.push({ f, v: rv() });
		else if (w === 2) { const l = Number(rv()); out.push({ f, b: buf.subarray(p, p + l) }); p += l; }
		else if (w === 1) p += 8;
		else if (w === 5) p += 4;
		else throw new Error('bad wire type');
	}
	return out;
}
const sub = (fs_, f) => fs_.filter((x) => x.f === f);
function qoptTypes(buf) {
	const r = {};
	const graph = fields(sub(fields(buf), 7)[0].b);
	for (const vi of [...sub(graph, 12), ...sub(graph, 13)]) {
		const vf = fields(vi.b);
		const name = sub(vf, 1)[0].b.toString();
		const tp = sub(vf, 2)[0];
		if (!tp) continue;
		const tt = sub(fields(tp.b), 1)[0];
		if (!tt) continue;
		const tf = fields(tt.b);
		const et = sub(tf, 1)[0];
		const sh = sub(tf, 2)[0];
		r[name] = { dtype: et ? Number(et.v) : 0, dims: sh ? sub(fields(sh.b), 1).map((d) => {
			const v = sub(fields(d.b), 1)[0];
			return v ? Number(BigInt.asIntN(64, v.v)) : -1;
		}) : null };
	}
	return r;
}

/* ---- the generator ---- */
/* mulberry32: neighbouring seeds give unrelated models */
function rng(seed) {
	let a = Math.imul(seed >>> 0, 0x9e3779b1) >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}
const I64MIN = -(2n ** 63n), I64MAX = 2n ** 63n - 1n;
const wrap = (dt, v) => dt === T.INT32 ? BigInt.asIntN(32, v) : BigInt.asIntN(64, v);
const numel = (sh) => sh.reduce((a, b) => a * b, 1);

function generate(seed) {
	const r = rng(seed);
	const ri = (a, b) => a + Math.floor(r() * (b - a + 1));
	const pick = (a) => a[Math.floor(r() * a.length)];
	const m = { nodes: [], inits: [], outs: [], opset: pick([13, 17, 18]) };
	/* pool entries: { name, dtype, shape, vals (ints, flat BigInt) } */
	const ints = [], floats = [];
	let k = 0;
	const fresh = () => 'v' + k++;
	const xs = Array.from({ length: ri(1, 4) }, () => ri(0, 6) === 0 ? pick([0, 1]) : ri(1, 6));
	m.xshape = xs;
	m.xdecl = xs.map((d, i) => r() < 0.2 ? 'd' + i : d);
	floats.push({ name: 'x', dtype: T.FLOAT, shape: xs });
	const konst = (dtype, vals, dims) => {
		const name = fresh();
		m.inits.push({ name, dtype, dims: dims || [vals.length], vals });
		return name;
	};
	const edge = () => pick([0n, 1n, 2n, -1n, -2n, 3n, 100n, -100n, I64MIN, I64MAX,
				 I64MIN + 1n, I64MAX - 1n, 2147483647n, -2147483648n, BigInt(ri(-6, 6)), BigInt(ri(-6, 6))]);
	const emit = (op, inputs, attrs, res) => {
		const name = fresh();
		m.nodes.push({ op, inputs, output: name, attrs });
		res.name = name;
		m.outs.push({ name, dtype: res.dtype });
		(res.dtype === T.FLOAT ? floats : ints).push(res);
		return res;
	};
	const vecs = () => ints.filter((v) => v.shape.length === 1 && v.vals);
	const anyOf = (p) => p.length ? pick(p) : null;
	const small = (vals) => vals.every((v) => v >= 0n && v <= 8n) &&
		vals.reduce((a, b) => a * b, 1n) <= 512n;

	const ops = {
		Shape() {
			const x = pick(floats), rk = x.shape.length;
			const attrs = {};
			let s = 0, e = rk;
			if (m.opset >= 15 && r() < 0.5) {
				attrs.start = Number(pick([0n, 1n, -1n, 2n, -100n, 100n]));
				s = attrs.start < 0 ? Math.max(0, attrs.start + rk) : Math.min(attrs.start, rk);
			}
			if (m.opset >= 15 && r() < 0.3) {
				attrs.end = Number(pick([0n, 1n, -1n, 3n, -100n, 100n]));
				e = attrs.end < 0 ? Math.max(0, attrs.end + rk) : Math.min(attrs.end, rk);
			}
			const vals = x.shape.slice(s, Math.max(s, e)).map(BigInt);
			emit('Shape', [x.name], attrs, { dtype: T.INT64, shape: [vals.length], vals });
		},
		Slice() {
			const v = r() < 0.6 ? anyOf(vecs()) : pick(floats);
			if (!v || !v.shape.length) return;
			const rk = v.shape.length;
			const axis = ri(-rk, rk - 1), a = axis < 0 ? axis + rk : axis, d = BigInt(v.shape[a]);
			const st = edge(), en = edge();
			let sp = pick([1n, 1n, -1n, 2n, -2n, 3n, I64MAX, I64MIN]);
			const ins = [v.name, konst(T.INT64, [st]), konst(T.INT64, [en]), konst(T.INT64, [BigInt(axis)])];
			if (sp !== 1n || r() < 0.5) ins.push(konst(T.INT64, [sp]));
			/* the ONNX rule, for the generator's own bookkeeping */
			const cl = (x, lo, hi) => x < lo ? lo : x > hi ? hi : x;
			let s = st < 0n ? st + d : st, e = en < 0n ? en + d : en, idx = [];
			if (sp > 0n) {
				s = cl(s, 0n, d); e = cl(e, 0n, d);
				for (let i = s; i < e; i += sp) idx.push(i);
			} else if (d > 0n) {
				s = cl(s, 0n, d - 1n); e = cl(e, -1n, d - 1n);
				for (let i = s; i > e; i += sp) idx.push(i);
			}
			const shape = v.shape.slice();
			shape[a] = idx.length;
			const vals = v.vals && rk === 1 ? idx.map((i) => v.vals[Number(i)]) : null;
			emit('Slice', ins, {}, { dtype: v.dtype, shape, vals });
		},
		Gather() {
			const v = anyOf(vecs());
			if (!v || !v.vals.length) return;
			const n = v.vals.length;
			const scalar = r() < 0.5;
			const idx = Array.from({ length: scalar ? 1 : ri(1, 3) }, () => BigInt(ri(-n, n - 1)));
			const ix = konst(T.INT64, idx, scalar ? [] : [idx.length]);
			const vals = idx.map((i) => v.vals[Number(i < 0n ? i + BigInt(n) : i)]);
			emit('Gather', [v.name, ix], { axis: 0 }, { dtype: v.dtype, shape: scalar ? [] : [idx.length], vals });
		},
		Concat() {
			const v = anyOf(vecs());
			if (!v) return;
			const w = r() < 0.5 ? anyOf(vecs().filter((u) => u.dtype === v.dtype)) : null;
			const cv = [pick([edge(), 4294967298n, 4294967296n + BigInt(ri(0, 3)), -4294967295n]),
				    BigInt(ri(0, 4))].slice(0, ri(0, 2)).map((x) => wrap(v.dtype, x));
			const other = w ? w : { name: konst(v.dtype, cv), vals: cv };
			const vals = v.vals.concat(other.vals);
			emit('Concat', [v.name, other.name], { axis: 0 }, { dtype: v.dtype, shape: [vals.length], vals });
		},
		Cast() {
			const v = anyOf(ints.filter((u) => u.vals));
			if (!v) return;
			const to = v.dtype === T.INT64 ? T.INT32 : T.INT64;
			emit('Cast', [v.name], { to }, { dtype: to, shape: v.shape.slice(), vals: v.vals.map((x) => wrap(to, x)) });
		},
		Arith() {
			const v = anyOf(ints.filter((u) => u.vals && u.shape.length <= 1));
			if (!v) return;
			const op = pick(['Add', 'Sub', 'Mul', 'Div']);
			const n = v.vals.length;
			let cv;
			if (op === 'Div') cv = [BigInt(pick([1, 2, 3, 7]))];
			else cv = [pick([edge(), 65536n, 4294967298n, 2147483647n, BigInt(ri(-3, 3))])];
			cv = cv.map((x) => wrap(v.dtype, x));
			if (n !== 1 && r() < 0.4) cv = Array.from({ length: n }, () => cv[0]);
			const swap = op !== 'Div' && r() < 0.4;
			const cdims = cv.length === 1 && r() < 0.3 ? [] : [cv.length];
			const c = konst(v.dtype, cv, cdims);
			const len = n;
			const shape = cdims.length || v.shape.length ? [len] : [];
			const vals = [];
			for (let i = 0; i < len; i++) {
				const a = v.vals[n === 1 ? 0 : i], b = cv[cv.length === 1 ? 0 : i];
				const [p, q] = swap ? [b, a] : [a, b];
				vals.push(wrap(v.dtype, op === 'Add' ? p + q : op === 'Sub' ? p - q : op === 'Mul' ? p * q : p / q));
			}
			emit(op, swap ? [c, v.name] : [v.name, c], {}, { dtype: v.dtype, shape, vals });
		},
		Unsqueeze() {
			const v = r() < 0.5 ? anyOf(ints.filter((u) => u.vals && u.shape.length === 0)) : pick(floats);
			if (!v || v.shape.length >= 5) return;
			const rk = v.shape.length + 1, ax = ri(-rk, rk - 1), a = ax < 0 ? ax + rk : ax;
			const shape = v.shape.slice();
			shape.splice(a, 0, 1);
			const axes = konst(T.INT64, [BigInt(ax)]);
			emit('Unsqueeze', m.opset >= 13 ? [v.name, axes] : [v.name], {}, { dtype: v.dtype, shape, vals: v.vals });
		},
		Squeeze() {
			const v = r() < 0.3 ? anyOf(ints.filter((u) => u.vals && u.shape.length === 1 && u.shape[0] === 1)) : pick(floats);
			if (!v) return;
			const ones = v.shape.map((d, i) => d === 1 ? i : -1).filter((i) => i >= 0);
			if (!ones.length && r() < 0.8) return;
			const ins = [v.name];
			let shape;
			if (r() < 0.3) {
				shape = v.shape.filter((d) => d !== 1);
			} else {
				const a = ones.length ? pick(ones) : ri(0, v.shape.length - 1);
				ins.push(konst(T.INT64, [BigInt(r() < 0.5 ? a : a - v.shape.length)]));
				shape = v.shape.filter((d, i) => i !== a);
			}
			emit('Squeeze', ins, {}, { dtype: v.dtype, shape, vals: v.vals });
		},
		ConstantOfShape() {
			const v = anyOf(vecs().filter((u) => u.dtype === T.INT64 && small(u.vals)));
			if (!v) return;
			const asInt = r() < 0.3;
			const val = asInt ? { tensor: tensorPb('val', T.INT64, [1], [BigInt(ri(0, 5))]) } : undefined;
			const shape = v.vals.map(Number);
			const res = { dtype: asInt ? T.INT64 : T.FLOAT, shape, vals: null };
			emit('ConstantOfShape', [v.name], val ? { value: val } : {}, res);
		},
		Expand() {
			const x = pick(floats);
			const v = anyOf(vecs().filter((u) => u.dtype === T.INT64 && small(u.vals.map((z) => z < 0n ? 9n : z))));
			if (!v) return;
			const sv = v.vals.map(Number), rk = Math.max(x.shape.length, sv.length), shape = [];
			for (let i = 0; i < rk; i++) {
				const a = x.shape[i - (rk - x.shape.length)] ?? 1, b = sv[i - (rk - sv.length)] ?? 1;
				if (a !== b && a !== 1 && b !== 1) return;
				shape.push(a === 1 ? b : a);
			}
			if (numel(shape) > 4096) return;
			emit('Expand', [x.name, v.name], {}, { dtype: T.FLOAT, shape });
		},
		Reshape() {
			const x = pick(floats);
			let v = anyOf(vecs().filter((u) => u.dtype === T.INT64));
			if (!v || r() < 0.5) {
				/* a valid target: x's dims regrouped, a 0 or -1 in it */
				const n = numel(x.shape);
				const t = n > 0 && n % 2 === 0 && r() < 0.5 ? [n / 2, 2] : [n];
				if (r() < 0.4) t[0] = -1;
				v = { name: konst(T.INT64, t.map(BigInt)), vals: t.map(BigInt) };
			}
			const az = m.opset >= 14 && r() < 0.2 ? 1 : 0;
			const shape = [];
			let neg = -1, known = 1;
			for (let i = 0; i < v.vals.length; i++) {
				let d = v.vals[i];
				if (d === 0n && !az) { if (i >= x.shape.length) return; d = BigInt(x.shape[i]); }
				if (d === -1n) { if (neg >= 0) return; neg = i; shape.push(-1); continue; }
				if (d < 0n || d > 4096n) return;
				shape.push(Number(d));
				known *= Number(d);
			}
			if (neg >= 0) {
				if (known === 0 || numel(x.shape) % known) return;
				shape[neg] = numel(x.shape) / known;
			} else if (known !== numel(x.shape)) return;
			emit('Reshape', [x.name, v.name], az ? { allowzero: 1 } : {}, { dtype: T.FLOAT, shape });
		},
		Transpose() {
			const x = pick(floats), rk = x.shape.length;
			const perm = [...Array(rk).keys()];
			for (let i = rk - 1; i > 0; i--) { const j = ri(0, i); [perm[i], perm[j]] = [perm[j], perm[i]]; }
			/* no perm: the dims reversed */
			const given = r() < 0.8;
			const p = given ? perm : perm.map((_, i) => rk - 1 - i);
			emit('Transpose', [x.name], given ? { perm } : {}, { dtype: T.FLOAT, shape: p.map((i) => x.shape[i]) });
		},
		Tile() {
			const x = pick(floats);
			const reps = x.shape.map(() => BigInt(ri(0, 3)));
			const shape = x.shape.map((d, i) => d * Number(reps[i]));
			if (numel(shape) > 4096) return;
			emit('Tile', [x.name, konst(T.INT64, reps)], {}, { dtype: T.FLOAT, shape });
		},
		Range() {
			const dt = pick([T.INT64, T.INT32]);
			const s = BigInt(ri(-5, 5)), l = BigInt(ri(-10, 10)), d = BigInt(pick([1, 2, 3, -1, -2]));
			const sc = (v) => konst(dt, [v], []);
			let n = (l - s + d + (d > 0n ? -1n : 1n)) / d;
			if (n < 0n) n = 0n;
			const vals = Array.from({ length: Number(n) }, (_, i) => s + BigInt(i) * d);
			emit('Range', [sc(s), sc(l), sc(d)], {}, { dtype: dt, shape: [vals.length], vals });
		},
	};
	/* the folding ops more often: that is where the edge cases are */
	const weight = { Slice: 5, Arith: 5, Cast: 4, Concat: 3, Shape: 2, Gather: 2,
			 ConstantOfShape: 3, Reshape: 2, Expand: 2 };
	const names = Object.keys(ops).flatMap((o) => Array(weight[o] || 1).fill(o));
	const steps = ri(3, 14);
	for (let i = 0; i < steps * 4 && m.nodes.length < steps; i++) {
		const op = i === 0 ? 'Shape' : pick(names);
		ops[op]();
	}
	return m;
}

/* ---- one model ---- */
let dimsChecked = 0;
const dtypeOf = { float32: T.FLOAT, int32: T.INT32, int64: T.INT64 };
const dn = { 1: 'FLOAT', 6: 'INT32', 7: 'INT64' };
const fmt = (dt, d) => `${dn[dt] || dt}[${d ? d.join(',') : '?'}]`;

async function one(seed) {
	const m = generate(seed);
	if (!m.nodes.length) return { skip: 'empty' };
	const pb = modelPb(m);
	let got;
	try {
		const s = await lib.createSession(pb);
		const x = new (lib.ort().Tensor)('float32', new Float32Array(numel(m.xshape)), m.xshape);
		got = await s.run({ x });
		if (s.release) await s.release();
	} catch (e) {
		return { skip: 'ORT: ' + lib.ortReason(e) };
	}
	const f = path.join(work, 'm.onnx'), o = path.join(work, 'm.out.onnx');
	fs.writeFileSync(f, pb);
	let q;
	try {
		execFileSync(QOPT, ['--passes', 'infer-shapes', f, '-o', o], { stdio: ['ignore', 'ignore', 'pipe'] });
		q = qoptTypes(fs.readFileSync(o));
	} catch (e) {
		return { bad: [`qopt failed on a model ORT runs: ${String(e.stderr || e.message).split('\n')[0]}`], pb };
	}
	const bad = [];
	for (const out of m.outs) {
		const t = got[out.name], c = q[out.name];
		if (!t || !c || !c.dims) continue;
		dimsChecked += c.dims.filter((d) => d >= 0).length;
		const ok = (!c.dtype || c.dtype === dtypeOf[t.type]) &&
			(!c.dims || (c.dims.length === t.dims.length &&
				     c.dims.every((d, i) => d < 0 || d === Number(t.dims[i]))));
		if (!ok)
			bad.push(`${out.name} (${m.nodes.find((n) => n.output === out.name).op}): qopt ${fmt(c.dtype, c.dims)}, ORT ${fmt(dtypeOf[t.type], t.dims)}`);
	}
	return bad.length ? { bad, pb } : { ok: true };
}

function describe(m) {
	const s = [`x: [${m.xdecl.join(',')}] fed [${m.xshape.join(',')}], opset ${m.opset}`];
	for (const t of m.inits)
		s.push(`${t.name} = ${dn[t.dtype]}[${t.dims.join(',')}] {${t.vals.join(', ')}}`);
	for (const n of m.nodes) {
		const a = Object.entries(n.attrs || {}).map(([k, v]) => ` ${k}=${v && v.tensor ? 'tensor' : JSON.stringify(v)}`).join('');
		s.push(`${n.output} = ${n.op}(${n.inputs.join(', ')})${a}`);
	}
	return s;
}

/* QOPT_INFER_ORT_SHOW=1: list the models of the seeds, run nothing */
if (process.env.QOPT_INFER_ORT_SHOW) {
	for (let i = 0; i < count; i++) {
		console.log(`-- seed ${seed0 + i}`);
		for (const l of describe(generate(seed0 + i))) console.log(l);
	}
	process.exit(0);
}

(async () => {
	let ok = 0, fail = 0, n = 0;
	const skips = {};
	for (let i = 0; i < count; i++) {
		const seed = seed0 + i;
		const r = await one(seed);
		if (r.skip) {
			const why = r.skip.replace(/'[^']*'/g, "'.'").replace(/\(n\d+\)/g, '(n.)').slice(0, 80);
			skips[why] = (skips[why] || 0) + 1;
			continue;
		}
		if (r.ok) { ok++; continue; }
		fail++;
		n++;
		console.log(`not ok ${n} - seed ${seed}: qopt disagrees with ORT`);
		for (const l of r.bad) console.log('#   ' + l);
		for (const l of describe(generate(seed))) console.log('#   ' + l);
		fs.writeFileSync(path.join(work, `fail-${seed}.onnx`), r.pb);
		if (fail >= 20) { console.log('# stopping after 20 failures'); break; }
	}
	const nskip = Object.values(skips).reduce((a, b) => a + b, 0);
	n++;
	console.log(`${fail ? 'not ok' : 'ok'} ${n} - seeds ${seed0}..${seed0 + count - 1}: ${ok} models agree (${dimsChecked} static dims checked), ${fail} disagree, ${nskip} skipped`);
	for (const [k, v] of Object.entries(skips).sort((a, b) => b[1] - a[1]).slice(0, 8))
		console.log(`# skipped ${v}: ${k}`);
	console.log(`1..${n}`);
	process.exit(fail ? 1 : 0);
})().catch((e) => { console.log('Bail out! ' + (e && e.stack || e)); process.exit(1); });

'use strict';
/*
 * tests/torch/learned/eval.js KIND DIR MODEL[@LEVEL]... - measures the
 * models with learned weights (tests/torch/learned/gen.py) in ONNX
 * Runtime on their held-out evaluation set, all in one process (a
 * process start is what costs on a loaded machine).
 *
 *   KIND   charlm      perplexity: exp(mean next-character NLL) over
 *                      DIR/charlm.eval.npy (int64 [N, 65]: 64 inputs,
 *                      the last 64 are the targets)
 *          shapes_cnn  top-1 accuracy over DIR/shapes_cnn.eval.npy
 *                      (uint8 [N, 32, 32], fed as x / 255) and
 *                      DIR/shapes_cnn.eval-labels.npy (int64 [N])
 *   LEVEL  ORT graph optimization: basic (default; the FP8 Q/DQ forms
 *          need it: `all` fuses DQ -> MatMul into QGemm, which has no
 *          FP8 kernel) or disabled (FLOAT16 FP8 Conv)
 *   QOPT_LEARNED_N  evaluate the first N items only (default: all)
 *
 * The first MODEL is the reference (the float model). Prints one JSON
 * object: {"kind", "n", "models": [{"model", "level", "ppl" | "top1",
 * "agree" (fraction of argmaxes equal to the reference's), "maxdiff"
 * (max |logit - reference logit|), "finite"}]}.
 */
const path = require('path');
const lib = require(path.join(__dirname, '..', '..', 'ort', 'lib.js'));

/* The evaluation set: feeds per item and the targets per item. */
function evalSet(kind, dir, limit) {
	const T = lib.ort().Tensor;
	const items = [];
	if (kind === 'charlm') {
		const e = lib.readNpy(path.join(dir, 'charlm.eval.npy'));
		const [n, w] = e.shape;
		for (let i = 0; i < Math.min(n, limit); i++) {
			const row = e.data.subarray(i * w, (i + 1) * w);
			items.push({
				feeds: { input_ids: new T('int64', row.slice(0, w - 1), [1, w - 1]) },
				targets: Array.from(row.subarray(1), Number),
			});
		}
	} else if (kind === 'shapes_cnn') {
		const e = lib.readNpy(path.join(dir, 'shapes_cnn.eval.npy'));
		const l = lib.readNpy(path.join(dir, 'shapes_cnn.eval-labels.npy'));
		const [n, hh, ww] = e.shape;
		const px = hh * ww;
		for (let i = 0; i < Math.min(n, limit); i++) {
			const x = new Float32Array(px);
			for (let j = 0; j < px; j++)
				x[j] = e.data[i * px + j] / 255;
			items.push({
				feeds: { x: new T('float32', x, [1, 1, hh, ww]) },
				targets: [Number(l.data[i])],
			});
		}
	} else {
		throw new Error(`unknown kind ${kind} (charlm or shapes_cnn)`);
	}
	return items;
}

/* Logits of every item: one Float32Array [positions * classes] each. */
function logitsOf(file, level, items) {
	return lib.runEach(file, { graphOptimizationLevel: level },
		items.map(it => it.feeds),
		(o, s) => Float32Array.from(o[s.outputNames[0]].data));
}

function argmax(a, off, c) {
	let b = 0;
	for (let j = 1; j < c; j++)
		if (a[off + j] > a[off + b])
			b = j;
	return b;
}

/* -log softmax(a[off .. off + c])[t], in double precision. */
function nll(a, off, c, t) {
	let m = -Infinity;
	for (let j = 0; j < c; j++)
		m = Math.max(m, a[off + j]);
	let s = 0;
	for (let j = 0; j < c; j++)
		s += Math.exp(a[off + j] - m);
	return Math.log(s) + m - a[off + t];
}

function score(kind, items, lg, ref) {
	let tot = 0, cnt = 0, hit = 0, agree = 0, maxdiff = 0, finite = true;
	for (let i = 0; i < items.length; i++) {
		const t = items[i].targets, a = lg[i], r = ref[i];
		const c = a.length / t.length;
		for (let p = 0; p < t.length; p++) {
			const am = argmax(a, p * c, c);
			if (kind === 'charlm')
				tot += nll(a, p * c, c, t[p]);
			hit += am === t[p];
			agree += am === argmax(r, p * c, c);
			cnt++;
		}
		for (let j = 0; j < a.length; j++) {
			finite = finite && Number.isFinite(a[j]);
			maxdiff = Math.max(maxdiff, Math.abs(a[j] - r[j]));
		}
	}
	const res = { agree: agree / cnt, maxdiff, finite };
	if (kind === 'charlm')
		res.ppl = Math.exp(tot / cnt);
	else
		res.top1 = hit / cnt;
	return res;
}

async function main() {
	const [kind, dir, ...models] = process.argv.slice(2);
	if (!kind || !dir || !models.length)
		throw new Error('usage: eval.js KIND DIR MODEL[@LEVEL]...');
	const limit = Number(process.env.QOPT_LEARNED_N || Infinity);
	const items = evalSet(kind, dir, limit);
	const out = { kind, n: items.length, models: [] };
	let ref = null;
	for (const m of models) {
		const at = m.lastIndexOf('@');
		const file = at > 0 ? m.slice(0, at) : m;
		const level = at > 0 ? m.slice(at + 1) : 'basic';
		const lg = await logitsOf(file, level, items);
		ref = ref || lg;
		out.models.push(Object.assign({ model: path.basename(file), level },
			score(kind, items, lg, ref)));
	}
	console.log(JSON.stringify(out));
}

main().catch(e => {
	console.error(`eval.js: ${lib.ortReason(e)}`);
	process.exit(1);
});

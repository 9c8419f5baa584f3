'use strict';
/*
 * tests/lib/ocr-read.js - what the PP-OCR recognizer reads and the
 * direction classifier decides, in ONNX Runtime, on sample folders
 * (tests/lib/render_text.py writes them).
 *
 *   node ocr-read.js rec|cls DIR KEYS OPT MODEL...
 *
 * Every MODEL runs every sample folder of DIR (sorted; x.npy fed to its
 * input) at graph optimization OPT (basic, disabled...), one session per
 * model. Prints one JSON object: {MODEL: [answer per sample]}. rec: the
 * line by CTC greedy decoding as PaddleOCR's CTCLabelDecode does it
 * (argmax per step, repeats collapsed, blank 0 dropped, index i naming
 * line i - 1 of KEYS, ppocr_keys_v1.txt, with a space appended as the
 * last class); cls: the argmax label (0 upright, 1 turned 180 degrees).
 */
const fs = require('fs');
const lib = require('../ort/lib.js');

function argmaxRows(t) {
	const d = t.dims, n = d[d.length - 1], rows = t.data.length / n;
	const out = new Int32Array(rows);
	for (let r = 0; r < rows; r++) {
		let best = 0;
		for (let i = 1; i < n; i++)
			if (t.data[r * n + i] > t.data[r * n + best])
				best = i;
		out[r] = best;
	}
	return out;
}

function ctcDecode(ids, keys) {
	let s = '', prev = -1;
	for (const i of ids) {
		if (i !== prev && i !== 0)
			s += i - 1 < keys.length ? keys[i - 1] : '\u25a1';
		prev = i;
	}
	return s;
}

async function main() {
	const [kind, dir, keysFile, opt, ...models] = process.argv.slice(2);
	if (!(kind === 'rec' || kind === 'cls') || !models.length)
		throw new Error('usage: ocr-read.js rec|cls DIR KEYS OPT MODEL...');
	const keys = fs.readFileSync(keysFile, 'utf8').split(/\r?\n/)
		.filter((l, i, a) => i < a.length - 1 || l !== '');
	keys.push(' ');
	const feeds = lib.npySamples(dir);
	const res = {};
	for (const m of models) {
		res[m] = await lib.runEach(m, { graphOptimizationLevel: opt },
			feeds, (out, s) => {
				const ids = argmaxRows(out[s.outputNames[0]]);
				return kind === 'rec' ? ctcDecode(ids, keys) : ids[0];
			});
	}
	process.stdout.write(JSON.stringify(res) + '\n');
}

main().catch(e => {
	process.stderr.write(`ocr-read.js: ${lib.ortReason(e)}\n`);
	process.exit(1);
});

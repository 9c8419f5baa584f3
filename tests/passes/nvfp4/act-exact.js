'use strict';
/*
 * tests/passes/nvfp4/act-exact.js MODEL DIR - runs the exposed fake-form model
 * (tests/passes/nvfp4/act-exact.c expose) in ONNX Runtime on DIR/x_*.f32 and
 * compares every output q_y_T_C with DIR/ref_T_C.f32 bit for bit (the
 * FLOAT bits; NaN never appears). Prints one line per input; exit 0
 * when every element matches, 1 otherwise.
 */
const fs = require('fs');
const path = require('path');
const lib = require(path.join(__dirname, '..', '..', 'ort', 'lib.js'));

function f32(file) {
	const b = fs.readFileSync(file);
	return new Float32Array(b.buffer, b.byteOffset, b.length / 4);
}

async function main() {
	const [model, dir] = process.argv.slice(2);
	const ort = lib.ort();
	const s = await lib.createSession(model, { intraOpNumThreads: 1 });
	const feeds = {};
	for (const name of s.inputNames) {
		const x = f32(path.join(dir, name + '.f32'));
		feeds[name] = new ort.Tensor('float32', x, [x.length / 64, 64]);
	}
	const out = await s.run(feeds);
	let bad = 0, total = 0;
	for (const name of s.outputNames) {
		if (!name.startsWith('q_y_'))
			continue;
		const tc = name.slice(4);
		const got = new Uint32Array(out[name].data.buffer,
					    out[name].data.byteOffset,
					    out[name].data.length);
		const wantf = f32(path.join(dir, 'ref_' + tc + '.f32'));
		const want = new Uint32Array(wantf.buffer, wantf.byteOffset,
					     wantf.length);
		const x = feeds['x_' + tc].data;
		let diff = 0, first = -1;
		for (let i = 0; i < want.length; i++)
			if (got[i] !== want[i]) {
				diff++;
				if (first < 0)
					first = i;
			}
		total += want.length;
		bad += diff;
		let line = `${tc}: ${want.length} elements, ${diff} differ`;
		if (first >= 0) {
			const g = new Float32Array(got.buffer, got.byteOffset, got.length);
			line += ` (first at ${first}: x ${x[first]}, got ${g[first]}, ` +
				`kernel ${wantf[first]}; block ${Array.from(
				x.slice(first & ~15, (first & ~15) + 16)).join(' ')})`;
		}
		console.log(line);
	}
	await s.release();
	console.log(`total ${total} elements, ${bad} differ`);
	return bad || !total ? 1 : 0;
}

main().then((rc) => process.exit(rc), (e) => {
	console.log(`error: ${e.message}`);
	process.exit(1);
});

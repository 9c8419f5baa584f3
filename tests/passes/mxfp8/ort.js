'use strict';
/*
 * tests/passes/mxfp8/ort.js MODEL X Y - runs the cut fake-form model (input
 * x_f32 FLOAT[R, 256], output y_f32) on the floats of file X in ONNX
 * Runtime and compares every element with the kernel's result in file
 * Y (raw float32): same bits, or both NaN. Prints one line: "ok N
 * elements" or "FAIL ..." with the first differences; exit 1 on a
 * difference.
 */
const fs = require('fs');
const path = require('path');
const lib = require(path.join(__dirname, '..', '..', 'ort', 'lib.js'));

function f32(file) {
	const b = fs.readFileSync(file);
	return new Float32Array(b.buffer, b.byteOffset, b.length / 4);
}

async function main() {
	const [model, xf, yf] = process.argv.slice(2);
	const x = f32(xf), want = f32(yf);
	const rows = x.length / 256;
	const s = await lib.createSession(model,
		{ graphOptimizationLevel: 'disabled' });
	const o = await s.run({ x_f32: new (lib.ort().Tensor)('float32', x,
							       [rows, 256]) });
	const got = o.y_f32.data;
	const gb = new Uint32Array(got.buffer, got.byteOffset, got.length);
	const wb = new Uint32Array(want.buffer, want.byteOffset, want.length);
	const bad = [];
	let nan = 0;
	for (let i = 0; i < want.length; i++) {
		if (Number.isNaN(want[i]) && Number.isNaN(got[i])) {
			nan++;
			continue;
		}
		if (gb[i] !== wb[i] && bad.length < 8)
			bad.push(`[${i}] x=${x[i]} ort=${got[i]} ` +
				 `(0x${gb[i].toString(16)}) kernel=${want[i]} ` +
				 `(0x${wb[i].toString(16)})`);
		else if (gb[i] !== wb[i])
			bad.push(null);
	}
	if (got.length !== want.length || bad.length) {
		console.log(`FAIL ${bad.length} of ${want.length} differ: ` +
			    bad.filter(b => b).join('; '));
		process.exit(1);
	}
	console.log(`ok ${want.length} elements equal (${nan} NaN)`);
}

main().catch(e => {
	console.log(`FAIL ${lib.ortReason(e)}`);
	process.exit(1);
});

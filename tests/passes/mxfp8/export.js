'use strict';
/*
 * tests/passes/mxfp8/export.js MODEL X Z D0,D1,.. - runs MODEL (input x, output
 * z, FLOAT) on the raw float32 input X of shape D0,D1,.. and compares
 * with the NumPy reference Z: within float rounding (max |got - want|
 * <= 1e-5 * max |want|). Prints one line; exit 1 when outside.
 */
const fs = require('fs');
const path = require('path');
const lib = require(path.join(__dirname, '..', '..', 'ort', 'lib.js'));

function f32(file) {
	const b = fs.readFileSync(file);
	return new Float32Array(b.buffer.slice(b.byteOffset,
					       b.byteOffset + b.length));
}

async function main() {
	const [model, xf, zf, dims] = process.argv.slice(2);
	const s = await lib.createSession(model,
		{ graphOptimizationLevel: 'disabled' });
	const o = await s.run({ x: new (lib.ort().Tensor)('float32', f32(xf),
		dims.split(',').map(Number)) });
	const got = o.z.data, want = f32(zf);
	let err = 0, top = 0;
	for (let i = 0; i < want.length; i++) {
		err = Math.max(err, Math.abs(got[i] - want[i]));
		top = Math.max(top, Math.abs(want[i]));
	}
	const ok = got.length === want.length && err <= 1e-5 * top;
	console.log(`${ok ? 'ok' : 'FAIL'} max abs error ${err.toExponential(2)}` +
		    ` of max |z| ${top.toExponential(2)}`);
	process.exit(ok ? 0 : 1);
}

main().catch(e => {
	console.log(`FAIL ${lib.ortReason(e)}`);
	process.exit(1);
});

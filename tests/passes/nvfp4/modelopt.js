'use strict';
/*
 * tests/passes/nvfp4/modelopt.js MODEL DIR [PREFIX] - runs MODEL (the fake form of
 * tests/passes/nvfp4/modelopt.py's export) in ONNX Runtime on DIR/x.bin
 * ([2, 8, 64] FLOAT; PREFIX names another pair, PREFIXx.bin and
 * PREFIXref.bin) and compares its output with DIR/ref.bin, the
 * NumPy reference: max |got - ref| / max |ref| <= 1e-5 (float rounding
 * of the MatMul sums; a different FP4 code would cost >= 1e-2).
 */
const fs = require('fs');
const path = require('path');
const lib = require(path.join(__dirname, '..', '..', 'ort', 'lib.js'));

function f32(file) {
	const b = fs.readFileSync(file);
	return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
}

async function main() {
	const [model, dir, prefix] = process.argv.slice(2);
	const pre = prefix || '';
	const ort = lib.ort();
	const s = await lib.createSession(model, { intraOpNumThreads: 1,
		graphOptimizationLevel: 'basic' });
	const x = f32(path.join(dir, pre + 'x.bin'));
	const out = await s.run({ x: new ort.Tensor('float32', x, [2, 8, 64]) });
	const got = out[s.outputNames[0]].data, ref = f32(path.join(dir, pre + 'ref.bin'));
	let md = 0, mr = 0;
	if (got.length !== ref.length)
		throw new Error(`${got.length} outputs, reference ${ref.length}`);
	for (let i = 0; i < ref.length; i++) {
		md = Math.max(md, Math.abs(got[i] - ref[i]));
		mr = Math.max(mr, Math.abs(ref[i]));
	}
	const rel = md / mr;
	console.log(`max relative difference ${rel.toExponential(3)} over ${ref.length} outputs`);
	await s.release();
	return Number.isFinite(rel) && rel <= 1e-5 ? 0 : 1;
}

main().then((rc) => process.exit(rc), (e) => {
	console.log(`error: ${e.message}`);
	process.exit(1);
});

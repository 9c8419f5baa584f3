// tests/kernels/ort-cast.js - compares qopt's FP8 conversion with ONNX
// Runtime's Cast. Usage: node kernels-ort-cast.js DIR N, where DIR holds
// the files of tests/kernels/dump-fp8. Prints TAP.
//
// The model is encoded here by hand (ONNX protobuf field numbers from
// docs/numerics.md): x FLOAT[N] -> Cast(to=FLOAT8E4M3FN) -> Cast(to=
// FLOAT) -> y8, and likewise through FLOAT8E5M2 -> y5. The cast back to
// FLOAT is there because onnxruntime-node has no FP8 tensor type; the
// decoded values identify the codes (NaN aside, compared as "both NaN").
'use strict';

const fs = require('fs');
const path = require('path');

const dir = process.argv[2];
const n = Number(process.argv[3]);
let tests = 0;
let failed = 0;

function ok(cond, what) {
	tests++;
	if (!cond)
		failed++;
	console.log(`${cond ? '' : 'not '}ok ${tests} - ${what}`);
}

// ---- protobuf encoding ----
function varint(v) {
	const out = [];
	let x = BigInt(v);
	do {
		let b = Number(x & 0x7fn);
		x >>= 7n;
		if (x)
			b |= 0x80;
		out.push(b);
	} while (x);
	return out;
}
const tag = (field, wire) => varint((field << 3) | wire);
const fint = (field, v) => [...tag(field, 0), ...varint(v)];
const fbytes = (field, b) => [...tag(field, 2), ...varint(b.length), ...b];
const fstr = (field, s) => fbytes(field, [...Buffer.from(s, 'utf8')]);

// AttributeProto: name 1, i 3, type 20 (INT = 2)
const attrInt = (name, v) => [...fstr(1, name), ...fint(3, v), ...fint(20, 2)];
// NodeProto: input 1, output 2, name 3, op_type 4, attribute 5
function cast(name, input, output, to) {
	return [...fstr(1, input), ...fstr(2, output), ...fstr(3, name),
		...fstr(4, 'Cast'), ...fbytes(5, attrInt('to', to)),
		...fbytes(5, attrInt('saturate', 1))];
}
// ValueInfoProto: name 1, type 2; TypeProto.tensor_type 1;
// TypeProto.Tensor: elem_type 1, shape 2; TensorShapeProto.dim 1;
// Dimension.dim_value 1
function valueInfo(name, len) {
	const shape = fbytes(1, fint(1, len));
	const tensor = [...fint(1, 1 /* FLOAT */), ...fbytes(2, shape)];
	return [...fstr(1, name), ...fbytes(2, fbytes(1, tensor))];
}

function model(len) {
	const FLOAT = 1, E4M3 = 17, E5M2 = 19;
	// GraphProto: node 1, name 2, input 11, output 12
	const graph = [
		...fbytes(1, cast('c8', 'x', 'q8', E4M3)),
		...fbytes(1, cast('d8', 'q8', 'y8', FLOAT)),
		...fbytes(1, cast('c5', 'x', 'q5', E5M2)),
		...fbytes(1, cast('d5', 'q5', 'y5', FLOAT)),
		...fstr(2, 'qopt_fp8_cast'),
		...fbytes(11, valueInfo('x', len)),
		...fbytes(12, valueInfo('y8', len)),
		...fbytes(12, valueInfo('y5', len)),
	];
	// ModelProto: ir_version 1, producer_name 2, graph 7, opset_import 8
	// (OperatorSetIdProto: version 2; domain "" left out)
	return Uint8Array.from([
		...fint(1, 9), ...fstr(2, 'qopt-tests'),
		...fbytes(7, graph), ...fbytes(8, fint(2, 19)),
	]);
}

function f32(file) {
	const b = fs.readFileSync(path.join(dir, file));
	return new Float32Array(b.buffer, b.byteOffset, b.length / 4);
}

function compare(name, input, want, codes, got) {
	const wb = new Uint32Array(want.buffer, want.byteOffset, want.length);
	const gb = new Uint32Array(got.buffer, got.byteOffset, got.length);
	const ib = new Uint32Array(input.buffer, input.byteOffset, input.length);
	let bad = 0, nan = 0;

	for (let i = 0; i < want.length; i++) {
		if (Number.isNaN(want[i]) && Number.isNaN(got[i])) {
			nan++;
			continue;
		}
		if (wb[i] === gb[i])
			continue;
		if (bad++ < 5)
			console.log(`# ${name}: x = 0x${ib[i].toString(16)} (${input[i]}):` +
				    ` qopt code 0x${codes[i].toString(16)} = ${want[i]},` +
				    ` ORT ${got[i]}`);
	}
	ok(bad === 0, `${name}: ${want.length} values equal ONNX Runtime's Cast ` +
	   `(${nan} NaN, ${bad} differ)`);
}

async function main() {
	const ort = require(path.join(process.env.QOPT_ORT_DIR, 'node_modules',
				      'onnxruntime-node'));
	const x = f32('input.f32');
	let sess, out;

	console.log('1..3');
	try {
		sess = await ort.InferenceSession.create(model(n));
		out = await sess.run({ x: new ort.Tensor('float32', x, [n]) });
		ok(out.y8 && out.y5 && out.y8.data.length === n,
		   'hand-encoded Cast model runs in ONNX Runtime');
	} catch (e) {
		ok(false, `hand-encoded Cast model runs in ONNX Runtime: ${e}`);
		console.log('Bail out! no ORT results');
		process.exit(1);
	}
	compare('FLOAT8E4M3FN', x, f32('e4m3.f32'),
		fs.readFileSync(path.join(dir, 'e4m3.u8')), out.y8.data);
	compare('FLOAT8E5M2', x, f32('e5m2.f32'),
		fs.readFileSync(path.join(dir, 'e5m2.u8')), out.y5.data);
	process.exit(failed ? 1 : 0);
}

main();

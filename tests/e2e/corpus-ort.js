'use strict';
/*
 * tests/e2e/corpus-ort.js MANIFEST
 *
 * Second half of tests/e2e/corpus-roundtrip.sh: runs every round-tripped
 * backend-test model in ONNX Runtime on its shipped inputs and compares
 * with the shipped outputs; prints one TAP line per model.
 *
 * MANIFEST lines (tab-separated): name, status, message, test folder,
 * round-tripped model. status "fail" means the round trip itself
 * failed (message says how): reported as is. For "ok" entries:
 *   ok      round-tripped model's outputs match the shipped ones;
 *   not ok  they do not, or ORT rejects the round-tripped model while
 *           it runs the original;
 *   SKIP    ORT cannot load/run the ORIGINAL model either, or the
 *           original's outputs miss the shipped ones too (then the
 *           round-tripped model must still give bitwise the original's
 *           outputs, else not ok), or the test data holds values ORT's
 *           JavaScript API cannot express (sequences, optionals, types
 *           without a JS tensor).
 *
 * Tolerances: rtol 1e-3, atol 1e-7, as ONNX's backend test runner.
 */
const fs = require('fs');
const path = require('path');
const lib = require(path.join(__dirname, '..', 'ort', 'lib.js'));

class Skip extends Error {}

function loadSet(dir, prefix) {
	return lib.pbFilesOf(dir, prefix).map(f => {
		try {
			return lib.tensorFromPbFile(f);
		} catch (e) {
			if (e instanceof lib.Unsupported)
				throw new Skip(`${path.basename(f)}: ${e.message}`);
			if (/wire type|truncated/.test(e.message))
				throw new Skip(`${path.basename(f)} is not a TensorProto (sequence/optional/map test data)`);
			throw e;
		}
	});
}

function feedsFor(session, inputs) {
	const names = session.inputNames;
	const feeds = {};
	inputs.forEach((t, i) => {
		const name = names.includes(t.name) ? t.name : names[i];
		feeds[name] = t.tensor;
	});
	return feeds;
}

async function runSets(session, sets) {
	const results = [];
	for (const s of sets) {
		const out = await session.run(feedsFor(session, s.inputs));
		results.push(session.outputNames.map(n => out[n]));
	}
	return results;
}

/* First mismatch between ORT results and the shipped outputs, or null. */
function diffExpected(results, sets, names) {
	for (let k = 0; k < sets.length; k++) {
		const want = sets[k].outputs;
		if (want.length > results[k].length)
			return `set ${k}: ${results[k].length} outputs, ${want.length} shipped`;
		for (let i = 0; i < want.length; i++) {
			const d = lib.compareTensor(want[i], lib.plain(results[k][i]));
			if (d)
				return `set ${k} output ${names[i]}: ${d}`;
		}
	}
	return null;
}

function diffExact(a, b, names) {
	for (let k = 0; k < a.length; k++)
		for (let i = 0; i < a[k].length; i++) {
			const d = lib.compareTensor(lib.plain(a[k][i]),
						    lib.plain(b[k][i]),
						    { exact: true });
			if (d)
				return `set ${k} output ${names[i]}: ${d}`;
		}
	return null;
}

async function tryRun(file, sets) {
	let session;
	try {
		session = await lib.createSession(file);
	} catch (e) {
		return { error: 'load: ' + lib.ortReason(e) };
	}
	try {
		return { results: await runSets(session, sets),
			 names: session.outputNames.slice() };
	} catch (e) {
		return { error: 'run: ' + lib.ortReason(e) };
	} finally {
		await session.release();
	}
}

/* Returns [verdict, message]: verdict 'ok', 'not ok' or 'skip'. */
async function checkModel(testdir, rtModel) {
	const orig = path.join(testdir, 'model.onnx');
	const kinds = lib.modelIoKinds(orig);
	for (const [what, map] of [['input', kinds.inputs], ['output', kinds.outputs]])
		for (const [name, kind] of Object.entries(map))
			if (kind !== 'tensor')
				throw new Skip(`${what} ${name} is a ${kind} (SequenceProto/OptionalProto test data not decoded)`);
	const sets = lib.dataSets(testdir).map(d => ({
		inputs: loadSet(d, 'input_'),
		outputs: loadSet(d, 'output_'),
	}));
	if (!sets.length)
		throw new Skip('no test_data_set_* folder');

	const rt = await tryRun(rtModel, sets);
	if (rt.error) {
		const og = await tryRun(orig, sets);
		if (og.error)
			return ['skip', `ORT: ${og.error}`];
		return ['not ok', `ORT rejects the round-tripped model but runs the original: ${rt.error}`];
	}
	const d = diffExpected(rt.results, sets, rt.names);
	if (!d)
		return ['ok', ''];
	const og = await tryRun(orig, sets);
	if (og.error)
		return ['not ok', `${d}; ORT cannot run the original (${og.error}) but runs the round trip`];
	const od = diffExpected(og.results, sets, og.names);
	if (!od)
		return ['not ok', d];
	const x = diffExact(og.results, rt.results, rt.names);
	if (x)
		return ['not ok', `${d}; and the original's ORT outputs differ from the round trip's: ${x}`];
	return ['skip', `ORT: the original's outputs miss the shipped ones too (${od}); round trip bitwise identical to the original`];
}

async function main() {
	const manifest = process.argv[2];
	if (!manifest) {
		console.error('usage: corpus-ort.js MANIFEST');
		process.exit(2);
	}
	const lines = fs.readFileSync(manifest, 'utf8').split('\n').filter(Boolean);
	const oneLine = s => String(s).replace(/[\r\n]+/g, ' ').replace(/#/g, 'No.');
	let n = 0;
	const counts = { ok: 0, skip: 0, 'not ok': 0 };
	for (const line of lines) {
		const [name, status, msg, testdir, rtModel] = line.split('\t');
		n++;
		let verdict, why;
		if (status !== 'ok') {
			[verdict, why] = ['not ok', msg];
		} else {
			try {
				[verdict, why] = await checkModel(testdir, rtModel);
			} catch (e) {
				if (e instanceof Skip)
					[verdict, why] = ['skip', e.message];
				else
					[verdict, why] = ['not ok', `test error: ${e.stack || e}`];
			}
		}
		counts[verdict]++;
		if (verdict === 'ok')
			console.log(`ok ${n} - ${name}`);
		else if (verdict === 'skip')
			console.log(`ok ${n} - ${name} # SKIP ${oneLine(why)}`);
		else {
			console.log(`not ok ${n} - ${name}: ${oneLine(why)}`);
		}
	}
	console.log(`1..${n}`);
	console.log(`# ${counts.ok} passed, ${counts.skip} skipped, ${counts['not ok']} failed`);
	/* Failures are in the TAP lines (a non-zero exit adds an ERROR). */
	process.exitCode = 0;
}

main().catch(e => {
	console.log(`Bail out! ${String(e.stack || e).split('\n')[0]}`);
	process.exit(1);
});

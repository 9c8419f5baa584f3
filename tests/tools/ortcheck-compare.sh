#!/bin/sh
# tests/tools/ortcheck-compare.sh - what qopt-ort-check calls equal
# (issue 28): strings, bools and integers (int64/uint64 beyond 2^53)
# compared exactly, equal infinities equal and Inf against a finite
# value a mismatch, --stats-only for pipelines with a lossy pass (and
# the bisect recipe it is for), --atol inf pointing at it, --dim checked
# against the model's symbolic dims, inputs of one sample agreeing on
# each symbolic dim, every distinct shape in the shape column, and the
# FP4 hint when ORT cannot load an NVFP4 model.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir core-ortcheck-compare
CHK="$top_builddir/tools/qopt-ort-check"
PL="$top_builddir/tests/plugins/.libs"
QOPT_NODE=$NODE
export QOPT_NODE
"$py" "$top_srcdir/tests/tools/ortcheck-gen.py" "$work" ||
	{ echo "Bail out! ortcheck-gen.py"; exit 1; }
cd "$work" || exit 1

echo "1..18"

ck() { "$CHK" "$@" >"$work/log" 2>&1; }
has() { grep -qF -- "$1" "$work/log"; }

ck str_a.onnx str_b.onnx
[ $? = 1 ] && has '"dog" vs "cat"' && has "compared exactly"
check $? "string outputs 'cat' and 'dog' differ (not compared through Number())"
ck str_a.onnx str_a.onnx
check $? "equal string outputs pass"
ck i64_a.onnx i64_b.onnx
[ $? = 1 ] && has "1152921504606846977 vs 1152921504606846976"
check $? "int64 2^60 and 2^60+1 differ (not compared as doubles)"
ck u64_a.onnx u64_b.onnx
[ $? = 1 ] && has "9223372036854775811 vs 9223372036854775810"
check $? "uint64 2^63+2 and 2^63+3 differ"
ck bool_a.onnx bool_b.onnx
[ $? = 1 ] && has "1 of 2 elements differ (bool: compared exactly)"
check $? "bool outputs compared exactly"

ck inf.onnx inf.onnx
[ $? = 0 ] && has "PASS: all 1 outputs"
check $? "identical outputs holding +-Inf pass (Inf - Inf is not a difference)"
ck inf.onnx id.onnx
[ $? = 1 ] && has "4 of 4 elements Inf or NaN on one side only"
check $? "Inf against a finite value is a mismatch"
ck inf.onnx id.onnx --stats-only --min-cosine 0
[ $? = 1 ] && has "Inf or NaN on one side only"
check $? "--stats-only: Inf against a finite value still a mismatch"

# lossy: nvfp4-weights mode=fake loses a little; t-perturb (rewrite 5
# adds 1 to a weight of 0.01) is the bug bisect must find.
"$QOPT" --passes nvfp4-weights:mode=fake:min_size=1 lossy.onnx -o fake.onnx >"$work/log" 2>&1
ck lossy.onnx fake.onnx --random 4
[ $? = 1 ] && has "outside atol"
check $? "a lossy pass fails the element-wise check"
ck lossy.onnx fake.onnx --random 4 --stats-only --min-cosine 0.98
[ $? = 0 ] && has "statistics only (no element-wise tolerance); PASS"
check $? "--stats-only --min-cosine: the lossy pass alone passes"
ck lossy.onnx fake.onnx --stats-only
[ $? = 2 ] && has "--stats-only needs a bound"
check $? "--stats-only without a bound: usage error"
ck lossy.onnx fake.onnx --atol inf
[ $? = 2 ] && has "use --stats-only"
check $? "--atol inf refused, pointing at --stats-only"
"$QOPT" bisect --load "$PL/counter.so" \
	--passes nvfp4-weights:mode=fake:min_size=1,t-perturb:bad=5 lossy.onnx \
	--test "'$CHK' lossy.onnx {} --random 4 --stats-only --min-cosine 0.98" \
	-o bis >"$work/log" 2>&1
has "first bad point: " && has "t-perturb: W[4]"
check $? "bisect recipe for a lossy pipeline (--stats-only) finds the bad rewrite"

ck two.onnx two.onnx --dim sq=3
[ $? = 2 ] && has "--dim sq: the model has no input dimension 'sq' (its symbolic dimensions: 'seq')"
check $? "--dim with a name the model has not: an error naming its symbolic dims"
ck seq.onnx seq.onnx
[ $? = 0 ] && has "note: symbolic dimension 'seq' not set: 1 used (set it with --dim seq=VALUE)"
check $? "an unset symbolic dim: 1, said on stderr (the rule qopt calibrate shares)"
ck two.onnx two.onnx --inputs disagree
[ $? = 2 ] && has "disagree/s0: inputs 'A' and 'B' disagree on dimension 'seq' (3 and 5)"
check $? "inputs of one sample disagreeing on a symbolic dim: named before ORT runs"
ck seq.onnx seq.onnx --inputs seqs
[ $? = 0 ] && grep -q "^Y  *\[1,3\] \[1,5\]  " "$work/log"
check $? "the shape column shows every distinct shape, not the last sample's"

"$QOPT" --passes nvfp4-weights:min_size=1 lossy.onnx -o fp4.onnx >"$work/log" 2>&1
ck lossy.onnx fp4.onnx
[ $? = 125 ] && has "no kernel for FLOAT4E2M1" && has "mode=fake"
check $? "an NVFP4 candidate ORT cannot load: 125, saying ORT has no FP4 kernel and to use mode=fake"

exit $failed

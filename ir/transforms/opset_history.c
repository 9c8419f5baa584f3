/*
 * ir/transforms/opset_history.c - for every ai.onnx operator, the opset versions at
 * which its definition changed (its "since_version"s), opsets 1 to 25;
 * and the IR version each opset came with.
 *
 * Facts from the ONNX operator changelog: versions 1-17 as registered by
 * ONNX 1.12's schemas, 18-23 from the operator set declarations of
 * ONNX 1.13-1.18 (operator_sets.h in ONNX's defs folder). opset_rules.c
 * says what each change means for an existing node.
 *
 * Opset 24 (ONNX 1.19, IR 12), from the v1.19.0 release notes: new ops
 * Swish and TensorScatter; Attention updated (new optional input
 * nonpad_kv_seqlen for in-place KV-cache updates); FLOAT8E8M0 added to
 * the types of QuantizeLinear, DequantizeLinear, Cast, CastLike,
 * Constant, ConstantOfShape, Identity, Reshape, Shape, Size, If, Loop,
 * Scan, Flatten, Pad, Squeeze, Unsqueeze, Transpose; BFLOAT16 added to
 * TopK and SplitToSequence.
 * Opset 25 (ONNX 1.20, IR 13), from the v1.20.0 release notes ("updated
 * op list" and "add 2 bit support"): INT2/UINT2 added to the same 18
 * ops that gained FLOAT8E8M0 at 24. The onnx.ai operator pages also
 * carry an "Attention - 24 vs 25" diff that the 1.20 op list does not
 * explain, so Attention is listed with a change at 25 too and the
 * upgrade refuses to carry it (opset_rules.c).
 */
#include <string.h>

#include "transforms/opset_upgrade.h"

static const struct ir_op_history history[] = {
	{ "Abs", { 1, 6, 13, 0 } },
	{ "Acos", { 7, 22, 0 } },
	{ "Acosh", { 9, 22, 0 } },
	{ "Add", { 1, 6, 7, 13, 14, 0 } },
	{ "AffineGrid", { 20, 0 } },
	{ "And", { 1, 7, 0 } },
	{ "ArgMax", { 1, 11, 12, 13, 0 } },
	{ "ArgMin", { 1, 11, 12, 13, 0 } },
	{ "Asin", { 7, 22, 0 } },
	{ "Asinh", { 9, 22, 0 } },
	{ "Atan", { 7, 22, 0 } },
	{ "Atanh", { 9, 22, 0 } },
	{ "Attention", { 23, 24, 25, 0 } },
	{ "AveragePool", { 1, 7, 10, 11, 19, 22, 0 } },
	{ "BatchNormalization", { 1, 6, 7, 9, 14, 15, 0 } },
	{ "Bernoulli", { 15, 22, 0 } },
	{ "BitShift", { 11, 0 } },
	{ "BitwiseAnd", { 18, 0 } },
	{ "BitwiseNot", { 18, 0 } },
	{ "BitwiseOr", { 18, 0 } },
	{ "BitwiseXor", { 18, 0 } },
	{ "BlackmanWindow", { 17, 0 } },
	{ "Cast", { 1, 6, 9, 13, 19, 21, 23, 24, 25, 0 } },
	{ "CastLike", { 15, 19, 21, 23, 24, 25, 0 } },
	{ "Ceil", { 1, 6, 13, 0 } },
	{ "Celu", { 12, 0 } },
	{ "CenterCropPad", { 18, 0 } },
	{ "Clip", { 1, 6, 11, 12, 13, 0 } },
	{ "Col2Im", { 18, 0 } },
	{ "Compress", { 9, 11, 0 } },
	{ "Concat", { 1, 4, 11, 13, 0 } },
	{ "ConcatFromSequence", { 11, 0 } },
	{ "Constant", { 1, 9, 11, 12, 13, 19, 21, 23, 24, 25, 0 } },
	{ "ConstantOfShape", { 9, 20, 21, 23, 24, 25, 0 } },
	{ "Conv", { 1, 11, 22, 0 } },
	{ "ConvInteger", { 10, 0 } },
	{ "ConvTranspose", { 1, 11, 22, 0 } },
	{ "Cos", { 7, 22, 0 } },
	{ "Cosh", { 9, 22, 0 } },
	{ "CumSum", { 11, 14, 0 } },
	{ "DFT", { 17, 20, 0 } },
	{ "DeformConv", { 19, 22, 0 } },
	{ "DepthToSpace", { 1, 11, 13, 0 } },
	{ "DequantizeLinear", { 10, 13, 19, 21, 23, 24, 25, 0 } },
	{ "Det", { 11, 22, 0 } },
	{ "Div", { 1, 6, 7, 13, 14, 0 } },
	{ "Dropout", { 1, 6, 7, 10, 12, 13, 22, 0 } },
	{ "DynamicQuantizeLinear", { 11, 0 } },
	{ "Einsum", { 12, 0 } },
	{ "Elu", { 1, 6, 22, 0 } },
	{ "Equal", { 1, 7, 11, 13, 19, 0 } },
	{ "Erf", { 9, 13, 0 } },
	{ "Exp", { 1, 6, 13, 0 } },
	{ "Expand", { 8, 13, 0 } },
	{ "EyeLike", { 9, 22, 0 } },
	{ "Flatten", { 1, 9, 11, 13, 21, 23, 24, 25, 0 } },
	{ "Floor", { 1, 6, 13, 0 } },
	{ "GRU", { 1, 3, 7, 14, 22, 0 } },
	{ "Gather", { 1, 11, 13, 0 } },
	{ "GatherElements", { 11, 13, 0 } },
	{ "GatherND", { 11, 12, 13, 0 } },
	{ "Gelu", { 20, 0 } },
	{ "Gemm", { 1, 6, 7, 9, 11, 13, 0 } },
	{ "GlobalAveragePool", { 1, 22, 0 } },
	{ "GlobalLpPool", { 1, 2, 22, 0 } },
	{ "GlobalMaxPool", { 1, 22, 0 } },
	{ "Greater", { 1, 7, 9, 13, 0 } },
	{ "GreaterOrEqual", { 12, 16, 0 } },
	{ "GridSample", { 16, 20, 22, 0 } },
	{ "GroupNormalization", { 18, 21, 0 } },
	{ "HammingWindow", { 17, 0 } },
	{ "HannWindow", { 17, 0 } },
	{ "HardSigmoid", { 1, 6, 22, 0 } },
	{ "HardSwish", { 14, 22, 0 } },
	{ "Hardmax", { 1, 11, 13, 0 } },
	{ "Identity", { 1, 13, 14, 16, 19, 21, 23, 24, 25, 0 } },
	{ "If", { 1, 11, 13, 16, 19, 21, 23, 24, 25, 0 } },
	{ "ImageDecoder", { 20, 0 } },
	{ "InstanceNormalization", { 1, 6, 22, 0 } },
	{ "IsInf", { 10, 20, 0 } },
	{ "IsNaN", { 9, 13, 20, 0 } },
	{ "LRN", { 1, 13, 0 } },
	{ "LSTM", { 1, 7, 14, 22, 0 } },
	{ "LayerNormalization", { 17, 0 } },
	{ "LeakyRelu", { 1, 6, 16, 0 } },
	{ "Less", { 1, 7, 9, 13, 0 } },
	{ "LessOrEqual", { 12, 16, 0 } },
	{ "Log", { 1, 6, 13, 0 } },
	{ "LogSoftmax", { 1, 11, 13, 0 } },
	{ "Loop", { 1, 11, 13, 16, 19, 21, 23, 24, 25, 0 } },
	{ "LpNormalization", { 1, 22, 0 } },
	{ "LpPool", { 1, 2, 11, 18, 22, 0 } },
	{ "MatMul", { 1, 9, 13, 0 } },
	{ "MatMulInteger", { 10, 0 } },
	{ "Max", { 1, 6, 8, 12, 13, 0 } },
	{ "MaxPool", { 1, 8, 10, 11, 12, 22, 0 } },
	{ "MaxRoiPool", { 1, 22, 0 } },
	{ "MaxUnpool", { 9, 11, 22, 0 } },
	{ "Mean", { 1, 6, 8, 13, 0 } },
	{ "MeanVarianceNormalization", { 9, 13, 0 } },
	{ "MelWeightMatrix", { 17, 0 } },
	{ "Min", { 1, 6, 8, 12, 13, 0 } },
	{ "Mish", { 18, 22, 0 } },
	{ "Mod", { 10, 13, 0 } },
	{ "Mul", { 1, 6, 7, 13, 14, 0 } },
	{ "Multinomial", { 7, 22, 0 } },
	{ "Neg", { 1, 6, 13, 0 } },
	{ "NegativeLogLikelihoodLoss", { 12, 13, 22, 0 } },
	{ "NonMaxSuppression", { 10, 11, 0 } },
	{ "NonZero", { 9, 13, 0 } },
	{ "Not", { 1, 0 } },
	{ "OneHot", { 9, 11, 0 } },
	{ "Optional", { 15, 0 } },
	{ "OptionalGetElement", { 15, 18, 0 } },
	{ "OptionalHasElement", { 15, 18, 0 } },
	{ "Or", { 1, 7, 0 } },
	{ "PRelu", { 1, 6, 7, 9, 16, 0 } },
	{ "Pad", { 1, 2, 11, 13, 18, 19, 21, 23, 24, 25, 0 } },
	{ "Pow", { 1, 7, 12, 13, 15, 0 } },
	{ "QLinearConv", { 10, 0 } },
	{ "QLinearMatMul", { 10, 21, 0 } },
	{ "QuantizeLinear", { 10, 13, 19, 21, 23, 24, 25, 0 } },
	{ "RMSNormalization", { 23, 0 } },
	{ "RNN", { 1, 7, 14, 22, 0 } },
	{ "RandomNormal", { 1, 22, 0 } },
	{ "RandomNormalLike", { 1, 22, 0 } },
	{ "RandomUniform", { 1, 22, 0 } },
	{ "RandomUniformLike", { 1, 22, 0 } },
	{ "Range", { 11, 0 } },
	{ "Reciprocal", { 1, 6, 13, 0 } },
	{ "ReduceL1", { 1, 11, 13, 18, 0 } },
	{ "ReduceL2", { 1, 11, 13, 18, 0 } },
	{ "ReduceLogSum", { 1, 11, 13, 18, 0 } },
	{ "ReduceLogSumExp", { 1, 11, 13, 18, 0 } },
	{ "ReduceMax", { 1, 11, 12, 13, 18, 20, 0 } },
	{ "ReduceMean", { 1, 11, 13, 18, 0 } },
	{ "ReduceMin", { 1, 11, 12, 13, 18, 20, 0 } },
	{ "ReduceProd", { 1, 11, 13, 18, 0 } },
	{ "ReduceSum", { 1, 11, 13, 0 } },
	{ "ReduceSumSquare", { 1, 11, 13, 18, 0 } },
	{ "RegexFullMatch", { 20, 0 } },
	{ "Relu", { 1, 6, 13, 14, 0 } },
	{ "Reshape", { 1, 5, 13, 14, 19, 21, 23, 24, 25, 0 } },
	{ "Resize", { 10, 11, 13, 18, 19, 0 } },
	{ "ReverseSequence", { 10, 0 } },
	{ "RoiAlign", { 10, 16, 22, 0 } },
	{ "RotaryEmbedding", { 23, 0 } },
	{ "Round", { 11, 22, 0 } },
	{ "STFT", { 17, 0 } },
	{ "Scan", { 8, 9, 11, 16, 19, 21, 23, 24, 25, 0 } },
	{ "Scatter", { 9, 11, 0 } },
	{ "ScatterElements", { 11, 13, 16, 18, 0 } },
	{ "ScatterND", { 11, 13, 16, 18, 0 } },
	{ "Selu", { 1, 6, 22, 0 } },
	{ "SequenceAt", { 11, 0 } },
	{ "SequenceConstruct", { 11, 0 } },
	{ "SequenceEmpty", { 11, 0 } },
	{ "SequenceErase", { 11, 0 } },
	{ "SequenceInsert", { 11, 0 } },
	{ "SequenceLength", { 11, 0 } },
	{ "SequenceMap", { 17, 0 } },
	{ "Shape", { 1, 13, 15, 19, 21, 23, 24, 25, 0 } },
	{ "Shrink", { 9, 0 } },
	{ "Sigmoid", { 1, 6, 13, 0 } },
	{ "Sign", { 9, 13, 0 } },
	{ "Sin", { 7, 22, 0 } },
	{ "Sinh", { 9, 22, 0 } },
	{ "Size", { 1, 13, 19, 21, 23, 24, 25, 0 } },
	{ "Slice", { 1, 10, 11, 13, 0 } },
	{ "Softmax", { 1, 11, 13, 0 } },
	{ "SoftmaxCrossEntropyLoss", { 12, 13, 0 } },
	{ "Softplus", { 1, 22, 0 } },
	{ "Softsign", { 1, 22, 0 } },
	{ "SpaceToDepth", { 1, 13, 0 } },
	{ "Split", { 1, 2, 11, 13, 18, 0 } },
	{ "SplitToSequence", { 11, 24, 0 } },
	{ "Sqrt", { 1, 6, 13, 0 } },
	{ "Squeeze", { 1, 11, 13, 21, 23, 24, 25, 0 } },
	{ "StringConcat", { 20, 0 } },
	{ "StringNormalizer", { 10, 0 } },
	{ "StringSplit", { 20, 0 } },
	{ "Sub", { 1, 6, 7, 13, 14, 0 } },
	{ "Sum", { 1, 6, 8, 13, 0 } },
	{ "Swish", { 24, 0 } },
	{ "Tan", { 7, 22, 0 } },
	{ "Tanh", { 1, 6, 13, 0 } },
	{ "TensorScatter", { 24, 0 } },
	{ "TfIdfVectorizer", { 9, 0 } },
	{ "ThresholdedRelu", { 10, 22, 0 } },
	{ "Tile", { 1, 6, 13, 0 } },
	{ "TopK", { 1, 10, 11, 24, 0 } },
	{ "Transpose", { 1, 13, 21, 23, 24, 25, 0 } },
	{ "Trilu", { 14, 0 } },
	{ "Unique", { 11, 0 } },
	{ "Unsqueeze", { 1, 11, 13, 21, 23, 24, 25, 0 } },
	{ "Upsample", { 1, 7, 9, 10, 0 } },
	{ "Where", { 9, 16, 0 } },
	{ "Xor", { 1, 7, 0 } },
	{ NULL, { 0 } }
};

int ir_default_domain(const char *domain)
{
	return qir_domain_is_default(domain);
}

const struct ir_op_history *ir_op_history_at(size_t i)
{
	return i < sizeof(history) / sizeof(history[0]) && history[i].op ?
	       &history[i] : NULL;
}

const struct ir_op_history *ir_op_history(const char *op)
{
	const struct ir_op_history *h;

	for (h = history; h->op; h++)
		if (!strcmp(h->op, op))
			return h;
	return NULL;
}

int64_t qir_op_first_opset(const char *op)
{
	const struct ir_op_history *h = op ? ir_op_history(op) : NULL;

	return h ? h->since[0] : 0;
}

int ir_op_version_at(const struct ir_op_history *h, int opset)
{
	int i, v = 0;

	for (i = 0; h->since[i]; i++)
		if (h->since[i] <= opset)
			v = h->since[i];
	return v;
}

int ir_op_next_change(const struct ir_op_history *h, int v, int limit)
{
	int i;

	for (i = 0; h->since[i]; i++)
		if (h->since[i] > v && h->since[i] <= limit)
			return h->since[i];
	return 0;
}

int64_t qir_opset_min_ir_version(int64_t opset)
{
	/* opset 0..25 -> IR of the ONNX release that introduced it
	 * (docs/numerics.md: 1.14 brought IR 9 with opset 19, ..., 1.20 IR 13
	 * with opset 25). */
	static const int ir[] = {
		3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 5, 6, 7, 7, 7, 8, 8, 8, 8,
		9, 9, 10, 10, 11, 12, 13
	};
	const int64_t n = (int64_t)(sizeof(ir) / sizeof(ir[0]));

	if (opset < 0)
		return 3;
	if (opset >= n)
		return ir[n - 1];
	return ir[opset];
}

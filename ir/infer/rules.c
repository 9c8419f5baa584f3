/*
 * ir/infer/rules.c - which rule types which operator: the default
 * domain's table (sorted by name, searched by bisection), TensorRT's
 * custom ops ("trt" / "trt.plugins", spelled with or without
 * underscores in any case, as exporters write them) and the
 * com.microsoft ops exporters and ONNX Runtime tools leave.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "infer/infer.h"

struct rule_row {
	const char *op;
	iri_rule fn;
};

/* Operators typed but not shaped here: input 0's element type. */
static int iri_dtype_only(struct iri_ctx *c, const qir_node *n,
			  iri_shape *out, size_t nout)
{
	(void)c;
	(void)nout;
	out[0].dtype = iri_input_dtype(n, 0);
	return 0;
}

/* NonZero, NonMaxSuppression: INT64 indices (NonZero: rank 2). */
static int iri_int64_any(struct iri_ctx *c, const qir_node *n,
			 iri_shape *out, size_t nout)
{
	iri_shape in;

	(void)c;
	(void)nout;
	out[0].dtype = QIR_INT64;
	iri_input(n, 0, &in);
	iri_rank_only(&out[0], 2);
	if (qir_node_is(n, "NonZero"))
		out[0].d[0] = in.rank;
	else
		out[0].d[1] = 3;
	return 0;
}

/* OneHot(indices, depth, values): the values' type. */
static int iri_onehot_dtype(struct iri_ctx *c, const qir_node *n,
			    iri_shape *out, size_t nout)
{
	(void)c;
	(void)nout;
	out[0].dtype = iri_input_dtype(n, 2);
	return 0;
}

/* OptionalHasElement: a BOOL scalar; SequenceLength: an INT64 one. */
static int iri_scalar(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		      size_t nout)
{
	(void)c;
	(void)nout;
	out[0].dtype = qir_node_is(n, "SequenceLength") ? QIR_INT64 : QIR_BOOL;
	out[0].rank = 0;
	return 0;
}

/* Generators: the type an attribute names, else the operator's
 * default (RandomNormal/RandomUniform: dtype, FLOAT, shape from the
 * "shape" attribute; Multinomial: dtype, INT32; the window functions
 * and MelWeightMatrix: output_datatype, FLOAT). */
static int iri_generator(struct iri_ctx *c, const qir_node *n, iri_shape *out,
			 size_t nout)
{
	int64_t sh[IRI_MAXRANK];
	size_t len;
	int dt, present;

	(void)c;
	(void)nout;
	if (qir_node_is(n, "Multinomial")) {
		dt = qir_node_attr_dtype(n, "dtype");
		out[0].dtype = dt ? dt : QIR_INT32;
		return 0;
	}
	dt = qir_node_attr_dtype(n, "dtype");
	if (!dt)
		dt = qir_node_attr_dtype(n, "output_datatype");
	out[0].dtype = dt ? dt : QIR_FLOAT;
	len = iri_attr_ints(n, "shape", sh, IRI_MAXRANK, &present);
	if (present) {
		iri_rank_only(&out[0], (int)len);
		for (size_t k = 0; k < len; k++)
			out[0].d[k] = sh[k] >= 0 ? sh[k] : -1;
	}
	return 0;
}

/* Operators whose output 0 has a fixed element type: RegexFullMatch
 * (BOOL, input's shape), the string ops (STRING), TfIdfVectorizer
 * (FLOAT), ImageDecoder (UINT8). */
static int iri_fixed_type(struct iri_ctx *c, const qir_node *n, iri_shape *out,
			  size_t nout)
{
	(void)c;
	if (qir_node_is(n, "RegexFullMatch")) {
		iri_input(n, 0, &out[0]);
		out[0].dtype = QIR_BOOL;
	} else if (qir_node_is(n, "TfIdfVectorizer")) {
		out[0].dtype = QIR_FLOAT;
	} else if (qir_node_is(n, "ImageDecoder")) {
		out[0].dtype = QIR_UINT8;
	} else {
		out[0].dtype = QIR_STRING;
		if (qir_node_is(n, "StringSplit") && nout > 1)
			out[1].dtype = QIR_INT64;
	}
	return 0;
}

static const struct rule_row default_rules[] = {
	{ "Abs", iri_same },
	{ "Acos", iri_same },
	{ "Acosh", iri_same },
	{ "Add", iri_broadcast },
	{ "AffineGrid", iri_dtype_only },
	{ "And", iri_compare },
	{ "ArgMax", iri_argminmax },
	{ "ArgMin", iri_argminmax },
	{ "Asin", iri_same },
	{ "Asinh", iri_same },
	{ "Atan", iri_same },
	{ "Atanh", iri_same },
	{ "Attention", iri_dtype_only },
	{ "AveragePool", iri_pool },
	{ "BatchNormalization", iri_batch_norm },
	{ "Bernoulli", iri_dtype_attr },
	{ "BitShift", iri_broadcast },
	{ "BitwiseAnd", iri_broadcast },
	{ "BitwiseNot", iri_same },
	{ "BitwiseOr", iri_broadcast },
	{ "BitwiseXor", iri_broadcast },
	{ "BlackmanWindow", iri_generator },
	{ "Cast", iri_cast },
	{ "CastLike", iri_cast },
	{ "Ceil", iri_same },
	{ "Celu", iri_same },
	{ "CenterCropPad", iri_dtype_only },
	{ "Clip", iri_same },
	{ "Col2Im", iri_dtype_only },
	{ "Compress", iri_dtype_only },
	{ "Concat", iri_concat },
	{ "Constant", iri_constant },
	{ "ConstantOfShape", iri_constant_of_shape },
	{ "Conv", iri_conv },
	{ "ConvInteger", iri_conv },
	{ "ConvTranspose", iri_conv_transpose },
	{ "Cos", iri_same },
	{ "Cosh", iri_same },
	{ "CumSum", iri_same },
	{ "DFT", iri_dtype_only },
	{ "DeformConv", iri_dtype_only },
	{ "DepthToSpace", iri_depth_space },
	{ "DequantizeLinear", iri_dequantize },
	{ "Det", iri_dtype_only },
	{ "Div", iri_broadcast },
	{ "Dropout", iri_dropout },
	{ "DynamicQuantizeLinear", iri_dyn_quantize },
	{ "Einsum", iri_einsum },
	{ "Elu", iri_same },
	{ "Equal", iri_compare },
	{ "Erf", iri_same },
	{ "Exp", iri_same },
	{ "Expand", iri_expand },
	{ "EyeLike", iri_dtype_attr },
	{ "Flatten", iri_flatten },
	{ "Floor", iri_same },
	{ "GRU", iri_recurrent },
	{ "Gather", iri_gather },
	{ "GatherElements", iri_gather_elements },
	{ "GatherND", iri_gather_nd },
	{ "Gelu", iri_same },
	{ "Gemm", iri_gemm },
	{ "GlobalAveragePool", iri_global_pool },
	{ "GlobalLpPool", iri_global_pool },
	{ "GlobalMaxPool", iri_global_pool },
	{ "Greater", iri_compare },
	{ "GreaterOrEqual", iri_compare },
	{ "GridSample", iri_grid_sample },
	{ "GroupNormalization", iri_same },
	{ "HammingWindow", iri_generator },
	{ "HannWindow", iri_generator },
	{ "HardSigmoid", iri_same },
	{ "HardSwish", iri_same },
	{ "Hardmax", iri_same },
	{ "Identity", iri_same },
	{ "If", iri_if },
	{ "ImageDecoder", iri_fixed_type },
	{ "InstanceNormalization", iri_same },
	{ "IsInf", iri_bool_same },
	{ "IsNaN", iri_bool_same },
	{ "LRN", iri_same },
	{ "LSTM", iri_recurrent },
	{ "LayerNormalization", iri_layer_norm },
	{ "LeakyRelu", iri_same },
	{ "Less", iri_compare },
	{ "LessOrEqual", iri_compare },
	{ "Log", iri_same },
	{ "LogSoftmax", iri_same },
	{ "Loop", iri_loop },
	{ "LpNormalization", iri_same },
	{ "LpPool", iri_pool },
	{ "MatMul", iri_matmul },
	{ "MatMulInteger", iri_matmul },
	{ "Max", iri_broadcast },
	{ "MaxPool", iri_pool },
	{ "MaxRoiPool", iri_dtype_only },
	{ "MaxUnpool", iri_dtype_only },
	{ "Mean", iri_broadcast },
	{ "MeanVarianceNormalization", iri_same },
	{ "MelWeightMatrix", iri_generator },
	{ "Min", iri_broadcast },
	{ "Mish", iri_same },
	{ "Mod", iri_broadcast },
	{ "Mul", iri_broadcast },
	{ "Multinomial", iri_generator },
	{ "Neg", iri_same },
	{ "NegativeLogLikelihoodLoss", iri_dtype_only },
	{ "NonMaxSuppression", iri_int64_any },
	{ "NonZero", iri_int64_any },
	{ "Not", iri_bool_same },
	{ "OneHot", iri_onehot_dtype },
	{ "OptionalHasElement", iri_scalar },
	{ "Or", iri_compare },
	{ "PRelu", iri_broadcast },
	{ "Pad", iri_pad },
	{ "Pow", iri_broadcast },
	{ "QLinearConv", iri_qlinear },
	{ "QLinearMatMul", iri_qlinear },
	{ "QuantizeLinear", iri_quantize },
	{ "RMSNormalization", iri_same },
	{ "RNN", iri_recurrent },
	{ "RandomNormal", iri_generator },
	{ "RandomNormalLike", iri_dtype_attr },
	{ "RandomUniform", iri_generator },
	{ "RandomUniformLike", iri_dtype_attr },
	{ "Range", iri_range },
	{ "Reciprocal", iri_same },
	{ "ReduceL1", iri_reduce },
	{ "ReduceL2", iri_reduce },
	{ "ReduceLogSum", iri_reduce },
	{ "ReduceLogSumExp", iri_reduce },
	{ "ReduceMax", iri_reduce },
	{ "ReduceMean", iri_reduce },
	{ "ReduceMin", iri_reduce },
	{ "ReduceProd", iri_reduce },
	{ "ReduceSum", iri_reduce },
	{ "ReduceSumSquare", iri_reduce },
	{ "RegexFullMatch", iri_fixed_type },
	{ "Relu", iri_same },
	{ "Reshape", iri_reshape },
	{ "Resize", iri_resize },
	{ "ReverseSequence", iri_same },
	{ "RoiAlign", iri_roi_align },
	{ "RotaryEmbedding", iri_same },
	{ "Round", iri_same },
	{ "STFT", iri_dtype_only },
	{ "Scatter", iri_same },
	{ "ScatterElements", iri_same },
	{ "ScatterND", iri_same },
	{ "Selu", iri_same },
	{ "SequenceLength", iri_scalar },
	{ "Shape", iri_shape_op },
	{ "Shrink", iri_same },
	{ "Sigmoid", iri_same },
	{ "Sign", iri_same },
	{ "Sin", iri_same },
	{ "Sinh", iri_same },
	{ "Size", iri_size },
	{ "Slice", iri_slice },
	{ "Softmax", iri_same },
	{ "SoftmaxCrossEntropyLoss", iri_dtype_only },
	{ "Softplus", iri_same },
	{ "Softsign", iri_same },
	{ "SpaceToDepth", iri_depth_space },
	{ "Split", iri_split },
	{ "Sqrt", iri_same },
	{ "Squeeze", iri_squeeze },
	{ "StringConcat", iri_fixed_type },
	{ "StringNormalizer", iri_fixed_type },
	{ "StringSplit", iri_fixed_type },
	{ "Sub", iri_broadcast },
	{ "Sum", iri_broadcast },
	{ "Swish", iri_same },
	{ "Tan", iri_same },
	{ "Tanh", iri_same },
	{ "TensorScatter", iri_same },
	{ "TfIdfVectorizer", iri_fixed_type },
	{ "ThresholdedRelu", iri_same },
	{ "Tile", iri_tile },
	{ "TopK", iri_topk },
	{ "Transpose", iri_transpose },
	{ "Trilu", iri_same },
	{ "Unique", iri_dtype_only },
	{ "Unsqueeze", iri_unsqueeze },
	{ "Upsample", iri_resize },
	{ "Where", iri_where },
	{ "Xor", iri_compare },
};

static const struct rule_row microsoft_rules[] = {
	{ "BiasGelu", iri_broadcast },
	{ "DequantizeLinear", iri_dequantize },
	{ "FastGelu", iri_same },
	{ "Gelu", iri_same },
	{ "QuantizeLinear", iri_quantize },
	{ "QuickGelu", iri_same },
	{ "SkipLayerNormalization", iri_same },
};

static int row_cmp(const void *key, const void *row)
{
	return strcmp(key, ((const struct rule_row *)row)->op);
}

static iri_rule find(const struct rule_row *rows, size_t n, const char *op)
{
	const struct rule_row *r = bsearch(op, rows, n, sizeof(*rows), row_cmp);

	return r ? r->fn : NULL;
}

static iri_rule trt_rule(const char *op)
{
	char norm[64];
	size_t k = 0;

	for (size_t i = 0; op[i] && k + 1 < sizeof(norm); i++)
		if (isalnum((unsigned char)op[i]))
			norm[k++] = (char)tolower((unsigned char)op[i]);
	norm[k] = 0;
	if (!strcmp(norm, "trtfp8quantizelinear"))
		return iri_trt_fp8_q;
	if (!strcmp(norm, "trtfp8dequantizelinear"))
		return iri_trt_fp8_dq;
	if (!strcmp(norm, "trtfp4qdq"))
		return iri_same;
	return NULL;
}

iri_rule iri_rule_for(const qir_node *n)
{
	if (qir_domain_is_default(n->domain))
		return find(default_rules,
			    sizeof(default_rules) / sizeof(*default_rules),
			    n->op_type);
	if (!strcmp(n->domain, "com.microsoft"))
		return find(microsoft_rules,
			    sizeof(microsoft_rules) / sizeof(*microsoft_rules),
			    n->op_type);
	if (!strcmp(n->domain, "trt") || !strcmp(n->domain, "trt.plugins"))
		return trt_rule(n->op_type);
	return NULL;
}

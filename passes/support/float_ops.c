/*
 * passes/support/float_ops.c - the operators that may compute in
 * FLOAT16 or BFLOAT16: which inputs and outputs carry the float type T
 * of the ONNX schema, and from which opset T holds each low type.
 * autocast converts only what is here (an op not here stays FLOAT, said
 * with that reason), and typecheck reads the same slots to tell a
 * node's precision and mixed inputs: the table lists what the schemas
 * allow, so a converted model is one the ONNX checker and TensorRT
 * accept.
 *
 * Opsets (ONNX operator schemas): FLOAT16 is in T from an op's first
 * version for nearly every op; BFLOAT16 came to the elementwise ops,
 * MatMul, Gemm, Softmax, the reductions and data movement at 13, to
 * Relu and BatchNormalization at 14, to Where, LeakyRelu, PRelu and the
 * "OrEqual" comparisons at 16, and to Conv, ConvTranspose, pooling,
 * InstanceNormalization and most activations only at 22.
 */
#include <string.h>

#include "float_ops.h"

#define S(i) (1u << (i))
#define UNARY(op, f16, bf16) { op, PS_ALL_SLOTS, PS_ALL_SLOTS, f16, bf16, 0 }

static const struct ps_float_op table[] = {
	/* elementwise */
	UNARY("Abs", 6, 13), UNARY("Neg", 6, 13), UNARY("Reciprocal", 6, 13),
	UNARY("Sqrt", 6, 13), UNARY("Exp", 6, 13), UNARY("Log", 6, 13),
	UNARY("Tanh", 6, 13), UNARY("Sigmoid", 6, 13), UNARY("Erf", 9, 13),
	UNARY("Floor", 6, 13), UNARY("Ceil", 6, 13), UNARY("Sign", 9, 13),
	UNARY("Relu", 6, 14), UNARY("LeakyRelu", 6, 16),
	UNARY("Elu", 6, 22), UNARY("Selu", 6, 22), UNARY("Softplus", 1, 22),
	UNARY("Softsign", 1, 22), UNARY("HardSigmoid", 6, 22),
	UNARY("HardSwish", 14, 22), UNARY("Gelu", 20, 20),
	UNARY("Identity", 1, 13),
	UNARY("Add", 7, 13), UNARY("Sub", 7, 13), UNARY("Mul", 7, 13),
	UNARY("Div", 7, 13), UNARY("Max", 8, 13), UNARY("Min", 8, 13),
	UNARY("Sum", 8, 13), UNARY("Mean", 8, 13), UNARY("PRelu", 7, 16),
	UNARY("Clip", 6, 13),
	/* Pow's exponent is T before opset 12 and T1 (which holds the low
	 * types too) from 12: converted with the base either way */
	UNARY("Pow", 7, 13),
	{ "Where", S(1) | S(2), S(0), 9, 16, 0 },
	/* comparisons: T in, BOOL out */
	{ "Equal", PS_ALL_SLOTS, 0, 11, 13, 0 },
	{ "Less", PS_ALL_SLOTS, 0, 9, 13, 0 },
	{ "Greater", PS_ALL_SLOTS, 0, 9, 13, 0 },
	{ "LessOrEqual", PS_ALL_SLOTS, 0, 12, 16, 0 },
	{ "GreaterOrEqual", PS_ALL_SLOTS, 0, 12, 16, 0 },
	/* linear algebra */
	UNARY("MatMul", 1, 13), UNARY("Gemm", 6, 13),
	UNARY("Conv", 1, 22), UNARY("ConvTranspose", 1, 22),
	/* normalization: BatchNormalization 15 types scale/B (T1) and the
	 * statistics (T2) apart, each holding the low types */
	UNARY("BatchNormalization", 6, 14),
	UNARY("InstanceNormalization", 6, 22),
	UNARY("LayerNormalization", 17, 17),
	UNARY("RMSNormalization", 23, 23),
	/* pooling: MaxPool's second output is INT64 indices */
	{ "MaxPool", S(0), S(0), 1, 22, 0 },
	UNARY("AveragePool", 1, 22), UNARY("GlobalAveragePool", 1, 22),
	UNARY("GlobalMaxPool", 1, 22),
	/* softmax and reductions: data in, the reduced data out */
	{ "Softmax", S(0), S(0), 1, 13, 1 },
	{ "LogSoftmax", S(0), S(0), 1, 13, 1 },
	{ "ReduceMean", S(0), S(0), 1, 13, 1 },
	{ "ReduceSum", S(0), S(0), 1, 13, 1 },
	{ "ReduceMax", S(0), S(0), 1, 13, 0 },
	{ "ReduceMin", S(0), S(0), 1, 13, 0 },
	{ "ArgMax", S(0), 0, 1, 13, 0 },
	{ "ArgMin", S(0), 0, 1, 13, 0 },
	/* data movement: the data input and output; shapes, indices and
	 * axes keep their integer types */
	{ "Reshape", S(0), S(0), 5, 13, 0 },
	{ "Transpose", S(0), S(0), 1, 13, 0 },
	{ "Flatten", S(0), S(0), 1, 13, 0 },
	{ "Squeeze", S(0), S(0), 1, 13, 0 },
	{ "Unsqueeze", S(0), S(0), 1, 13, 0 },
	{ "Slice", S(0), S(0), 1, 13, 0 },
	{ "Gather", S(0), S(0), 1, 13, 0 },
	{ "GatherElements", S(0), S(0), 11, 13, 0 },
	{ "Expand", S(0), S(0), 8, 13, 0 },
	{ "Tile", S(0), S(0), 6, 13, 0 },
	{ "Split", S(0), PS_ALL_SLOTS, 2, 13, 0 },
	{ "Concat", PS_ALL_SLOTS, S(0), 4, 13, 0 },
	{ "DepthToSpace", S(0), S(0), 1, 13, 0 },
	{ "SpaceToDepth", S(0), S(0), 1, 13, 0 },
	/* Pad's constant_value is T */
	{ "Pad", S(0) | S(2), S(0), 11, 13, 0 },
	/* Resize: roi may be low, scales stay FLOAT (tensor(float)) */
	{ "Resize", S(0), S(0), 10, 13, 0 },
	/* Dropout in inference is Identity; ratio (T1) keeps its type */
	{ "Dropout", S(0), S(0), 1, 13, 0 },
	/* Einsum, GridSample (X and grid), the RNNs (all but
	 * sequence_lens, input 4) */
	UNARY("Einsum", 12, 22),
	{ "GridSample", S(0) | S(1), S(0), 16, 22, 0 },
	{ "LSTM", PS_ALL_SLOTS & ~S(4), PS_ALL_SLOTS, 7, 22, 0 },
	{ "GRU", PS_ALL_SLOTS & ~S(4), PS_ALL_SLOTS, 7, 22, 0 },
	{ "RNN", PS_ALL_SLOTS & ~S(4), PS_ALL_SLOTS, 7, 22, 0 },
	/* Q/DQ: the float side and the scale share T from opset 19 (the
	 * scale of a FLOAT16 graph is FLOAT16: TensorRT's strongly typed
	 * DQ outputs its scale's type); the codes and zero point keep
	 * theirs */
	{ "QuantizeLinear", S(0) | S(1), 0, 19, 19, 0 },
	{ "DequantizeLinear", S(1), S(0), 19, 19, 0 },
	/* Shape and Size read any type */
	{ "Shape", S(0), 0, 1, 13, 0 },
	{ "Size", S(0), 0, 1, 13, 0 },
};

const struct ps_float_op *ps_float_op_find(const char *op_type)
{
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!strcmp(table[i].op_type, op_type))
			return &table[i];
	return NULL;
}

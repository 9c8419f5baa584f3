/*
 * ir/transforms/opset_keep.c - the version steps of ai.onnx operators that carry a
 * node across unchanged: one row per step of opset_history.c that has
 * no rewrite in opset_rules.c, so the rule table covers the history by
 * construction (tests/ir/opset-table checks it). A step with no row at
 * all is refused by the upgrade, never carried across silently.
 *
 * The rows record the review the upgrade has relied on since it was
 * written (against the ONNX operator changelog): each of these steps
 * only widens the types an operator takes, accepts negative axes, or
 * adds an attribute or optional input whose default keeps the old
 * behaviour. Opset 6 also dropped the legacy consumed_inputs attribute,
 * which the upgrade removes at that step for every operator; opsets 24
 * and 25 only added types (opset_history.c lists them).
 */
#include "transforms/opset_upgrade.h"

#define KEEP(op, v, what) { op, v, NULL, NULL, what, 1 }
#define K(op, v) KEEP(op, v, "no change to existing nodes (types, " \
			  "negative axes or defaulted additions)")
#define K6(op, v) KEEP(op, v, "consumed_inputs dropped; otherwise no " \
			   "change to existing nodes")
#define K24(op, v) KEEP(op, v, "type-only: FLOAT8E8M0 (or BFLOAT16) added")
#define K25(op, v) KEEP(op, v, "type-only: INT2/UINT2 added")

const struct ir_rule ir_keep_rules[] = {
	K6("Abs", 6), K("Abs", 13), K("Acos", 22), K("Acosh", 22),
	K6("Add", 6), K("Add", 13), K("Add", 14), K("ArgMax", 11),
	K("ArgMax", 12), K("ArgMax", 13), K("ArgMin", 11), K("ArgMin", 12),
	K("ArgMin", 13), K("Asin", 22), K("Asinh", 22), K("Atan", 22),
	K("Atanh", 22), K("AveragePool", 7), K("AveragePool", 10),
	K("AveragePool", 11), K("AveragePool", 19), K("AveragePool", 22),
	K6("BatchNormalization", 6), K("BatchNormalization", 15),
	K("Bernoulli", 22), K("Cast", 9), K("Cast", 13), K("Cast", 19),
	K("Cast", 21), K("Cast", 23), K24("Cast", 24), K25("Cast", 25),
	K("CastLike", 19), K("CastLike", 21), K("CastLike", 23),
	K24("CastLike", 24), K25("CastLike", 25), K6("Ceil", 6),
	K("Ceil", 13), K6("Clip", 6), K("Clip", 12), K("Clip", 13),
	K("Compress", 11), K("Concat", 11), K("Concat", 13),
	K("Constant", 9), K("Constant", 11), K("Constant", 12),
	K("Constant", 13), K("Constant", 19), K("Constant", 21),
	K("Constant", 23), K24("Constant", 24), K25("Constant", 25),
	K("ConstantOfShape", 20), K("ConstantOfShape", 21),
	K("ConstantOfShape", 23), K24("ConstantOfShape", 24),
	K25("ConstantOfShape", 25), K("Conv", 11), K("Conv", 22),
	K("ConvTranspose", 11), K("ConvTranspose", 22), K("Cos", 22),
	K("Cosh", 22), K("CumSum", 14), K("DeformConv", 22),
	K("DepthToSpace", 11), K("DepthToSpace", 13),
	K("DequantizeLinear", 13), K("DequantizeLinear", 19),
	K("DequantizeLinear", 21), K("DequantizeLinear", 23),
	K24("DequantizeLinear", 24), K25("DequantizeLinear", 25),
	K("Det", 22), K6("Div", 6), K("Div", 13), K("Div", 14),
	K6("Dropout", 6), K("Dropout", 13), K("Dropout", 22), K6("Elu", 6),
	K("Elu", 22), K("Equal", 11), K("Equal", 13), K("Equal", 19),
	K("Erf", 13), K6("Exp", 6), K("Exp", 13), K("Expand", 13),
	K("EyeLike", 22), K("Flatten", 9), K("Flatten", 11),
	K("Flatten", 13), K("Flatten", 21), K("Flatten", 23),
	K24("Flatten", 24), K25("Flatten", 25), K6("Floor", 6),
	K("Floor", 13), K("GRU", 3), K("GRU", 14), K("GRU", 22),
	K("Gather", 11), K("Gather", 13), K("GatherElements", 13),
	K("GatherND", 12), K("GatherND", 13), K6("Gemm", 6), K("Gemm", 9),
	K("Gemm", 11), K("Gemm", 13), K("GlobalAveragePool", 22),
	K("GlobalLpPool", 22), K("GlobalMaxPool", 22), K("Greater", 9),
	K("Greater", 13), K("GreaterOrEqual", 16), K("GridSample", 22),
	K6("HardSigmoid", 6), K("HardSigmoid", 22), K("HardSwish", 22),
	K("Hardmax", 11), K("Identity", 13), K("Identity", 14),
	K("Identity", 16), K("Identity", 19), K("Identity", 21),
	K("Identity", 23), K24("Identity", 24), K25("Identity", 25),
	K("If", 11), K("If", 13), K("If", 16), K("If", 19), K("If", 21),
	K("If", 23), K24("If", 24), K25("If", 25),
	K6("InstanceNormalization", 6), K("InstanceNormalization", 22),
	K("IsInf", 20), K("IsNaN", 13), K("IsNaN", 20), K("LRN", 13),
	K("LSTM", 14), K("LSTM", 22), K6("LeakyRelu", 6), K("LeakyRelu", 16),
	K("Less", 9), K("Less", 13), K("LessOrEqual", 16), K6("Log", 6),
	K("Log", 13), K("LogSoftmax", 11), K("Loop", 11), K("Loop", 13),
	K("Loop", 16), K("Loop", 19), K("Loop", 21), K("Loop", 23),
	K24("Loop", 24), K25("Loop", 25), K("LpNormalization", 22),
	K("LpPool", 11), K("LpPool", 18), K("LpPool", 22), K("MatMul", 9),
	K("MatMul", 13), K6("Max", 6), K("Max", 8), K("Max", 12),
	K("Max", 13), K("MaxPool", 8), K("MaxPool", 10), K("MaxPool", 11),
	K("MaxPool", 12), K("MaxPool", 22), K("MaxRoiPool", 22),
	K("MaxUnpool", 11), K("MaxUnpool", 22), K6("Mean", 6), K("Mean", 8),
	K("Mean", 13), K("MeanVarianceNormalization", 13), K6("Min", 6),
	K("Min", 8), K("Min", 12), K("Min", 13), K("Mish", 22), K("Mod", 13),
	K6("Mul", 6), K("Mul", 13), K("Mul", 14), K("Multinomial", 22),
	K6("Neg", 6), K("Neg", 13), K("NegativeLogLikelihoodLoss", 13),
	K("NegativeLogLikelihoodLoss", 22), K("NonMaxSuppression", 11),
	K("NonZero", 13), K("OneHot", 11), K("OptionalGetElement", 18),
	K("OptionalHasElement", 18), K6("PRelu", 6), K("PRelu", 9),
	K("PRelu", 16), K("Pad", 13), K("Pad", 18), K("Pad", 19),
	K("Pad", 21), K("Pad", 23), K24("Pad", 24), K25("Pad", 25),
	K("Pow", 12), K("Pow", 13), K("Pow", 15), K("QLinearMatMul", 21),
	K("QuantizeLinear", 13), K("QuantizeLinear", 19),
	K("QuantizeLinear", 21), K("QuantizeLinear", 23),
	K24("QuantizeLinear", 24), K25("QuantizeLinear", 25), K("RNN", 14),
	K("RNN", 22), K("RandomNormal", 22), K("RandomNormalLike", 22),
	K("RandomUniform", 22), K("RandomUniformLike", 22),
	K6("Reciprocal", 6), K("Reciprocal", 13), K("ReduceL1", 11),
	K("ReduceL1", 13), K("ReduceL2", 11), K("ReduceL2", 13),
	K("ReduceLogSum", 11), K("ReduceLogSum", 13),
	K("ReduceLogSumExp", 11), K("ReduceLogSumExp", 13),
	K("ReduceMax", 11), K("ReduceMax", 12), K("ReduceMax", 13),
	K("ReduceMax", 20), K("ReduceMean", 11), K("ReduceMean", 13),
	K("ReduceMin", 11), K("ReduceMin", 12), K("ReduceMin", 13),
	K("ReduceMin", 20), K("ReduceProd", 11), K("ReduceProd", 13),
	K("ReduceSum", 11), K("ReduceSumSquare", 11),
	K("ReduceSumSquare", 13), K6("Relu", 6), K("Relu", 13),
	K("Relu", 14), K("Reshape", 13), K("Reshape", 14), K("Reshape", 19),
	K("Reshape", 21), K("Reshape", 23), K24("Reshape", 24),
	K25("Reshape", 25), K("Resize", 13), K("Resize", 19),
	K("RoiAlign", 22), K("Round", 22), K("Scan", 11), K("Scan", 16),
	K("Scan", 19), K("Scan", 21), K("Scan", 23), K24("Scan", 24),
	K25("Scan", 25), K("ScatterElements", 13), K("ScatterElements", 16),
	K("ScatterElements", 18), K("ScatterND", 13), K("ScatterND", 16),
	K("ScatterND", 18), K6("Selu", 6), K("Selu", 22), K("Shape", 13),
	K("Shape", 15), K("Shape", 19), K("Shape", 21), K("Shape", 23),
	K24("Shape", 24), K25("Shape", 25), K6("Sigmoid", 6),
	K("Sigmoid", 13), K("Sign", 13), K("Sin", 22), K("Sinh", 22),
	K("Size", 13), K("Size", 19), K("Size", 21), K("Size", 23),
	K24("Size", 24), K25("Size", 25), K("Slice", 11), K("Slice", 13),
	K("Softmax", 11), K("SoftmaxCrossEntropyLoss", 13),
	K("Softplus", 22), K("Softsign", 22), K("SpaceToDepth", 13),
	K("Split", 11), K24("SplitToSequence", 24), K6("Sqrt", 6),
	K("Sqrt", 13), K("Squeeze", 11), K("Squeeze", 21), K("Squeeze", 23),
	K24("Squeeze", 24), K25("Squeeze", 25), K6("Sub", 6), K("Sub", 13),
	K("Sub", 14), K6("Sum", 6), K("Sum", 8), K("Sum", 13), K("Tan", 22),
	K6("Tanh", 6), K("Tanh", 13), K("ThresholdedRelu", 22),
	K("Tile", 13), K("TopK", 11), K24("TopK", 24), K("Transpose", 13),
	K("Transpose", 21), K("Transpose", 23), K24("Transpose", 24),
	K25("Transpose", 25), K("Unsqueeze", 11), K("Unsqueeze", 21),
	K("Unsqueeze", 23), K24("Unsqueeze", 24), K25("Unsqueeze", 25),
	K("Where", 16),
	{ NULL, 0, NULL, NULL, NULL, 0 }
};

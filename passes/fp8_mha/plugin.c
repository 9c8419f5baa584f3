/*
 * passes/fp8_mha/plugin.c - the plugin's entry table and options (the
 * pass itself is in run.c).
 */
#include "fp8mha.h"

static const qopt_option_spec fp8mha_opts[] = {
	{ .name = "convert_custom_ops", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "trt::TRT_FP8QuantizeLinear/DequantizeLinear -> standard Q/DQ with "
	  "a FLOAT8E4M3FN zero point, opset raised to 19 (exact)" },
	{ .name = "compress_weights", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "Q(constant W) -> DQ becomes an FP8 initializer -> DQ; a Transpose "
	  "after it (consumers all MatMul) is folded into the stored weight "
	  "(exact)" },
	{ .name = "move_transpose", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "Q -> DQ -> Transpose -> MatMul becomes Transpose -> Q -> DQ -> "
	  "MatMul (exact)" },
	{ .name = "move_scale", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "Q -> DQ -> Mul(scalar c) -> MatMul becomes Mul(c) -> Q -> DQ -> "
	  "MatMul with Q/DQ scales times |c| (exact up to float rounding)" },
	{ .name = "softmax_qdq", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "Q/DQ (scale 1/448, FLOAT8E4M3FN) after each Softmax feeding only "
	  "MatMul (adds quantization)" },
	{ 0 }
};

static const qopt_pass_info fp8mha_passes[] = {
	{ "fp8-mha",
	  "exported FP8 models into the form TensorRT's fused FP8 attention "
	  "needs, with an attention report",
	  fp8mha_opts, fp8mha_run, 0 },
	{ 0 }
};

QOPT_PLUGIN("fp8-mha", "1.0", fp8mha_passes)

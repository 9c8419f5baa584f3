/*
 * passes/fp8_mha/plugin.c - the plugin's entry table and options (the
 * pass itself is in run.c).
 */
#include "calib.h"

static const char *const fp8mha_calib_ops[] = { "MatMul", "Gemm", NULL };
/* Indexed as fp8mha_rotate_options reads them. */
static const char *const fp8mha_weight_modes[] = { "real", "fake", NULL };
static const char *const fp8mha_rotations[] = { "no", "rotate_back", NULL };

static const qopt_option_spec fp8mha_opts[] = {
	{ .name = "convert_custom_ops", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "trt::TRT_FP8QuantizeLinear/DequantizeLinear -> standard Q/DQ with "
	  "a FLOAT8E4M3FN zero point, opset raised to 19 (exact)" },
	{ .name = "compress_weights", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "Q(constant W) -> DQ becomes an FP8 initializer -> DQ; a Transpose "
	  "after it (consumers all MatMul) is folded into the stored weight "
	  "(exact)" },
	{ .name = "weight_mode", .type = QOPT_OPT_ENUM, .default_value = "real",
	  .choices = fp8mha_weight_modes,
	  .help = "how compress_weights stores a Q(constant W) -> DQ weight: "
	  "real: FP8 codes feeding the DQ; fake: a float initializer in W's "
	  "type holding DQ(Q(W)) (bit-exact), the Q and DQ removed" },
	{ .name = "rotate", .type = QOPT_OPT_ENUM, .default_value = "no",
	  .choices = fp8mha_rotations,
	  .help = "rotate_back (weight_mode = fake only; refused in real mode): "
	  "store R fq(R W), R the normalized Hadamard along the consumers' "
	  "reduction axis K (block K & -K), FP8 scale amax(R W)/448 at the "
	  "Q scale's granularity; no activation rotation needed" },
	{ .name = "move_transpose", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "Q -> DQ -> Transpose -> MatMul becomes Transpose -> Q -> DQ -> "
	  "MatMul (exact)" },
	{ .name = "move_layout", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "Q -> DQ -> layout ops (Reshape, Transpose, Expand, Squeeze, "
	  "Unsqueeze, Slice, Gather, Split, Concat of alike Q/DQ) -> attention "
	  "MatMul becomes layout ops -> Q -> DQ -> MatMul, per-tensor Q/DQ "
	  "only (exact)" },
	{ .name = "move_scale", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "Q -> DQ -> Mul(scalar c) -> MatMul becomes Mul(c) -> Q -> DQ -> "
	  "MatMul with Q/DQ scales times |c| (exact up to float rounding)" },
	{ .name = "softmax_qdq", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "Q/DQ (scale 1/448, FLOAT8E4M3FN) after each Softmax feeding only "
	  "MatMul (adds quantization)" },
	{ .name = "calibration", .type = QOPT_OPT_STRING,
	  .help = "a JSON file from `qopt calibrate` for this model: Q/DQ "
	  "(scale amax/448) on the inputs of the selected MatMul/Gemm of a "
	  "plain model, FP8 weights; refused when made for another model" },
	{ .name = "include", .type = QOPT_OPT_LIST, .default_value = "*",
	  .help = "calibration: globs over MatMul/Gemm node or output names" },
	{ .name = "exclude", .type = QOPT_OPT_LIST,
	  .help = "calibration: globs over the same names to leave in float "
	  "(wins over include)" },
	{ .name = "op_types", .type = QOPT_OPT_LIST,
	  .default_value = "MatMul,Gemm", .choices = fp8mha_calib_ops,
	  .help = "calibration: the operators whose inputs get Q/DQ" },
	{ .name = "weight_axis", .type = QOPT_OPT_BOOL, .default_value = "no",
	  .help = "calibration: per-output-channel weight scales (else per "
	  "tensor)" },
	{ 0 }
};

static const qopt_pass_info fp8mha_passes[] = {
	{ "fp8-mha",
	  "exported FP8 models into the form TensorRT's fused FP8 attention "
	  "needs, with an attention report",
	  fp8mha_opts, fp8mha_run, 0, fp8mha_calibration_targets },
	{ 0 }
};

QOPT_PLUGIN("fp8-mha", "1.0", fp8mha_passes)

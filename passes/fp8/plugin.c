/*
 * passes/fp8/plugin.c - the plugin's entry table: its single-purpose
 * passes (run functions in steps.c) and the named pipeline `fp8-mha`,
 * all of them in order with today's options. Each option is written
 * once (OPT_*), and one table (FP8_OPTIONS) says which passes
 * declare it: the option and forward lists are made from it.
 */
#include "calib.h"

static const char *const fp8_calib_ops[] = { "MatMul", "Gemm", NULL };
/* The layers TensorRT runs in FP8 (docs/fp8.md). */
static const char *const fp8_ops[] = { "Conv", "ConvTranspose", "MatMul",
	"Gemm", NULL };
/* Indexed as fp8_rotate_options reads them. */
static const char *const fp8_weight_modes[] = { "real", "fake", NULL };
static const char *const fp8_rotations[] = { "no", "rotate_back", NULL };

#define OPT_CONVERT_CUSTOM_OPS \
	{ .name = "convert_custom_ops", .type = QOPT_OPT_BOOL, .default_value = "yes", \
	  .help = "trt::TRT_FP8QuantizeLinear/DequantizeLinear -> standard Q/DQ with " \
	  "a FLOAT8E4M3FN zero point, opset raised to 19 (exact)" }

#define OPT_COMPRESS_WEIGHTS \
	{ .name = "compress_weights", .type = QOPT_OPT_BOOL, .default_value = "yes", \
	  .help = "Q(constant W) -> DQ becomes an FP8 initializer -> DQ; a Transpose " \
	  "after it (consumers all MatMul) is folded into the stored weight " \
	  "(exact)" }

#define OPT_WEIGHT_MODE \
	{ .name = "weight_mode", .type = QOPT_OPT_ENUM, .default_value = "real", \
	  .choices = fp8_weight_modes, \
	  .help = "how compress_weights stores a Q(constant W) -> DQ weight: " \
	  "real: FP8 codes feeding the DQ; fake: a float initializer in W's " \
	  "type holding DQ(Q(W)) (bit-exact), the Q and DQ removed" }

#define OPT_ROTATE \
	{ .name = "rotate", .type = QOPT_OPT_ENUM, .default_value = "no", \
	  .choices = fp8_rotations, \
	  .help = "rotate_back (weight_mode = fake only; refused in real mode): " \
	  "store R fq(R W), R the normalized Hadamard along the consumers' " \
	  "reduction axis K (block K & -K), FP8 scale amax(R W)/448 at the " \
	  "Q scale's granularity; no activation rotation needed" }

#define OPT_MOVE_TRANSPOSE \
	{ .name = "move_transpose", .type = QOPT_OPT_BOOL, .default_value = "yes", \
	  .help = "Q -> DQ -> Transpose -> MatMul becomes Transpose -> Q -> DQ -> " \
	  "MatMul (exact)" }

#define OPT_MOVE_LAYOUT \
	{ .name = "move_layout", .type = QOPT_OPT_BOOL, .default_value = "yes", \
	  .help = "Q -> DQ -> layout ops (Reshape, Transpose, Expand, Squeeze, " \
	  "Unsqueeze, Slice, Gather, Split, Concat of alike Q/DQ) -> attention " \
	  "MatMul becomes layout ops -> Q -> DQ -> MatMul, per-tensor Q/DQ " \
	  "only (exact)" }

#define OPT_MOVE_SCALE \
	{ .name = "move_scale", .type = QOPT_OPT_BOOL, .default_value = "yes", \
	  .help = "Q -> DQ -> Mul(scalar c) -> MatMul becomes Mul(c) -> Q -> DQ -> " \
	  "MatMul with Q/DQ scales times |c| (exact up to float rounding)" }

#define OPT_SOFTMAX_QDQ \
	{ .name = "softmax_qdq", .type = QOPT_OPT_BOOL, .default_value = "yes", \
	  .help = "Q/DQ (scale 1/448, FLOAT8E4M3FN) after each Softmax feeding only " \
	  "MatMul (adds quantization)" }

#define OPT_CALIBRATION \
	{ .name = "calibration", .type = QOPT_OPT_STRING, .flags = QOPT_OPT_PATH, \
	  .help = "a JSON file from `qopt calibrate` for this model: Q/DQ " \
	  "(scale amax/448) on the inputs of the selected MatMul/Gemm of a " \
	  "plain model, FP8 weights; refused when made for another model" }

/* include and op_types: fp8-mha declares the passes' own defaults, which
 * the manager then does not hand on (a forwarded value reads as set,
 * qopt_opt_is_set, and what `qopt calibrate` measures depends on that). */
#define OPT_INCLUDE \
	{ .name = "include", .type = QOPT_OPT_LIST, .default_value = "*", \
	  .help = "calibration: globs over MatMul/Gemm node or output names" }

#define OPT_EXCLUDE \
	{ .name = "exclude", .type = QOPT_OPT_LIST, \
	  .help = "calibration: globs over the same names to leave in float " \
	  "(wins over include)" }

#define OPT_OP_TYPES \
	{ .name = "op_types", .type = QOPT_OPT_LIST, \
	  .default_value = "MatMul,Gemm", .choices = fp8_calib_ops, \
	  .help = "calibration: the operators whose inputs get Q/DQ" }

#define OPT_WEIGHT_AXIS \
	{ .name = "weight_axis", .type = QOPT_OPT_BOOL, .default_value = "no", \
	  .help = "calibration: per-output-channel weight scales (else per " \
	  "tensor)" }

/* The layer selection the passes fp8 and int8 share. */
#define LAYER_INCLUDE_EXCLUDE \
	{ .name = "include", .type = QOPT_OPT_LIST, .default_value = "*", \
	  .help = "globs over layer node or output names to quantize" }, \
	{ .name = "exclude", .type = QOPT_OPT_LIST, \
	  .help = "globs over the same names to leave in float (wins over " \
	  "include)" }

#define LAYER_MIN_SIZE \
	{ .name = "min_size", .type = QOPT_OPT_INT, .default_value = "0", \
	  .flags = QOPT_OPT_HAS_MIN, .min = 0, \
	  .help = "a layer whose constant weight has fewer elements stays in " \
	  "float" }

/* The pass fp8's own options (docs/fp8.md). */
static const qopt_option_spec fp8_opts[] = {
	{ .name = "calibration", .type = QOPT_OPT_STRING, .flags = QOPT_OPT_PATH,
	  .help = "a JSON file from `qopt calibrate --passes fp8` for this "
	  "model (required): activation scales amax/448; refused when made "
	  "for another model" },
	LAYER_INCLUDE_EXCLUDE,
	{ .name = "op_types", .type = QOPT_OPT_LIST,
	  .default_value = "Conv,ConvTranspose,MatMul,Gemm", .choices = fp8_ops,
	  .help = "the layers whose inputs get FP8 Q/DQ" },
	LAYER_MIN_SIZE,
	{ .name = "weight_axis", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "per-output-channel weight scales (axis 0 of a Conv weight, "
	  "1 of a ConvTranspose's, N of a MatMul's [K, N]); no: one per "
	  "tensor" },
	{ .name = "weight_mode", .type = QOPT_OPT_ENUM, .default_value = "real",
	  .choices = fp8_weight_modes,
	  .help = "real: FP8 weight codes feeding a DequantizeLinear; fake: "
	  "float weights holding DQ(Q(W)), for runtimes without FP8" },
	{ 0 }
};

/* The pass int8's: fp8's selection and calibration options (the same
 * placement, docs/int8.md); INT8 runs everywhere TensorRT does, so no
 * fake weight mode. */
static const qopt_option_spec int8_opts[] = {
	{ .name = "calibration", .type = QOPT_OPT_STRING, .flags = QOPT_OPT_PATH,
	  .help = "a JSON file from `qopt calibrate --passes int8` for this "
	  "model (required): activation scales amax/127; refused when made "
	  "for another model" },
	LAYER_INCLUDE_EXCLUDE,
	{ .name = "op_types", .type = QOPT_OPT_LIST,
	  .default_value = "Conv,ConvTranspose,MatMul,Gemm", .choices = fp8_ops,
	  .help = "the layers whose inputs get INT8 Q/DQ" },
	LAYER_MIN_SIZE,
	{ .name = "weight_axis", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "per-output-channel weight scales (axis 0 of a Conv weight, "
	  "1 of a ConvTranspose's, N of a MatMul's [K, N], Gemm's as transB "
	  "says); no: one per tensor" },
	{ 0 }
};

/* Which passes declare each option, written once (X-macro): the
 * columns are fp8-mha (the pipeline), fp8-calibrate-place,
 * fp8-custom-ops, fp8-compress-weights, fp8-move-transpose,
 * fp8-move-layout, fp8-move-scale and fp8-softmax-qdq (fp8-type-qdq and
 * fp8-report take none). Each pass declares only what it reads into its
 * own options struct (fp8.h). The pipeline forwards to each step
 * exactly the options that step declares, so the option lists and the
 * forward lists below are all made from this one table. */
#define FP8_OPTIONS(X)						\
	/*  OPT_*, name                  pipe cal cus wts tra lay sca sft */ \
	X(CONVERT_CUSTOM_OPS, "convert_custom_ops", 1, 0, 1, 0, 0, 0, 0, 0) \
	X(COMPRESS_WEIGHTS, "compress_weights",   1, 0, 0, 1, 0, 0, 0, 0) \
	X(WEIGHT_MODE, "weight_mode",             1, 0, 0, 1, 0, 0, 0, 0) \
	X(ROTATE, "rotate",                       1, 0, 0, 1, 0, 0, 0, 0) \
	X(MOVE_TRANSPOSE, "move_transpose",       1, 0, 0, 0, 1, 0, 0, 0) \
	X(MOVE_LAYOUT, "move_layout",             1, 0, 0, 0, 0, 1, 0, 0) \
	X(MOVE_SCALE, "move_scale",               1, 0, 0, 0, 0, 0, 1, 0) \
	X(SOFTMAX_QDQ, "softmax_qdq",             1, 0, 0, 0, 0, 0, 0, 1) \
	X(CALIBRATION, "calibration",             1, 1, 0, 0, 0, 0, 0, 1) \
	X(INCLUDE, "include",                     1, 1, 0, 0, 0, 0, 0, 0) \
	X(EXCLUDE, "exclude",                     1, 1, 0, 0, 0, 0, 0, 0) \
	X(OP_TYPES, "op_types",                   1, 1, 0, 0, 0, 0, 0, 0) \
	X(WEIGHT_AXIS, "weight_axis",             1, 1, 0, 0, 0, 0, 0, 0)

/* WHEN_SPEC(1, X) is OPT_X's spec and a comma, WHEN_SPEC(0, X) nothing;
 * WHEN_NAME the same for the name. */
#define WHEN_SPEC_0(x)
#define WHEN_SPEC_1(x) OPT_##x,
#define WHEN_SPEC_(f, x) WHEN_SPEC_##f(x)
#define WHEN_SPEC(f, x) WHEN_SPEC_(f, x)
#define WHEN_NAME_0(x)
#define WHEN_NAME_1(x) x,
#define WHEN_NAME_(f, x) WHEN_NAME_##f(x)
#define WHEN_NAME(f, x) WHEN_NAME_(f, x)

#define SPEC_PIPE(o, n, pipe, cal, cus, wts, tra, lay, sca, sft) \
	WHEN_SPEC(pipe, o)
#define SPEC_CAL(o, n, pipe, cal, cus, wts, tra, lay, sca, sft) \
	WHEN_SPEC(cal, o)
#define SPEC_CUS(o, n, pipe, cal, cus, wts, tra, lay, sca, sft) \
	WHEN_SPEC(cus, o)
#define SPEC_WTS(o, n, pipe, cal, cus, wts, tra, lay, sca, sft) \
	WHEN_SPEC(wts, o)
#define SPEC_TRA(o, n, pipe, cal, cus, wts, tra, lay, sca, sft) \
	WHEN_SPEC(tra, o)
#define SPEC_LAY(o, n, pipe, cal, cus, wts, tra, lay, sca, sft) \
	WHEN_SPEC(lay, o)
#define SPEC_SCA(o, n, pipe, cal, cus, wts, tra, lay, sca, sft) \
	WHEN_SPEC(sca, o)
#define SPEC_SFT(o, n, pipe, cal, cus, wts, tra, lay, sca, sft) \
	WHEN_SPEC(sft, o)
#define NAME_CAL(o, n, pipe, cal, cus, wts, tra, lay, sca, sft) \
	WHEN_NAME(cal, n)
#define NAME_CUS(o, n, pipe, cal, cus, wts, tra, lay, sca, sft) \
	WHEN_NAME(cus, n)
#define NAME_WTS(o, n, pipe, cal, cus, wts, tra, lay, sca, sft) \
	WHEN_NAME(wts, n)
#define NAME_TRA(o, n, pipe, cal, cus, wts, tra, lay, sca, sft) \
	WHEN_NAME(tra, n)
#define NAME_LAY(o, n, pipe, cal, cus, wts, tra, lay, sca, sft) \
	WHEN_NAME(lay, n)
#define NAME_SCA(o, n, pipe, cal, cus, wts, tra, lay, sca, sft) \
	WHEN_NAME(sca, n)
#define NAME_SFT(o, n, pipe, cal, cus, wts, tra, lay, sca, sft) \
	WHEN_NAME(sft, n)

static const qopt_option_spec fp8_mha_opts[] = {
	FP8_OPTIONS(SPEC_PIPE) { 0 } };
static const qopt_option_spec calib_opts[] = {
	FP8_OPTIONS(SPEC_CAL) { 0 } };
static const qopt_option_spec custom_opts[] = {
	FP8_OPTIONS(SPEC_CUS) { 0 } };
static const qopt_option_spec weight_opts[] = {
	FP8_OPTIONS(SPEC_WTS) { 0 } };
static const qopt_option_spec transpose_opts[] = {
	FP8_OPTIONS(SPEC_TRA) { 0 } };
static const qopt_option_spec layout_opts[] = {
	FP8_OPTIONS(SPEC_LAY) { 0 } };
static const qopt_option_spec scale_opts[] = {
	FP8_OPTIONS(SPEC_SCA) { 0 } };
static const qopt_option_spec softmax_opts[] = {
	FP8_OPTIONS(SPEC_SFT) { 0 } };

static const qopt_pass_info fp8_passes[] = {
	{ .name = "fp8",
	  .summary = "calibrated FP8 Q/DQ on Conv, ConvTranspose, MatMul and "
	  "Gemm as TensorRT runs them, FP8 per-channel weights (option "
	  "calibration)",
	  .options = fp8_opts, .run = fp8_run,
	  .calibration_targets = fp8_calibration_targets },
	{ .name = "int8",
	  .summary = "calibrated symmetric INT8 Q/DQ on Conv, ConvTranspose, "
	  "MatMul and Gemm as TensorRT runs them, INT8 per-channel weights "
	  "(option calibration)",
	  .options = int8_opts, .run = fp8_int8_run,
	  .calibration_targets = fp8_calibration_targets },
	{ .name = "fp8-calibrate-place",
	  .summary = "calibrated FP8 Q/DQ on the inputs of the selected "
	  "MatMul/Gemm of a plain model (option calibration)",
	  .options = calib_opts, .run = fp8_run_calibrate_place,
	  .calibration_targets = fp8_mha_calibration_targets },
	{ .name = "fp8-custom-ops",
	  .summary = "TensorRT's custom FP8 Q/DQ ops -> standard Q/DQ at opset 19",
	  .options = custom_opts, .run = fp8_run_custom_ops },
	{ .name = "fp8-type-qdq",
	  .summary = "every Q/DQ output declared with its element type and "
	  "its input's shape",
	  .run = fp8_run_type_qdq },
	{ .name = "fp8-compress-weights",
	  .summary = "Q(constant W) -> DQ stored as FP8 (or fake-quantized "
	  "float) weights, a Transpose after them folded in",
	  .options = weight_opts, .run = fp8_run_compress_weights },
	{ .name = "fp8-move-transpose",
	  .summary = "Q -> DQ -> Transpose -> MatMul becomes Transpose -> Q -> "
	  "DQ -> MatMul",
	  .options = transpose_opts, .run = fp8_run_move_transpose },
	{ .name = "fp8-move-layout",
	  .summary = "the Q/DQ of attention's Q, K, V moved below their "
	  "layout ops",
	  .options = layout_opts, .run = fp8_run_move_layout },
	{ .name = "fp8-move-scale",
	  .summary = "Q -> DQ -> Mul(scalar) -> MatMul becomes Mul -> Q -> DQ "
	  "-> MatMul",
	  .options = scale_opts, .run = fp8_run_move_scale },
	{ .name = "fp8-softmax-qdq",
	  .summary = "Q/DQ (scale 1/448) after each attention Softmax",
	  .options = softmax_opts, .run = fp8_run_softmax_qdq },
	{ .name = "fp8-report",
	  .summary = "the attention report: which blocks TensorRT can fuse, "
	  "and why not",
	  .run = fp8_run_report },
	{ 0 }
};

/* fp8-mha's options go to the steps that read them. The yes/no options
 * are forwarded, not `when`: a rewrite turned off still runs to name
 * each place it leaves ("move_scale = no"); the report finds such a
 * place again from the model. */
static const char *const fwd_calib[] = { FP8_OPTIONS(NAME_CAL) NULL };
static const char *const fwd_custom[] = { FP8_OPTIONS(NAME_CUS) NULL };
static const char *const fwd_weights[] = { FP8_OPTIONS(NAME_WTS) NULL };
static const char *const fwd_transpose[] = { FP8_OPTIONS(NAME_TRA) NULL };
static const char *const fwd_layout[] = { FP8_OPTIONS(NAME_LAY) NULL };
static const char *const fwd_scale[] = { FP8_OPTIONS(NAME_SCA) NULL };
static const char *const fwd_softmax[] = { FP8_OPTIONS(NAME_SFT) NULL };

/* The order matters: calibrated placement first (its file is for the
 * model's hash, before anything changes it), custom ops next (the other
 * rewrites match standard Q/DQ), weights before motion (a compressed
 * weight has no Q left to move a Transpose above), Transposes before
 * scales (Q -> DQ -> Transpose -> Mul becomes Transpose -> Q -> DQ -> Mul,
 * whose Mul then moves), the Q/DQ of Q, K, V below their layout ops next
 * (a scale Mul left after the new DQ moves with the others), Softmax
 * Q/DQ last so the report sees the final form. */
static const qopt_pipeline_step fp8_steps[] = {
	{ .pass = "fp8-calibrate-place", .forward = fwd_calib },
	{ .pass = "fp8-custom-ops", .forward = fwd_custom },
	{ .pass = "fp8-type-qdq" },
	{ .pass = "fp8-compress-weights", .forward = fwd_weights },
	{ .pass = "fp8-move-transpose", .forward = fwd_transpose },
	{ .pass = "fp8-move-layout", .forward = fwd_layout },
	{ .pass = "fp8-move-scale", .forward = fwd_scale },
	{ .pass = "fp8-softmax-qdq", .forward = fwd_softmax },
	{ .pass = "fp8-report" },
	{ 0 }
};

static const qopt_pipeline_info fp8_pipelines[] = {
	{ .name = "fp8-mha",
	  .summary = "exported FP8 models into the form TensorRT's fused FP8 "
	  "attention needs, with an attention report",
	  .options = fp8_mha_opts, .steps = fp8_steps },
	{ 0 }
};

QOPT_PLUGIN_PIPELINES("fp8-mha", "1.0", fp8_passes, fp8_pipelines)

/*
 * passes/hadamard_rotate/plugin.c - the plugin's entry table and the
 * pass's options (kept apart from the pass so that an ABI change
 * touches this file only).
 */
#include "hadamard_rotate.h"

static const char *const hadamard_rotate_ops[] = { "MatMul", "Gemm", NULL };
static const char *const hadamard_rotate_quantizers[] = { "none", "nvfp4", "fp8", NULL };
static const qopt_option_spec hadamard_rotate_opts[] = {
	{ .name = "include", .type = QOPT_OPT_LIST, .default_value = "*",
	  .help = "globs over consumer node names and weight names to rotate" },
	{ .name = "exclude", .type = QOPT_OPT_LIST,
	  .help = "globs over the same names to leave alone (wins over include)" },
	{ .name = "op_types", .type = QOPT_OPT_LIST,
	  .default_value = "MatMul,Gemm", .choices = hadamard_rotate_ops,
	  .help = "consumers whose weight is rotated" },
	{ .name = "min_size", .type = QOPT_OPT_INT, .default_value = "4096",
	  .flags = QOPT_OPT_HAS_MIN, .min = 0,
	  .help = "weights with fewer elements are left alone" },
	/* 0 or a power of two (the manager checks both): 2^16 is the
	 * largest block the two-factor activation rotation covers
	 * (HADAMARD_ROTATE_DENSE_MAX squared). Written as a word of a list before, the
	 * same digits. */
	{ .name = "block_size", .type = QOPT_OPT_INT, .default_value = "0",
	  .flags = QOPT_OPT_HAS_MIN | QOPT_OPT_HAS_MAX | QOPT_OPT_POW2,
	  .min = 0,
	  .max = HADAMARD_ROTATE_BLOCK_MAX,
	  .help = "Hadamard block along K: 0 = K when a power of two, else its "
	  "largest power-of-two divisor; else a power of two dividing K" },
	{ .name = "fold", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "fold an activation's rotation into its producer (a constant-"
	  "weight MatMul/Gemm and its bias, or through attention's P @ V) "
	  "when every consumer is rotated the same way; no: always online" },
	{ .name = "quantizer", .type = QOPT_OPT_ENUM, .default_value = "none",
	  .choices = hadamard_rotate_quantizers,
	  .help = "none: rotate every target; nvfp4 or fp8: rotate only where it "
	  "lowers the weight's reconstruction error in that format" },
	{ 0 }
};

static const qopt_pass_info hadamard_rotate_passes[] = {
	{ .name = "hadamard-rotate",
	  .summary = "rotate MatMul/Gemm reduction axes by a normalized Hadamard "
	  "matrix (weights offline, activations in standard ops)",
	  .options = hadamard_rotate_opts,
	  .run = hadamard_rotate_run,
	  .flags = QOPT_PASS_HAS_TARGETS },
	{ 0 }
};

QOPT_PLUGIN("hadamard-rotate", "1.0", hadamard_rotate_passes)

/*
 * passes/hadamard_rotate/plugin.c - the plugin's entry table and the
 * pass's options (kept apart from the pass so that an ABI change
 * touches this file only).
 */
#include "hadamard_rotate.h"

static const qopt_option_spec hr_opts[] = {
	{ "include", QOPT_OPT_LIST, "*",
	  "globs over consumer node names and weight names to rotate" },
	{ "exclude", QOPT_OPT_LIST, NULL,
	  "globs over the same names to leave alone (wins over include)" },
	{ "op_types", QOPT_OPT_LIST, "MatMul,Gemm",
	  "consumers whose weight is rotated: MatMul, Gemm" },
	{ "min_size", QOPT_OPT_INT, "4096",
	  "weights with fewer elements are left alone" },
	{ "block_size", QOPT_OPT_INT, "0",
	  "Hadamard block along K: 0 = K when a power of two, else its "
	  "largest power-of-two divisor; else a power of two dividing K" },
	{ "fold", QOPT_OPT_BOOL, "yes",
	  "fold an activation's rotation into its producer (a constant-"
	  "weight MatMul/Gemm and its bias, or through attention's P @ V) "
	  "when every consumer is rotated the same way; no: always online" },
	{ "quantizer", QOPT_OPT_STRING, "none",
	  "none: rotate every target; nvfp4 or fp8: rotate only where it "
	  "lowers the weight's reconstruction error in that format" },
	{ NULL, 0, NULL, NULL }
};

static const qopt_pass_info hr_passes[] = {
	{ "hadamard-rotate",
	  "rotate MatMul/Gemm reduction axes by a normalized Hadamard "
	  "matrix (weights offline, activations in standard ops)",
	  hr_opts, hr_run, QOPT_PASS_HAS_TARGETS },
	{ NULL, NULL, NULL, NULL, 0 }
};

static const qopt_plugin_info hr_plugin = {
	QOPT_ABI_VERSION, "hadamard-rotate", "1.0", hr_passes
};

QOPT_EXPORT const qopt_plugin_info *qopt_plugin_entry(void)
{
	return &hr_plugin;
}

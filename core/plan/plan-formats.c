/*
 * core/plan/plan-formats.c - the formats `qopt plan` offers (plan.h):
 * each one's --formats spelling, its bits per weight, the pass that
 * makes it and that pass's fixed options.
 */
#include "plan/plan.h"

const struct plan_format plan_formats[PF_COUNT] = {
	[PF_NONE] = { "none", 16, 64, NULL, NULL },
	[PF_FP8] = { "fp8", 8, 32, "fp8", NULL },
	[PF_NVFP4] = { "nvfp4", 4.5, 18, "nvfp4-weights",
		       "mode=fake:min_size=0" },
	[PF_MXFP8] = { "mxfp8", 8.25, 33, "mxfp8", "mode=fake:min_size=0" },
	/* the activation rotated online (fold = no: no other layer's
	 * weight changes), then the weight as nvfp4 */
	[PF_HNVFP4] = { "hadamard+nvfp4", 4.5, 18, "hadamard-rotate",
			"fold=no:min_size=0" },
	/* W4A4: nvfp4's weights (4.5 bits) and TensorRT's dynamic NVFP4
	 * on the activation, its global scale from the calibration file */
	[PF_W4A4] = { "w4a4", 4.5, 18, "nvfp4",
		      "activations=yes:mode=fake:min_size=0" },
	/* TensorRT's explicit INT8 (Ampere, Turing, Orin: no FP8) */
	[PF_INT8] = { "int8", 8, 32, "int8", NULL },
};

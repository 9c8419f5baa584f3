/*
 * passes/mxfp8/mxfp8.h - the mxfp8 pass's configuration and state, the
 * bottom of its headers (not installed; the pass sees only qopt/qopt.h
 * and the pass toolkit). Each file's functions are declared in its own
 * header, which includes this one only: util.h (the bottom), select.h,
 * act.h, weight.h, export.h; plugin.c on top. Calls go down that list.
 *
 * MXFP8 (docs/mxfp8.md): FP8 E4M3 elements with one E8M0 power-of-two
 * scale per 32 elements along the reduction axis K. Weights are
 * quantized once (static); activations are quantized at run time, each
 * block with its own scale, so no calibration is involved.
 */
#ifndef QOPT_PASSES_MXFP8_H
#define QOPT_PASSES_MXFP8_H

#include <qopt/qopt.h>

#include "../support/support.h"

#define MXFP8_BLOCK QK_MXFP8_BLOCK
#define MXFP8_DOMAIN "trt"
#define MXFP8_DQ "TRT_MXFP8DequantizeLinear"
#define MXFP8_DYNQ "TRT_MXFP8DynamicQuantize"
#define MXFP8_FOLD_MAX_BYTES (UINT64_C(8) << 30)

enum mxfp8_mode { MXFP8_REAL = 0, MXFP8_FAKE = 1 };
enum mxfp8_format { MXFP8_TRT = 0, MXFP8_ONNX = 1 };

/* One activation already quantized: its replacement, reused by every
 * selected consumer of the same value. */
struct mxfp8_act {
	qir_value *x, *q;
};

struct mxfp8_done {
	qir_value *v;
	int rc;		/* 0 quantized (v is the new value), 1 skipped */
};

struct mxfp8_cfg {
	qopt_ctx *ctx;
	qir_model *m;
	qk_ctx *qk;
	int mode, format, weights, activations;
	struct ps_targets tg;
	struct mxfp8_act *acts;
	size_t nacts, cap;
	struct mxfp8_done *done;	/* weights seen, and their outcome */
	size_t ndone, capdone;
	int opset_asked;
	qopt_status opset_rc;
	struct ps_coverage cov;	/* every candidate weight's outcome */
	int match_in;		/* include index of mxfp8_match's last layer */
	int pattern;		/* that of the layer mxfp8_weight is called for */
};

#endif

/*
 * passes/fp8/calib.h - calibrated Q/DQ placement (option
 * `calibration = FILE`): the file written by `qopt calibrate` and the
 * placement that uses it.
 */
#ifndef QOPT_PASSES_FP8MHA_CALIB_H
#define QOPT_PASSES_FP8MHA_CALIB_H

#include "fp8.h"
#include <qopt/calib.h>

/* The code format a placement writes: FP8 E4M3 (the passes fp8 and
 * fp8-mha) or symmetric INT8 (the pass int8, docs/int8.md). pass names
 * the placement in tensor names ("W_fp8_scale"), counters and messages. */
struct fp8_qformat {
	const char *pass;	/* "fp8", "int8" */
	const char *label;	/* "FP8", "INT8": messages */
	int qtype;		/* QIR_FLOAT8E4M3FN, QIR_INT8 */
	double qmax;		/* 448, 127: scale = amax / qmax */
	int saturate;		/* saturate = 1 on the Q (float8 only) */
};
extern const struct fp8_qformat fp8_fp8, fp8_int8;

/* calib_place.c, the pass fp8-calibrate-place (first in fp8-mha), when
 * `calibration` is set: checks the file's hash against the model as
 * the pass received it, then places Q/DQ (weights as Q(W) -> DQ, for
 * fp8-compress-weights to store). */
int fp8_calib_place(struct fp8_cfg *cfg, int *changed);
/* The same for the passes fp8 and int8 (flags FP8_PLACE_CNN, format
 * fmt): Conv and ConvTranspose too, each layer quantized on both
 * inputs or left in float with the reason, min_size, every sub-graph,
 * and the residual rule (residual.c). docs/fp8.md, docs/int8.md. */
#define FP8_PLACE_CNN 1u
int fp8_calib_place_ex(struct fp8_cfg *cfg, unsigned flags,
			  const struct fp8_qformat *fmt, int *changed);

/* residual.c: TensorRT's residual rule over the placed nodes: an Add
 * one of whose inputs is the output of an FP8 Conv (through a
 * BatchNormalization) that only it reads gets Q/DQ on its other input,
 * the shortcut, through place(arg, add, slot) (1 placed, 0 skipped,
 * -1 error); when both inputs are such Convs, the shortcut is the one
 * with the shorter path back to where the two branches meet. */
typedef int (*fp8_place_fn)(void *arg, qir_node *n, size_t slot);
int fp8_residual_adds(struct fp8_cfg *cfg, const char *pass,
			 qir_node **nodes, size_t count, fp8_place_fn place,
			 void *arg, int *changed);
/* residual.c: the shortcut slot of Add n under that rule, or -1 when n
 * is not such an Add; conv_ok(n) says whether a Conv counts (placed,
 * or, for calibration, selected). */
int fp8_residual_slot(qir_node *n, int (*conv_ok)(const qir_node *conv,
						       void *arg), void *arg);

/* calib_targets.c: the pass's calibration_targets (what `qopt
 * calibrate` measures for it). */
qopt_status fp8_mha_calibration_targets(qopt_ctx *ctx, qir_model *m);
/* The pass fp8's: inputs of its selected layers in every graph, and
 * the shortcuts of the residual Adds after them. */
qopt_status fp8_calibration_targets(qopt_ctx *ctx, qir_model *m);

#endif

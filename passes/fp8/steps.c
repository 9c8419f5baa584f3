/*
 * passes/fp8/steps.c - the run functions of the plugin's
 * single-purpose passes. Each builds its own fp8_cfg from its own
 * options and the model: nothing passes from one step to the next but
 * the model, so each step may run alone, and bisect, --print-after,
 * --time-passes and --verify-each see between them.
 */
#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "../support/fail.h"

static int begin(struct fp8_cfg *cfg, qopt_ctx *ctx, qir_model *m)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->ctx = ctx;
	cfg->m = m;
	cfg->qk = qopt_kernels(ctx);
	if (!cfg->qk) {
		return ps_fail(ctx, QOPT_EDEVICE, "no kernel context");
	}
	return 0;
}

/* Removes what the step left unread, frees what it owned. */
static qopt_status end(struct fp8_cfg *cfg, int rc)
{
	fp8_flush_dead(cfg);
	free(cfg->notes);
	ps_sweep_fini(&cfg->sweep);
	return ps_status(rc);
}

typedef int (*stage_fn)(struct fp8_cfg *, int *);

/* A step without options. */
static qopt_status plain(qopt_ctx *ctx, qir_model *m, int *changed,
			 stage_fn stage)
{
	struct fp8_cfg cfg;

	*changed = 0;
	if (begin(&cfg, ctx, m))
		return ps_status(-1);
	return end(&cfg, stage(&cfg, changed));
}

typedef int (*switch_fn)(struct fp8_cfg *, const struct fp8_switch *,
			 int *);

/* A step whose one option is its yes/no switch, named opt. */
static qopt_status switched(qopt_ctx *ctx, qir_model *m, int *changed,
			    switch_fn stage, const char *opt)
{
	struct fp8_cfg cfg;
	struct fp8_switch o;

	*changed = 0;
	if (begin(&cfg, ctx, m))
		return ps_status(-1);
	o.on = qopt_opt_bool(ctx, opt);
	return end(&cfg, stage(&cfg, &o, changed));
}

qopt_status fp8_run_calibrate_place(qopt_ctx *ctx, qir_model *m,
				       int *changed)
{
	return plain(ctx, m, changed, fp8_calib_place);
}

qopt_status fp8_run_custom_ops(qopt_ctx *ctx, qir_model *m, int *changed)
{
	return switched(ctx, m, changed, fp8_convert_custom_ops,
			"convert_custom_ops");
}

qopt_status fp8_run_type_qdq(qopt_ctx *ctx, qir_model *m, int *changed)
{
	return plain(ctx, m, changed, fp8_type_qdq);
}

qopt_status fp8_run_compress_weights(qopt_ctx *ctx, qir_model *m,
					int *changed)
{
	struct fp8_cfg cfg;
	struct fp8_weight_opts o = { 0 };
	int rc;

	*changed = 0;
	if (begin(&cfg, ctx, m))
		return ps_status(-1);
	o.compress = qopt_opt_bool(ctx, "compress_weights");
	if (fp8_rotate_options(ctx, &o))
		return end(&cfg, -1);
	/* Weights, then the FP8 weights already stored that feed a
	 * Transpose (the compression pre-transposes its own on the way). */
	rc = fp8_compress_weights(&cfg, &o, changed);
	fp8_flush_dead(&cfg);
	return end(&cfg, rc ? rc : fp8_pretranspose(&cfg, &o, changed));
}

qopt_status fp8_run_move_transpose(qopt_ctx *ctx, qir_model *m,
				      int *changed)
{
	return switched(ctx, m, changed, fp8_move_transposes,
			"move_transpose");
}

qopt_status fp8_run_move_layout(qopt_ctx *ctx, qir_model *m, int *changed)
{
	return switched(ctx, m, changed, fp8_sink_layout, "move_layout");
}

qopt_status fp8_run_move_scale(qopt_ctx *ctx, qir_model *m, int *changed)
{
	return switched(ctx, m, changed, fp8_move_scales, "move_scale");
}

qopt_status fp8_run_softmax_qdq(qopt_ctx *ctx, qir_model *m, int *changed)
{
	struct fp8_cfg cfg;
	struct fp8_softmax_opts o;
	const char *cal;

	*changed = 0;
	if (begin(&cfg, ctx, m))
		return ps_status(-1);
	o.on = qopt_opt_bool(ctx, "softmax_qdq");
	cal = qopt_opt_string(ctx, "calibration");
	o.calibrated = cal && *cal;
	return end(&cfg, fp8_softmax_qdq(&cfg, &o, changed));
}

/* The report takes no options: why a rewrite left a place it finds
 * from the model (report.c, explain run). */
static int report(struct fp8_cfg *cfg, int *changed)
{
	(void)changed;
	return fp8_report(cfg);
}

qopt_status fp8_run_report(qopt_ctx *ctx, qir_model *m, int *changed)
{
	return plain(ctx, m, changed, report);
}

/* The pass fp8: calibrated FP8 Q/DQ on the inputs of Conv,
 * ConvTranspose, MatMul and Gemm in every graph (docs/fp8.md), then
 * each Q(constant W) -> DQ stored as FP8 codes (or, weight_mode = fake,
 * as float DQ(Q(W))): the form TensorRT's explicit quantization reads. */
static qopt_status place_and_store(qopt_ctx *ctx, qir_model *m, int *changed,
				   const struct fp8_qformat *fmt,
				   const struct fp8_weight_opts *weights)
{
	struct fp8_cfg cfg;
	int rc;

	*changed = 0;
	if (begin(&cfg, ctx, m))
		return ps_status(-1);
	rc = fp8_calib_place_ex(&cfg, FP8_PLACE_CNN, fmt, changed);
	if (!rc && *changed)
		rc = fp8_type_qdq(&cfg, changed);
	if (!rc && *changed)
		rc = fp8_compress_weights(&cfg, weights, changed);
	return end(&cfg, rc);
}

qopt_status fp8_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	struct fp8_weight_opts weights = { 1, 0, 0, 0 };

	weights.fake = qopt_opt_enum(ctx, "weight_mode") == 1;
	return place_and_store(ctx, m, changed, &fp8_fp8, &weights);
}

/* The pass int8: the same placement and rules in symmetric INT8 (zero
 * point 0, scale amax/127), each weight stored as INT8 codes behind its
 * DequantizeLinear (docs/int8.md): TensorRT's explicit INT8, for GPUs
 * without FP8. */
qopt_status fp8_int8_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	const struct fp8_weight_opts weights = { 1, 0, 0, 1 };

	return place_and_store(ctx, m, changed, &fp8_int8, &weights);
}

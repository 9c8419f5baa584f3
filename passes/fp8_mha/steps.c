/*
 * passes/fp8_mha/steps.c - the run functions of the plugin's
 * single-purpose passes. Each builds its own fp8mha_cfg from its own
 * options and the model: nothing passes from one step to the next but
 * the model, so each step may run alone, and bisect, --print-after,
 * --time-passes and --verify-each see between them.
 */
#include <stdlib.h>
#include <string.h>

#include "calib.h"

/* Options a step does not declare read as their defaults ("yes"). */
static qopt_status begin(struct fp8mha_cfg *cfg, qopt_ctx *ctx, qir_model *m)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->ctx = ctx;
	cfg->m = m;
	cfg->qk = qopt_kernels(ctx);
	cfg->convert_custom_ops = cfg->compress_weights = 1;
	cfg->move_transpose = cfg->move_layout = cfg->move_scale = 1;
	cfg->softmax_qdq = 1;
	if (!cfg->qk) {
		qopt_error(ctx, "no kernel context");
		return QOPT_EPASS;
	}
	return QOPT_OK;
}

/* Removes what the step left unread, frees what it owned. */
static qopt_status end(struct fp8mha_cfg *cfg, int rc)
{
	fp8mha_flush_dead(cfg);
	free(cfg->notes);
	ps_sweep_fini(&cfg->sweep);
	return rc ? QOPT_EPASS : QOPT_OK;
}

typedef int (*stage_fn)(struct fp8mha_cfg *, int *);

/* A step without options. */
static qopt_status plain(qopt_ctx *ctx, qir_model *m, int *changed,
			 stage_fn stage)
{
	struct fp8mha_cfg cfg;

	*changed = 0;
	if (begin(&cfg, ctx, m))
		return QOPT_EPASS;
	return end(&cfg, stage(&cfg, changed));
}

/* A step whose one option, yes/no, goes to cfg.field. */
#define STEP(stage, opt, field)						\
	do {								\
		struct fp8mha_cfg cfg;					\
									\
		*changed = 0;						\
		if (begin(&cfg, ctx, m))				\
			return QOPT_EPASS;				\
		cfg.field = qopt_opt_bool(ctx, (opt));			\
		return end(&cfg, (stage)(&cfg, changed));		\
	} while (0)

qopt_status fp8mha_run_calibrate_place(qopt_ctx *ctx, qir_model *m,
				       int *changed)
{
	return plain(ctx, m, changed, fp8mha_calib_place);
}

qopt_status fp8mha_run_custom_ops(qopt_ctx *ctx, qir_model *m, int *changed)
{
	STEP(fp8mha_convert_custom_ops, "convert_custom_ops",
		     convert_custom_ops);
}

qopt_status fp8mha_run_type_qdq(qopt_ctx *ctx, qir_model *m, int *changed)
{
	return plain(ctx, m, changed, fp8mha_type_qdq);
}

/* Weights, then the FP8 weights already stored that feed a Transpose
 * (the compression pre-transposes its own on the way). */
static int weights_and_transposes(struct fp8mha_cfg *cfg, int *changed)
{
	int rc = fp8mha_compress_weights(cfg, changed);

	fp8mha_flush_dead(cfg);
	return rc ? rc : fp8mha_pretranspose(cfg, changed);
}

qopt_status fp8mha_run_compress_weights(qopt_ctx *ctx, qir_model *m,
					int *changed)
{
	struct fp8mha_cfg cfg;

	*changed = 0;
	if (begin(&cfg, ctx, m))
		return QOPT_EPASS;
	cfg.compress_weights = qopt_opt_bool(ctx, "compress_weights");
	if (fp8mha_rotate_options(&cfg))
		return end(&cfg, -1);
	return end(&cfg, weights_and_transposes(&cfg, changed));
}

qopt_status fp8mha_run_move_transpose(qopt_ctx *ctx, qir_model *m,
				      int *changed)
{
	STEP(fp8mha_move_transposes, "move_transpose", move_transpose);
}

qopt_status fp8mha_run_move_layout(qopt_ctx *ctx, qir_model *m, int *changed)
{
	STEP(fp8mha_sink_layout, "move_layout", move_layout);
}

qopt_status fp8mha_run_move_scale(qopt_ctx *ctx, qir_model *m, int *changed)
{
	STEP(fp8mha_move_scales, "move_scale", move_scale);
}

qopt_status fp8mha_run_softmax_qdq(qopt_ctx *ctx, qir_model *m, int *changed)
{
	struct fp8mha_cfg cfg;
	const char *cal;

	*changed = 0;
	if (begin(&cfg, ctx, m))
		return QOPT_EPASS;
	cfg.softmax_qdq = qopt_opt_bool(ctx, "softmax_qdq");
	cal = qopt_opt_string(ctx, "calibration");
	cfg.calibrated = cal && *cal;
	return end(&cfg, fp8mha_softmax_qdq(&cfg, changed));
}

qopt_status fp8mha_run_report(qopt_ctx *ctx, qir_model *m, int *changed)
{
	struct fp8mha_cfg cfg;

	*changed = 0;
	if (begin(&cfg, ctx, m))
		return QOPT_EPASS;
	cfg.move_transpose = qopt_opt_bool(ctx, "move_transpose");
	cfg.move_layout = qopt_opt_bool(ctx, "move_layout");
	cfg.move_scale = qopt_opt_bool(ctx, "move_scale");
	cfg.softmax_qdq = qopt_opt_bool(ctx, "softmax_qdq");
	return end(&cfg, fp8mha_report(&cfg));
}

/* The pass fp8: calibrated FP8 Q/DQ on the inputs of Conv,
 * ConvTranspose, MatMul and Gemm in every graph (docs/fp8.md), then
 * each Q(constant W) -> DQ stored as FP8 codes (or, weight_mode = fake,
 * as float DQ(Q(W))): the form TensorRT's explicit quantization reads. */
qopt_status fp8_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	struct fp8mha_cfg cfg;
	int rc;

	*changed = 0;
	if (begin(&cfg, ctx, m))
		return QOPT_EPASS;
	cfg.weight_fake = qopt_opt_enum(ctx, "weight_mode") == 1;
	rc = fp8mha_calib_place_ex(&cfg, FP8MHA_PLACE_CNN, changed);
	if (!rc && *changed)
		rc = fp8mha_type_qdq(&cfg, changed);
	if (!rc && *changed)
		rc = fp8mha_compress_weights(&cfg, changed);
	return end(&cfg, rc);
}

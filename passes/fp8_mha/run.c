/*
 * passes/fp8_mha/run.c - the fp8-mha pass: its rewrites in order, then
 * the attention report.
 *
 * Order matters: custom ops first (the other rewrites match standard
 * Q/DQ), weights before motion (a compressed weight has no Q left to
 * move a Transpose above), Transposes before scales (the K path
 * Q -> DQ -> Transpose -> Mul becomes Transpose -> Q -> DQ -> Mul, whose
 * Mul then moves), the Q/DQ of Q, K, V below their layout ops next (a
 * scale Mul left after the new DQ moves with the others), Softmax Q/DQ
 * last so the report sees the final form.
 */
#include <stdlib.h>
#include <string.h>

#include "calib.h"

int fp8mha_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	static int (*const stages[])(struct fp8mha_cfg *, int *) = {
		fp8mha_calib_place, fp8mha_convert_custom_ops,
		fp8mha_type_qdq, fp8mha_compress_weights,
		fp8mha_pretranspose, fp8mha_move_transposes,
		fp8mha_sink_layout, fp8mha_move_scales, fp8mha_softmax_qdq,
	};
	struct fp8mha_cfg cfg;
	size_t blocks = 0, fusible = 0;
	int rc = -1;

	*changed = 0;
	memset(&cfg, 0, sizeof(cfg));
	cfg.ctx = ctx;
	cfg.m = m;
	cfg.qk = qopt_kernels(ctx);
	cfg.convert_custom_ops = qopt_opt_bool(ctx, "convert_custom_ops");
	cfg.compress_weights = qopt_opt_bool(ctx, "compress_weights");
	cfg.move_transpose = qopt_opt_bool(ctx, "move_transpose");
	cfg.move_scale = qopt_opt_bool(ctx, "move_scale");
	cfg.move_layout = qopt_opt_bool(ctx, "move_layout");
	cfg.softmax_qdq = qopt_opt_bool(ctx, "softmax_qdq");
	if (!cfg.qk) {
		qopt_error(ctx, "no kernel context");
		return -1;
	}
	if (fp8mha_rotate_options(&cfg))
		return -1;
	/* Each stage's dead initializers go before the next stage looks
	 * (one walk over the initializers per stage). */
	for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
		int src = stages[i](&cfg, changed);

		fp8mha_flush_dead(&cfg);
		if (src)
			goto out;
	}
	if (fp8mha_report(&cfg, &blocks, &fusible))
		goto out;
	if (!cfg.found)
		qopt_warn(ctx, "no FP8 Q/DQ, custom FP8 op or attention block "
			  "found: nothing to do");
	else if (blocks)
		qopt_info(ctx, "attention: %zu of %zu blocks fusible", fusible,
			  blocks);
	rc = 0;
out:
	free(cfg.notes);
	free(cfg.strip_buf);
	free(cfg.tr_buf);
	free(cfg.calib_left);
	free(cfg.dead);
	return rc;
}

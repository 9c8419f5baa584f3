/*
 * passes/fp8_mha/opset.c - FP8 QuantizeLinear/DequantizeLinear exist
 * from opset 19 (IR 9). The pass raises the model there through the
 * library's opset upgrade (every op whose definition changed on the way
 * is carried across, or the pass fails with the model untouched), unless
 * the opset-check pass in the same pipeline forbids it:
 *   upgrade = no     the opset must not change;
 *   target = N < 19  the pipeline converts below FP8.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fp8mha.h"

static int is_no(const char *s)
{
	return !strcasecmp(s, "no") || !strcasecmp(s, "false") ||
	       !strcasecmp(s, "off") || !strcmp(s, "0");
}

static int forbidden(struct fp8mha_cfg *cfg, int64_t opset)
{
	const char *up = qopt_pipeline_setting(cfg->ctx, "opset-check",
					       "upgrade");
	const char *tg = qopt_pipeline_setting(cfg->ctx, "opset-check",
					       "target");
	char *end;
	long long n;

	if (up && up[0] && is_no(up) && opset < FP8MHA_OPSET) {
		qopt_error(cfg->ctx, "FP8 QuantizeLinear/DequantizeLinear need "
			   "opset %d but the model is at opset %lld and "
			   "opset-check has upgrade = %s; allow the upgrade or "
			   "set convert_custom_ops = no and softmax_qdq = no",
			   FP8MHA_OPSET, (long long)opset, up);
		return 1;
	}
	if (!tg || !tg[0])
		return 0;
	n = strtoll(tg, &end, 10);
	if (*end || n >= FP8MHA_OPSET)
		return 0;
	qopt_error(cfg->ctx, "FP8 QuantizeLinear/DequantizeLinear need opset "
		   "%d but opset-check has target = %s", FP8MHA_OPSET, tg);
	return 1;
}

static void on_rewrite(void *arg, const char *node, const char *op, int step,
		       const char *what)
{
	qopt_debug(arg, "opset upgrade: %s: %s-%d: %s", node, op, step, what);
}

int fp8mha_prepare_opset(struct fp8mha_cfg *cfg)
{
	int64_t opset = qir_model_opset(cfg->m, "");
	qir_upgrade_report rep = { 0 };
	qir_error err = { 0 };

	if (cfg->opset_done)
		return 0;
	if (forbidden(cfg, opset))
		return -1;
	if (opset < FP8MHA_OPSET) {
		rep.on_rewrite = on_rewrite;
		rep.arg = cfg->ctx;
		if (qir_model_upgrade_opset(cfg->m, FP8MHA_OPSET, &rep, &err)) {
			qopt_error(cfg->ctx, "FP8 QuantizeLinear/DequantizeLinear "
				   "need opset %d and the model (opset %lld) "
				   "cannot be upgraded: %s", FP8MHA_OPSET,
				   (long long)opset, err.msg);
			return -1;
		}
		qopt_info(cfg->ctx, "upgraded ai.onnx opset %lld -> %d for FP8 "
			  "Q/DQ (IR version %lld -> %lld): %lld operator "
			  "changes rewritten", (long long)opset, FP8MHA_OPSET,
			  (long long)rep.ir_before, (long long)rep.ir_after,
			  (long long)rep.nodes_rewritten);
		qopt_stat_add(cfg->ctx, "opset upgraded to 19", 1);
	}
	/* No setter exists for the IR version: it is a plain field. */
	if (cfg->m->ir_version < FP8MHA_IR)
		cfg->m->ir_version = FP8MHA_IR;
	cfg->opset_done = 1;
	return 0;
}

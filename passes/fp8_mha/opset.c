/*
 * passes/fp8_mha/opset.c - FP8 QuantizeLinear/DequantizeLinear exist
 * from opset 19 (IR 9). The pass raises the model there through the
 * library's opset upgrade (every op whose definition changed on the way
 * is carried across, or the pass fails with the model untouched), unless
 * the pipeline's typed policy forbids it ([qopt] max_opset below 19 or
 * allow_upgrade = no): the answer never depends on which other passes
 * run. The upgrade is a bisect point of its own, asked once per run.
 */
#include <stdlib.h>
#include <string.h>

#include "fp8mha.h"

static int forbidden(struct fp8mha_cfg *cfg, int64_t opset)
{
	int64_t max = qopt_policy_max_opset(cfg->ctx);

	if (max && max < FP8MHA_OPSET) {
		qopt_error(cfg->ctx, "FP8 QuantizeLinear/DequantizeLinear need "
			   "opset %d but the pipeline has [qopt] max_opset = "
			   "%lld; raise it or set convert_custom_ops = no and "
			   "softmax_qdq = no", FP8MHA_OPSET, (long long)max);
		return 1;
	}
	if (opset < FP8MHA_OPSET && !qopt_policy_allow_upgrade(cfg->ctx)) {
		qopt_error(cfg->ctx, "FP8 QuantizeLinear/DequantizeLinear need "
			   "opset %d but the model is at opset %lld and the "
			   "pipeline has [qopt] allow_upgrade = no; allow the "
			   "upgrade or set convert_custom_ops = no and "
			   "softmax_qdq = no", FP8MHA_OPSET, (long long)opset);
		return 1;
	}
	return 0;
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
	if (cfg->opset_denied)
		return 1;
	if (forbidden(cfg, opset))
		return -1;
	if (opset < FP8MHA_OPSET) {
		if (!qopt_may_rewrite(cfg->ctx, "upgrade opset %lld -> %d for "
				      "FP8 Q/DQ", (long long)opset,
				      FP8MHA_OPSET)) {
			cfg->opset_denied = 1;
			return 1;
		}
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

/*
 * passes/nvfp4_weights/opset.c - FLOAT4E2M1 DequantizeLinear needs
 * opset 23 and IR 11 (docs/numerics.md). The pass raises both when the
 * pipeline's opset policy allows it: [qopt] max_opset below 23 or
 * allow_upgrade = no forbid it (qopt_policy_*). Nothing else does: the
 * answer never depends on which other passes run or how they are set.
 * Raising is a real upgrade (qir_model_upgrade_opset): every op whose
 * definition changed on the way is rewritten to keep its meaning, or,
 * when one cannot be, the pass fails with the model as it was: a bare
 * renumbering could silently change what older ops compute. The
 * upgrade is one bisect point of its own, asked once per run.
 */
#include <stdlib.h>
#include <string.h>

#include "nvfp4.h"

#define NVFP4_OPSET 23
#define NVFP4_IR 11

static int policy_forbids(struct nvfp4_cfg *cfg, int64_t opset)
{
	int64_t max = qopt_policy_max_opset(cfg->ctx);

	if (max && max < NVFP4_OPSET) {
		qopt_error(cfg->ctx,
			   "mode = real needs opset %d (FLOAT4E2M1 DequantizeLinear) "
			   "but the pipeline has [qopt] max_opset = %lld; use "
			   "mode = fake or raise it", NVFP4_OPSET, (long long)max);
		return 1;
	}
	if (opset < NVFP4_OPSET && !qopt_policy_allow_upgrade(cfg->ctx)) {
		qopt_error(cfg->ctx,
			   "mode = real needs opset %d (FLOAT4E2M1 DequantizeLinear) "
			   "but the model is at opset %lld and the pipeline has "
			   "[qopt] allow_upgrade = no; use mode = fake or allow "
			   "the upgrade", NVFP4_OPSET, (long long)opset);
		return 1;
	}
	return 0;
}

static void on_rewrite(void *arg, const char *node, const char *op, int step,
		       const char *what)
{
	qopt_debug(arg, "opset upgrade: %s: %s-%d: %s", node, op, step, what);
}

static int upgrade(struct nvfp4_cfg *cfg, int64_t opset)
{
	qir_upgrade_report rep = { 0 };
	qir_error err = { 0 };

	rep.on_rewrite = on_rewrite;
	rep.arg = cfg->ctx;
	if (qir_model_upgrade_opset(cfg->m, NVFP4_OPSET, &rep, &err) < 0) {
		qopt_error(cfg->ctx, "mode = real needs opset %d (FLOAT4E2M1 "
			   "DequantizeLinear) and the model (opset %lld) "
			   "cannot be upgraded: %s; upgrade it first "
			   "(opset-check with upgrade = yes, target = %d shows "
			   "what stands in the way) or use mode = fake",
			   NVFP4_OPSET, (long long)opset, err.msg, NVFP4_OPSET);
		return -1;
	}
	qopt_info(cfg->ctx, "upgraded ai.onnx opset %lld -> %d for FLOAT4E2M1 "
		  "(IR version %lld -> %lld): %lld operator changes "
		  "rewritten, %lld nodes checked",
		  (long long)opset, NVFP4_OPSET, (long long)rep.ir_before,
		  (long long)rep.ir_after, (long long)rep.nodes_rewritten,
		  (long long)rep.nodes_checked);
	qopt_stat_add(cfg->ctx, "nodes rewritten for opset 23",
		      rep.nodes_rewritten);
	return 0;
}

int nvfp4_prepare_opset(struct nvfp4_cfg *cfg)
{
	int64_t opset = qir_model_opset(cfg->m, "");

	if (cfg->opset_done)
		return 0;
	if (cfg->opset_denied)
		return 1;
	if (policy_forbids(cfg, opset))
		return -1;
	if (opset < NVFP4_OPSET) {
		if (!qopt_may_rewrite(cfg->ctx, "upgrade opset %lld -> %d for "
				      "FLOAT4E2M1", (long long)opset,
				      NVFP4_OPSET)) {
			cfg->opset_denied = 1;
			return 1;
		}
		if (upgrade(cfg, opset))
			return -1;
	}
	/* No setter exists for the IR version: it is a plain field. */
	if (cfg->m->ir_version < NVFP4_IR)
		cfg->m->ir_version = NVFP4_IR;
	cfg->opset_done = 1;
	return 0;
}

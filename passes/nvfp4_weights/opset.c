/*
 * passes/nvfp4_weights/opset.c - FLOAT4E2M1 DequantizeLinear needs
 * opset 23 and IR 11 (formats.md). The pass raises both when the
 * pipeline allows it; the opset-check pass's settings say whether it
 * does (its options as the opset-check pass defines them):
 *   upgrade = no  set explicitly: the model's opset must not change;
 *   target = N    the pipeline converts to opset N: N < 23 forbids;
 *   require = N   a minimum the model must declare: never in the way.
 * Raising is a real upgrade (qir_model_upgrade_opset): every op whose
 * definition changed on the way is rewritten to keep its meaning, or,
 * when one cannot be, the pass fails with the model as it was: a bare
 * renumbering could silently change what older ops compute.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nvfp4.h"

#define NVFP4_OPSET 23
#define NVFP4_IR 11

static int is_no(const char *s)
{
	return !strcasecmp(s, "no") || !strcasecmp(s, "false") ||
	       !strcasecmp(s, "off") || !strcmp(s, "0");
}

static int forbids(struct nvfp4_cfg *cfg, const char *opt, int64_t opset)
{
	const char *v = qopt_pipeline_setting(cfg->ctx, "opset-check", opt);
	char *end;
	long long n;

	if (!v || !v[0])
		return 0;
	if (!strcmp(opt, "upgrade")) {
		if (!is_no(v))
			return 0;
		qopt_error(cfg->ctx,
			   "mode = real needs opset %d (FLOAT4E2M1 DequantizeLinear) "
			   "but the model is at opset %lld and opset-check has "
			   "upgrade = %s; use mode = fake or allow the upgrade",
			   NVFP4_OPSET, (long long)opset, v);
		return 1;
	}
	n = strtoll(v, &end, 10);
	if (*end || n >= NVFP4_OPSET)
		return 0;
	qopt_error(cfg->ctx,
		   "mode = real needs opset %d (FLOAT4E2M1 DequantizeLinear) "
		   "but opset-check has %s = %s; use mode = fake or raise it",
		   NVFP4_OPSET, opt, v);
	return 1;
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
	if (forbids(cfg, "target", opset))
		return -1;
	if (opset < NVFP4_OPSET) {
		if (forbids(cfg, "upgrade", opset) || upgrade(cfg, opset))
			return -1;
	}
	/* No setter exists for the IR version: it is a plain field. */
	if (cfg->m->ir_version < NVFP4_IR)
		cfg->m->ir_version = NVFP4_IR;
	cfg->opset_done = 1;
	return 0;
}

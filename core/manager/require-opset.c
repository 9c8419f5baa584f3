/*
 * core/manager/require-opset.c - qopt_require_opset(): a pass that needs
 * a newer default-domain opset asks the manager, which answers from the
 * pipeline's policy alone ([qopt] max_opset, allow_upgrade: never from
 * which other passes run), gives the upgrade one bisect point of its
 * own per run, and raises the model through the real upgrade (every op
 * whose definition changed on the way is carried across, or nothing
 * changes): a bare renumbering could silently change what older ops
 * compute.
 */
#include <stdio.h>
#include <qopt/pass.h>
#include <qopt/upgrade.h>
#include "manager/run.h"

static qopt_status policy(qopt_ctx *ctx, int64_t have, int64_t need,
			  const char *why)
{
	const struct pm_globals *g = &ctx->run->pl->g;

	if (g->max_opset > 0 && g->max_opset < need) {
		qopt_error(ctx, "%s: need opset %lld but the pipeline has "
			   "[qopt] max_opset = %lld", why, (long long)need,
			   (long long)g->max_opset);
		return QOPT_EPOLICY;
	}
	if (have < need && g->allow_upgrade == 0) {
		qopt_error(ctx, "%s: need opset %lld but the model is at opset "
			   "%lld and the pipeline has [qopt] allow_upgrade = "
			   "no", why, (long long)need, (long long)have);
		return QOPT_EPOLICY;
	}
	return QOPT_OK;
}

static void on_rewrite(void *arg, const char *node, const char *op, int step,
		       const char *what)
{
	qopt_debug(arg, "opset upgrade: %s: %s-%d: %s", node, op, step, what);
}

static void on_progress(void *arg, size_t done, size_t total)
{
	qopt_progress(arg, done, total, "upgrading nodes");
}

static qopt_status upgrade(qopt_ctx *ctx, int64_t have, int64_t need,
			   const char *why)
{
	qir_upgrade_report rep = { 0 };
	qir_error err = { 0 };
	char counter[64];

	rep.on_rewrite = on_rewrite;
	rep.on_progress = on_progress;
	rep.arg = ctx;
	if (qir_model_upgrade_opset(ctx->m, need, &rep, &err) < 0) {
		qopt_error(ctx, "%s: need opset %lld and the model (opset %lld) "
			   "cannot be upgraded: %s; opset-check with upgrade = "
			   "yes, target = %lld shows what stands in the way",
			   why, (long long)need, (long long)have, err.msg,
			   (long long)need);
		return err.code ? err.code : QOPT_EPASS;
	}
	qopt_info(ctx, "upgraded ai.onnx opset %lld -> %lld for %s (IR "
		  "version %lld -> %lld): %lld operator changes rewritten, "
		  "%lld nodes checked", (long long)have, (long long)need, why,
		  (long long)rep.ir_before, (long long)rep.ir_after,
		  (long long)rep.nodes_rewritten, (long long)rep.nodes_checked);
	snprintf(counter, sizeof(counter), "opset upgraded to %lld",
		 (long long)need);
	qopt_stat_add(ctx, counter, 1);
	return QOPT_OK;
}

qopt_status pm_ctx_require_opset(qopt_ctx *ctx, int64_t opset,
				 const char *why)
{
	int64_t have, ir;
	qopt_status rc;

	if (!ctx || !ctx->run || !ctx->m || opset < 1 || !why)
		return QOPT_EUSAGE;
	have = qir_model_opset(ctx->m, "");
	rc = policy(ctx, have, opset, why);
	if (rc)
		return rc;
	if (have < opset) {
		/* Once declined, later requests of the run for as much or
		 * more take no new point (bisect would decline them too). */
		if (ctx->run->opset_declined && opset >= ctx->run->opset_declined)
			return QOPT_ESKIPPED;
		if (!qopt_may_rewrite(ctx, "upgrade opset %lld -> %lld for %s",
				      (long long)have, (long long)opset, why)) {
			ctx->run->opset_declined = opset;
			return QOPT_ESKIPPED;
		}
		rc = upgrade(ctx, have, opset, why);
		if (rc)
			return rc;
	}
	/* The upgrade raised it; a model already at the opset may still
	 * declare an older IR. No setter exists: it is a plain field. */
	ir = qir_opset_min_ir_version(opset);
	if (ctx->m->ir_version < ir)
		ctx->m->ir_version = ir;
	return QOPT_OK;
}

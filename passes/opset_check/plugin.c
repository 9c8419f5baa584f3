/*
 * plugin.c - the opset-check pass: reports the default-domain opset and
 * IR version and what the model needs; with `require` fails when the
 * model falls short; with `upgrade` raises the opset through the
 * manager (qopt_require_opset: the pipeline's policy, a bisect point,
 * the upgrade that rewrites the ops whose definition changed).
 */
#include <stdio.h>
#include <string.h>

#include "opset_check.h"
#include "../support/fail.h"

static const qopt_option_spec opset_check_options[] = {
	{ .name = "require", .type = QOPT_OPT_INT, .default_value = NULL,
	  .flags = QOPT_OPT_HAS_MIN, .min = 1,
	  .help = "fail unless the model declares at least this default-domain "
	  "opset and declares all it needs" },
	{ .name = "upgrade", .type = QOPT_OPT_BOOL, .default_value = "no",
	  .help = "raise the opset (and IR version) to what the model needs, or to "
	  "`target`, rewriting the ops whose definition changed" },
	{ .name = "target", .type = QOPT_OPT_INT, .default_value = NULL,
	  .flags = QOPT_OPT_HAS_MIN, .min = 1,
	  .help = "opset to upgrade to (with upgrade = yes); at most 25" },
	{ 0 }
};

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

static int do_upgrade(qopt_ctx *ctx, qir_model *m, int declared,
		      const struct opset_check_needs *nd, int *changed)
{
	int target = max_int(declared, nd->opset);
	qopt_status rc;

	if (qopt_opt_is_set(ctx, "target"))
		target = (int)qopt_opt_int(ctx, "target");
	if (target < declared) {
		ps_fail(ctx, QOPT_EUNSUPPORTED, "target opset %d is below the declared opset "
			   "%d: downgrading is not supported", target,
			   declared);
		return -1;
	}
	if (target < nd->opset) {
		ps_fail(ctx, QOPT_EUNSUPPORTED, "target opset %d is below the opset %d the "
			   "model needs", target, nd->opset);
		return -1;
	}
	if (target > OPSET_CHECK_MAX_OPSET) {
		ps_fail(ctx, QOPT_EUNSUPPORTED, "target opset %d: operator changes are known "
			   "only up to opset %d", target, OPSET_CHECK_MAX_OPSET);
		return -1;
	}
	if (target > declared) {
		/* The manager's policy, bisect point and upgrade; it logs
		 * every refusal and failure. */
		rc = qopt_require_opset(ctx, target, "upgrade = yes");
		if (rc == QOPT_ESKIPPED)
			return 0;
		if (rc)
			return -1;
		*changed = 1;
	}
	if (m->ir_version < nd->ir &&
	    qopt_may_rewrite(ctx, "raise IR version %lld -> %d",
			     (long long)m->ir_version, nd->ir)) {
		qopt_info(ctx, "IR version %lld -> %d",
			  (long long)m->ir_version, nd->ir);
		m->ir_version = nd->ir;
		*changed = 1;
	}
	return 0;
}

static qopt_status opset_check_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	int declared = (int)qir_model_opset(m, "");
	int upgrade = qopt_opt_bool(ctx, "upgrade");
	int has_req = qopt_opt_is_set(ctx, "require");
	int req = has_req ? (int)qopt_opt_int(ctx, "require") : 0;
	struct opset_check_needs nd;

	*changed = 0;
	if (qopt_opt_is_set(ctx, "target") && !upgrade) {
		ps_fail(ctx, QOPT_EINVALID, "target is set but upgrade is not: set "
			   "upgrade = yes to change the opset");
		return ps_status(-1);
	}
	qopt_info(ctx, "ai.onnx opset %d, IR version %lld", declared,
		  (long long)m->ir_version);
	opset_check_scan_needs(ctx, m, declared, &nd);
	qopt_stat_add(ctx, "reasons for a newer opset or IR", nd.reasons);
	if (nd.opset > declared || nd.ir > m->ir_version)
		qopt_info(ctx, "needs opset %d and IR version %d; declares "
			  "%d and %lld", max_int(nd.opset, declared),
			  max_int(nd.ir, (int)m->ir_version), declared,
			  (long long)m->ir_version);
	else
		qopt_info(ctx, "declares all it needs");
	if (upgrade) {
		if (do_upgrade(ctx, m, declared, &nd, changed) < 0)
			return ps_status(-1);
		declared = (int)qir_model_opset(m, "");
	}
	if (has_req && declared < req) {
		qopt_error(ctx, "model declares ai.onnx opset %d, below the "
			   "required %d (upgrade = yes raises it)", declared,
			   req);
		return ps_status(-1);
	}
	if (nd.opset > declared || nd.ir > m->ir_version) {
		if (has_req) {
			qopt_error(ctx, "model needs opset %d / IR version %d "
				   "but declares %d / %lld", nd.opset, nd.ir,
				   declared, (long long)m->ir_version);
			return ps_status(-1);
		}
		qopt_warn(ctx, "model needs opset %d / IR version %d but "
			  "declares %d / %lld", nd.opset, nd.ir, declared,
			  (long long)m->ir_version);
	}
	return QOPT_OK;
}

static const qopt_pass_info opset_check_passes[] = {
	{ .name = "opset-check",
	  .summary = "report (require, or upgrade to) the opset and IR "
	  "version the model needs",
	  .options = opset_check_options,
	  .run = opset_check_run,
	  .flags = 0 },
	{ 0 }
};

QOPT_PLUGIN("opset-check", "1.0", opset_check_passes)

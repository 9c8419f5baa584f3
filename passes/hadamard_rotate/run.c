/*
 * passes/hadamard_rotate/run.c - the hadamard-rotate pass: options,
 * the walk over MatMul/Gemm nodes (top-level graph), one rewrite per
 * target (weight offline, activation online), the exactly-once record
 * and the report.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hadamard_rotate.h"
#include "../support/fail.h"

static int cfg_init(struct hadamard_rotate_cfg *cfg, qopt_ctx *ctx, qir_model *m)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->ctx = ctx;
	cfg->m = m;
	cfg->qk = qopt_kernels(ctx);
	if (!cfg->qk) {
		ps_fail(ctx, QOPT_EDEVICE, "no kernel context");
		return -1;
	}
	if (ps_targets_init(&cfg->tg, ctx, PS_TARGET_ALL))
		return -1;
	cfg->fold = qopt_opt_bool(ctx, "fold");
	/* The manager has checked it: 0, or a power of two from 2 to
	 * HADAMARD_ROTATE_BLOCK_MAX (QOPT_OPT_POW2 and the range). */
	cfg->block = qopt_opt_int(ctx, "block_size");
	/* The manager has checked op_types' items and quantizer's word
	 * (indexed as in plugin.c: none, nvfp4, fp8). */
	cfg->quantizer = qopt_opt_enum(ctx, "quantizer") == 1 ? HADAMARD_ROTATE_Q_NVFP4 :
			 qopt_opt_enum(ctx, "quantizer") == 2 ? HADAMARD_ROTATE_Q_FP8 :
			 HADAMARD_ROTATE_Q_NONE;
	for (size_t i = 0; i < m->nmetadata; i++)
		if (!strcmp(m->metadata[i].key, HADAMARD_ROTATE_META_KEY))
			cfg->prior = m->metadata[i].value;
	return 0;
}

/* A skip, said at its kind's level (passes/support/skip.h). */
static int report_skip(struct hadamard_rotate_cfg *cfg, const struct hadamard_rotate_target *t)
{
	ps_skip_report(cfg->ctx, &t->skip, "node", t->node->name);
	return 0;
}

/* A = DQ(Q(x)): x R goes in front of the Q, shared by every consumer of
 * the DQ (all of them must be rotated alike). */
static qir_value *before_quant(struct hadamard_rotate_cfg *cfg, struct hadamard_rotate_target *t,
			       char *how, size_t len)
{
	char key[600], why[200];
	qir_value *xr;

	if (cfg->quantizer != HADAMARD_ROTATE_Q_NONE && t->act->nuses > 1)
		snprintf(why, sizeof(why), "'%s' has other readers and the "
			 "quantizer may leave them unrotated", t->act->name);
	if ((cfg->quantizer != HADAMARD_ROTATE_Q_NONE && t->act->nuses > 1) ||
	    !hadamard_rotate_consumers_agree(cfg, t, t->act, why, sizeof(why))) {
		ps_skip_set(&t->skip, &hadamard_rotate_skip_quantized_act, "%s", why);
		return NULL;
	}
	xr = hadamard_rotate_rotate_activation(cfg, t, t->quant->inputs[0], t->quant);
	if (!xr)
		return NULL;
	if (qir_node_set_input(t->quant, 0, xr)) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
		return NULL;
	}
	snprintf(key, sizeof(key), "a:%s:%zu", t->act->name, t->block);
	if (hadamard_rotate_memo_put(&cfg->memo, key, t->act)) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
		return NULL;
	}
	qopt_stat_add(cfg->ctx, "rotations online", 1);
	snprintf(how, len, "rotated online before QuantizeLinear '%s'",
		 t->quant->name);
	return t->act;
}

/* t's activation, rotated: already (shared), folded into its producer,
 * or online; how says which. NULL on error (reported). */
static qir_value *activation(struct hadamard_rotate_cfg *cfg, struct hadamard_rotate_target *t,
			     char *how, size_t len)
{
	char key[600], why[300] = "fold = no";
	qir_value *a;
	int rc;

	snprintf(key, sizeof(key), "a:%s:%zu", t->act->name, t->block);
	a = hadamard_rotate_memo_get(&cfg->memo, key);
	if (a) {
		snprintf(how, len, "already rotated for another consumer");
		return a;
	}
	if (t->quant)
		return before_quant(cfg, t, how, len);
	if (cfg->fold && cfg->quantizer == HADAMARD_ROTATE_Q_NONE) {
		rc = hadamard_rotate_fold(cfg, t, why, sizeof(why));
		if (rc < 0)
			return NULL;
		if (rc == 1) {
			qopt_stat_add(cfg->ctx, "rotations folded", 1);
			snprintf(how, len, "rotation folded into %s", why);
			return t->act;
		}
	} else if (cfg->fold) {
		snprintf(why, sizeof(why), "the quantizer may leave other "
			 "consumers unrotated");
	}
	qopt_stat_add(cfg->ctx, "rotations online", 1);
	snprintf(how, len, "rotated online (not folded: %s)", why);
	return hadamard_rotate_rotate_activation(cfg, t, t->act, t->node);
}

static int rotate(struct hadamard_rotate_cfg *cfg, struct hadamard_rotate_target *t, int *changed)
{
	qir_value *old = t->wv, *w, *a;
	int axis = t->kaxis;
	char how[400];

	if (!qopt_may_rewrite(cfg->ctx, "rotate node '%s' (weight '%s', K %lld, "
			      "block %zu)", t->node->name, old->name,
			      (long long)t->k, t->block)) {
		ps_skip_set(&t->skip, &ps_skip_bisect,
			    "the rewrite gate said no");
		return report_skip(cfg, t);
	}
	a = activation(cfg, t, how, sizeof(how));
	if (!a && t->skip.kind)
		return report_skip(cfg, t);
	w = a ? hadamard_rotate_rotate_weight(cfg, t) : NULL;
	if (!w)
		return -1;
	if (qir_node_set_input(t->node, 0, a) ||
	    qir_node_set_input(t->node, 1, w)) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "node '%s': out of memory", t->node->name);
		return -1;
	}
	if (hadamard_rotate_record(cfg, w->name, axis, t->block)) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
		return -1;
	}
	/* the original weight goes when nothing else reads it */
	ps_sweep_value(&cfg->sweep, old);
	*changed = 1;
	qopt_stat_add(cfg->ctx, "weights rotated", 1);
	qopt_info(cfg->ctx, "node '%s': weight '%s' rotated along axis %d "
		  "(K %lld, block %zu); activation '%s' %s", t->node->name,
		  w->name, axis, (long long)t->k, t->block, t->act->name, how);
	return 0;
}

/* t's weight for the coverage: rotated, or why not. Not a weight when
 * both inputs are activations (attention) or n is no target at all. */
static void covered(struct hadamard_rotate_cfg *cfg, const struct hadamard_rotate_target *t)
{
	uint64_t numel, nbytes;

	if (!t->wv || (!t->skip.kind && !t->w) ||
	    t->skip.kind == &ps_skip_activation ||
	    (!t->w && ps_runtime_source(t->wv)))
		return;
	if (t->w) {
		numel = qir_tensor_numel(t->w);
		nbytes = t->w->nbytes;
	} else {
		ps_coverage_size(t->wv, &numel, &nbytes);
	}
	ps_coverage_add(&cfg->cov, t->wv->name, numel, nbytes, t->pattern,
			t->skip.kind ? NULL : "hadamard", &t->skip);
}

static int one(struct hadamard_rotate_cfg *cfg, qir_node *n, int *changed)
{
	struct hadamard_rotate_target t;
	int rc = hadamard_rotate_select(cfg, n, &t);

	if (rc == 1 && cfg->quantizer != HADAMARD_ROTATE_Q_NONE) {
		rc = hadamard_rotate_quantizer_says(cfg, &t);
		if (rc == 0 && !t.skip.kind)
			rc = 1;
	}
	if (rc == 1)
		rc = rotate(cfg, &t, changed);
	else if (rc == 0 && t.skip.kind)
		rc = report_skip(cfg, &t);
	if (rc == 0)
		covered(cfg, &t);
	if (rc == 0 && t.judged) {
		/* what is finally stored: rotated unless skipped */
		cfg->q_sum_plain += t.q_e0;
		cfg->q_sum_rot += t.skip.kind ? t.q_e0 : t.q_e1;
		cfg->q_norm += t.q_nn;
	}
	hadamard_rotate_target_release(&t);
	return rc;
}

/* Counters are integers: r in parts per million, only when it fits
 * (a non-finite or huge r is no count: converting it would be UB). */
static void stat_ppm(qopt_ctx *ctx, const char *counter, double r)
{
	double ppm = r * 1e6 + 0.5;

	if (ppm >= 0 && ppm < 9.0e18)
		qopt_stat_add(ctx, counter, (int64_t)ppm);
	else
		qopt_debug(ctx, "%s: %g is not counted", counter, r);
}

qopt_status hadamard_rotate_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	struct hadamard_rotate_cfg cfg;
	qir_node *n, *next;
	qir_error err = { 0 };
	int rc = -1;

	*changed = 0;
	if (cfg_init(&cfg, ctx, m))
		goto out;
	ps_coverage_init(&cfg.cov, &cfg.tg, "weight");
	cfg.cov.verb = "rotated";
	cfg.cov.left = "not rotated";
	for (n = m->graph->first; n; n = next) {
		next = n->next;
		if (one(&cfg, n, changed))
			goto out;
	}
	hadamard_rotate_sweep(&cfg);
	if (*changed && (hadamard_rotate_record_flush(&cfg) ||
			 qir_graph_toposort(m->graph, &err))) {
		ps_fail(ctx, QOPT_ENOMEM, "%s", err.code ? err.msg : "out of memory");
		goto out;
	}
	if (cfg.quantizer != HADAMARD_ROTATE_Q_NONE && cfg.q_norm > 0) {
		double plain = sqrt(cfg.q_sum_plain / cfg.q_norm);
		double rot = sqrt(cfg.q_sum_rot / cfg.q_norm);

		qopt_info(ctx, "%s reconstruction error over the judged "
			  "weights: %.4g unrotated, %.4g as stored",
			  cfg.quantizer == HADAMARD_ROTATE_Q_NVFP4 ? "NVFP4" : "FP8", plain,
			  rot);
		stat_ppm(ctx, "ppm total error unrotated", plain);
		stat_ppm(ctx, "ppm total error as rotated", rot);
	}
	ps_coverage_report(ctx, &cfg.cov);
	ps_targets_report(ctx, &cfg.tg, "MatMul/Gemm node or weight name");
	rc = 0;
out:
	ps_coverage_fini(&cfg.cov);
	ps_targets_fini(&cfg.tg);
	hadamard_rotate_memo_free(&cfg.memo);
	ps_sweep_fini(&cfg.sweep);
	free(cfg.record);
	return ps_status(rc);
}

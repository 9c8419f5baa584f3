/*
 * core/manager/calib-query.c - the calibration hook: in a query run
 * (qm_run_begin's query, which runs no pass) it asks the passes of a
 * pipeline which values `qopt calibrate` must measure
 * (qopt_pass_info.calibration_targets), so that no pass's rule lives
 * in the calibrate command.
 *
 * Each pass is asked with its own stage's options, as it will run, on
 * the model as loaded: the ranges are measured on that model, and the
 * file's hash names it. A pass's query must leave the model as it was;
 * the manager checks the hash rather than trust it.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <qopt/pass.h>
#include "manager/session.h"

static int ask(struct pm_run *r, qir_model *m, size_t i,
	       struct pm_want *want)
{
	const struct pm_stage *st = &r->pl->stages[i];
	qopt_ctx ctx = { .ops = &pm_ctx_ops, .run = r, .stage = i, .st = st,
			 .res = &r->res[i], .bar_pct = -1, .want = want,
			 .m = m };
	uint64_t h0 = qir_model_hash(m);
	qopt_status rc;

	pm_guard_enter(st->name);
	rc = st->pass->info->calibration_targets(&ctx, m);
	pm_guard_leave();
	if (rc != QOPT_OK) {
		pm_msg(r->s, QOPT_LOG_ERROR, st->name,
		       "asking which tensors to calibrate failed: %s (status %d)",
		       pm_status_known(rc) ? qopt_status_str(rc) :
		       "unknown status", rc);
		return -1;
	}
	if (ctx.misuse) {
		pm_msg(r->s, QOPT_LOG_ERROR, st->name,
		       "pass misused the qopt API (see above)");
		return -1;
	}
	if (qir_model_hash(m) != h0) {
		pm_msg(r->s, QOPT_LOG_ERROR, st->name,
		       "changed the model while asking which tensors to calibrate");
		return -1;
	}
	return 0;
}

struct calib_hook {
	struct pm_want want;
	size_t nasked;
	/* the stage that asked for each of want.values (owned) */
	size_t *stage, stage_cap;
};

/* Stage i asked for want.values[n0 ..): noted. 0, or -1 out of memory. */
static int note_stage(struct calib_hook *c, size_t n0, size_t i)
{
	size_t k;

	if (c->want.n > c->stage_cap) {
		size_t *grown = realloc(c->stage, c->want.n * sizeof(*grown));

		if (!grown)
			return -1;
		c->stage = grown;
		c->stage_cap = c->want.n;
	}
	for (k = n0; k < c->want.n; k++)
		c->stage[k] = i;
	return 0;
}

static int calib_before(void *arg, qm_session *s,
			const struct qm_pass_event *e, qir_model *m)
{
	struct calib_hook *c = arg;
	struct pm_run *r = e->ctx->run;
	size_t n0 = c->want.n;

	(void)s;
	if (!r->o.query)
		return QM_HOOK_RUN;
	if (!r->pl->stages[e->index].pass->info->calibration_targets)
		return QM_HOOK_SKIP;
	c->nasked++;
	if (ask(r, m, e->index, &c->want) < 0)
		return -1;
	if (note_stage(c, n0, e->index) < 0) {
		pm_msg(r->s, QOPT_LOG_ERROR, r->pl->stages[e->index].name,
		       "out of memory");
		return -1;
	}
	return QM_HOOK_SKIP;
}

static void calib_free(void *arg)
{
	struct calib_hook *c = arg;

	free(c->want.values);
	free(c->want.own);
	free(c->stage);
	free(c);
}

int qm_hook_calibration(qm_session *s)
{
	struct calib_hook *c = calloc(1, sizeof(*c));
	struct qm_hook h = { .before = calib_before, .free = calib_free };

	if (!c)
		return -1;
	h.arg = c;
	if (qm_add_hook(s, &h) < 0) {
		free(c);
		return -1;
	}
	return 0;
}

qir_value *const *qm_calibration_values(const qm_session *s, size_t *n,
					size_t *nasked, const size_t **stage)
{
	size_t i;

	for (i = 0; i < s->nhooks; i++)
		if (s->hooks[i].before == calib_before) {
			struct calib_hook *c = s->hooks[i].arg;

			*n = c->want.n;
			*nasked = c->nasked;
			*stage = c->stage;
			return c->want.values;
		}
	*n = *nasked = 0;
	*stage = NULL;
	return NULL;
}

/* ---- the one-command form: measured before each pass that asks ---- */

struct inline_hook {
	qm_calibrate_fn *fn;
	void *arg;
};

/* st's option `calibration` set to path, as if the pipeline gave it;
 * a stage without the option is left alone. 0, or -1 out of memory. */
static int set_calibration(struct pm_stage *st, const char *path)
{
	int idx = pm_pass_option_index(st->pass, "calibration");
	char why[256];

	if (idx < 0)
		return 0;
	if (pm_value_parse(&st->pass->info->options[idx], path,
			   &st->vals[idx], why, sizeof(why)) < 0)
		return -1;
	st->vals[idx].set = 1;
	return 0;
}

/* The file measured for stage i goes to it and to the later steps of
 * its pipeline (fp8-mha's fp8-softmax-qdq reads whether one is given),
 * as a `calibration` the pipeline forwarded would. */
static int hand_over(struct pm_pipeline *pl, size_t i, const char *path)
{
	size_t j;

	if (set_calibration(&pl->stages[i], path) < 0)
		return -1;
	for (j = i + 1; pl->stages[i].group && j < pl->nstages &&
	     pl->stages[j].group == pl->stages[i].group; j++)
		if (set_calibration(&pl->stages[j], path) < 0)
			return -1;
	return 0;
}

static int inline_before(void *arg, qm_session *s,
			 const struct qm_pass_event *e, qir_model *m)
{
	struct inline_hook *h = arg;
	struct pm_run *r = e->ctx->run;
	const struct pm_stage *st = &s->pl.stages[e->index];
	struct pm_want want = { 0 };
	char path[4096] = "";
	uint64_t h0;
	int rc = -1;

	if (r->o.query || !st->pass->info->calibration_targets)
		return QM_HOOK_RUN;
	if (pm_pass_option_index(st->pass, "calibration") < 0) {
		/* measured ranges it could not read: a silent no-op */
		pm_msg(s, QOPT_LOG_ERROR, st->name,
		       "asks which tensors to calibrate but has no option 'calibration' to read them from");
		return -1;
	}
	if (ask(r, m, e->index, &want) < 0)
		goto out;
	rc = QM_HOOK_RUN;
	if (!want.n) {
		pm_msg(s, QOPT_LOG_INFO, st->name,
		       "asks for no range on the model as it is here: nothing calibrated");
		goto out;
	}
	h0 = qir_model_hash(m);
	rc = -1;
	if (h->fn(h->arg, s, e->index, m, want.values, want.n, path,
		  sizeof(path)) < 0)
		goto out;
	if (qir_model_hash(m) != h0) {
		pm_msg(s, QOPT_LOG_ERROR, st->name,
		       "the model changed while it was calibrated");
		goto out;
	}
	if (hand_over(&s->pl, e->index, path) < 0) {
		pm_msg(s, QOPT_LOG_ERROR, st->name, "out of memory");
		goto out;
	}
	rc = QM_HOOK_RUN;
out:
	free(want.values);
	free(want.own);
	return rc;
}

int qm_hook_calibrate(qm_session *s, qm_calibrate_fn *fn, void *arg,
		      const char **pass, const char **from)
{
	struct qm_hook hk = { .before = inline_before, .free = free };
	struct inline_hook *h;
	size_t i;
	int n = 0;

	for (i = 0; i < s->pl.nstages; i++) {
		const struct pm_stage *st = &s->pl.stages[i];
		int idx;

		if (!st->pass || !st->pass->info->calibration_targets)
			continue;
		n++;
		idx = pm_pass_option_index(st->pass, "calibration");
		if (idx >= 0 && st->vals[idx].set) {
			*pass = st->name;
			*from = st->from;
			return -2;
		}
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return -1;
	h->fn = fn;
	h->arg = arg;
	hk.arg = h;
	if (qm_add_hook(s, &hk) < 0) {
		free(h);
		return -1;
	}
	return n;
}

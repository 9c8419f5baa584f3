/*
 * core/manager/manager.c - runs a resolved pipeline over a model: what
 * every run does around each pass (timing, the "changed nothing"
 * check, the topological order and types restored), and the session's
 * hooks (hooks.c) for the rest of the instrumentation: bisect,
 * --verify-each, --print-after, --strict, the progress bar.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/pass.h>
#include "manager/session.h"

int pm_run_init(struct pm_run *r, const struct pm_pipeline *pl,
		  const struct pm_run_opts *o, qir_error *err)
{
	memset(r, 0, sizeof(*r));
	r->s = pl->s;
	r->pl = pl;
	r->o = *o;
	r->hash_changes = pl->s ? pl->s->hash_changes : 0;
	r->res = calloc(pl->nstages ? pl->nstages : 1, sizeof(*r->res));
	r->kctx = qk_ctx_new(o->device, o->threads);
	if (!r->res || !r->kctx) {
		pm_run_fini(r);
		return qir_fail(err, QIR_ENOMEM, "out of memory");
	}
	return 0;
}

void pm_run_fini(struct pm_run *r)
{
	size_t i, j;

	if (r->res) {
		for (i = 0; i < r->pl->nstages; i++) {
			for (j = 0; j < r->res[i].ncounters; j++)
				free(r->res[i].counters[j].name);
			free(r->res[i].counters);
			for (j = 0; j < r->res[i].nrecords; j++)
				free(r->res[i].records[j]);
			free(r->res[i].records);
		}
	}
	for (i = 0; i < r->npoints; i++)
		free(r->points[i].desc);
	free(r->points);
	free(r->res);
	if (r->kctx)
		qk_ctx_free(r->kctx);
	memset(r, 0, sizeof(*r));
}

/* 1 when stage i is the last of its pipeline's expansion. */
static int ends_group(const struct pm_run *r, size_t i)
{
	const struct pm_stage *st = &r->pl->stages[i];

	return st->group && (i + 1 == r->pl->nstages ||
			     r->pl->stages[i + 1].group != st->group);
}

/* A pipeline whose options name targets (QOPT_PASS_HAS_TARGETS) warns
 * once, after its last step, when no step changed anything; its steps
 * do not warn each (one of them finding nothing is how a pipeline
 * works). Not when bisect declined a step or a rewrite. */
static void pipeline_changed_nothing(struct pm_run *r, qopt_ctx *ctx)
{
	const struct pm_stage *st = ctx->st;
	size_t i = ctx->stage + 1;

	if (!(st->from_flags & QOPT_PASS_HAS_TARGETS) ||
	    !ends_group(r, ctx->stage))
		return;
	while (i-- > 0 && r->pl->stages[i].group == st->group) {
		const struct pm_stage_result *res = &r->res[i];

		if (!res->ran || res->changed || res->denied)
			return;
	}
	pm_msg(r->s, QOPT_LOG_WARN, st->from,
	       "changed nothing: no step matched its options");
	ctx->warnings++;
}

/* What the pass says it did, checked against the model's hash when we
 * have one: a pass that forgets to set *changed is caught here. */
static int judge_change(qopt_ctx *ctx, int said, int hashed, uint64_t h0,
			qir_model *m)
{
	uint64_t h1;

	if (!hashed)
		return said;
	h1 = qir_model_hash(m);
	if (h1 != h0 && !said)
		qopt_warn(ctx, "changed the IR but reported no change");
	return h1 != h0;
}

/* Every pass run says what it did, from its own counters, so no pass
 * can finish silently. */
static void report_summary(qopt_ctx *ctx)
{
	char line[2048];

	if (ctx->res->ncounters)
		pm_stage_counters_str(ctx->res, line, sizeof(line));
	else
		snprintf(line, sizeof(line), "%s",
			 ctx->res->changed ? "changed the IR" : "no change");
	pm_msg(ctx->run->s, QOPT_LOG_INFO, ctx->st->name, "done: %s", line);
}

/* Passes add and rewire nodes without placing them (pass.h): the
 * manager puts every graph back into a stable topological order after
 * each pass that changed the IR, and types what the pass left untyped,
 * before anything (verifier, printer, the next pass) reads the model.
 * A real cycle is the pass's error. Skipped for a pass that changed
 * nothing, so an unchanged model costs nothing. */
static int restore_order(struct pm_run *r, qopt_ctx *ctx, qir_model *m)
{
	qir_error err = { 0 };
	size_t moved = 0;
	double t0 = pm_now();

	if (qir_graph_toposort_count(m->graph, &moved, &err) < 0) {
		pm_msg(r->s, QOPT_LOG_ERROR, ctx->st->name,
		       "the IR has a cycle after this pass: %s", err.msg);
		return -1;
	}
	if (moved)
		pm_msg(r->s, QOPT_LOG_DEBUG, ctx->st->name,
		       "%zu node%s put in topological order", moved,
		       moved == 1 ? "" : "s");
	if (qir_model_infer(m, NULL, &err) < 0) {
		pm_msg(r->s, QOPT_LOG_ERROR, ctx->st->name,
		       "type inference after this pass failed: %s", err.msg);
		return -1;
	}
	r->t_verify += pm_now() - t0;
	return 0;
}

/* What every pass run gets, then the session's after hooks. */
static int after_pass(struct pm_run *r, qopt_ctx *ctx, qir_model *m,
		      struct qm_pass_event *e)
{
	const struct pm_stage *st = ctx->st;
	struct pm_stage_result *res = ctx->res;

	report_summary(ctx);
	if (!res->changed && (st->pass->info->flags & QOPT_PASS_HAS_TARGETS) &&
	    !res->denied && !st->from)
		qopt_warn(ctx, "changed nothing: no target matched its options");
	pipeline_changed_nothing(r, ctx);
	res->warnings = ctx->warnings;
	if (res->changed && restore_order(r, ctx, m) < 0) {
		pm_hooks_failed(r, e, m);
		return -1;
	}
	e->changed = res->changed;
	e->warnings = ctx->warnings;
	return pm_hooks_after(r, e, m);
}

/* run() returned rc != QOPT_OK: any nonzero fails the pass. A pass
 * that said why with qopt_error() has been heard: a line naming its
 * status after that only repeats it ("pass failed"), so the status is
 * named only for a pass that failed without a word. A value whose
 * primary code is none of qopt's (negative, an ABI 2 habit, 256 whose
 * primary is success, 17) is no qopt_status: a plugin bug, always
 * reported, by its number, as QOPT_EPASS. An extended code this qopt
 * does not know is named by its primary (status.h). */
static void report_failure(const qopt_ctx *ctx, int rc)
{
	if (!pm_status_known(rc))
		pm_msg(ctx->run->s, QOPT_LOG_ERROR, ctx->st->name,
		       "pass returned %d, not a qopt_status: failed as '%s' (status %d)%s",
		       rc, qopt_status_str(QOPT_EPASS), QOPT_EPASS,
		       ctx->errors ? "" : ", without a message");
	else if (!ctx->errors)
		pm_msg(ctx->run->s, QOPT_LOG_ERROR, ctx->st->name,
		       "pass returned '%s' (status %d) without a message",
		       qopt_status_str(rc), rc);
	else
		pm_msg(ctx->run->s, QOPT_LOG_DEBUG, ctx->st->name,
		       "pass failed: '%s' (status %d)", qopt_status_str(rc),
		       rc);
}

/* A pass failed (after the message): the hooks hear it. */
static int failed(struct pm_run *r, struct qm_pass_event *e, qir_model *m,
		  int status)
{
	e->status = status;
	pm_hooks_failed(r, e, m);
	return -1;
}

static int run_stage(struct pm_run *r, qir_model *m, size_t i)
{
	const struct pm_stage *st = &r->pl->stages[i];
	struct pm_stage_result *res = &r->res[i];
	qopt_ctx ctx = { .ops = &pm_ctx_ops, .run = r, .stage = i, .st = st, .res = res,
			 .m = m, .bar_pct = -1 };
	struct qm_pass_event e = { .index = i, .name = st->name,
				   .from = st->from,
				   .last_step = ends_group(r, i), .ctx = &ctx };
	int hashed = r->hash_changes;
	uint64_t h0;
	int changed = 0, go;
	qopt_status rc;
	double t0;

	go = pm_hooks_before(r, &e, m);
	if (go != QM_HOOK_RUN || r->o.query)
		return go < 0 ? -1 : 0;
	h0 = hashed ? qir_model_hash(m) : 0;
	t0 = pm_now();
	pm_guard_enter(st->name);
	rc = st->pass->info->run(&ctx, m, &changed);
	pm_guard_leave();
	res->seconds = pm_now() - t0;
	res->ran = 1;
	if (rc != QOPT_OK) {
		report_failure(&ctx, rc);
		return failed(r, &e, m, rc);
	}
	if (ctx.misuse) {
		pm_msg(r->s, QOPT_LOG_ERROR, st->name,
			 "pass misused the qopt API (see above): %s",
			 qopt_status_str(ctx.misuse));
		return failed(r, &e, m, ctx.misuse);
	}
	if (r->lost_record) {
		pm_msg(r->s, QOPT_LOG_ERROR, st->name,
			 "out of memory recording a bisect point or statistic; the run cannot be trusted");
		return failed(r, &e, m, QOPT_ENOMEM);
	}
	res->changed = judge_change(&ctx, changed != 0, hashed, h0, m);
	return after_pass(r, &ctx, m, &e);
}

/* Passes may assume a model that verifies (pass.h): checked once
 * before the first pass, always (also with no pass: the result is then
 * the input); it is linear in the model. */
static int verify_input(struct pm_run *r, qir_model *m)
{
	qir_error err = { 0 };
	double t0 = pm_now();

	if (qir_verify(m, &err) < 0) {
		pm_msg(r->s, QOPT_LOG_ERROR, m->path ? m->path : "input",
		       "invalid model: %s; no output written", err.msg);
		return -1;
	}
	r->t_verify += pm_now() - t0;
	return 0;
}

/* The result verifies before anyone writes it: checked unless the model
 * did not change since it last verified (no pass changed it, or the
 * verify-each hook checked after the last one that did). */
static int verify_result(struct pm_run *r, qir_model *m, size_t last)
{
	qir_error err = { 0 };
	double t0;

	if (last == SIZE_MAX || r->res[last].verified)
		return 0;
	t0 = pm_now();
	if (qir_verify(m, &err) < 0) {
		pm_msg(r->s, QOPT_LOG_ERROR, m->path ? m->path : "input",
		       "the result does not verify: %s; no output written",
		       err.msg);
		return -1;
	}
	r->t_verify += pm_now() - t0;
	return 0;
}

/* A query run (calibration) runs no pass: the hooks see each stage
 * and the model is the input, so nothing is verified. */
int pm_run_model(struct pm_run *r, qir_model *m)
{
	size_t i, last = SIZE_MAX;

	if (!r->o.query && verify_input(r, m) < 0)
		return -1;
	for (i = 0; i < r->pl->nstages; i++) {
		if (run_stage(r, m, i) < 0) {
			r->failed_pass = r->pl->stages[i].name;
			return -1;
		}
		if (r->res[i].changed)
			last = i;
	}
	if (r->o.query)
		return 0;
	if (verify_result(r, m, last) < 0)
		return -1;
	/* The hooks' verdict on the whole run (--strict: any warning of
	 * the session) before anything is written. */
	return pm_hooks_run_end(r, m);
}

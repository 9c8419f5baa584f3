/*
 * core/manager/manager.c - runs a resolved pipeline over a model, with the
 * instrumentation around each pass: bisect gate, timing, verification,
 * printing, the "changed nothing" check and --strict.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/pass.h>
#include "manager/run.h"

int pm_run_init(struct pm_run *r, const struct pm_pipeline *pl,
		  const struct pm_run_opts *o, qir_error *err)
{
	memset(r, 0, sizeof(*r));
	r->s = pl->s;
	r->pl = pl;
	r->o = *o;
	if (!r->o.ir_out)
		r->o.ir_out = stdout;
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

/* --print-after names a pass, or a pipeline: then after its last
 * step. */
static int wants_print(const struct pm_run *r, size_t i, int changed)
{
	const struct pm_stage *st = &r->pl->stages[i];
	size_t j;

	if (r->o.print_after_all || (r->o.print_changed && changed))
		return 1;
	for (j = 0; j < r->o.nprint_after; j++) {
		if (!strcmp(r->o.print_after[j], st->name))
			return 1;
		if (st->from && !strcmp(r->o.print_after[j], st->from) &&
		    ends_group(r, i))
			return 1;
	}
	return 0;
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

static int verify_after(struct pm_run *r, qir_model *m, const char *name)
{
	qir_error err = { 0 };
	double t0 = pm_now();
	int rc = qir_verify(m, &err);

	r->t_verify += pm_now() - t0;
	if (rc < 0) {
		pm_msg(r->s, QOPT_LOG_ERROR, name,
			 "the IR does not verify after this pass: %s", err.msg);
		return -1;
	}
	return 0;
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

static int after_pass(struct pm_run *r, qopt_ctx *ctx, qir_model *m)
{
	const struct pm_stage *st = ctx->st;
	struct pm_stage_result *res = ctx->res;

	report_summary(ctx);
	if (!res->changed && (st->pass->info->flags & QOPT_PASS_HAS_TARGETS) &&
	    !res->denied && !st->from)
		qopt_warn(ctx, "changed nothing: no target matched its options");
	pipeline_changed_nothing(r, ctx);
	res->warnings = ctx->warnings;
	if (res->changed && restore_order(r, ctx, m) < 0)
		return -1;
	if (r->o.strict && ctx->warnings) {
		pm_msg(r->s, QOPT_LOG_ERROR, st->name,
			 "%u warning%s turned into errors by --strict",
			 ctx->warnings, ctx->warnings == 1 ? "" : "s");
		return -1;
	}
	if (r->o.verify_each && verify_after(r, m, st->name) < 0)
		return -1;
	if (wants_print(r, ctx->stage, res->changed)) {
		fflush(stderr);
		if (st->from)
			fprintf(r->o.ir_out, "; *** IR after %s (pass %zu, from %s) ***\n",
				st->name, ctx->stage + 1, st->from);
		else
			fprintf(r->o.ir_out, "; *** IR after %s (pass %zu) ***\n",
				st->name, ctx->stage + 1);
		qir_print(m, r->o.ir_out);
		fflush(r->o.ir_out);
	}
	return 0;
}

/* run() returned rc != QOPT_OK: any nonzero fails the pass, and the
 * message names the status. A value whose primary code is none of
 * qopt's (negative, an ABI 2 habit, 256 whose primary is success, 17)
 * is no qopt_status: reported by its number, as QOPT_EPASS. An extended
 * code this qopt does not know is named by its primary (status.h). */
static void report_failure(const qopt_ctx *ctx, int rc)
{
	if (!pm_status_known(rc))
		pm_msg(ctx->run->s, QOPT_LOG_ERROR, ctx->st->name,
		       "pass returned %d, not a qopt_status: failed as '%s' (status %d)%s",
		       rc, qopt_status_str(QOPT_EPASS), QOPT_EPASS,
		       ctx->errors ? "" : ", without a message");
	else
		pm_msg(ctx->run->s, QOPT_LOG_ERROR, ctx->st->name,
		       "pass returned '%s' (status %d)%s", qopt_status_str(rc),
		       rc, ctx->errors ? "" : " without a message");
}

static int run_stage(struct pm_run *r, qir_model *m, size_t i)
{
	const struct pm_stage *st = &r->pl->stages[i];
	struct pm_stage_result *res = &r->res[i];
	qopt_ctx ctx = { .ops = &pm_ctx_ops, .run = r, .stage = i, .st = st, .res = res,
			 .m = m, .bar_pct = -1 };
	int hashed = r->o.print_changed;
	uint64_t h0 = hashed ? qir_model_hash(m) : 0;
	int changed = 0;
	qopt_status rc;
	double t0;

	if (!pm_gate_pass(r, i)) {
		if (!r->lost_record)
			return 0;
		pm_msg(r->s, QOPT_LOG_ERROR, st->name,
			 "out of memory recording a bisect point; the run cannot be trusted");
		return -1;
	}
	t0 = pm_now();
	pm_guard_enter(st->name);
	rc = st->pass->info->run(&ctx, m, &changed);
	pm_guard_leave();
	res->seconds = pm_now() - t0;
	res->ran = 1;
	pm_ctx_finish_progress(&ctx);
	if (rc != QOPT_OK) {
		report_failure(&ctx, rc);
		return -1;
	}
	if (ctx.misuse) {
		pm_msg(r->s, QOPT_LOG_ERROR, st->name,
			 "pass misused the qopt API (see above): %s",
			 qopt_status_str(ctx.misuse));
		return -1;
	}
	if (r->lost_record) {
		pm_msg(r->s, QOPT_LOG_ERROR, st->name,
			 "out of memory recording a bisect point or statistic; the run cannot be trusted");
		return -1;
	}
	res->changed = judge_change(&ctx, changed != 0, hashed, h0, m);
	return after_pass(r, &ctx, m);
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
 * did not change since it last verified (no pass changed it, or
 * --verify-each checked after the last one that did). */
static int verify_result(struct pm_run *r, qir_model *m, size_t last)
{
	qir_error err = { 0 };
	double t0;

	if (last == SIZE_MAX || (r->o.verify_each && r->res[last].ran))
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

int pm_run_model(struct pm_run *r, qir_model *m)
{
	size_t i, last = SIZE_MAX;

	if (verify_input(r, m) < 0)
		return -1;
	for (i = 0; i < r->pl->nstages; i++) {
		if (run_stage(r, m, i) < 0) {
			r->failed_pass = r->pl->stages[i].name;
			return -1;
		}
		if (r->res[i].changed)
			last = i;
	}
	if (verify_result(r, m, last) < 0)
		return -1;
	/* --strict is decided here, once: a pass's warnings fail that pass
	 * (after_pass); any other warning of the session (a plugin folder,
	 * a skipped file) fails the run before anything is written. */
	if (r->o.strict && pm_msg_warnings(r->s)) {
		pm_msg(r->s, QOPT_LOG_ERROR, NULL,
		       "warnings with --strict; no output written");
		return -1;
	}
	return 0;
}

/*
 * core/manager/hooks.c - instrumentation as hooks on the session (MLIR's
 * PassInstrumentation): the manager calls each hook's before / after /
 * after-failed around every pass, in the order they were added, and
 * the hooks below are the built-in ones the qopt command registers
 * from its flags: --strict, --verify-each, --print-after*,
 * --print-changed, --stats, --time-passes, the progress bar and bisect
 * (the calibration hook is calib-query.c's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/pass.h>
#include "manager/session.h"

int qm_add_hook(qm_session *s, const struct qm_hook *h)
{
	struct qm_hook *grown;

	for (size_t i = 0; h->free && i < s->nhooks; i++) {
		if (s->hooks[i].free == h->free && s->hooks[i].arg == h->arg) {
			qm_say(s, QOPT_LOG_ERROR,
			       "qopt: error: qm_add_hook: this hook (its free and arg) is added already: refused, so its free runs once\n");
			return QM_USAGE;
		}
	}
	grown = realloc(s->hooks, (s->nhooks + 1) * sizeof(*grown));
	if (!grown)
		return -1;
	s->hooks = grown;
	s->hooks[s->nhooks++] = *h;
	return 0;
}

int pm_session_busy(pm_session *s, const char *call)
{
	if (!s->in_hooks)
		return 0;
	qm_say(s, QOPT_LOG_ERROR,
	       "qopt: error: %s called from inside a hook, while the session runs it: refused\n",
	       call);
	return 1;
}

void pm_hooks_free(pm_session *s)
{
	size_t i;

	for (i = 0; i < s->nhooks; i++)
		if (s->hooks[i].free)
			s->hooks[i].free(s->hooks[i].arg);
	free(s->hooks);
	s->hooks = NULL;
	s->nhooks = 0;
}

/* The first hook that does not let the pass run decides. */
int pm_hooks_before(struct pm_run *r, const struct qm_pass_event *e,
		    qir_model *m)
{
	pm_session *s = r->s;
	size_t i;

	for (i = 0; s && i < s->nhooks; i++) {
		int rc;

		if (!s->hooks[i].before)
			continue;
		rc = s->hooks[i].before(s->hooks[i].arg, s, e, m);
		if (rc != QM_HOOK_RUN)
			return rc;
	}
	return QM_HOOK_RUN;
}

int pm_hooks_after(struct pm_run *r, const struct qm_pass_event *e,
		   qir_model *m)
{
	pm_session *s = r->s;
	size_t i;

	for (i = 0; s && i < s->nhooks; i++)
		if (s->hooks[i].after &&
		    s->hooks[i].after(s->hooks[i].arg, s, e, m) < 0)
			return -1;
	return 0;
}

void pm_hooks_failed(struct pm_run *r, const struct qm_pass_event *e,
		     qir_model *m)
{
	pm_session *s = r->s;
	size_t i;

	for (i = 0; s && i < s->nhooks; i++)
		if (s->hooks[i].after_failed)
			s->hooks[i].after_failed(s->hooks[i].arg, s, e, m);
}

int pm_hooks_run_end(struct pm_run *r, qir_model *m)
{
	pm_session *s = r->s;
	size_t i;

	for (i = 0; s && i < s->nhooks; i++)
		if (s->hooks[i].run_end &&
		    s->hooks[i].run_end(s->hooks[i].arg, s, m) < 0)
			return -1;
	return 0;
}

void qm_report(qm_session *s)
{
	int outer = s->in_hooks;
	size_t i;

	s->in_hooks = 1;
	for (i = 0; i < s->nhooks; i++)
		if (s->hooks[i].report)
			s->hooks[i].report(s->hooks[i].arg, s);
	s->in_hooks = outer;
}

/* qopt_may_rewrite(): every hook that gates rewrites must agree. */
int pm_ctx_may_rewrite(qopt_ctx *ctx, const char *desc)
{
	pm_session *s = ctx && ctx->run ? ctx->run->s : NULL;
	struct qm_pass_event e = { 0 };
	int ok = 1;
	size_t i;

	if (!ctx || !ctx->res)
		return 0;
	e.index = ctx->stage;
	e.name = ctx->st ? ctx->st->name : NULL;
	e.from = ctx->st ? ctx->st->from : NULL;
	e.ctx = ctx;
	for (i = 0; s && i < s->nhooks && ok; i++)
		if (s->hooks[i].may_rewrite)
			ok = s->hooks[i].may_rewrite(s->hooks[i].arg, s, &e,
						     ctx->res->point, desc);
	if (ok)
		ctx->res->rewrites++;
	else
		ctx->res->denied++;
	return ok;
}

/* ---- --strict: a pass's warnings fail it; any other warning of the
 * session fails the run before anything is written. ---- */
static int strict_after(void *arg, qm_session *s,
			const struct qm_pass_event *e, qir_model *m)
{
	(void)arg;
	(void)m;
	if (!e->warnings)
		return 0;
	pm_msg(s, QOPT_LOG_ERROR, e->name,
	       "%u warning%s turned into errors by --strict", e->warnings,
	       e->warnings == 1 ? "" : "s");
	return -1;
}

static int strict_end(void *arg, qm_session *s, qir_model *m)
{
	(void)arg;
	(void)m;
	if (!pm_msg_warnings(s))
		return 0;
	pm_msg(s, QOPT_LOG_ERROR, NULL,
	       "warnings with --strict; no output written");
	return -1;
}

int qm_hook_strict(qm_session *s)
{
	struct qm_hook h = { .after = strict_after, .run_end = strict_end };

	s->strict_run = 1;
	return qm_add_hook(s, &h);
}

/* ---- --verify-each ---- */
static int verify_after(void *arg, qm_session *s,
			const struct qm_pass_event *e, qir_model *m)
{
	struct pm_run *r = e->ctx->run;
	qir_error err = { 0 };
	double t0 = pm_now();
	int rc = qir_verify(m, &err);

	(void)arg;
	r->t_verify += pm_now() - t0;
	if (rc < 0) {
		pm_msg(s, QOPT_LOG_ERROR, e->name,
		       "the IR does not verify after this pass: %s", err.msg);
		return -1;
	}
	r->res[e->index].verified = 1;
	return 0;
}

int qm_hook_verify_each(qm_session *s)
{
	struct qm_hook h = { .after = verify_after };

	return qm_add_hook(s, &h);
}

/* ---- --print-after NAMES, --print-after-all, --print-changed ---- */
struct print_hook {
	int all, changed;
	char **names;
	size_t n;
};

static void print_free(void *arg)
{
	struct print_hook *p = arg;
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->names[i]);
	free(p->names);
	free(p);
}

/* A name is a pass, or a pipeline: then after its last step. */
static int wants_print(const struct print_hook *p,
		       const struct qm_pass_event *e)
{
	size_t j;

	if (p->all || (p->changed && e->changed))
		return 1;
	for (j = 0; j < p->n; j++) {
		if (!strcmp(p->names[j], e->name))
			return 1;
		if (e->from && !strcmp(p->names[j], e->from) && e->last_step)
			return 1;
	}
	return 0;
}

static int print_after(void *arg, qm_session *s,
		       const struct qm_pass_event *e, qir_model *m)
{
	FILE *out = qm_data(s);

	if (!wants_print(arg, e))
		return 0;
	fflush(stderr);
	if (e->from)
		fprintf(out, "; *** IR after %s (pass %zu, from %s) ***\n",
			e->name, e->index + 1, e->from);
	else
		fprintf(out, "; *** IR after %s (pass %zu) ***\n", e->name,
			e->index + 1);
	qir_print(m, out);
	fflush(out);
	return 0;
}

int qm_hook_print(qm_session *s, int all, int changed,
		  const char *const *names, size_t n)
{
	struct print_hook *p = calloc(1, sizeof(*p));
	struct qm_hook h = { .after = print_after, .free = print_free };
	size_t i;

	if (!p || !(p->names = calloc(n ? n : 1, sizeof(*p->names)))) {
		free(p);
		return -1;
	}
	p->all = all;
	p->changed = changed;
	for (i = 0; i < n; i++, p->n++)
		if (!(p->names[i] = strdup(names[i]))) {
			print_free(p);
			return -1;
		}
	h.arg = p;
	if (qm_add_hook(s, &h) < 0) {
		print_free(p);
		return -1;
	}
	/* *changed is checked against the model's hash then. */
	s->hash_changes |= changed;
	return 0;
}

/* ---- --stats, --time-passes: printed by qm_report() ---- */
static void report_with(qm_session *s,
			void (*print)(const struct pm_run *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!s->have_run || !(f = open_memstream(&buf, &len)))
		return;
	print(&s->run, f);
	if (fclose(f) == 0)
		pm_emit(s, QOPT_LOG_INFO, buf);
	free(buf);
}

static void stats_report(void *arg, qm_session *s)
{
	(void)arg;
	report_with(s, pm_run_print_stats);
}

static void times_report(void *arg, qm_session *s)
{
	(void)arg;
	report_with(s, pm_run_print_times);
}

int qm_hook_stats(qm_session *s)
{
	struct qm_hook h = { .report = stats_report };

	return qm_add_hook(s, &h);
}

int qm_hook_time_passes(qm_session *s)
{
	struct qm_hook h = { .report = times_report };

	return qm_add_hook(s, &h);
}

/* ---- the progress bar (qopt_progress(); only on a terminal) ---- */
static int progress_after(void *arg, qm_session *s,
			  const struct qm_pass_event *e, qir_model *m)
{
	(void)arg;
	(void)s;
	(void)m;
	pm_ctx_finish_progress(e->ctx);
	return 0;
}

static void progress_failed(void *arg, qm_session *s,
			    const struct qm_pass_event *e, qir_model *m)
{
	progress_after(arg, s, e, m);
}

int qm_hook_progress(qm_session *s)
{
	struct qm_hook h = { .after = progress_after,
			     .after_failed = progress_failed };

	s->progress = 1;
	return qm_add_hook(s, &h);
}

/* ---- bisect: every pass run and rewrite numbered (gate.c) ---- */
static int bisect_before(void *arg, qm_session *s,
			 const struct qm_pass_event *e, qir_model *m)
{
	struct pm_run *r = e->ctx->run;

	(void)arg;
	(void)m;
	if (pm_gate_pass(r, e->index))
		return QM_HOOK_RUN;
	if (!r->lost_record)
		return QM_HOOK_SKIP;
	pm_msg(s, QOPT_LOG_ERROR, e->name,
	       "out of memory recording a bisect point; the run cannot be trusted");
	return -1;
}

static int bisect_rewrite(void *arg, qm_session *s,
			  const struct qm_pass_event *e, int64_t point,
			  const char *desc)
{
	(void)arg;
	(void)s;
	(void)point;
	return pm_gate_rewrite(e->ctx, desc);
}

int qm_hook_bisect(qm_session *s, int64_t limit, int print, int record)
{
	struct qm_hook h = { .before = bisect_before,
			     .may_rewrite = bisect_rewrite };
	s->gate.bisect_limit = limit;
	s->gate.bisect_print = print;
	s->gate.record_points = record;
	if (s->bisect_hooked)
		return 0;
	s->bisect_hooked = 1;
	return qm_add_hook(s, &h);
}

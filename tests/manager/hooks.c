/*
 * tests/manager/hooks.c - instrumentation hooks on a session, in process,
 * through core/manager/session-api.h only: a custom hook sees before and
 * after for each pass that runs, after-failed for the one that fails
 * (and nothing after it), a before that answers QM_HOOK_SKIP keeps a
 * pass from running, and every message goes to the session's sink.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/qopt.h>
#include "manager/session-api.h"
#include "../lib/tap.h"

static qopt_status tag_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)ctx;
	if (qir_model_set_metadata(m, "tag", "x") < 0)
		return QOPT_ENOMEM;
	*changed = 1;
	return QOPT_OK;
}

static qopt_status fail_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)m;
	(void)changed;
	qopt_error(ctx, "failing on purpose");
	return QOPT_EPASS;
}

static const qopt_pass_info passes[] = {
	{ .name = "h-tag", .summary = "tags the model", .run = tag_run },
	{ .name = "h-fail", .summary = "fails", .run = fail_run },
	{ 0 }
};

QOPT_PLUGIN("test-hooks", "1", passes)

/* What the hook saw, as "B0:h-tag A0:h-tag:1 ..." */
struct seen {
	char log[1024];
	size_t skip;		/* index whose before says skip; -1 none */
};

static void add(struct seen *w, const char *fmt, const char *name,
		size_t i, int x)
{
	size_t n = strlen(w->log);

	snprintf(w->log + n, sizeof(w->log) - n, fmt, n ? " " : "", i, name,
		 x);
}

static int before(void *arg, qm_session *s, const struct qm_pass_event *e,
		  qir_model *m)
{
	struct seen *w = arg;

	(void)s;
	(void)m;
	add(w, "%sB%zu:%s", e->name, e->index, 0);
	return e->index == w->skip ? QM_HOOK_SKIP : QM_HOOK_RUN;
}

static int after(void *arg, qm_session *s, const struct qm_pass_event *e,
		 qir_model *m)
{
	(void)s;
	(void)m;
	add(arg, "%sA%zu:%s:%d", e->name, e->index, e->changed);
	return 0;
}

static void failed(void *arg, qm_session *s, const struct qm_pass_event *e,
		   qir_model *m)
{
	(void)s;
	(void)m;
	add(arg, "%sF%zu:%s:%d", e->name, e->index, e->status);
}

/* The sink: every line the session says. */
static char said[4096];

static void sink(void *arg, int level, const char *text)
{
	size_t n = strlen(said);

	(void)arg;
	(void)level;
	snprintf(said + n, sizeof(said) - n, "%s", text);
}

/* A session with the linked-in passes, pipeline passes, the hook. */
static qm_session *open_session(const char *pipeline, struct seen *w)
{
	struct qm_hook h = { .before = before, .after = after,
			     .after_failed = failed, .arg = w };
	qm_session *s = qm_session_new();

	if (!s)
		return NULL;
	qm_set_sink(s, sink, NULL);
	qm_set_verbosity(s, QOPT_LOG_ERROR, 0);
	if (qm_add_plugin_table(s, "linked-in", qopt_plugin_entry()) ||
	    qm_parse(s, NULL, pipeline) || qm_resolve(s) ||
	    qm_add_hook(s, &h)) {
		qm_session_free(s);
		return NULL;
	}
	return s;
}

static int run(qm_session *s)
{
	qir_error err = { 0 };
	qir_model *m = qir_model_new(8, 17, &err);
	int rc = -1;

	if (m && qm_run_begin(s, QK_DEVICE_CPU, 1, 0) == QM_OK)
		rc = qm_run(s, m);
	qir_model_free(m);
	return rc;
}

int main(void)
{
	struct seen w = { .skip = (size_t)-1 };
	struct qm_stage st;
	qm_session *s = open_session("h-tag,h-fail,h-tag", &w);
	char want[128];

	tap_ok(s != NULL, "a session with a custom hook");
	if (!s)
		return tap_done();
	tap_ok(run(s) == QM_FAIL && qm_failed_pass(s) &&
	       !strcmp(qm_failed_pass(s), "h-fail"),
	       "the run fails at h-fail");
	snprintf(want, sizeof(want), "B0:h-tag A0:h-tag:1 B1:h-fail F1:h-fail:%d",
		 QOPT_EPASS);
	tap_ok(!strcmp(w.log, want),
	       "before/after for h-tag, before/after-failed for h-fail, nothing for the pass after it (%s)",
	       w.log);
	tap_ok(strstr(said, "qopt: h-fail: error: failing on purpose\n") != NULL,
	       "the pass's message went to the session's sink");
	qm_run_end(s);
	qm_session_free(s);

	memset(&w, 0, sizeof(w));
	w.skip = 0;
	s = open_session("h-tag,h-tag", &w);
	tap_ok(s && run(s) == QM_OK, "a run whose first pass a hook skips");
	tap_ok(s && !strcmp(w.log, "B0:h-tag B1:h-tag A1:h-tag:1"),
	       "the skipped pass has no after; the next one runs (%s)", w.log);
	if (s) {
		qm_stage_at(s, 0, &st);
		tap_ok(!st.ran, "the skipped stage did not run");
		qm_stage_at(s, 1, &st);
		tap_ok(st.ran && st.changed, "the next stage ran and changed the IR");
	}
	qm_session_free(s);
	return tap_done();
}

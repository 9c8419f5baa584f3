/*
 * tests/manager/misuse.c - the session API used wrongly, in process:
 * qm_run without qm_run_begin (it crashed), and qm_run_end,
 * qm_run_begin, qm_run and qm_parse called from inside a hook (they
 * freed the run or pipeline the running qm_run held: use after free),
 * each answered QM_USAGE with a message, the run going on unharmed; a
 * hook added twice is refused so its free runs once. Under
 * check-sanitize any use after free or double free fails this test.
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

static const qopt_pass_info passes[] = {
	{ .name = "m-tag", .summary = "tags the model", .run = tag_run },
	{ 0 }
};

QOPT_PLUGIN("test-misuse", "1", passes)

static char said[8192];

static void sink(void *arg, int level, const char *text)
{
	size_t n = strlen(said);

	(void)arg;
	(void)level;
	snprintf(said + n, sizeof(said) - n, "%s", text);
}

/* What a hook calls from inside the run, and what that call returned. */
enum { CALL_RUN_END, CALL_RUN_BEGIN, CALL_RUN, CALL_PARSE, CALL_RESOLVE };
struct inside {
	int call;
	int rc;			/* the call's answer; -99: not called */
	qir_model *m;
};

static int call(struct inside *in, qm_session *s)
{
	switch (in->call) {
	case CALL_RUN_END: return qm_run_end(s);
	case CALL_RUN_BEGIN: return qm_run_begin(s, QK_DEVICE_CPU, 1, 0);
	case CALL_RUN: return qm_run(s, in->m);
	case CALL_PARSE: return qm_parse(s, NULL, "m-tag");
	default: return qm_resolve(s);
	}
}

static int before(void *arg, qm_session *s, const struct qm_pass_event *e,
		  qir_model *m)
{
	struct inside *in = arg;

	(void)e;
	in->m = m;
	if (in->rc == -99)
		in->rc = call(in, s);
	return QM_HOOK_RUN;
}

static void report(void *arg, qm_session *s)
{
	struct inside *in = arg;

	in->rc = call(in, s);
}

static qm_session *open_session(void)
{
	qm_session *s = qm_session_new();

	if (!s)
		return NULL;
	said[0] = 0;
	qm_set_sink(s, sink, NULL);
	qm_set_verbosity(s, QOPT_LOG_ERROR, 0);
	if (qm_add_plugin_table(s, "linked-in", qopt_plugin_entry()) ||
	    qm_parse(s, NULL, "m-tag,m-tag") || qm_resolve(s)) {
		qm_session_free(s);
		return NULL;
	}
	return s;
}

static const char *const names[] = { "qm_run_end", "qm_run_begin", "qm_run",
				     "qm_parse", "qm_resolve" };

/* A hook's before calls it during a run: refused, said, the run whole. */
static void from_before(int which)
{
	struct inside in = { .call = which, .rc = -99 };
	struct qm_hook h = { .before = before, .arg = &in };
	qm_session *s = open_session();
	qir_error err = { 0 };
	qir_model *m = qir_model_new(8, 17, &err);
	struct qm_stage st;
	char want[128];
	int rc = -1;

	if (s && m && !qm_add_hook(s, &h) &&
	    qm_run_begin(s, QK_DEVICE_CPU, 1, 0) == QM_OK)
		rc = qm_run(s, m);
	snprintf(want, sizeof(want),
		 "qopt: error: %s called from inside a hook", names[which]);
	tap_ok(in.rc == QM_USAGE && strstr(said, want),
	       "%s from a hook's before: QM_USAGE, said (%d; %s)", names[which],
	       in.rc, said);
	if (s)
		qm_stage_at(s, 1, &st);
	tap_ok(rc == QM_OK && s && qm_nstages(s) == 2 && st.ran,
	       "%s from a hook: the run goes on to its end", names[which]);
	tap_ok(s && qm_run_end(s) == QM_OK,
	       "%s from a hook: qm_run_end after the run works", names[which]);
	qm_session_free(s);
	qir_model_free(m);
}

/* Counts its calls: a hook's free. */
static int nfreed;

static void count_free(void *arg)
{
	(void)arg;
	nfreed++;
}

int main(void)
{
	qm_session *s = open_session();
	qir_error err = { 0 };
	qir_model *m = qir_model_new(8, 17, &err);
	int a, b, rc;

	tap_ok(s && m, "a session with a linked-in pass");
	if (!s || !m)
		return tap_done();
	rc = qm_run(s, m);
	tap_ok(rc == QM_USAGE &&
	       strstr(said, "qopt: error: qm_run called without qm_run_begin"),
	       "qm_run without qm_run_begin: QM_USAGE, said (%d; %s)", rc, said);
	tap_ok(qm_run_begin(s, QK_DEVICE_CPU, 1, 0) == QM_OK &&
	       qm_run(s, m) == QM_OK && qm_run_end(s) == QM_OK,
	       "then begun, the same session runs");
	rc = qm_run(s, m);
	tap_ok(rc == QM_USAGE, "qm_run after qm_run_end: QM_USAGE (%d)", rc);
	qm_session_free(s);

	for (int which = CALL_RUN_END; which <= CALL_RESOLVE; which++)
		from_before(which);

	/* A report hook (qm_report) ending the run it reports on. */
	{
		struct inside in = { .call = CALL_RUN_END, .rc = -99 };
		struct qm_hook h = { .report = report, .arg = &in };

		s = open_session();
		tap_ok(s && !qm_add_hook(s, &h) &&
		       qm_run_begin(s, QK_DEVICE_CPU, 1, 0) == QM_OK &&
		       qm_run(s, m) == QM_OK, "a run with a report hook");
		if (s)
			qm_report(s);
		tap_ok(in.rc == QM_USAGE, "qm_run_end from a report hook: QM_USAGE (%d)",
		       in.rc);
		tap_ok(s && qm_nstages(s) == 2 && qm_run_end(s) == QM_OK,
		       "after qm_report, the run ends as usual");
		qm_session_free(s);
	}

	/* The same hook twice: refused, its free once. */
	{
		struct qm_hook h = { .free = count_free, .arg = &a };
		struct qm_hook other = { .free = count_free, .arg = &b };

		nfreed = 0;
		s = open_session();
		rc = s ? qm_add_hook(s, &h) : -1;
		tap_ok(rc == 0, "a hook with a free is added");
		said[0] = 0;
		rc = s ? qm_add_hook(s, &h) : -1;
		tap_ok(rc == QM_USAGE && strstr(said, "added already"),
		       "the same hook again: QM_USAGE, said (%d; %s)", rc, said);
		rc = s ? qm_add_hook(s, &other) : -1;
		tap_ok(rc == 0, "the same free with another arg is another hook");
		qm_session_free(s);
		tap_ok(nfreed == 2, "each hook's free ran once (%d calls for 2 hooks)",
		       nfreed);
	}
	qir_model_free(m);
	return tap_done();
}

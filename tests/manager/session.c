/*
 * tests/manager/session.c - the pass manager as a library: two sessions in
 * one process, each with its own registry, pipeline and runs, do not
 * see each other's settings, warnings or results (no state is global),
 * and qopt_want_range() answers QOPT_EUSAGE outside a calibration query.
 */
#include <stdio.h>
#include <string.h>
#include <qopt/qopt.h>
#include "manager/run.h"
#include "manager/session-api.h"
#include "../lib/tap.h"

/* A pass that warns once and records its tag as metadata. */
static const qopt_option_spec opts[] = {
	{ .name = "tag", .type = QOPT_OPT_STRING, .default_value = "t",
	  .help = "metadata value" },
	{ 0 }
};

static qopt_status warn_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	qopt_warn(ctx, "a warning for the test");
	if (!qopt_may_rewrite(ctx, "tag"))
		return QOPT_OK;
	if (qir_model_set_metadata(m, "tag", qopt_opt_string(ctx, "tag")) < 0)
		return QOPT_ENOMEM;
	*changed = 1;
	return QOPT_OK;
}

static const qopt_pass_info passes[] = {
	{ .name = "t-warn-tag", .summary = "warns, tags the model",
	  .options = opts, .run = warn_run },
	{ 0 }
};

QOPT_PLUGIN("test-session", "1", passes)

struct session {
	pm_session *s;
	struct pm_registry *reg;
	struct pm_pipeline pl;
};

static int open_session(struct session *x, const char *passes, int strict)
{
	qir_error err = { 0 };

	x->s = pm_session_new();
	if (!x->s)
		return -1;
	pm_msg_setup(x->s, QOPT_LOG_ERROR, strict);
	if (strict && qm_hook_strict(x->s) < 0)
		return -1;
	x->reg = pm_registry_new(x->s);
	pm_pipeline_init(&x->pl, x->s);
	if (!x->reg || pm_registry_add_table(x->reg, "linked-in",
					     qopt_plugin_entry(), &err) < 0)
		return -1;
	if (pm_pipeline_parse_inline(&x->pl, passes) ||
	    pm_pipeline_resolve(&x->pl, x->reg))
		return -1;
	return 0;
}

static void close_session(struct session *x)
{
	pm_pipeline_free(&x->pl);
	pm_registry_free(x->reg);
	pm_session_free(x->s);
}

/* One run of x's pipeline on a fresh model; 0 when it succeeded, the
 * model's "tag" metadata into tag. */
static int run_once(struct session *x, int strict, char *tag, size_t n)
{
	struct pm_run_opts o = { 0 };
	struct pm_run run;
	qir_error err = { 0 };
	qir_model *m = qir_model_new(8, 17, &err);
	const char *v = NULL;
	size_t i;
	int rc = -1;

	tag[0] = 0;
	o.bisect_limit = -1;
	o.device = QK_DEVICE_CPU;
	o.threads = 1;
	o.strict = strict;
	if (!m || pm_run_init(&run, &x->pl, &o, &err) < 0) {
		qir_model_free(m);
		return -1;
	}
	rc = pm_run_model(&run, m);
	for (i = 0; i < m->nmetadata; i++)
		if (!strcmp(m->metadata[i].key, "tag"))
			v = m->metadata[i].value;
	snprintf(tag, n, "%s", v ? v : "");
	pm_run_fini(&run);
	qir_model_free(m);
	return rc;
}

int main(void)
{
	struct session a, b;
	char tag[64], d1[PM_DID_YOU_MEAN_SIZE], d2[PM_DID_YOU_MEAN_SIZE];
	static const char *const names[] = { "alpha", "beta" };

	tap_ok(open_session(&a, "t-warn-tag:tag=from-a", 1) == 0 &&
	       open_session(&b, "t-warn-tag:tag=from-b", 0) == 0,
	       "two sessions, each with its registry and pipeline");
	tap_ok(run_once(&a, 1, tag, sizeof(tag)) < 0,
	       "session a (--strict): the warning fails its run");
	tap_ok(run_once(&b, 0, tag, sizeof(tag)) == 0 &&
	       !strcmp(tag, "from-b"),
	       "session b, after it: not strict, runs with its own options");
	tap_ok(pm_msg_warnings(a.s) == 1 && pm_msg_warnings(b.s) == 1,
	       "each session counts its own warnings");
	tap_ok(run_once(&b, 0, tag, sizeof(tag)) == 0 &&
	       pm_msg_warnings(b.s) == 2 && pm_msg_warnings(a.s) == 1,
	       "b's second run counts in b only");
	tap_ok(pm_msg_level(a.s) == QOPT_LOG_ERROR, "levels are per session");
	close_session(&a);
	tap_ok(run_once(&b, 0, tag, sizeof(tag)) == 0 &&
	       !strcmp(tag, "from-b"),
	       "b runs on after a is freed");
	close_session(&b);

	pm_did_you_mean("alpah", names, 2, d1, sizeof(d1));
	pm_did_you_mean("beat", names, 2, d2, sizeof(d2));
	tap_ok(!strcmp(d1, " (did you mean 'alpha'?)") &&
	       !strcmp(d2, " (did you mean 'beta'?)"),
	       "suggestions go to the caller's buffer, not a shared one");
	tap_ok(qopt_want_range(NULL, NULL) == QOPT_EUSAGE,
	       "qopt_want_range() without a query context: QOPT_EUSAGE");
	return tap_done();
}

/*
 * tests/manager/session-pub.c - <qopt/session.h>'s refusals, through the
 * public API only (linked against libqopt.la, nothing internal): every
 * bad argument and misuse is a status and an error diagnostic naming
 * it, and the session stays usable. The happy paths against the
 * installed library are tests/abi/library.sh's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/session.h>
#include "tests/lib/tap.h"

static char passdir[4096], plugin[4096];
static int nerrors;
static char last[1024];

static void on_diag(void *arg, const qopt_diag *d)
{
	(void)arg;
	if (d->severity == QOPT_LOG_ERROR) {
		nerrors++;
		snprintf(last, sizeof(last), "%s", d->message);
	}
}

static qopt_session *fresh(void)
{
	qopt_session *s = qopt_session_new();

	qopt_session_set_diag(s, on_diag, NULL);
	qopt_session_set(s, "builtin_dir", passdir);
	nerrors = 0;
	last[0] = 0;
	return s;
}

/* rc is want, and one error said it, naming what. */
static void refused(qopt_status rc, qopt_status want, const char *what,
		    const char *desc)
{
	tap_ok(rc == want && nerrors >= 1 && strstr(last, what) != NULL,
	       "%s: status %d (want %d), error naming '%s' (%s)", desc, rc,
	       want, what, last);
	nerrors = 0;
	last[0] = 0;
}

static void settings(void)
{
	qopt_session *s = fresh();

	refused(qopt_session_set(s, "verbosity", "9"), QOPT_EUSAGE, "verbosity",
		"verbosity 9");
	refused(qopt_session_set(s, "strict", "yes"), QOPT_EUSAGE, "strict",
		"strict yes");
	refused(qopt_session_set(s, "threads", "-1"), QOPT_EUSAGE, "threads",
		"threads -1");
	refused(qopt_session_set(s, "device", "tpu"), QOPT_EUSAGE, "tpu",
		"device tpu");
	refused(qopt_session_set(s, "color", "1"), QOPT_EUSAGE, "color",
		"an unknown key");
	refused(qopt_session_set(s, NULL, "1"), QOPT_EUSAGE, "NULL", "a NULL key");
	tap_ok(qopt_session_set(s, "threads", "2") == QOPT_OK &&
	       qopt_session_pipeline_passes(s, "cast-fold") == QOPT_OK,
	       "after the refusals the session takes settings and a pipeline");
	refused(qopt_session_set(s, "threads", "1"), QOPT_EUSAGE, "before the pipeline",
		"a setting after the pipeline");
	qopt_session_free(s);
}

static void pipelines(void)
{
	static const char *const novalue[] = { "to", NULL };
	qopt_session *s = fresh();

	refused(qopt_session_pipeline_ini(s, "[cast-fold]\nno equals sign\n",
					  "bad.ini"),
		QOPT_EUSAGE, "bad.ini:2", "INI text with a syntax error, by line");
	refused(qopt_session_run_file(s, "none.onnx", NULL), QOPT_EUSAGE,
		"refused", "a run after a refused pipeline");
	qopt_session_free(s);

	s = fresh();
	refused(qopt_session_pipeline_ini(s, "", NULL), QOPT_EUSAGE, "no passes",
		"empty INI text");
	qopt_session_free(s);

	s = fresh();
	refused(qopt_session_pipeline_file(s, "/nonexistent/p.ini"), QOPT_EUSAGE,
		"/nonexistent/p.ini", "a missing pipeline file");
	qopt_session_free(s);

	s = fresh();
	refused(qopt_session_add_pass(s, "autocast", novalue), QOPT_EUSAGE,
		"without a value", "add_pass: an option without a value");
	qopt_session_free(s);

	s = fresh();
	tap_ok(qopt_session_add_pass(s, "autocast", (const char *const[]){
				"color", "red", NULL }) == QOPT_OK,
	       "add_pass: options are checked at the run");
	refused(qopt_session_run_file(s, "none.onnx", NULL), QOPT_EUSAGE,
		"color", "... which names the unknown option");
	qopt_session_free(s);

	s = fresh();
	tap_ok(qopt_session_pipeline_passes(s, "cast-fold") == QOPT_OK,
	       "a pass list");
	refused(qopt_session_add_pass(s, "autocast", NULL), QOPT_EUSAGE,
		"set already", "add_pass after a pass list");
	refused(qopt_session_pipeline_ini(s, "[cast-fold]\n", NULL), QOPT_EUSAGE,
		"already", "a second pipeline");
	qopt_session_free(s);

	s = fresh();
	refused(qopt_session_run_file(s, "none.onnx", NULL), QOPT_EUSAGE,
		"no pipeline", "a run without a pipeline");
	qopt_session_free(s);
}

static int hook_runs_again(void *arg, const qopt_pass_event *e, qir_model *m)
{
	qopt_session *s = arg;
	qopt_hook h = { sizeof(h), NULL, NULL, NULL };
	int id;

	(void)e;
	tap_ok(qopt_session_run(s, m) == QOPT_EUSAGE,
	       "qopt_session_run from inside a hook: QOPT_EUSAGE");
	tap_ok(qopt_session_add_hook(s, &h, &id) == QOPT_EUSAGE,
	       "add_hook from inside a hook: QOPT_EUSAGE");
	tap_ok(qopt_session_remove_hook(s, 1) == QOPT_EUSAGE,
	       "remove_hook from inside a hook: QOPT_EUSAGE");
	return 0;
}

static int hook_fails(void *arg, const qopt_pass_event *e, qir_model *m)
{
	(void)arg;
	(void)e;
	(void)m;
	return -1;
}

static void hooks_and_runs(const char *model)
{
	qopt_session *s = fresh();
	qopt_hook small = { sizeof(small) - 1, NULL, NULL, NULL };
	qopt_hook again = { sizeof(again), hook_runs_again, NULL, NULL };
	qopt_hook failing = { sizeof(failing), NULL, hook_fails, NULL };
	qopt_pass_desc d = { 0 };
	char *json = (char *)"x";
	qopt_status rc;
	int id = 0;

	again.arg = s;
	refused(qopt_session_add_hook(s, &small, &id), QOPT_EUSAGE, "size",
		"a hook of another size");
	refused(qopt_session_remove_hook(s, 7), QOPT_ENOTFOUND, "7",
		"removing a hook never added");
	tap_ok(qopt_session_report_json(s, &json) == QOPT_EUSAGE && !json,
	       "the report before a run: QOPT_EUSAGE, *out NULL");
	tap_ok(qopt_session_npasses(s) > 0, "the built-in passes are listed (%zu)",
	       qopt_session_npasses(s));
	refused(qopt_session_pass_at(s, 0, &d), QOPT_EUSAGE, "size",
		"pass_at without the descriptor's size");
	d.size = sizeof(d);
	rc = qopt_session_pass_at(s, 0, &d);
	tap_ok(rc == QOPT_OK && d.name && d.summary && d.plugin,
	       "pass_at 0: %s", d.name ? d.name : "(none)");
	refused(qopt_session_pass_at(s, 100000, &d), QOPT_ENOTFOUND, "100000",
		"pass_at out of range");
	qopt_session_pipeline_passes(s, "cast-fold");
	qopt_session_add_hook(s, &again, &id);
	tap_ok(qopt_session_run_file(s, model, NULL) == QOPT_OK,
	       "the run goes on after the hook's refused calls");
	qopt_session_remove_hook(s, id);
	qopt_session_add_hook(s, &failing, &id);
	refused(qopt_session_run_file(s, model, NULL), QOPT_EPASS, "hook",
		"a hook's after returning -1 fails the run");
	tap_ok(qopt_session_failed_pass(s) &&
	       !strcmp(qopt_session_failed_pass(s), "cast-fold"),
	       "... naming the pass it followed");
	refused(qopt_session_run_file(s, "/nonexistent/m.onnx", NULL), QOPT_EIO,
		"/nonexistent/m.onnx", "a missing input model");
	refused(qopt_session_run(s, NULL), QOPT_EUSAGE, "NULL", "a NULL model");
	qopt_session_free(s);
	qopt_session_free(NULL);
	tap_ok(1, "qopt_session_free(NULL) is a no-op");
}

static void strict(const char *model)
{
	qopt_session *s = fresh();

	qopt_session_set(s, "strict", "1");
	qopt_session_set(s, "load", plugin);
	qopt_session_pipeline_passes(s, "t-warn");
	refused(qopt_session_run_file(s, model, NULL), QOPT_ESTRICT,
		"--strict", "strict: a pass's warning fails the run with QOPT_ESTRICT");
	qopt_session_free(s);
}

int main(void)
{
	const char *top = getenv("top_builddir");
	char model[4096];

	if (!top) {
		printf("1..0 # SKIP top_builddir not set (run by make check)\n");
		return 0;
	}
	snprintf(passdir, sizeof(passdir), "%s/passes/.libs", top);
	snprintf(plugin, sizeof(plugin), "%s/tests/plugins/.libs/good.so", top);
	snprintf(model, sizeof(model), "%s/tests/work/manager/session-pub.onnx",
		 top);
	if (system("mkdir -p \"$top_builddir/tests/work/manager\" && "
		   "\"$top_builddir/tests/lib/mkmodel\" "
		   "\"$top_builddir/tests/work/manager/session-pub.onnx\"")) {
		printf("Bail out! tests/lib/mkmodel failed\n");
		return 1;
	}
	settings();
	pipelines();
	hooks_and_runs(model);
	strict(model);
	return tap_done();
}

/*
 * tests/abi/library-client.c - a program built out of tree against the
 * installed libqopt (pkg-config qopt) by tests/abi/library.sh: the pass
 * manager in process through <qopt/session.h>. It prints what it saw,
 * one fact a line ("KEY VALUE"), and the script judges.
 *
 * library-client PASSDIR PLUGIN MODEL OUTDIR [CMODEL SAMPLES NODE SCRIPT]
 *
 * With the last four: calibration in process (<qopt/calib.h>) on CMODEL
 * over the sample folder SAMPLES, through a runner of the client's own
 * that spawns NODE SCRIPT JOB, as an embedder's would.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <qopt/calib.h>
#include <qopt/plan.h>
#include <qopt/session.h>

struct counts {
	int before, after, skipped_changed;
};

static int count_before(void *arg, const qopt_pass_event *e, qir_model *m)
{
	struct counts *c = arg;

	(void)m;
	c->before += e->size == sizeof(*e) && e->pass != NULL;
	return 0;
}

static int count_after(void *arg, const qopt_pass_event *e, qir_model *m)
{
	struct counts *c = arg;

	(void)m;
	c->after++;
	c->skipped_changed += e->changed;
	return 0;
}

/* Every diagnostic, as "diag SEVERITY CODE PASS MESSAGE". */
static void print_diag(void *arg, const qopt_diag *d)
{
	(void)arg;
	printf("diag %d %d %s %s\n", d->severity, d->code,
	       d->pass ? d->pass : "-", d->message);
}

static qopt_session *session(const char *passdir)
{
	qopt_session *s = qopt_session_new();

	if (!s || qopt_session_set(s, "builtin_dir", passdir)) {
		printf("session failed\n");
		exit(1);
	}
	return s;
}

static void save(qir_model *m, const char *dir, const char *name)
{
	qir_save_opts so = QIR_SAVE_OPTS_INIT;
	qir_error err = { 0 };
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	printf("save %d\n", qir_model_save(m, path, &so, &err));
}

/* A model in memory, with a hook kept and one removed. */
static void in_memory(const char *passdir, const char *model, const char *dir)
{
	struct counts kept = { 0 }, gone = { 0 };
	qopt_hook h = { sizeof(h), count_before, count_after, &kept };
	qopt_hook g = { sizeof(g), count_before, count_after, &gone };
	qopt_session *s = session(passdir);
	qir_error err = { 0 };
	qir_model *m = NULL;
	int id_kept = 0, id_gone = 0;
	char *json = NULL;

	if (qir_model_load(model, NULL, &m, &err) < 0) {
		printf("load failed: %s\n", err.msg);
		exit(1);
	}
	printf("memory-pipeline %d\n", qopt_session_pipeline_passes(s, "autocast"));
	printf("add-hooks %d %d\n", qopt_session_add_hook(s, &h, &id_kept),
	       qopt_session_add_hook(s, &g, &id_gone));
	printf("remove-hook %d\n", qopt_session_remove_hook(s, id_gone));
	printf("remove-again %d\n", qopt_session_remove_hook(s, id_gone));
	printf("memory-run %d\n", qopt_session_run(s, m));
	printf("hook-kept %d %d %d\n", kept.before, kept.after,
	       kept.skipped_changed);
	printf("hook-removed %d %d\n", gone.before, gone.after);
	save(m, dir, "memory.onnx");
	printf("report %d\n", qopt_session_report_json(s, &json));
	printf("report-names-pass %d\n",
	       json && strstr(json, "\"pass\": \"autocast\"") != NULL);
	qopt_free(json);
	printf("second-pipeline %d\n", qopt_session_pipeline_passes(s, "autocast"));
	qir_model_free(m);
	qopt_session_free(s);
}

/* A path in, a path out: add_pass with an option. */
static void on_paths(const char *passdir, const char *model, const char *dir)
{
	static const char *const kv[] = { "to", "float16", NULL };
	qopt_session *s = session(passdir);
	char out[4096];

	snprintf(out, sizeof(out), "%s/path.onnx", dir);
	printf("add-pass %d\n", qopt_session_add_pass(s, "autocast", kv));
	printf("path-run %d\n", qopt_session_run_file(s, model, out));
	printf("same-path %d\n", qopt_session_run_file(s, model, model));
	qopt_session_free(s);
}

/* A warning and an error, each with its pass; then the same run
 * without a callback, which prints what qopt prints. */
static void diagnostics(const char *passdir, const char *plugin,
			const char *model, int with_callback)
{
	qopt_session *s = session(passdir);
	qopt_status rc;

	if (with_callback)
		qopt_session_set_diag(s, print_diag, NULL);
	printf("unknown-setting %d\n", qopt_session_set(s, "no_such", "1"));
	printf("load %d\n", qopt_session_set(s, "load", plugin));
	printf("ini %d\n", qopt_session_pipeline_ini(s, "[t-warn]\n[t-fail]\n",
						     "test.ini"));
	rc = qopt_session_run_file(s, model, NULL);
	printf("failing-run %d %s\n", rc,
	       qopt_session_failed_pass(s) ? qopt_session_failed_pass(s) : "-");
	qopt_session_free(s);
}

static void bad_pipeline(const char *passdir, const char *model)
{
	qopt_session *s = session(passdir);

	qopt_session_set_diag(s, print_diag, NULL);
	printf("unknown-pass %d\n", qopt_session_pipeline_passes(s, "no-such-pass"));
	printf("refused-run %d\n", qopt_session_run_file(s, model, NULL));
	qopt_session_free(s);
}

/* ---- calibration through the client's own runner ---- */

struct node_runner {
	const char *node, *script;
	const char *plan_script;	/* for the plan's jobs, or NULL */
	int calls, plan_calls;
	double timeout;		/* the bound libqopt gave the last call */
};

/* The plan's measurement jobs list "candidates" (qopt/plan.h). */
static int is_plan_job(const char *job)
{
	char buf[1 << 16];
	FILE *f = fopen(job, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = 0;
	return strstr(buf, "\"candidates\"") != NULL;
}

/* qopt_calib_runner: node SCRIPT JOB, waited for (the bound is not
 * kept here: a test's own timeout ends a hang). */
static qopt_status run_node(void *arg, const char *job, const char *result,
			    double timeout_s, qir_error *err)
{
	struct node_runner *r = arg;
	const char *script = r->script;
	pid_t pid;
	int st = 0;

	(void)result;	/* the job names it to the script */
	r->calls++;
	if (r->plan_script && is_plan_job(job)) {
		script = r->plan_script;
		r->plan_calls++;
	}
	r->timeout = timeout_s;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(err->msg, sizeof(err->msg), "fork failed");
		return QOPT_EIO;
	}
	if (!pid) {
		/* ORT's node binding leaves files in TMPDIR: the job's
		 * folder, which libqopt removes */
		char dir[4096], *slash;

		snprintf(dir, sizeof(dir), "%s", job);
		slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
		if (slash && setenv("TMPDIR", dir, 1) < 0)
			_exit(127);
		execlp(r->node, r->node, script, job, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0) {
		snprintf(err->msg, sizeof(err->msg), "client runner: %s %s "
			 "failed (status %d)", r->node, script, st);
		return QOPT_EINVALID;
	}
	return QOPT_OK;
}

static qopt_session *calib_session(const char *passdir, const char *passes)
{
	qopt_session *s = session(passdir);

	qopt_session_set_diag(s, print_diag, NULL);
	printf("calib-pipeline %s %d\n", passes,
	       qopt_session_pipeline_passes(s, passes));
	return s;
}

/* The ranges in memory, and their text as the file qopt calibrate
 * writes (OUTDIR/lib-calib.json). */
static void calibrate(const char *passdir, const char *model,
		      const char *samples, const char *outdir,
		      struct node_runner *r)
{
	qopt_calib_opts o = { sizeof(o), samples, 0, 0, NULL, NULL, 0 };
	qopt_session *s = calib_session(passdir, "fp8-mha");
	qopt_calib *c = NULL;
	qir_error err = { 0 };
	char path[4096], *text = NULL;
	size_t len = 0;
	FILE *f;

	r->calls = 0;
	printf("calibrate %d\n", qopt_session_calibrate(s, model, &o, run_node,
							 r, &c));
	printf("calibrate-runner-calls %d bounded %d\n", r->calls,
	       r->timeout > 0);
	printf("calibrate-count-positive %d\n", c && qopt_calib_count(c) > 0);
	printf("calibrate-text %d\n", c ? qopt_calib_text(c, &text, &len, &err) :
	       -1);
	snprintf(path, sizeof(path), "%s/lib-calib.json", outdir);
	f = fopen(path, "wb");
	if (f && text)
		fwrite(text, 1, len, f);
	if (f)
		fclose(f);
	qopt_free(text);
	qopt_calib_free(c);
	qopt_session_free(s);
}

/* Random samples (a smoke test): OUTDIR/lib-random.json. */
static void calibrate_random(const char *passdir, const char *model,
			     const char *outdir, struct node_runner *r)
{
	qopt_calib_opts o = { sizeof(o), NULL, 3, 7, NULL, NULL, 0 };
	qopt_session *s = calib_session(passdir, "fp8-mha");
	qopt_calib *c = NULL;
	qir_error err = { 0 };
	char path[4096];

	printf("calibrate-random %d\n", qopt_session_calibrate(s, model, &o,
	       run_node, r, &c));
	snprintf(path, sizeof(path), "%s/lib-random.json", outdir);
	printf("calibrate-random-write %d\n", c ? qopt_calib_write(c, path,
	       &err) : -1);
	qopt_calib_free(c);
	qopt_session_free(s);
}

/* Options the library refuses before any work, as "NAME STATUS". */
static void calibrate_bad_opts(const char *passdir, const char *model,
			       const char *samples, struct node_runner *r)
{
	static const struct {
		const char *name, *samples, *dims, *method;
		long random;
		double percentile;
	} bad[] = {
		{ "both", "S", NULL, NULL, 2, 0 },
		{ "dims-with-samples", "S", "N=2", NULL, 0, 0 },
		{ "dims-malformed", NULL, "N", NULL, 2, 0 },
		{ "dims-zero", NULL, "N=0", NULL, 2, 0 },
		{ "method-unknown", "S", NULL, "median", 0, 0 },
		{ "percentile-range", "S", NULL, NULL, 0, 30 },
		{ "percentile-of-max", "S", NULL, "max", 0, 99 },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		qopt_calib_opts o = { sizeof(o), bad[i].samples ? samples : NULL,
				      bad[i].random, 0, bad[i].dims,
				      bad[i].method, bad[i].percentile };
		qopt_session *s = calib_session(passdir, "fp8-mha");
		qopt_calib *c = NULL;

		r->calls = 0;
		printf("bad-opts %s %d runner-calls %d\n", bad[i].name,
		       qopt_session_calibrate(s, model, &o, run_node, r, &c),
		       r->calls);
		qopt_calib_free(c);
		qopt_session_free(s);
	}
}

/* What the library refuses, each a status and a diagnostic. */
static void calibrate_refused(const char *passdir, const char *model,
			      const char *samples, struct node_runner *r)
{
	qopt_calib_opts none = { sizeof(none), NULL, 0, 0, NULL, NULL, 0 };
	qopt_calib_opts o = { sizeof(o), samples, 0, 0, NULL, NULL, 0 };
	struct node_runner bad = { .node = r->node,
				   .script = "/nonexistent/qopt-calibrate-ort" };
	qopt_calib *c = NULL;
	qopt_session *s;

	s = calib_session(passdir, "fp8-mha");
	printf("calibrate-no-samples %d\n", qopt_session_calibrate(s, model,
	       &none, run_node, r, &c));
	qopt_session_free(s);
	s = calib_session(passdir, "cast-fold");
	printf("calibrate-nothing-to-measure %d\n", qopt_session_calibrate(s,
	       model, &o, run_node, r, &c));
	qopt_session_free(s);
	s = calib_session(passdir, "fp8-mha");
	printf("calibrate-runner-fails %d out-null %d\n",
	       qopt_session_calibrate(s, model, &o, run_node, &bad, &c),
	       c == NULL);
	qopt_session_free(s);
}

/* The one-command form: OUTDIR/lib-fp8.onnx. */
static void calibrated_run(const char *passdir, const char *model,
			   const char *samples, const char *outdir,
			   struct node_runner *r)
{
	qopt_session *s = calib_session(passdir, "fp8-mha");
	char out[4096];
	qopt_status st;

	snprintf(out, sizeof(out), "%s/lib-fp8.onnx", outdir);
	r->calls = 0;
	printf("calibration %d\n", qopt_session_calibration(s, samples,
							    run_node, r));
	printf("calibration-again %d\n", qopt_session_calibration(s, samples,
								  run_node, r));
	st = qopt_session_run_file(s, model, out);
	printf("calibrated-run %d runner-calls-positive %d\n", st,
	       r->calls > 0);
	qopt_session_free(s);
}

/* The plan (qopt/plan.h) of the calibration model: fp8 or float per
 * layer; its INI and calibration files written in OUTDIR/plan/ under
 * the names qopt plan -o OUTDIR/plan/p.ini gives them. */
static void plan(const char *passdir, const char *model, const char *samples,
		 const char *outdir, struct node_runner *r)
{
	char ini[4096], path[4096];
	qopt_plan_opts o = { .size = sizeof(o), .samples = samples,
			     .formats = "fp8,none", .effective_bits = 12,
			     .max_loss = -1, .max_float_layers = -1,
			     .output = ini };
	qopt_session *s = session(passdir);
	qopt_plan *p = NULL;
	size_t i;
	FILE *f;

	snprintf(ini, sizeof(ini), "%s/plan/p.ini", outdir);
	qopt_session_set_diag(s, print_diag, NULL);
	r->calls = r->plan_calls = 0;
	printf("plan %d\n", qopt_session_plan(s, model, &o, run_node, r, &p));
	printf("plan-runner-calls calibrate %d measure %d\n",
	       r->calls - r->plan_calls, r->plan_calls);
	printf("plan-ncalib %zu\n", qopt_plan_ncalib(p));
	if ((f = fopen(ini, "w")) && p)
		fputs(qopt_plan_ini(p), f);
	if (f)
		fclose(f);
	for (i = 0; i < qopt_plan_ncalib(p); i++) {
		const char *name, *text;

		qopt_plan_calib_at(p, i, &name, &text);
		snprintf(path, sizeof(path), "%s/plan/%s", outdir, name);
		if ((f = fopen(path, "w"))) {
			fputs(text, f);
			fclose(f);
		}
	}
	printf("plan-summary %s\n", p ? qopt_plan_summary(p) : "-");
	qopt_plan_free(p);
	o.formats = "fp8,fp9";
	printf("plan-bad-format %d\n", qopt_session_plan(s, model, &o,
	       run_node, r, &p));
	qopt_session_free(s);
}

int main(int argc, char **argv)
{
	struct node_runner r = { 0 };

	if (argc != 5 && argc != 9 && argc != 10) {
		fprintf(stderr, "usage: library-client PASSDIR PLUGIN MODEL "
			"OUTDIR [CMODEL SAMPLES NODE SCRIPT [PLAN_SCRIPT]]\n");
		return 2;
	}
	in_memory(argv[1], argv[3], argv[4]);
	on_paths(argv[1], argv[3], argv[4]);
	diagnostics(argv[1], argv[2], argv[3], 1);
	fflush(stdout);
	diagnostics(argv[1], argv[2], argv[3], 0);
	bad_pipeline(argv[1], argv[3]);
	/* Calibration in process (the calibration module's header). */
	if (argc >= 9) {
		r.node = argv[7];
		r.script = argv[8];
		calibrate(argv[1], argv[5], argv[6], argv[4], &r);
		calibrate_refused(argv[1], argv[5], argv[6], &r);
		calibrate_random(argv[1], argv[5], argv[4], &r);
		calibrate_bad_opts(argv[1], argv[5], argv[6], &r);
		calibrated_run(argv[1], argv[5], argv[6], argv[4], &r);
	}
	/* The plan in process (qopt/plan.h). */
	if (argc == 10) {
		r.plan_script = argv[9];
		plan(argv[1], argv[5], argv[6], argv[4], &r);
	}
	return 0;
}

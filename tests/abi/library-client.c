/*
 * tests/abi/library-client.c - a program built out of tree against the
 * installed libqopt (pkg-config qopt) by tests/abi/library.sh: the pass
 * manager in process through <qopt/session.h>. It prints what it saw,
 * one fact a line ("KEY VALUE"), and the script judges.
 *
 * library-client PASSDIR PLUGIN MODEL OUTDIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: library-client PASSDIR PLUGIN MODEL OUTDIR\n");
		return 2;
	}
	in_memory(argv[1], argv[3], argv[4]);
	on_paths(argv[1], argv[3], argv[4]);
	diagnostics(argv[1], argv[2], argv[3], 1);
	fflush(stdout);
	diagnostics(argv[1], argv[2], argv[3], 0);
	bad_pipeline(argv[1], argv[3]);
	/* Calibration and the plan in process (the calibration module's
	 * header) are tested here once libqopt carries them. */
	return 0;
}

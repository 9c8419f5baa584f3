/*
 * core/cli/cmd-run.c - `qopt MODEL -o OUT`: load, run the pipeline, save;
 * plus the inspection options (--list-passes, --help-pass,
 * --print-pipeline). Listings go to qm_data(), messages to the
 * session's sink.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/calib-runner.h"
#include "cli/outpath.h"
#include "cli/summary.h"

/* "a, b [when x], c" into f. */
static void print_steps(const struct qm_entry *a, FILE *f)
{
	size_t k;

	for (k = 0; k < a->nsteps; k++) {
		const qopt_pipeline_step *s = &a->steps[k];

		fprintf(f, "%s%s", k ? ", " : "", s->pass);
		if (s->when)
			fprintf(f, " [if %s]", s->when);
	}
}

int cmd_list_passes(struct cli_opts *c)
{
	FILE *out = qm_data(c->s);
	size_t i, w = 4, np = qm_npasses(c->s), na = qm_npipelines(c->s);
	struct qm_entry e;

	for (i = 0; i < np + na; i++) {
		if (i < np)
			qm_pass_at(c->s, i, &e);
		else
			qm_pipeline_at(c->s, i - np, &e);
		if (strlen(e.name) > w)
			w = strlen(e.name);
	}
	for (i = 0; i < np; i++) {
		qm_pass_at(c->s, i, &e);
		fprintf(out, "%-*s  %s (%s %s)\n", (int)w, e.name, e.summary,
			e.plugin_path, e.version ? e.version : "?");
	}
	if (!np)
		fprintf(out, "(no passes found)\n");
	for (i = 0; i < na; i++) {
		qm_pipeline_at(c->s, i, &e);
		fprintf(out, "%-*s  %s (pipeline; %s %s)\n", (int)w, e.name,
			e.summary, e.plugin_path, e.version ? e.version : "?");
		fprintf(out, "%-*s    = ", (int)w, "");
		print_steps(&e, out);
		fputc('\n', out);
	}
	return QOPT_EXIT_OK;
}

static void print_options(FILE *out, const qopt_option_spec *o, size_t n)
{
	size_t i;

	if (!n) {
		fprintf(out, "options: none\n");
		return;
	}
	fprintf(out, "options:\n");
	for (i = 0; i < n; i++) {
		char acc[512];

		fprintf(out, "  %-20s %-6s %s %-10s %s\n", o[i].name,
			qm_opt_type_name(o[i].type),
			o[i].flags & QOPT_OPT_REQUIRED ? "        " : "default",
			o[i].flags & QOPT_OPT_REQUIRED ? "(required)" :
			o[i].default_value ? (*o[i].default_value ?
			o[i].default_value : "''") : "(unset)",
			o[i].help ? o[i].help : "");
		if (qm_option_accepts(&o[i], acc, sizeof(acc)))
			fprintf(out, "  %-20s %s\n", "", acc);
	}
}

static void print_strv(FILE *out, const char *what, const char *const *v)
{
	size_t i;

	if (!v || !v[0])
		return;
	fprintf(out, "; %s ", what);
	for (i = 0; v[i]; i++)
		fprintf(out, "%s%s", i ? ", " : "", v[i]);
}

static int help_pipeline(FILE *out, const struct qm_entry *a)
{
	size_t k;

	fprintf(out, "%s - %s\n", a->name, a->summary);
	fprintf(out, "pipeline of plugin: %s %s (%s)\n", a->plugin,
		a->version ? a->version : "?", a->plugin_path);
	if (a->flags & QOPT_PASS_HAS_TARGETS)
		fprintf(out, "warns when no step changes anything (its options name targets)\n");
	fprintf(out, "steps:\n");
	for (k = 0; k < a->nsteps; k++) {
		const qopt_pipeline_step *s = &a->steps[k];

		fprintf(out, "  %zu. %s", k + 1, s->pass);
		if (s->when)
			fprintf(out, " (if %s)", s->when);
		print_strv(out, "forwards", s->forward);
		print_strv(out, "fixed", s->fixed);
		fputc('\n', out);
	}
	print_options(out, a->options, a->nopts);
	return QOPT_EXIT_OK;
}

int cmd_help_pass(struct cli_opts *c, const char *name)
{
	char dym[QM_DID_YOU_MEAN_SIZE];
	FILE *out = qm_data(c->s);
	struct qm_entry e;
	int kind = qm_find(c->s, name, &e);

	if (kind == 2)
		return help_pipeline(out, &e);
	if (!kind) {
		qm_say(c->s, QOPT_LOG_ERROR,
		       "qopt: error: unknown pass '%s'%s\n%s\n", name,
		       qm_did_you_mean(c->s, name, dym), qm_unknown_pass_hint());
		return QOPT_EXIT_USAGE;
	}
	fprintf(out, "%s - %s\n", e.name, e.summary);
	fprintf(out, "plugin: %s %s (%s)\n", e.plugin,
		e.version ? e.version : "?", e.plugin_path);
	if (e.flags & QOPT_PASS_HAS_TARGETS)
		fprintf(out, "warns when it changes nothing (its options name targets)\n");
	print_options(out, e.options, e.nopts);
	return QOPT_EXIT_OK;
}

/* --print-after names a pass that is not in the pipeline: say so
 * rather than print nothing. */
static int check_print_after(const struct cli_opts *c)
{
	char dym[QM_DID_YOU_MEAN_SIZE];
	const char *names[512];
	struct qm_stage st;
	size_t i, j, n = 0;

	/* A pipeline's name stands for its last step. */
	for (i = 0; i < qm_nstages(c->s) && n < 511; i++) {
		qm_stage_at(c->s, i, &st);
		names[n++] = st.name;
		if (st.from)
			names[n++] = st.from;
	}
	for (i = 0; i < c->nprint_after; i++) {
		for (j = 0; j < n; j++)
			if (!strcmp(names[j], c->print_after[i]))
				break;
		if (j == n) {
			qm_say(c->s, QOPT_LOG_ERROR,
			       "qopt: error: --print-after: pass '%s' is not in the pipeline%s\n",
			       c->print_after[i],
			       qm_suggest(c->print_after[i], names, n, dym,
					  sizeof(dym)));
			return -1;
		}
	}
	return 0;
}

/* Standard output carries the IR prints: a failure there (a full disk,
 * a closed pipe) fails the run before anything is committed. */
static int stdout_ok(qm_session *s)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 1;
	qm_say(s, QOPT_LOG_ERROR,
	       "qopt: error: cannot write to standard output%s%s; no output written\n",
	       errno ? ": " : "", errno ? strerror(errno) : "");
	return 0;
}

/* Everything that can fail is done before the model is renamed into
 * place; the statistics file follows it (a rename in one folder). */
/* A deferred tensor's recipe runs when its bytes are written; with no
 * output (-o /dev/null, --dry-run) nothing would run it, and a recipe
 * that fails (an NVFP4 weight holding Inf) would pass unnoticed. So the
 * recipes run here, their results kept as any read result is. */
static int eval_graph_deferred(qir_graph *g, void *arg)
{
	qir_error *err = arg;
	size_t i;

	for (i = 0; i < g->ninits; i++) {
		qir_tensor *t = qir_value_const(g->inits[i]);

		if (t && qir_tensor_deferred(t) && !qir_tensor_data(t, err))
			return -1;
	}
	return 0;
}

static int eval_deferred(struct cli_opts *c, qir_model *m)
{
	qir_error err = { 0 };

	if (qir_graph_walk(m->graph, eval_graph_deferred, &err) == 0)
		return 0;
	qm_say(c->s, QOPT_LOG_ERROR, "qopt: %s: error: %s; no output written\n",
	       c->input, err.msg);
	return -1;
}

static int finish(struct cli_opts *c, qir_model *m)
{
	qir_error err = { 0 };
	qm_outfile *stats = NULL;
	qir_save_opts so;
	double t0;

	errno = 0;
	if (!stdout_ok(c->s))
		return QOPT_EXIT_FAIL;
	if (c->stats_json && !c->stats_discard &&
	    !(stats = qm_write_stats_json(c->s, c->stats_json, c->input,
					  &err))) {
		qm_say(c->s, QOPT_LOG_ERROR,
		       "qopt: %s: error: %s; no output written\n",
		       c->stats_json, err.msg);
		return QOPT_EXIT_FAIL;
	}
	if (!c->dry_run && !c->out_discard) {
		cli_save_opts(c, &so);
		t0 = qm_now();
		if (qir_model_save(m, c->output, &so, &err) < 0) {
			qm_say(c->s, QOPT_LOG_ERROR, "qopt: %s: error: %s\n",
			       c->output, err.msg);
			qm_outfile_abort(stats);
			return QOPT_EXIT_FAIL;
		}
		qm_add_time(c->s, QM_TIME_SAVE, qm_now() - t0);
		qm_msg(c->s, QOPT_LOG_INFO, c->output,
		       "wrote %zu nodes, %zu initializers",
		       m->graph->nnodes, m->graph->ninits);
	}
	if ((c->dry_run || c->out_discard) && eval_deferred(c, m) < 0) {
		qm_outfile_abort(stats);
		return QOPT_EXIT_FAIL;
	}
	if (c->out_discard)
		qm_msg(c->s, QOPT_LOG_INFO, c->output,
		       "discarded (%zu nodes, %zu initializers)",
		       m->graph->nnodes, m->graph->ninits);
	if (stats && qm_outfile_commit(stats, &err) < 0) {
		qm_say(c->s, QOPT_LOG_ERROR, "qopt: %s: error: %s%s\n",
		       c->stats_json, err.msg,
		       c->dry_run || c->out_discard ? "" :
		       " (the model was written)");
		return QOPT_EXIT_FAIL;
	}
	return QOPT_EXIT_OK;
}

static int want_summary(const struct cli_opts *c)
{
	return c->summary > 0 || (c->summary < 0 && !c->quiet && isatty(2));
}

/* The model as written: its counts, and the files written (none with
 * --dry-run or -o /dev/null). Prints nothing when out of memory. */
static void print_summary(struct cli_opts *c,
			  const struct cli_summary *before, const qir_model *m)
{
	struct cli_summary after;
	qir_save_opts so;
	char *data = NULL;

	if (cli_summary_take(&after, m) < 0) {
		cli_summary_free(&after);
		return;
	}
	if (!c->dry_run && !c->out_discard) {
		cli_save_opts(c, &so);
		data = cli_data_path(c->output, so.external_name);
		cli_summary_files(&after, c->output, data);
		free(data);
	}
	cli_summary_print(c->s, before, &after);
	cli_summary_free(&after);
}

/* The output's data file: not the input, and only a file qopt may
 * replace. */
static int check_data_file(struct cli_opts *c, const char *data)
{
	struct stat st;
	int ignored;

	if (data && cli_same_path(c->input, data)) {
		qm_say(c->s, QOPT_LOG_ERROR,
		       "qopt: error: the output's data file '%s' would be the input model\n",
		       data);
		return QOPT_EXIT_USAGE;
	}
	if (data && lstat(data, &st) == 0)
		return cli_outpath_check(c->s, "the output's data file", data,
					 &ignored);
	return 0;
}

static int check_stats_json(struct cli_opts *c, const char *data)
{
	const char *clash = NULL;
	int rc = cli_outpath_check(c->s, "--stats-json", c->stats_json,
				   &c->stats_discard);

	if (rc || c->stats_discard)
		clash = NULL;
	else if (cli_same_path(c->stats_json, c->input))
		clash = "the input model";
	else if (c->output && !c->dry_run && !c->out_discard &&
		 cli_same_path(c->stats_json, c->output))
		clash = "the output model";
	else if (data && cli_same_path(c->stats_json, data))
		clash = "the output's data file";
	if (clash) {
		qm_say(c->s, QOPT_LOG_ERROR,
		       "qopt: error: --stats-json '%s' is %s\n", c->stats_json,
		       clash);
		rc = QOPT_EXIT_USAGE;
	}
	return rc;
}

/* Every path qopt will write, checked before any work. */
static int check_outputs(struct cli_opts *c)
{
	qir_save_opts so;
	char *data = NULL;
	int rc = 0;

	if (c->output && !c->dry_run) {
		rc = cli_outpath_check(c->s, "-o", c->output, &c->out_discard);
		if (rc)
			return rc;
		if (cli_same_path(c->input, c->output)) {
			qm_say(c->s, QOPT_LOG_ERROR,
			       "qopt: error: output '%s' is the input model; qopt never modifies its input\n",
			       c->output);
			return QOPT_EXIT_USAGE;
		}
		cli_save_opts(c, &so);
		data = c->out_discard ? NULL :
		       cli_data_path(c->output, so.external_name);
		rc = check_data_file(c, data);
	}
	if (!rc && c->stats_json)
		rc = check_stats_json(c, data);
	free(data);
	return rc;
}

static int run_pipeline(struct cli_opts *c)
{
	struct cli_summary before = { 0 };
	qk_device dev;
	qir_model *m;
	double t0;
	int rc, summary = want_summary(c);

	rc = cli_run_begin(c, &dev);
	/* --calibration-data: ranges measured before each pass that asks */
	if (!rc && (c->data || c->random))
		rc = cli_calib_inline_begin(c);
	if (rc)
		return rc;
	if (qm_run_begin(c->s, dev, c->threads, 0))
		return QOPT_EXIT_FAIL;
	t0 = qm_now();
	m = cli_load(c->s, c->input);
	qm_add_time(c->s, QM_TIME_LOAD, qm_now() - t0);
	if (!m) {
		qm_run_end(c->s);
		return QOPT_EXIT_FAIL;
	}
	if (summary && cli_summary_take(&before, m) < 0)
		summary = 0;	/* out of memory: the run goes on without */
	cli_summary_files(&before, c->input, NULL);
	if (qm_run(c->s, m)) {
		/* The manager said why; for a pass, the CLI names it. */
		if (qm_failed_pass(c->s))
			qm_say(c->s, QOPT_LOG_ERROR,
			       "qopt: error: pass '%s' failed; no output written\n",
			       qm_failed_pass(c->s));
		rc = QOPT_EXIT_FAIL;
	} else {
		rc = finish(c, m);
	}
	if (summary && rc == QOPT_EXIT_OK)
		print_summary(c, &before, m);
	cli_summary_free(&before);
	qm_report(c->s);	/* --stats, --time-passes */
	qm_run_end(c->s);
	qir_model_free(m);
	return rc;
}

int cmd_run(struct cli_opts *c)
{
	char why[1024];
	int rc = cli_setup(c, NULL);

	if (rc)
		return rc;
	if (c->list_passes)
		return cmd_list_passes(c);
	if (c->help_pass)
		return cmd_help_pass(c, c->help_pass);
	if (c->print_pipeline) {
		if (qm_print_pipeline(c->s, qm_data(c->s), why,
				      sizeof(why)) == 0)
			return QOPT_EXIT_OK;
		qm_say(c->s, QOPT_LOG_ERROR,
		       "qopt: error: --print-pipeline: nothing printed: INI would not read back the same pipeline: %s\n",
		       why);
		return QOPT_EXIT_FAIL;
	}
	if (check_print_after(c) < 0)
		return QOPT_EXIT_USAGE;
	rc = check_outputs(c);
	if (!rc)	/* the samples of --calibration-data, before any work */
		rc = cli_calib_check_samples(c, "qopt", c->dry_run ||
					 c->out_discard ? NULL : c->output);
	if (!rc)
		rc = run_pipeline(c);
	cli_calib_inline_end(c);
	return rc;
}

/*
 * core/cli/cmd-run.c - `qopt MODEL -o OUT`: load, run the pipeline, save;
 * plus the inspection options (--list-passes, --help-pass,
 * --print-pipeline).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/outpath.h"
#include "cli/summary.h"

/* "a, b [when x], c" into f. */
static void print_steps(const struct pm_alias *a, FILE *f)
{
	size_t k;

	for (k = 0; k < a->nsteps; k++) {
		const qopt_pipeline_step *s = &a->info->steps[k];

		fprintf(f, "%s%s", k ? ", " : "", s->pass);
		if (s->when)
			fprintf(f, " [if %s]", s->when);
	}
}

int cmd_list_passes(const struct pm_registry *r)
{
	size_t i, w = 4;

	for (i = 0; i < r->npasses; i++)
		if (strlen(r->passes[i]->info->name) > w)
			w = strlen(r->passes[i]->info->name);
	for (i = 0; i < r->naliases; i++)
		if (strlen(r->aliases[i]->info->name) > w)
			w = strlen(r->aliases[i]->info->name);
	for (i = 0; i < r->npasses; i++) {
		const struct pm_pass *p = r->passes[i];

		printf("%-*s  %s (%s %s)\n", (int)w, p->info->name,
		       p->info->summary, p->plugin->path,
		       p->plugin->info->version ? p->plugin->info->version :
		       "?");
	}
	if (!r->npasses)
		printf("(no passes found)\n");
	for (i = 0; i < r->naliases; i++) {
		const struct pm_alias *a = r->aliases[i];

		printf("%-*s  %s (pipeline; %s %s)\n", (int)w, a->info->name,
		       a->info->summary, a->plugin->path,
		       a->plugin->info->version ? a->plugin->info->version :
		       "?");
		printf("%-*s    = ", (int)w, "");
		print_steps(a, stdout);
		putchar('\n');
	}
	return QOPT_EXIT_OK;
}

static void print_options(const qopt_option_spec *o, size_t n)
{
	size_t i;

	if (!n) {
		printf("options: none\n");
		return;
	}
	printf("options:\n");
	for (i = 0; i < n; i++) {
		char acc[512];

		printf("  %-20s %-6s default %-10s %s\n", o[i].name,
		       pm_opt_type_name(o[i].type),
		       o[i].default_value ? (*o[i].default_value ?
		       o[i].default_value : "''") : "(unset)",
		       o[i].help ? o[i].help : "");
		if (pm_option_accepts(&o[i], acc, sizeof(acc)))
			printf("  %-20s %s\n", "", acc);
	}
}

static void print_strv(const char *what, const char *const *v)
{
	size_t i;

	if (!v || !v[0])
		return;
	printf("; %s ", what);
	for (i = 0; v[i]; i++)
		printf("%s%s", i ? ", " : "", v[i]);
}

static int help_pipeline(const struct pm_alias *a)
{
	size_t k;

	printf("%s - %s\n", a->info->name, a->info->summary);
	printf("pipeline of plugin: %s %s (%s)\n", a->plugin->info->name,
	       a->plugin->info->version ? a->plugin->info->version : "?",
	       a->plugin->path);
	if (a->info->flags & QOPT_PASS_HAS_TARGETS)
		printf("warns when no step changes anything (its options name targets)\n");
	printf("steps:\n");
	for (k = 0; k < a->nsteps; k++) {
		const qopt_pipeline_step *s = &a->info->steps[k];

		printf("  %zu. %s", k + 1, s->pass);
		if (s->when)
			printf(" (if %s)", s->when);
		print_strv("forwards", s->forward);
		print_strv("fixed", s->fixed);
		putchar('\n');
	}
	print_options(a->info->options, a->nopts);
	return QOPT_EXIT_OK;
}

int cmd_help_pass(const struct pm_registry *r, const char *name)
{
	char dym[PM_DID_YOU_MEAN_SIZE];
	const struct pm_pass *p = pm_registry_find(r, name);

	if (!p && pm_registry_find_alias(r, name))
		return help_pipeline(pm_registry_find_alias(r, name));
	if (!p) {
		fprintf(stderr, "qopt: error: unknown pass '%s'%s\n%s\n", name,
			pm_registry_did_you_mean(r, name, dym),
			PM_UNKNOWN_PASS_HINT);
		return QOPT_EXIT_USAGE;
	}
	printf("%s - %s\n", p->info->name, p->info->summary);
	printf("plugin: %s %s (%s)\n", p->plugin->info->name,
	       p->plugin->info->version ? p->plugin->info->version : "?",
	       p->plugin->path);
	if (p->info->flags & QOPT_PASS_HAS_TARGETS)
		printf("warns when it changes nothing (its options name targets)\n");
	print_options(p->info->options, p->nopts);
	return QOPT_EXIT_OK;
}

/* --print-after names a pass that is not in the pipeline: say so
 * rather than print nothing. */
static int check_print_after(const struct pm_cli *c,
			     const struct pm_pipeline *pl)
{
	char dym[PM_DID_YOU_MEAN_SIZE];
	const char *names[512];
	size_t i, j, n = 0;

	/* A pipeline's name stands for its last step. */
	for (i = 0; i < pl->nstages && n < 511; i++) {
		names[n++] = pl->stages[i].name;
		if (pl->stages[i].from)
			names[n++] = pl->stages[i].from;
	}
	for (i = 0; i < c->nprint_after; i++) {
		for (j = 0; j < n; j++)
			if (!strcmp(names[j], c->print_after[i]))
				break;
		if (j == n) {
			fprintf(stderr, "qopt: error: --print-after: pass '%s' is not in the pipeline%s\n",
				c->print_after[i],
				pm_did_you_mean(c->print_after[i], names, n,
						dym, sizeof(dym)));
			return -1;
		}
	}
	return 0;
}

/* Standard output carries the IR prints: a failure there (a full disk,
 * a closed pipe) fails the run before anything is committed. */
static int stdout_ok(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 1;
	fprintf(stderr, "qopt: error: cannot write to standard output%s%s; no output written\n",
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

static int eval_deferred(struct pm_cli *c, qir_model *m)
{
	qir_error err = { 0 };

	if (qir_graph_walk(m->graph, eval_graph_deferred, &err) == 0)
		return 0;
	fprintf(stderr, "qopt: %s: error: %s; no output written\n",
		c->input, err.msg);
	return -1;
}

static int finish(struct pm_cli *c, struct pm_run *run, qir_model *m)
{
	const struct pm_pipeline *pl = run->pl;
	qir_error err = { 0 };
	pm_outfile *stats = NULL;
	qir_save_opts so;
	double t0;

	errno = 0;
	if (!stdout_ok())
		return QOPT_EXIT_FAIL;
	if (c->stats_json && !c->stats_discard &&
	    !(stats = pm_run_write_stats_json(run, c->stats_json, c->input,
						&err))) {
		fprintf(stderr, "qopt: %s: error: %s; no output written\n",
			c->stats_json, err.msg);
		return QOPT_EXIT_FAIL;
	}
	if (!c->dry_run && !c->out_discard) {
		cli_save_opts(c, pl, &so);
		t0 = pm_now();
		if (qir_model_save(m, c->output, &so, &err) < 0) {
			fprintf(stderr, "qopt: %s: error: %s\n", c->output, err.msg);
			pm_outfile_abort(stats);
			return QOPT_EXIT_FAIL;
		}
		run->t_save = pm_now() - t0;
		pm_msg(c->s, QOPT_LOG_INFO, c->output, "wrote %zu nodes, %zu initializers",
			 m->graph->nnodes, m->graph->ninits);
	}
	if ((c->dry_run || c->out_discard) && eval_deferred(c, m) < 0) {
		pm_outfile_abort(stats);
		return QOPT_EXIT_FAIL;
	}
	if (c->out_discard)
		pm_msg(c->s, QOPT_LOG_INFO, c->output, "discarded (%zu nodes, %zu initializers)",
			 m->graph->nnodes, m->graph->ninits);
	if (stats && pm_outfile_commit(stats, &err) < 0) {
		fprintf(stderr, "qopt: %s: error: %s%s\n", c->stats_json, err.msg,
			c->dry_run || c->out_discard ? "" :
			" (the model was written)");
		return QOPT_EXIT_FAIL;
	}
	return QOPT_EXIT_OK;
}

static int want_summary(const struct pm_cli *c)
{
	return c->summary > 0 || (c->summary < 0 && !c->quiet && isatty(2));
}

/* The model as written: its counts, and the files written (none with
 * --dry-run or -o /dev/null). Prints nothing when out of memory. */
static void print_summary(struct pm_cli *c, struct pm_run *run,
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
		cli_save_opts(c, run->pl, &so);
		data = pm_data_path(c->output, so.external_name);
		cli_summary_files(&after, c->output, data);
		free(data);
	}
	cli_summary_print(stderr, before, &after, run);
	cli_summary_free(&after);
}

static int report(struct pm_cli *c, struct pm_run *run, int rc)
{
	if (c->stats)
		pm_run_print_stats(run, stderr);
	if (c->time_passes)
		pm_run_print_times(run, stderr);
	return rc;
}

/* Every path qopt will write, checked before any work. */
static int check_outputs(struct pm_cli *c, const struct pm_pipeline *pl)
{
	qir_save_opts so;
	struct stat st;
	char *data = NULL;
	int rc;

	if (c->output && !c->dry_run) {
		rc = pm_outpath_check("-o", c->output, &c->out_discard);
		if (rc)
			return rc;
		if (pm_same_path(c->input, c->output)) {
			fprintf(stderr, "qopt: error: output '%s' is the input model; qopt never modifies its input\n",
				c->output);
			return QOPT_EXIT_USAGE;
		}
		cli_save_opts(c, pl, &so);
		data = c->out_discard ? NULL :
		       pm_data_path(c->output, so.external_name);
		if (data && pm_same_path(c->input, data)) {
			fprintf(stderr, "qopt: error: the output's data file '%s' would be the input model\n",
				data);
			free(data);
			return QOPT_EXIT_USAGE;
		}
		if (data && lstat(data, &st) == 0) {
			int ignored;

			rc = pm_outpath_check("the output's data file", data,
						&ignored);
			if (rc) {
				free(data);
				return rc;
			}
		}
	}
	rc = 0;
	if (c->stats_json) {
		const char *clash = NULL;

		rc = pm_outpath_check("--stats-json", c->stats_json,
					&c->stats_discard);
		if (rc || c->stats_discard)
			clash = NULL;
		else if (pm_same_path(c->stats_json, c->input))
			clash = "the input model";
		else if (c->output && !c->dry_run && !c->out_discard &&
			 pm_same_path(c->stats_json, c->output))
			clash = "the output model";
		else if (data && pm_same_path(c->stats_json, data))
			clash = "the output's data file";
		if (clash) {
			fprintf(stderr, "qopt: error: --stats-json '%s' is %s\n",
				c->stats_json, clash);
			rc = QOPT_EXIT_USAGE;
		}
	}
	free(data);
	return rc;
}

static int run_pipeline(struct pm_cli *c, struct pm_pipeline *pl)
{
	struct pm_run_opts o;
	struct pm_run run;
	struct cli_summary before = { 0 };
	qir_error err = { 0 };
	qir_model *m;
	double t0;
	int rc, summary = want_summary(c);

	rc = cli_run_opts(c, pl, &o);
	if (rc)
		return rc;
	pm_msg_setup(c->s, pm_msg_level(c->s), o.strict);
	if (pm_run_init(&run, pl, &o, &err) < 0) {
		fprintf(stderr, "qopt: error: %s\n", err.msg);
		return QOPT_EXIT_FAIL;
	}
	t0 = pm_now();
	m = cli_load(c->s, c->input);
	run.t_load = pm_now() - t0;
	if (!m) {
		pm_run_fini(&run);
		return QOPT_EXIT_FAIL;
	}
	if (summary && cli_summary_take(&before, m) < 0)
		summary = 0;	/* out of memory: the run goes on without */
	cli_summary_files(&before, c->input, NULL);
	if (pm_run_model(&run, m) < 0) {
		/* The manager said why; for a pass, the CLI names it. */
		if (run.failed_pass)
			fprintf(stderr, "qopt: error: pass '%s' failed; no output written\n",
				run.failed_pass);
		rc = QOPT_EXIT_FAIL;
	} else {
		rc = finish(c, &run, m);
	}
	if (summary && rc == QOPT_EXIT_OK)
		print_summary(c, &run, &before, m);
	cli_summary_free(&before);
	rc = report(c, &run, rc);
	pm_run_fini(&run);
	qir_model_free(m);
	return rc;
}

int cmd_run(struct pm_cli *c)
{
	struct pm_pipeline pl;
	struct pm_registry *reg = NULL;
	int rc;

	pm_pipeline_init(&pl, c->s);
	rc = cli_setup(c, &pl, &reg);
	if (rc)
		goto out;
	if (c->list_passes) {
		rc = cmd_list_passes(reg);
	} else if (c->help_pass) {
		rc = cmd_help_pass(reg, c->help_pass);
	} else if (c->print_pipeline) {
		char why[1024];

		if (pm_pipeline_print(&pl, stdout, why, sizeof(why)) < 0) {
			fprintf(stderr, "qopt: error: --print-pipeline: nothing printed: INI would not read back the same pipeline: %s\n",
				why);
			rc = QOPT_EXIT_FAIL;
		}
	} else if (check_print_after(c, &pl) < 0) {
		rc = QOPT_EXIT_USAGE;
	} else if (!(rc = check_outputs(c, &pl))) {
		rc = run_pipeline(c, &pl);
	}
out:
	pm_pipeline_free(&pl);
	pm_registry_free(reg);
	return rc;
}

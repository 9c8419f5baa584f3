/*
 * core/cli/cmd-calibrate.c - `qopt calibrate`: activation ranges for the
 * passes of a pipeline that read a calibration file (fp8-mha's
 * calibrated Q/DQ placement by default), written as a calibration file.
 *
 * qopt loads the model exactly as a pipeline does (nodes sorted), so
 * the file's qir_model_hash() is the one the pass will compare; the
 * measuring is core/calib/calib-run.c's, shared with the one-command form (`qopt
 * MODEL --calibration-data DIR`). The calibration file goes through the
 * same checks and atomic rename as the main command's -o (outpath.c,
 * qm_outfile): never the input model or its data, never a device, FIFO,
 * socket or folder, checked before any work.
 *
 * `qopt calibrate --merge A.json B.json... -o OUT.json` merges files
 * measured apart (qopt_calib_merge: one model, method max), so that
 * calibration scales past one machine.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/calib.h>
#include "cli/cli.h"
#include "cli/calib-runner.h"
#include "cli/outpath.h"

#define WHO "qopt calibrate"

/* Each initializer's external data file (each distinct location
 * checked once): the output must not be one. */
static int clashes_with_data(struct cli_opts *a, qir_model *m)
{
	char loc[4200], last[4200] = "", *copy = strdup(a->input), *at;
	const char *dir;
	char *path;
	size_t i;
	int clash = 0;

	if (!copy)
		return 0;
	dir = dirname(copy);
	for (i = 0; i < m->graph->ninits && !clash; i++) {
		qir_tensor *t = m->graph->inits[i]->init;

		if (!t || t->storage != QIR_STORE_EXTERNAL)
			continue;
		qir_tensor_location(t, loc, sizeof(loc));
		if (strncmp(loc, "external:", 9) || !(at = strrchr(loc, '@')))
			continue;
		*at = 0;
		if (!strcmp(loc, last))
			continue;
		strcpy(last, loc);
		path = malloc(strlen(dir) + strlen(loc) + 2);
		if (!path)
			break;
		sprintf(path, "%s/%s", dir, loc + 9);
		if (cli_same_path(path, a->output)) {
			qm_say(a->s, QOPT_LOG_ERROR, WHO ": error: output '%s' "
			       "is the external data file of the input model; "
			       "qopt never modifies its input\n", a->output);
			clash = 1;
		}
		free(path);
	}
	free(copy);
	return clash;
}

/* -o as the main command checks it (outpath.c), before any work. */
static int check_output(struct cli_opts *a)
{
	int rc = cli_outpath_check(a->s, "-o", a->output, &a->out_discard);

	if (rc)
		return rc;
	if (!a->out_discard && cli_same_path(a->input, a->output)) {
		qm_say(a->s, QOPT_LOG_ERROR, WHO ": error: output '%s' is the "
		       "input model; qopt never modifies its input\n",
		       a->output);
		return QOPT_EXIT_USAGE;
	}
	return 0;
}

/* --merge: -o checked as always, and never one of the inputs. */
static int check_merge_output(struct cli_opts *a)
{
	int rc = cli_outpath_check(a->s, "-o", a->output, &a->out_discard);
	size_t i;

	for (i = 0; !rc && !a->out_discard && i < a->nmerge_in; i++)
		if (cli_same_path(a->merge_in[i], a->output)) {
			qm_say(a->s, QOPT_LOG_ERROR, WHO ": error: output '%s' "
			       "is the input '%s'; qopt never modifies its "
			       "input\n", a->output, a->merge_in[i]);
			rc = QOPT_EXIT_USAGE;
		}
	return rc;
}

/* Each file read and merged into the first, in order; NULL after
 * saying why. */
static qopt_calib *merge_all(struct cli_opts *a)
{
	qopt_calib *all = NULL, *next = NULL;
	qir_error err = { 0 };
	size_t i;

	for (i = 0; i < a->nmerge_in; i++) {
		if (qopt_calib_read(a->merge_in[i], i ? &next : &all, &err)) {
			qm_say(a->s, QOPT_LOG_ERROR, WHO ": error: calibration "
			       "file %s\n", err.msg);
			break;
		}
		if (i && qopt_calib_merge(all, next, &err)) {
			qm_say(a->s, QOPT_LOG_ERROR, WHO ": error: '%s' does not "
			       "merge with '%s': %s\n", a->merge_in[i],
			       a->merge_in[0], err.msg);
			break;
		}
		qopt_calib_free(next);
		next = NULL;
	}
	qopt_calib_free(next);
	if (i < a->nmerge_in) {
		qopt_calib_free(all);
		return NULL;
	}
	return all;
}

static int cmd_merge(struct cli_opts *a)
{
	qir_error err = { 0 };
	qopt_calib *all;
	int rc = check_merge_output(a);

	if (rc)
		return rc;
	if (!(all = merge_all(a)))
		return QOPT_EXIT_FAIL;
	if (!a->out_discard && qopt_calib_write(all, a->output, &err)) {
		qm_say(a->s, QOPT_LOG_ERROR, WHO ": %s: error: %s\n", a->output,
		       err.msg);
		rc = QOPT_EXIT_FAIL;
	} else if (!a->quiet) {
		qm_say(a->s, QOPT_LOG_INFO, WHO ": %zu tensors over %ld "
		       "sample%s (max) from %zu files -> %s\n",
		       qopt_calib_count(all), qopt_calib_samples(all),
		       qopt_calib_samples(all) == 1 ? "" : "s", a->nmerge_in,
		       a->out_discard ? "discarded" : a->output);
	}
	qopt_calib_free(all);
	return rc;
}

/* The ranges measured through the program's runner, written at -o. */
static int calibrate_file(struct cli_opts *a, qir_model *m)
{
	struct cli_calib cc;
	int rc = cli_calib_init(&cc, a);

	if (rc)
		return rc;
	rc = calib_pipeline_file(&cc.cs, WHO, m, a->out_discard ?
				 "/dev/null" : a->output);
	cli_calib_free(&cc);
	return rc;
}

int cmd_calibrate(struct cli_opts *a)
{
	qir_model *m;
	int rc;

	/* -v is ONNX Runtime's log here, not the passes' debug lines */
	qm_set_verbosity(a->s, a->quiet ? QOPT_LOG_WARN : QOPT_LOG_INFO, 0);
	if (a->merge)
		return cmd_merge(a);
	rc = check_output(a);
	if (!rc)
		rc = cli_calib_check_samples(a, WHO,
					 a->out_discard ? NULL : a->output);
	if (rc)
		return rc;
	m = cli_load(a->s, a->input);
	if (!m)
		return QOPT_EXIT_FAIL;
	if (!a->out_discard && clashes_with_data(a, m))
		rc = QOPT_EXIT_USAGE;
	else
		rc = cli_setup(a, "fp8-mha");
	if (!rc)
		rc = calibrate_file(a, m);
	qir_model_free(m);
	return rc;
}

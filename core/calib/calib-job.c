/*
 * core/calib/calib-job.c - the runner protocol's two files
 * (calib-job.h; docs/calibration.md, "The runner protocol"): the job
 * libqopt writes for the runner (JSON: what tools/qopt-calibrate.js
 * reads) and the result the runner leaves, read and checked here
 * whatever wrote it.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/calib.h>
#include <qopt/file.h>
#include "calib/calib-job.h"

/* ------------------------------------------------------------------ */
/* the job file: what the script needs, as JSON */

static void json_value_type(FILE *f, const qir_value *v)
{
	int i;

	fprintf(f, "{\"name\": ");
	qm_json_str(f, v->name);
	fprintf(f, ", \"elem\": %d, \"dtype\": ", v->dtype);
	qm_json_str(f, v->dtype ? qir_dtype_name(v->dtype) : "UNDEFINED");
	fprintf(f, ", \"dims\": ");
	if (v->rank < 0) {
		fprintf(f, "null}");
		return;
	}
	fputc('[', f);
	for (i = 0; i < v->rank; i++) {
		if (i)
			fputs(", ", f);
		if (v->dims[i].value >= 0)
			fprintf(f, "%lld", (long long)v->dims[i].value);
		else if (v->dims[i].param)
			qm_json_str(f, v->dims[i].param);
		else
			fputs("null", f);
	}
	fputs("]}", f);
}

int calib_by_value(const void *a, const void *b)
{
	const struct val_pos *x = a, *y = b;
	uintptr_t p = (uintptr_t)x->v, q = (uintptr_t)y->v;

	if (p != q)
		return p < q ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Where ORT returns each sel's value: its index among the probe's graph
 * outputs (names that are not UTF-8 do not survive into JavaScript, an
 * index does), or -1 for a graph input (the script has it as a feed). */
static int output_indices(const qir_model *m, qir_value **sel, size_t nsel,
			  long *idx)
{
	size_t no = m->graph->noutputs, k;
	struct val_pos *vp = malloc((no ? no : 1) * sizeof(*vp));

	if (!vp)
		return -1;
	for (k = 0; k < no; k++)
		vp[k] = (struct val_pos){ m->graph->outputs[k], k };
	if (no)
		qsort(vp, no, sizeof(*vp), calib_by_value);
	for (k = 0; k < nsel; k++) {
		struct val_pos key = { sel[k], 0 };
		size_t lo = 0, hi = no;

		while (lo < hi) {	/* the value's first listing */
			size_t mid = lo + (hi - lo) / 2;

			if (calib_by_value(&vp[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		idx[k] = !sel[k]->is_input && lo < no && vp[lo].v == sel[k] ?
			 (long)vp[lo].i : -1;
	}
	free(vp);
	return 0;
}

int calib_job_write(const char *path, struct calib_settings *a,
		    const char *who, const char *model_name, qir_model *m,
		    const char *probe, qir_value **sel, qir_value **at,
		    size_t nsel, const char *result)
{
	long *idx = malloc((nsel ? nsel : 1) * sizeof(*idx));
	FILE *f;
	size_t i, k;
	int first = 1;

	if (!idx || output_indices(m, at, nsel, idx) < 0) {
		free(idx);
		errno = ENOMEM;
		return -1;
	}
	f = fopen(path, "w");
	if (!f) {
		free(idx);
		return -1;
	}
	fprintf(f, "{\"who\": ");
	qm_json_str(f, who);
	fprintf(f, ",\n \"model\": ");
	qm_json_str(f, model_name);
	fprintf(f, ",\n \"probe\": ");
	qm_json_str(f, probe);
	fprintf(f, ",\n \"result\": ");
	qm_json_str(f, result);
	fprintf(f, ",\n \"percentile\": %.17g,\n \"verbose\": %d,\n",
		a->percentile, a->verbose > 0);
	fprintf(f, " \"method\": \"%s\", \"bins\": %d,\n",
		a->method ? a->method : "max",
		QOPT_CALIB_BINS);
	if (a->data) {
		fprintf(f, " \"data\": ");
		qm_json_str(f, a->data);
	} else {
		fprintf(f, " \"random\": %ld, \"seed\": %ld, \"dims\": {",
			a->random, a->seed);
		for (i = 0; i < a->ndims; i++) {
			const char *eq = strchr(a->dims[i], '=');
			char name[512];

			snprintf(name, sizeof(name), "%.*s",
				 (int)(eq - a->dims[i]), a->dims[i]);
			fprintf(f, "%s", i ? ", " : "");
			qm_json_str(f, name);
			fprintf(f, ": %ld", strtol(eq + 1, NULL, 10));
		}
		fputc('}', f);
	}
	fprintf(f, ",\n \"inputs\": [");
	for (i = 0; i < m->graph->ninputs; i++) {
		qir_value *v = m->graph->inputs[i];

		if (v->init)
			continue;
		fputs(first ? "\n  " : ",\n  ", f);
		first = 0;
		json_value_type(f, v);
	}
	fprintf(f, "],\n \"tensors\": [");
	for (k = 0; k < nsel; k++) {
		fputs(k ? ",\n  " : "\n  ", f);
		json_value_type(f, sel[k]);
	}
	fprintf(f, "],\n \"output_index\": [");
	for (k = 0; k < nsel; k++)
		fprintf(f, "%s%ld", k ? ", " : "", idx[k]);
	fprintf(f, "]}\n");
	free(idx);
	if (ferror(f)) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/* ------------------------------------------------------------------ */
/* the result: what the script measured, written by qopt */

#define RESULT_MAX_BYTES (64u << 20)

/* The script's result file: "qopt-calibrate-result 1", "samples N",
 * then one line per selected tensor, in job order: the amax as
 * JavaScript prints a number, or "none" when the tensor held no element
 * in any sample. Returned NUL-terminated (caller frees), or NULL with
 * the reason printed. */
static char *read_result(qm_session *s, const char *who, const char *path,
			 const char *runner)
{
	qir_error err = { 0 };
	char *buf = qir_read_file(path, O_NOFOLLOW, RESULT_MAX_BYTES, NULL,
				  &err);

	if (!buf)
		qm_say_as(s, QOPT_LOG_ERROR, who, "error: %s exited 0 but left no "
			"result that can be read (%s); no calibration file "
			"written\n", runner, err.msg);
	return buf;
}

/* The count of "samples N": decimal digits only, as the command line
 * reads numbers. 0, or -1. */
static int parse_count(const char *t, long *out)
{
	long v = 0;

	if (!*t)
		return -1;
	for (; *t; t++) {
		if (*t < '0' || *t > '9' || v > 100000000)
			return -1;
		v = v * 10 + (*t - '0');
	}
	if (v > 1000000000)
		return -1;
	*out = v;
	return 0;
}

/* The next line of *p (cut at '\n'), or NULL at the end. */
static char *next_line(char **p)
{
	char *s = *p, *nl;

	if (!s || !*s)
		return NULL;
	nl = strchr(s, '\n');
	if (nl) {
		*nl = 0;
		*p = nl + 1;
	} else {
		*p = NULL;
	}
	return s;
}

/* Fills amax[] from the result text, NAN for a tensor that held no
 * element (calib_measure says so); -1 with the reason printed. A value
 * that is not a finite number >= 0 is refused here whatever the script
 * did: the file never holds what JSON cannot. */
static int parse_result(qm_session *s, const char *who, char *text,
			qir_value **sel,
			size_t nsel,
			double *amax, long *samples)
{
	char *p = text, *line, *end, shown[1024];
	size_t k;

	line = next_line(&p);
	if (!line || strcmp(line, "qopt-calibrate-result 1"))
		goto bad;
	line = next_line(&p);
	if (!line || strncmp(line, "samples ", 8) ||
	    parse_count(line + 8, samples))
		goto bad;
	for (k = 0; k < nsel; k++) {
		line = next_line(&p);
		if (!line)
			goto bad;
		qir_escape_text(shown, sizeof(shown), sel[k]->name);
		if (!strcmp(line, "none")) {
			amax[k] = NAN;
			continue;
		}
		errno = 0;
		amax[k] = strtod(line, &end);
		if (end == line || *end || !isfinite(amax[k]) || amax[k] < 0) {
			qm_say_as(s, QOPT_LOG_ERROR, who, "error: tensor '%s': "
				"amax '%s' is not a finite number >= 0; a "
				"calibration file cannot hold it\n",
				shown, line);
			return -1;
		}
	}
	if (next_line(&p))
		goto bad;
	return 0;
bad:
	qm_say_as(s, QOPT_LOG_ERROR, who, "error: the script's result is "
		"malformed (a script of another version?)\n");
	return -1;
}

int calib_job_result(struct calib_settings *a, const char *who,
		     qir_value **sel, size_t nsel, const char *result,
		     double *amax, long *samples)
{
	char *text = read_result(a->s, who, result, a->runner_name ?
				 a->runner_name : "the runner");
	int rc = -1;

	if (text && !parse_result(a->s, who, text, sel, nsel, amax, samples))
		rc = 0;
	free(text);
	return rc;
}

/*
 * core/plan/plan-measure.c - the plan's measurements: one job for the
 * front end's runner (the float model and every candidate over the
 * samples, in one ONNX Runtime process: tools/qopt-plan.js reads it),
 * bounded as calibration's is, and the result it leaves (plan.h).
 */
#include "config.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "plan/plan.h"
#include "calib/calib-ort.h"

static int write_job(const struct plan *p, const char *job,
		     const char *result, const char *const *files, size_t n)
{
	FILE *f = fopen(job, "w");
	size_t i;

	if (!f)
		return -1;
	fprintf(f, "{\"model\": ");
	qm_json_str(f, p->input);
	fprintf(f, ",\n \"float\": ");
	qm_json_str(f, p->input);
	fprintf(f, ",\n \"data\": ");
	qm_json_str(f, p->data);
	fprintf(f, ",\n \"result\": ");
	qm_json_str(f, result);
	fprintf(f, ",\n \"verbose\": %d, \"quiet\": %d,\n \"candidates\": [",
		p->verbose > 0, p->quiet);
	for (i = 0; i < n; i++) {
		const char *base = strrchr(files[i], '/');

		fprintf(f, "%s\n  {\"file\": ", i ? "," : "");
		qm_json_str(f, files[i]);
		fprintf(f, ", \"what\": ");
		qm_json_str(f, base ? base + 1 : files[i]);
		fputc('}', f);
	}
	fprintf(f, "]}\n");
	if (ferror(f)) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/* "NMSE COS TOP1" lines after the header; -1 when malformed. */
static int parse_result(struct plan *p, FILE *f, size_t n, double *nmse,
			double *cos, double *top1)
{
	char line[512], t[64];
	size_t i;

	if (!fgets(line, sizeof(line), f) ||
	    strcmp(line, "qopt-plan-result 1\n") ||
	    fscanf(f, "samples %ld\n", &p->samples) != 1)
		return -1;
	for (i = 0; i < n; i++) {
		if (!fgets(line, sizeof(line), f) ||
		    sscanf(line, "%lf %lf %63s", &nmse[i], &cos[i], t) != 3)
			return -1;
		/* a candidate whose outputs held NaN ("inf"): never a
		 * choice (plan-candidates.c) */
		if (!isfinite(nmse[i]) || nmse[i] < 0)
			nmse[i] = INFINITY;
		top1[i] = strcmp(t, "-") ? strtod(t, NULL) : NAN;
	}
	return 0;
}

/* The bound on the job (calib_ort_timeout: the float model and every
 * candidate over the samples), or -1 after saying why. */
static long plan_bound(struct plan *p, const char *const *files, size_t n)
{
	uint64_t bytes = calib_model_bytes(p->input);
	char why[256];
	long t;
	size_t i;

	for (i = 0; i < n; i++)
		bytes += calib_model_bytes(files[i]);
	t = calib_ort_timeout(-1, bytes, calib_count_samples(p->data, 0), why,
			      sizeof(why));
	if (t < 0)
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: %s\n", why);
	return t;
}

static int run_job(struct plan *p, const char *job, const char *result,
		   const char *const *files, size_t n)
{
	qir_error err = { 0 };
	long timeout = plan_bound(p, files, n);
	qopt_status rc;

	if (timeout < 0)
		return -1;
	rc = p->runner(p->runner_arg, job, result, (double)timeout, &err);
	p->sessions += n + 1;
	if (!rc)
		return 0;
	/* an empty message: the runner said it itself */
	if (*err.msg)
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: %s\n", err.msg);
	return -1;
}

int plan_measure(struct plan *p, const char *const *files, size_t n,
		 double *nmse, double *cos, double *top1)
{
	char job[4200], result[4200];
	FILE *f;
	int rc;

	snprintf(job, sizeof(job), "%s/job.json", p->tmp);
	snprintf(result, sizeof(result), "%s/result.txt", p->tmp);
	if (write_job(p, job, result, files, n) < 0) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: cannot write "
		       "%s: %s\n", job, strerror(errno));
		return -1;
	}
	if (run_job(p, job, result, files, n) < 0)
		return -1;
	f = fopen(result, "r");
	rc = f ? parse_result(p, f, n, nmse, cos, top1) : -1;
	if (f)
		fclose(f);
	unlink(job);
	unlink(result);
	if (rc < 0)
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: the ONNX "
		       "Runtime script left no result that can be read\n");
	return rc;
}

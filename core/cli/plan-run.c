/*
 * core/cli/plan-run.c - the child processes of `qopt plan`: qopt itself
 * (the calibration, each candidate model, the plan's pipeline: the
 * same code and the same messages as the commands a person would run,
 * so the INI reproduces what was measured) and node with
 * tools/qopt-plan.js, which runs every model in ONNX Runtime in one
 * process (plan.h).
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <qopt/file.h>
#include "cli/cli.h"
#include "cli/plan-run.h"
#include "cli/spawn.h"
#include "cli/ort-child.h"

/* The exit status of the script after an error it said itself
 * (tools/qopt-plan.js, EXIT_SAID). */
#define SCRIPT_SAID 3

int plan_qopt(struct plan *p, const char *const *args, const char *log)
{
	const char *argv[32];
	char self[4096];
	size_t n = 0;

	if (cli_self_path(self, sizeof(self)) < 0) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: cannot find "
		       "the qopt program (/proc/self/exe): %s\n",
		       strerror(errno));
		return -1;
	}
	argv[n++] = self;
	while (*args && n < 31)
		argv[n++] = *args++;
	argv[n] = NULL;
	return cli_spawn(p->s, "qopt plan", argv, log, p->tmp, 0);
}

void plan_log_reason(const char *log, char *buf, size_t n)
{
	FILE *f = fopen(log, "r");
	char line[2048];
	int first = 1;

	snprintf(buf, n, "the pass failed (no message)");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *e = strstr(line, "error: ");

		/* no "error:" line (the INI reader's "FILE:LINE: ..."):
		 * the first line says more than nothing */
		if (first && *line != '\n') {
			line[strcspn(line, "\n")] = 0;
			snprintf(buf, n, "%s", strncmp(line, "qopt: ", 6) ?
				 line : line + 6);
			first = 0;
		}
		if (!e || strstr(line, "turned into errors"))
			continue;
		line[strcspn(line, "\n")] = 0;
		/* "qopt: PASS: error: WHY [--strict]" -> "PASS: WHY" */
		if (!strncmp(line, "qopt: ", 6) && e > line + 6)
			snprintf(buf, n, "%.*s%s", (int)(e - line - 6), line + 6,
				 e + 7);
		else
			snprintf(buf, n, "%s", e + 7);
		{	/* the [--strict] tag says nothing about the layer */
			char *tag = strstr(buf, " [--strict]");

			if (tag)
				*tag = 0;
		}
		break;
	}
	fclose(f);
}

int plan_log_line(const char *log, const char *needle, char *buf, size_t n)
{
	FILE *f = fopen(log, "r");
	char line[2048];
	int rc = -1;

	snprintf(buf, n, "(no message)");
	if (!f)
		return -1;
	while (rc < 0 && fgets(line, sizeof(line), f)) {
		if (!strstr(line, needle))
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(buf, n, "%s", strncmp(line, "qopt: ", 6) ? line :
			 line + 6);
		rc = 0;
	}
	fclose(f);
	return rc;
}

long plan_stat(const char *stats_json, const char *name)
{
	FILE *f = fopen(stats_json, "r");
	char *text = NULL, key[256];
	const char *at;
	size_t cap = 0, len = 0, got;
	long sum = 0;

	if (!f)
		return -1;
	/* qopt's own --stats-json, a few KiB per pass: read whole */
	do {
		if (len + 4096 + 1 > cap) {
			char *g = realloc(text, cap = 2 * cap + 8192);

			if (!g) {
				free(text);
				fclose(f);
				return -1;
			}
			text = g;
		}
		got = fread(text + len, 1, cap - len - 1, f);
		len += got;
	} while (got > 0);
	text[len] = 0;
	fclose(f);
	snprintf(key, sizeof(key), "\"%s\": ", name);
	for (at = text; (at = strstr(at, key)); at += strlen(key))
		sum += strtol(at + strlen(key), NULL, 10);
	free(text);
	return sum;
}

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
		 * choice (cmd-plan.c) */
		if (!isfinite(nmse[i]) || nmse[i] < 0)
			nmse[i] = INFINITY;
		top1[i] = strcmp(t, "-") ? strtod(t, NULL) : NAN;
	}
	return 0;
}

/* The bound on the node script (calib_ort_timeout: the float model and
 * every candidate over the samples), or -1 after saying why. */
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

int plan_measure(struct plan *p, const char *const *files, size_t n,
		 double *nmse, double *cos, double *top1)
{
	const char *node = getenv("QOPT_NODE");
	char job[4200], result[4200], *script = cli_launcher_path("QOPT_PLAN_ORT", "qopt-plan-ort");
	const char *argv[4];
	FILE *f;
	long timeout;
	int rc;

	if (!node || !*node)
		node = strcmp(QOPT_CONFIGURED_NODE, "no") ?
		       QOPT_CONFIGURED_NODE : "node";
	snprintf(job, sizeof(job), "%s/job.json", p->tmp);
	snprintf(result, sizeof(result), "%s/result.txt", p->tmp);
	if (!script || write_job(p, job, result, files, n) < 0) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: cannot write "
		       "%s: %s\n", job, strerror(errno));
		free(script);
		return -1;
	}
	argv[0] = node;
	argv[1] = script;
	argv[2] = job;
	argv[3] = NULL;
	timeout = plan_bound(p, files, n);
	rc = timeout < 0 ? -1 :
	     cli_spawn(p->s, "qopt plan", argv, NULL, p->tmp, timeout);
	p->sessions += n + 1;
	if (rc == -2)
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: ONNX Runtime "
		       "did not finish within %ld s (--ort-timeout, "
		       "QOPT_ORT_TIMEOUT): %s %s ended (SIGTERM, then "
		       "SIGKILL)\n", timeout, node, script);
	if (rc) {
		if (rc != SCRIPT_SAID && rc > 0)
			qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: %s %s "
			       "failed (exit status %d); install node and ONNX "
			       "Runtime with ./tools/install-deps.sh, or set "
			       "QOPT_NODE\n", node, script, rc);
		free(script);
		return -1;
	}
	free(script);
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

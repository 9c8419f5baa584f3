/*
 * core/manager/report.c - what a run reports at exit: --stats, --time-passes,
 * --stats-json.
 */
#include "config.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/pass.h>
#include "manager/run.h"
#include "manager/jsonstr.h"

/* "cast-fold" when the pass appears once, "cast-fold[2]" for its
 * second section. */
static const char *stage_label(const struct pm_pipeline *pl, size_t i,
			       char *buf, size_t n)
{
	size_t j, seen = 0, total = 0;

	for (j = 0; j < pl->nstages; j++) {
		if (strcmp(pl->stages[j].name, pl->stages[i].name))
			continue;
		total++;
		if (j <= i)
			seen++;
	}
	if (total == 1)
		snprintf(buf, n, "%s", pl->stages[i].name);
	else
		snprintf(buf, n, "%s[%zu]", pl->stages[i].name, seen);
	return buf;
}

/* "2 weights quantized, 1 skipped (not constant)" into buf. */
char *pm_stage_counters_str(const struct pm_stage_result *res,
			      char *buf, size_t n)
{
	size_t j, len = 0;

	buf[0] = '\0';
	for (j = 0; j < res->ncounters && len < n; j++) {
		int k = snprintf(buf + len, n - len, "%s%lld %s", j ? ", " : "",
				 (long long)res->counters[j].value,
				 res->counters[j].name);
		if (k < 0)
			break;
		len += (size_t)k;
	}
	return buf;
}

void pm_run_print_stats(const struct pm_run *r, FILE *f)
{
	const qk_stats *ks = qk_ctx_stats(r->kctx);
	char label[256], line[2048];
	size_t i;

	for (i = 0; i < r->pl->nstages; i++) {
		const struct pm_stage_result *res = &r->res[i];

		if (!res->ncounters)
			continue;
		fprintf(f, "%s: %s\n",
			stage_label(r->pl, i, label, sizeof(label)),
			pm_stage_counters_str(res, line, sizeof(line)));
	}
	fprintf(f, "kernels: device %s, %llu CPU calls, %llu CUDA calls, %llu CUDA fallbacks",
		qk_device_name(qk_ctx_device(r->kctx)),
		(unsigned long long)ks->cpu_calls,
		(unsigned long long)ks->cuda_calls,
		(unsigned long long)ks->cuda_fallbacks);
	if (ks->cuda_fallbacks && ks->fallback_reason[0])
		fprintf(f, " (%s)", ks->fallback_reason);
	fprintf(f, ", %llu bytes in\n", (unsigned long long)ks->bytes_in);
}

static void time_row(FILE *f, double t, double total, const char *what)
{
	fprintf(f, "  %10.6f  %5.1f%%  %s\n", t,
		total > 0 ? 100.0 * t / total : 0.0, what);
}

void pm_run_print_times(const struct pm_run *r, FILE *f)
{
	double total = r->t_load + r->t_save + r->t_verify;
	char label[256];
	size_t i;

	for (i = 0; i < r->pl->nstages; i++)
		total += r->res[i].seconds;
	fprintf(f, "===== qopt: pass execution time =====\n");
	fprintf(f, "  %10s  %6s  %s\n", "wall (s)", "share", "pass");
	time_row(f, r->t_load, total, "(load model)");
	for (i = 0; i < r->pl->nstages; i++) {
		stage_label(r->pl, i, label, sizeof(label));
		if (!r->res[i].ran)
			fprintf(f, "  %10s  %6s  %s (not run)\n", "-", "-",
				label);
		else
			time_row(f, r->res[i].seconds, total, label);
	}
	time_row(f, r->t_verify, total, "(verify)");
	time_row(f, r->t_save, total, "(save model)");
	time_row(f, total, total, "total");
}

char *pm_record_json(const char *kind, const qopt_field *fields, size_t n)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fprintf(f, "{\"kind\": ");
	pm_json_str(f, kind);
	for (i = 0; i < n; i++) {
		if (!fields[i].key)
			continue;
		fprintf(f, ", ");
		pm_json_str(f, fields[i].key);
		fprintf(f, ": ");
		if (fields[i].str)
			pm_json_str(f, fields[i].str);
		else if (isfinite(fields[i].num))
			fprintf(f, "%.9g", fields[i].num);
		else
			fprintf(f, "null");
	}
	fputc('}', f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void json_stage(const struct pm_run *r, size_t i, FILE *f)
{
	const struct pm_stage_result *res = &r->res[i];
	size_t j;

	fprintf(f, "    {\"pass\": ");
	pm_json_str(f, r->pl->stages[i].name);
	if (r->pl->stages[i].from) {
		fprintf(f, ", \"from\": ");
		pm_json_str(f, r->pl->stages[i].from);
	}
	fprintf(f, ", \"index\": %zu, \"ran\": %s, \"changed\": %s, "
		"\"seconds\": %.6f, \"warnings\": %u, \"rewrites\": %llu, "
		"\"rewrites_skipped\": %llu, \"stats\": {",
		i + 1, res->ran ? "true" : "false",
		res->changed ? "true" : "false", res->seconds, res->warnings,
		(unsigned long long)res->rewrites,
		(unsigned long long)res->denied);
	for (j = 0; j < res->ncounters; j++) {
		fprintf(f, "%s", j ? ", " : "");
		pm_json_str(f, res->counters[j].name);
		fprintf(f, ": %lld", (long long)res->counters[j].value);
	}
	fprintf(f, "}, \"records\": [");
	for (j = 0; j < res->nrecords; j++)
		fprintf(f, "%s\n      %s", j ? "," : "", res->records[j]);
	fprintf(f, "]}%s\n", i + 1 < r->pl->nstages ? "," : "");
}

static void json_kernels(const struct pm_run *r, FILE *f)
{
	const qk_stats *ks = qk_ctx_stats(r->kctx);

	fprintf(f, "  \"kernels\": {\"device\": ");
	pm_json_str(f, qk_device_name(qk_ctx_device(r->kctx)));
	fprintf(f, ", \"cpu_calls\": %llu, \"cuda_calls\": %llu, "
		"\"cuda_fallbacks\": %llu, \"bytes_in\": %llu, "
		"\"fallback_reason\": ",
		(unsigned long long)ks->cpu_calls,
		(unsigned long long)ks->cuda_calls,
		(unsigned long long)ks->cuda_fallbacks,
		(unsigned long long)ks->bytes_in);
	pm_json_str(f, ks->fallback_reason);
	fprintf(f, "},\n");
}

void pm_run_stats_json(const struct pm_run *r, const char *input, FILE *f)
{
	size_t i;

	fprintf(f, "{\n  \"qopt_version\": ");
	pm_json_str(f, PACKAGE_VERSION);
	fprintf(f, ",\n  \"input\": ");
	pm_json_str(f, input);
	fprintf(f, ",\n  \"bisect_points\": %lld,\n",
		(long long)r->counter);
	json_kernels(r, f);
	fprintf(f, "  \"passes\": [\n");
	for (i = 0; i < r->pl->nstages; i++)
		json_stage(r, i, f);
	fprintf(f, "  ]\n}\n");
}

pm_outfile *pm_run_write_stats_json(const struct pm_run *r,
					const char *path, const char *input,
					qir_error *err)
{
	FILE *f;
	pm_outfile *o = pm_outfile_open(path, &f, err);

	if (!o)
		return NULL;
	pm_run_stats_json(r, input, f);
	if (pm_outfile_ready(o, err) < 0) {
		pm_outfile_abort(o);
		return NULL;
	}
	return o;
}

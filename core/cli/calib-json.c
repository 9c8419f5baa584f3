/*
 * core/cli/calib-json.c - writes the calibration file of `qopt
 * calibrate`. qopt writes it (not the node script) so that every byte
 * of a tensor name survives (JavaScript strings cannot hold bytes that
 * are not UTF-8) and so that no number JSON cannot hold is ever
 * written. passes/support/calib_file.c reads it back; the round trip is
 * tested over random files (tests/cli/calib-roundtrip.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/calib-json.h"
#include "manager/session-api.h"

/* The shortest text that reads back as x, without an exponent where
 * one only hides an integer (100, not 1e+02; 99.99 stays 99.99). */
static void json_num(char *buf, size_t n, double x)
{
	if (x == 0)
		x = 0;	/* -0 too */
	if (x == floor(x) && fabs(x) < 1e15)
		snprintf(buf, n, "%.0f", x);
	else
		qm_fmt_double(buf, n, x);
}

/* A doc of before --method: its percentile says. */
static const char *method_of(const struct calib_doc *d)
{
	return d->method ? d->method : d->percentile < 100 ? "percentile" :
	       "max";
}

/* What the method's result depends on: the percentile (written for
 * max too, 100, as files always had it), and the histogram's bins. */
static void write_method_params(FILE *f, const struct calib_doc *d)
{
	char num[40];
	const char *m = method_of(d);

	if (!strcmp(m, "max") || !strcmp(m, "percentile")) {
		json_num(num, sizeof(num), strcmp(m, "max") ? d->percentile : 100);
		fprintf(f, ",\n \"percentile\": %s", num);
	}
	if (strcmp(m, "max"))
		fprintf(f, ",\n \"bins\": %d", CALIB_BINS);
}

int calib_json_write(FILE *f, const struct calib_doc *d, size_t *bad)
{
	char num[40];
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!isfinite(d->amax[i]) || d->amax[i] < 0) {
			*bad = i;
			return -1;
		}
	*bad = (size_t)-1;
	fputs("{\n \"format\": \"qopt-calibration\",\n \"version\": 1,\n"
	      " \"model\": ", f);
	qm_json_str(f, d->model);
	fprintf(f, ",\n \"model_hash\": \"%016llx\",\n \"method\": ",
		(unsigned long long)d->hash);
	qm_json_str(f, method_of(d));
	write_method_params(f, d);
	fprintf(f, ",\n \"samples\": %ld,\n \"source\": ", d->samples);
	qm_json_str(f, d->source);
	fputs(",\n \"tensors\": {", f);
	for (i = 0; i < d->n; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		qm_json_str(f, d->names[i]);
		fputs(": {\n   \"dtype\": ", f);
		qm_json_str(f, d->dtypes[i]);
		json_num(num, sizeof(num), d->amax[i]);
		fprintf(f, ",\n   \"amax\": %s\n  }", num);
	}
	fputs(d->n ? "\n }\n}\n" : "}\n}\n", f);
	return ferror(f) ? -1 : 0;
}

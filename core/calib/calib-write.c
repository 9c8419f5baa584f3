/*
 * core/calib/calib-write.c - writes the calibration file (qopt/calib.h).
 * qopt writes it (not the node script that measures) so that every byte
 * of a tensor name survives (JavaScript strings cannot hold bytes that
 * are not UTF-8: those are written as the lone surrogates calib-read.c
 * restores) and so that no number JSON cannot hold is ever written.
 * The round trip is tested over random files (tests/calib/roundtrip.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <qopt/file.h>

#include "base/json-text.h"
#include "calib/calib-internal.h"

/* The shortest text that reads back as x, without an exponent where
 * one only hides an integer (100, not 1e+02; 99.99 stays 99.99). */
static void json_num(char *buf, size_t n, double x)
{
	if (x == 0)
		x = 0;	/* -0 too */
	if (x == floor(x) && fabs(x) < 1e15)
		snprintf(buf, n, "%.0f", x);
	else
		base_fmt_double(buf, n, x);
}

/* What the method's result depends on: the percentile (written for
 * max too, 100, as files always had it), and the histogram's bins. */
static void write_method_params(FILE *f, const struct qopt_calib *c)
{
	char num[40];
	const char *m = cal_method(c);

	if (!strcmp(m, "max") || !strcmp(m, "percentile")) {
		json_num(num, sizeof(num), strcmp(m, "max") ? c->percentile : 100);
		fprintf(f, ",\n \"percentile\": %s", num);
	}
	if (strcmp(m, "max"))
		fprintf(f, ",\n \"bins\": %ld", c->bins);
}

static void write_doc(FILE *f, const struct qopt_calib *c)
{
	char num[40];
	size_t i;

	fputs("{\n \"format\": \"qopt-calibration\",\n \"version\": 1,\n"
	      " \"model\": ", f);
	base_json_str(f, c->model);
	fprintf(f, ",\n \"model_hash\": \"%s\",\n \"method\": ", c->hash);
	base_json_str(f, cal_method(c));
	write_method_params(f, c);
	fprintf(f, ",\n \"samples\": %ld,\n \"source\": ", c->samples);
	base_json_str(f, c->source);
	fputs(",\n \"tensors\": {", f);
	for (i = 0; i < c->n; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		base_json_str(f, c->e[i].key);
		fputs(": {\n   \"dtype\": ", f);
		base_json_str(f, c->e[i].dtype ? c->e[i].dtype : "UNDEFINED");
		json_num(num, sizeof(num), c->e[i].amax);
		fprintf(f, ",\n   \"amax\": %s\n  }", num);
	}
	fputs(c->n ? "\n }\n}\n" : "}\n}\n", f);
}

qopt_status qopt_calib_text(const qopt_calib *c, char **out, size_t *len,
			    qir_error *err)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f;
	size_t i;

	*out = NULL;
	/* Checked again: a file read from elsewhere may hold what
	 * qopt_calib_add refuses (a negative amax). */
	for (i = 0; i < c->n; i++)
		if (!isfinite(c->e[i].amax) || c->e[i].amax < 0)
			return qir_fail(err, QOPT_EINVALID, "tensor '%s': amax "
					"%g cannot be written", c->e[i].key,
					c->e[i].amax), QOPT_EINVALID;
	if (!c->hash[0])
		return qir_fail(err, QOPT_EUSAGE, "the calibration has no "
				"model hash"), QOPT_EUSAGE;
	if (!(f = open_memstream(&buf, &n)))
		return qir_fail(err, QOPT_ENOMEM, "out of memory"), QOPT_ENOMEM;
	write_doc(f, c);
	if (ferror(f) | fclose(f)) {
		free(buf);
		return qir_fail(err, QOPT_ENOMEM, "out of memory"), QOPT_ENOMEM;
	}
	*out = buf;
	if (len)
		*len = n;
	return QOPT_OK;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* e's failure into err (may be NULL): its code. */
static qopt_status failed(qir_error *err, const qir_error *e)
{
	if (err)
		*err = *e;
	return e->code ? e->code : QOPT_EIO;
}

qopt_status qopt_calib_write(const qopt_calib *c, const char *path,
			     qir_error *err)
{
	qir_error e = { 0 };
	qir_outfile *o;
	qopt_status st;
	char *text;
	size_t n;

	if ((st = qopt_calib_text(c, &text, &n, err)))
		return st;
	if (!(o = qir_outfile_open(path, &e))) {
		free(text);
		return failed(err, &e);
	}
	if (write_all(qir_outfile_fd(o), text, n)) {
		qir_fail(&e, QOPT_EIO, "'%s': cannot write it: %s", path,
			 strerror(errno));
		qir_outfile_abort(o);
		free(text);
		return failed(err, &e);
	}
	free(text);
	if (qir_outfile_commit(o, &e))
		return failed(err, &e);
	return QOPT_OK;
}

/*
 * tests/calib/read.c - qopt_calib_read's bad input (core/calib/
 * calib-read.c): each refusal a status for programs and a message that
 * names the file (and the byte, for a malformed one); the fields a file
 * gives are kept (model, source, percentile, samples, an upper-case
 * hash read as lower case), a file without "method" is max, and an
 * absent key is QOPT_ENOTFOUND.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <qopt/calib.h>
#include "../lib/tap.h"

static char path[] = "/tmp/qopt-calib-read-XXXXXX";

/* Reads text as a file: the status, err filled. */
static qopt_status read_text(const char *text, qopt_calib **c,
			     qir_error *err)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		return -1;
	memset(err, 0, sizeof(*err));
	return qopt_calib_read(path, c, err);
}

/* text refused with code, the message naming the file and holding
 * what. */
static int refused(const char *text, qopt_status code, const char *what)
{
	qopt_calib *c = (qopt_calib *)1;
	qir_error err;
	qopt_status st = read_text(text, &c, &err);
	int ok = st == code && !c && strstr(err.msg, path) &&
		 strstr(err.msg, what);

	if (!ok)
		tap_diag("status %d, '%s'", st, err.msg);
	return ok;
}

#define HEAD "{\"format\": \"qopt-calibration\", \"model_hash\": \"00ab\", "

int main(void)
{
	qopt_calib *c = NULL;
	qir_error err = { 0 };
	double amax = 0;
	const char *dtype;
	int fd = mkstemp(path);

	if (fd < 0) {
		printf("Bail out! mkstemp\n");
		return 1;
	}
	close(fd);
	tap_ok(refused(HEAD "\"tensors\": {", QOPT_EPARSE,
		       "expected a string at byte"), "a file cut short: "
	       "QOPT_EPARSE naming the file and the byte");
	tap_ok(refused("{\"model_hash\": \"12\"}", QOPT_EINVALID,
		       "not a calibration file of qopt calibrate (no "
		       "\"tensors\")"), "no tensors: QOPT_EINVALID");
	tap_ok(refused("{\"tensors\": {}}", QOPT_EINVALID, "no \"model_hash\""),
	       "no model_hash: QOPT_EINVALID");
	tap_ok(refused(HEAD "\"tensors\": {\"x\": {\"amax\": 1}, \"x\": "
		       "{\"amax\": 2}}}", QOPT_EPARSE,
		       "tensor 'x' listed twice"), "a tensor listed twice");
	tap_ok(refused("{\"format\": \"other\", \"model_hash\": \"1\", "
		       "\"tensors\": {}}", QOPT_EPARSE, "is 'other', not "
		       "'qopt-calibration'"), "another format");
	tap_ok(refused(HEAD "\"bins\": 0, \"tensors\": {}}", QOPT_EPARSE,
		       "\"bins\" at byte"), "bins 0");
	tap_ok(refused(HEAD "\"tensors\": {\"x\": {\"amax\": 1, \"dtype\": "
		       "\"FLOAT99\"}}}", QOPT_EPARSE, "no ONNX element type"),
	       "a dtype that is no ONNX element type");
	unlink(path);
	c = (qopt_calib *)1;
	tap_ok(qopt_calib_read(path, &c, &err) && !c && strstr(err.msg, path),
	       "a missing file: a status, the message naming it (%s)", err.msg);

	tap_ok(read_text("{\"model_hash\": \"00AB\", \"model\": \"m.onnx\", "
			 "\"source\": \"d\", \"samples\": 12, \"tensors\": "
			 "{\"b\": {\"amax\": 3}, \"a\": {\"amax\": 0.5, "
			 "\"dtype\": \"FLOAT16\"}}}", &c, &err) == QOPT_OK,
	       "a file of the previous writer (no format, method) reads (%s)",
	       err.msg);
	tap_ok(c && !strcmp(qopt_calib_model_hash(c), "00ab") &&
	       !strcmp(qopt_calib_method(c), "max") &&
	       !strcmp(qopt_calib_model(c), "m.onnx") &&
	       !strcmp(qopt_calib_source(c), "d") &&
	       qopt_calib_samples(c) == 12 && qopt_calib_percentile(c) == 100,
	       "its fields kept: the hash in lower case, no method is max");
	tap_ok(c && qopt_calib_count(c) == 2 && !qopt_calib_find(c, "a", &amax) &&
	       amax == 0.5 && !qopt_calib_at(c, 1, NULL, &dtype, NULL) &&
	       !strcmp(dtype, "FLOAT16") &&
	       !qopt_calib_at(c, 0, NULL, &dtype, NULL) &&
	       !strcmp(dtype, "UNDEFINED"), "tensors in file order, a "
	       "missing dtype UNDEFINED");
	tap_ok(c && qopt_calib_find(c, "zz", &amax) == QOPT_ENOTFOUND &&
	       qopt_calib_at(c, 2, NULL, NULL, NULL) == QOPT_EUSAGE,
	       "an absent key: QOPT_ENOTFOUND; an index past the end: "
	       "QOPT_EUSAGE");
	qopt_calib_free(c);
	unlink(path);
	return tap_done();
}

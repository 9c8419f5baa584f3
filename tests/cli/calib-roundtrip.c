/*
 * tests/cli/calib-roundtrip.c - the calibration file's writer (qopt
 * calibrate, core/cli/calib-json.c) and reader (fp8-mha,
 * passes/support/calib_file.c) agree on every value the writer can
 * produce: random files with names of arbitrary bytes (controls,
 * quotes, valid UTF-8, bytes that are not UTF-8) and amax values over
 * all finite doubles >= 0 (subnormals, the largest, float32 values)
 * read back byte- and bit-exact; an empty tensor list reads as empty;
 * Inf, NaN and negative amax are refused before anything is written.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../lib/tap.h"
#include "cli/calib-json.h"
#include "calib_file.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Random bytes (no NUL) of every kind a name can hold. */
static void random_name(char *buf, size_t n, size_t index)
{
	static const char *const pieces[] = {
		"\"", "\\", "/", "\x01", "\x1f", "\x7f", "\n", "\t", "\xc3\xa9",
		"\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xed\xa0\x80" /* CESU */,
		"\xc0\xaf" /* overlong */, "\xf4\x90\x80\x80" /* > U+10FFFF */,
		"\xff", "\x80", "\xe2\x82" /* cut short */, "a", "Z", "_", ".",
	};
	size_t len = 0, k, parts = 1 + next() % 8;

	for (k = 0; k < parts; k++) {
		const char *p;
		char one[2] = { 0, 0 };

		if (next() % 3) {
			p = pieces[next() % (sizeof(pieces) / sizeof(*pieces))];
		} else {
			one[0] = (char)(1 + next() % 255);
			p = one;
		}
		if (len + strlen(p) + 24 >= n)
			break;
		memcpy(buf + len, p, strlen(p));
		len += strlen(p);
	}
	/* unique: the reader refuses a name listed twice */
	snprintf(buf + len, n - len, "#%zu", index);
}

static double random_amax(void)
{
	double d;
	float f;
	uint64_t b;
	uint32_t w;

	switch (next() % 8) {
	case 0: return 0;
	case 1: return DBL_MAX;
	case 2: return DBL_TRUE_MIN * (double)(1 + next() % 1000);
	case 3: return FLT_TRUE_MIN;
	case 4:
		do {
			w = (uint32_t)next() & 0x7fffffffu;
			memcpy(&f, &w, 4);
		} while (!isfinite(f));
		return f;
	default:
		do {
			b = next() & 0x7fffffffffffffffULL;
			memcpy(&d, &b, 8);
		} while (!isfinite(d));
		return d;
	}
}

static int same_bits(double a, double b)
{
	return !memcmp(&a, &b, sizeof(a));
}

/* Writes one random file at path, reads it back; 1 when they agree. */
static const char *const methods[] = { NULL, "max", "percentile",
					"entropy", "mse" };

static int round_trip(const char *path, size_t n, char *why, size_t whyn)
{
	char (*names)[96] = calloc(n ? n : 1, sizeof(*names));
	const char **np = calloc(n ? n : 1, sizeof(*np));
	const char **dt = calloc(n ? n : 1, sizeof(*dt));
	double *amax = calloc(n ? n : 1, sizeof(*amax));
	char model[96], source[96], hash[32];
	struct calib_doc d = { 0 };
	struct ps_calib *c = NULL;
	size_t i, bad;
	FILE *f;
	int ok = 0;

	if (!names || !np || !dt || !amax)
		goto out;
	for (i = 0; i < n; i++) {
		random_name(names[i], sizeof(names[i]), i);
		np[i] = names[i];
		dt[i] = next() % 2 ? "FLOAT" : "FLOAT16";
		amax[i] = random_amax();
	}
	random_name(model, sizeof(model), n);
	random_name(source, sizeof(source), n);
	d.model = model;
	d.source = source;
	d.hash = next();
	d.percentile = next() % 2 ? 100 : 50 + (double)(next() % 5000) / 100;
	d.method = methods[next() % 5];	/* NULL: as before --method */
	d.samples = (long)(next() % 1000);
	d.n = n;
	d.names = np;
	d.dtypes = dt;
	d.amax = amax;
	f = fopen(path, "w");
	if (!f || calib_json_write(f, &d, &bad) < 0) {
		snprintf(why, whyn, "the writer failed");
		if (f)
			fclose(f);
		goto out;
	}
	fclose(f);
	if (ps_calib_load(path, &c, why, whyn) < 0)
		goto out;
	snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)d.hash);
	if (!c->method || strcmp(c->method, d.method ? d.method :
				 d.percentile < 100 ? "percentile" : "max")) {
		snprintf(why, whyn, "method %s read", c->method ? c->method :
			 "(none)");
		goto out;
	}
	if (c->n != n || strcmp(c->hash, hash)) {
		snprintf(why, whyn, "%zu tensors, hash %s read; %zu, %s written",
			 c->n, c->hash, n, hash);
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct ps_calib_entry *e = ps_calib_find(c, np[i]);

		if (!e || !same_bits(e->amax, amax[i])) {
			snprintf(why, whyn, "tensor %zu: %s (amax %.17g written, "
				 "%.17g read)", i, e ? "amax differs" :
				 "name not found", amax[i], e ? e->amax : 0.0);
			goto out;
		}
	}
	ok = 1;
out:
	ps_calib_free(c);
	free(names);
	free(np);
	free(dt);
	free(amax);
	return ok;
}

/* The writer refuses what JSON cannot hold, writing nothing. */
static int refuses(double v)
{
	const char *names[2] = { "a", "b" }, *dt[2] = { "FLOAT", "FLOAT" };
	double amax[2] = { 1, v };
	struct calib_doc d = { .model = "m", .source = "s", .percentile = 100,
			       .n = 2, .names = names, .dtypes = dt,
			       .amax = amax };
	char *buf = NULL;
	size_t len = 0, bad = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return 0;
	rc = calib_json_write(f, &d, &bad);
	fclose(f);
	free(buf);
	return rc < 0 && bad == 1 && len == 0;
}

int main(void)
{
	char path[] = "/tmp/qopt-calib-rt-XXXXXX", why[512] = "";
	size_t files = 500, i, failed = 0, empty = 0;
	int fd = mkstemp(path);

	if (fd < 0) {
		printf("Bail out! mkstemp\n");
		return 1;
	}
	close(fd);
	for (i = 0; i < files; i++) {
		size_t n = i % 10 ? 1 + next() % 40 : 0;

		empty += !n;
		if (!round_trip(path, n, why, sizeof(why)) && !failed++)
			tap_diag("file %zu (%zu tensors): %s", i, n, why);
	}
	tap_ok(!failed, "%zu random calibration files (%zu with no tensor) "
	       "read back as written: names byte-exact, amax bit-exact "
	       "(%zu differ)", files, empty, failed);
	tap_ok(refuses(INFINITY), "the writer refuses an Inf amax, naming it, "
	       "writing nothing");
	tap_ok(refuses(NAN), "the writer refuses a NaN amax");
	tap_ok(refuses(-1), "the writer refuses a negative amax");
	unlink(path);
	return tap_done();
}

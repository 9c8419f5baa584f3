/*
 * tests/calib/roundtrip.c - the calibration file's writer
 * (qopt_calib_write, core/calib/calib-write.c) and reader
 * (qopt_calib_read, core/calib/calib-read.c) agree on every value the
 * writer can produce: random files with names of arbitrary bytes
 * (controls, quotes, valid UTF-8, bytes that are not UTF-8) and amax
 * values over all finite doubles >= 0 (subnormals, the largest, float32
 * values) read back byte- and bit-exact, in the order written, and
 * written again byte for byte; an empty tensor list reads as empty;
 * Inf, NaN and negative amax are refused, naming the tensor.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <qopt/calib.h>
#include "../lib/tap.h"

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

/* The file's bytes (malloc'd), or NULL. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		char *grown;

		cap = cap ? 2 * cap : 4096;
		if (!(grown = realloc(buf, cap + 1))) {
			free(buf);
			fclose(f);
			return NULL;
		}
		buf = grown;
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (n == cap);
	fclose(f);
	*len = n;
	return buf;
}

/* Written again, the file read back gives the same bytes. */
static int same_again(const qopt_calib *c, const char *path, char *why,
		      size_t whyn)
{
	char *text = NULL, *file;
	size_t n = 0, len = 0;
	int ok;

	if (qopt_calib_text(c, &text, &n, NULL)) {
		snprintf(why, whyn, "qopt_calib_text failed");
		return 0;
	}
	file = slurp(path, &len);
	ok = file && len == n && !memcmp(file, text, n);
	if (!ok)
		snprintf(why, whyn, "written again, the text differs");
	free(file);
	free(text);
	return ok;
}

static int round_trip(const char *path, size_t n, char *why, size_t whyn)
{
	char (*names)[96] = calloc(n ? n : 1, sizeof(*names));
	double *amax = calloc(n ? n : 1, sizeof(*amax));
	char model[96], source[96], hash[32];
	qopt_calib *w = NULL, *c = NULL;
	const char *method, *want, *key, *dtype;
	double percentile, got;
	uint64_t h = next();
	qir_error err = { 0 };
	size_t i;
	int ok = 0;

	if (!names || !amax)
		goto out;
	random_name(model, sizeof(model), n);
	random_name(source, sizeof(source), n);
	percentile = next() % 2 ? 100 : 50 + (double)(next() % 5000) / 100;
	method = methods[next() % 5];	/* NULL: as before --method */
	if (qopt_calib_new(model, h, method, percentile, (long)(next() % 1000),
			   source, &w))
		goto out;
	for (i = 0; i < n; i++) {
		random_name(names[i], sizeof(names[i]), i);
		amax[i] = random_amax();
		if (qopt_calib_add(w, names[i], next() % 2 ? "FLOAT" :
				   "FLOAT16", amax[i], &err)) {
			snprintf(why, whyn, "add: %s", err.msg);
			goto out;
		}
	}
	if (qopt_calib_write(w, path, &err)) {
		snprintf(why, whyn, "the writer failed: %s", err.msg);
		goto out;
	}
	if (qopt_calib_read(path, &c, &err)) {
		snprintf(why, whyn, "%s", err.msg);
		goto out;
	}
	snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)h);
	want = method ? method : percentile < 100 ? "percentile" : "max";
	if (strcmp(qopt_calib_method(c), want)) {
		snprintf(why, whyn, "method %s read", qopt_calib_method(c));
		goto out;
	}
	if (qopt_calib_count(c) != n || strcmp(qopt_calib_model_hash(c), hash) ||
	    strcmp(qopt_calib_model(c), model) ||
	    strcmp(qopt_calib_source(c), source) ||
	    qopt_calib_samples(c) != qopt_calib_samples(w)) {
		snprintf(why, whyn, "%zu tensors, hash %s read; %zu, %s written",
			 qopt_calib_count(c), qopt_calib_model_hash(c), n, hash);
		goto out;
	}
	for (i = 0; i < n; i++) {
		int found = !qopt_calib_find(c, names[i], &got);

		if (!found || !same_bits(got, amax[i]) ||
		    qopt_calib_at(c, i, &key, &dtype, NULL) ||
		    strcmp(key, names[i])) {
			snprintf(why, whyn, "tensor %zu: %s (amax %.17g written, "
				 "%.17g read)", i, found ? "amax or order "
				 "differs" : "name not found", amax[i],
				 found ? got : 0.0);
			goto out;
		}
	}
	ok = same_again(c, path, why, whyn);
out:
	qopt_calib_free(w);
	qopt_calib_free(c);
	free(names);
	free(amax);
	return ok;
}

/* qopt_calib_add refuses what JSON cannot hold, naming the tensor. */
static int refuses(double v)
{
	qopt_calib *c = NULL;
	qir_error err = { 0 };
	int rc;

	if (qopt_calib_new("m", 1, NULL, 100, 1, "s", &c))
		return 0;
	rc = qopt_calib_add(c, "a", "FLOAT", 1, &err) == 0 &&
	     qopt_calib_add(c, "b", "FLOAT", v, &err) == QOPT_EINVALID &&
	     strstr(err.msg, "'b'") && qopt_calib_count(c) == 1;
	qopt_calib_free(c);
	return rc;
}

int main(void)
{
	char path[] = "/tmp/qopt-calib-rt-XXXXXX", why[2048] = "";
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
	tap_ok(refuses(INFINITY), "an Inf amax is refused, naming the tensor, "
	       "nothing added");
	tap_ok(refuses(NAN), "a NaN amax is refused");
	tap_ok(refuses(-1), "a negative amax is refused");
	unlink(path);
	return tap_done();
}

/*
 * tests/calib/merge.c - qopt_calib_merge (core/calib/calib-merge.c):
 * amax the max of the two, samples added up, keys unioned in dst's
 * order then src's, a dtype the writer did not know taken from the
 * other; associative over random splits; refused, dst unchanged: two
 * model hashes, a method other than max on either side, dtypes that
 * disagree.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/calib.h>
#include "../lib/tap.h"

static qopt_calib *make(uint64_t hash, const char *method, long samples)
{
	qopt_calib *c = NULL;

	if (qopt_calib_new("m.onnx", hash, method, 100, samples, "s", &c))
		return NULL;
	return c;
}

static double amax_of(const qopt_calib *c, const char *key)
{
	double a = -1;

	return qopt_calib_find(c, key, &a) ? -1 : a;
}

/* c's text, malloc'd ("" on failure). */
static char *text(const qopt_calib *c)
{
	char *t = NULL;

	return qopt_calib_text(c, &t, NULL, NULL) ? strdup("") : t;
}

/* dst refused src with code and a message holding what; dst's text as
 * before. */
static int refused(qopt_calib *dst, const qopt_calib *src, const char *what)
{
	char *before = text(dst), *after;
	qir_error err = { 0 };
	int rc = qopt_calib_merge(dst, src, &err) == QOPT_EINVALID &&
		 strstr(err.msg, what);

	if (!rc)
		tap_diag("got '%s'", err.msg);
	after = text(dst);
	rc = rc && !strcmp(before, after);
	free(before);
	free(after);
	return rc;
}

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A random part of a calibration over keys k0..k(n-1). */
static qopt_calib *part(size_t n)
{
	qopt_calib *c = make(7, "max", (long)(1 + next() % 9));
	char key[32];
	size_t i;

	for (i = 0; c && i < n; i++) {
		if (next() % 3 == 0)
			continue;
		snprintf(key, sizeof(key), "k%zu", i);
		if (qopt_calib_add(c, key, "FLOAT",
				   (double)(next() % 100000) / 64, NULL)) {
			qopt_calib_free(c);
			return NULL;
		}
	}
	return c;
}

/* (a + b) + c and a + (b + c) hold the same ranges and samples. */
static int associative(void)
{
	qopt_calib *a = part(50), *b = part(50), *c = part(50);
	qopt_calib *l = make(7, "max", 0), *r = make(7, "max", 0);
	const char *key;
	double x;
	size_t i;
	int ok = a && b && c && l && r &&
		 !qopt_calib_merge(l, a, NULL) && !qopt_calib_merge(l, b, NULL) &&
		 !qopt_calib_merge(l, c, NULL) && !qopt_calib_merge(b, c, NULL) &&
		 !qopt_calib_merge(r, a, NULL) && !qopt_calib_merge(r, b, NULL);

	ok = ok && qopt_calib_count(l) == qopt_calib_count(r) &&
	     qopt_calib_samples(l) == qopt_calib_samples(r);
	for (i = 0; ok && i < qopt_calib_count(l); i++)
		ok = !qopt_calib_at(l, i, &key, NULL, &x) &&
		     amax_of(r, key) == x;
	qopt_calib_free(a);
	qopt_calib_free(b);
	qopt_calib_free(c);
	qopt_calib_free(l);
	qopt_calib_free(r);
	return ok;
}

int main(void)
{
	qopt_calib *a = make(0xabc, NULL, 2), *b = make(0xabc, "max", 4);
	qopt_calib *other = make(0xabd, "max", 1), *pct = NULL, *ent;
	qopt_calib *dt = make(0xabc, "max", 1);
	qir_error err = { 0 };
	const char *key, *dtype;
	int i, rounds = 200, assoc = 0;

	if (!a || !b || !other || !dt ||
	    qopt_calib_new("m.onnx", 0xabc, "percentile", 99.9, 3, "s", &pct) ||
	    !(ent = make(0xabc, "entropy", 3))) {
		printf("Bail out! qopt_calib_new\n");
		return 1;
	}
	qopt_calib_add(a, "x", "FLOAT", 2.5, NULL);
	qopt_calib_add(a, "y", "UNDEFINED", 1, NULL);
	qopt_calib_add(b, "z", "FLOAT16", 7, NULL);
	qopt_calib_add(b, "y", "FLOAT", 0.5, NULL);
	qopt_calib_add(b, "x", "FLOAT", 3.25, NULL);
	qopt_calib_add(other, "x", "FLOAT", 1, NULL);
	qopt_calib_add(pct, "x", "FLOAT", 1, NULL);
	qopt_calib_add(dt, "x", "FLOAT16", 1, NULL);

	tap_ok(refused(a, other, "model hash 0000000000000abd, not "
		       "0000000000000abc"), "files of two models: refused "
	       "naming both hashes, dst unchanged");
	tap_ok(refused(a, pct, "method 'percentile': only method max merges"),
	       "a percentile src: refused saying only max merges, dst unchanged");
	tap_ok(refused(pct, a, "method 'percentile'"), "a percentile dst: "
	       "refused");
	tap_ok(refused(a, ent, "method 'entropy'"), "an entropy src: refused");
	tap_ok(refused(a, dt, "tensor 'x': dtype FLOAT16, not FLOAT"),
	       "a dtype that disagrees: refused naming the tensor");
	tap_ok(qopt_calib_merge(NULL, a, &err) == QOPT_EUSAGE,
	       "a NULL dst: QOPT_EUSAGE");

	tap_ok(!qopt_calib_merge(a, b, &err), "two max files of one model "
	       "merge (%s)", err.msg);
	tap_ok(amax_of(a, "x") == 3.25 && amax_of(a, "y") == 1 &&
	       amax_of(a, "z") == 7, "each amax is the max of the two");
	tap_ok(qopt_calib_samples(a) == 6, "the samples add up (%ld)",
	       qopt_calib_samples(a));
	tap_ok(qopt_calib_count(a) == 3 &&
	       !qopt_calib_at(a, 0, &key, NULL, NULL) && !strcmp(key, "x") &&
	       !qopt_calib_at(a, 1, &key, NULL, NULL) && !strcmp(key, "y") &&
	       !qopt_calib_at(a, 2, &key, NULL, NULL) && !strcmp(key, "z"),
	       "the keys unioned: dst's order, then src's new ones");
	tap_ok(!qopt_calib_at(a, 1, NULL, &dtype, NULL) &&
	       !strcmp(dtype, "FLOAT"), "a dtype dst did not know is src's");
	tap_ok(!strcmp(qopt_calib_method(a), "max") &&
	       !strcmp(qopt_calib_model_hash(a), "0000000000000abc"),
	       "the method and hash stay");
	for (i = 0; i < rounds; i++)
		assoc += associative();
	tap_ok(assoc == rounds, "(a + b) + c = a + (b + c) over %d random "
	       "splits (%d held)", rounds, assoc);
	qopt_calib_free(a);
	qopt_calib_free(b);
	qopt_calib_free(other);
	qopt_calib_free(pct);
	qopt_calib_free(ent);
	qopt_calib_free(dt);
	return tap_done();
}

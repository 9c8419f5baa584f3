/*
 * core/calib/calib-merge.c - merging two calibrations of one model
 * (qopt_calib_merge): the way calibration scales past one machine. Only
 * max merges: the max over all samples is the max of the maxima over
 * any split of them, in any order; a percentile, an entropy or an mse
 * threshold of a split says nothing exact about the whole.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib-internal.h"

static const char *digits(const char *hash)
{
	while (hash[0] == '0' && hash[1])
		hash++;
	return hash;
}

/* A dtype the writer knew none for agrees with any. */
static int known(const char *dtype)
{
	return dtype && strcmp(dtype, "UNDEFINED");
}

/* Everything that can refuse the merge, before dst changes: 0, or the
 * status with err set. */
static qopt_status check(const struct qopt_calib *dst,
			 const struct qopt_calib *src, qir_error *err)
{
	const char *m[2] = { cal_method(dst), cal_method(src) };
	size_t i, at;

	if (strcmp(digits(dst->hash), digits(src->hash)))
		return qir_fail(err, QOPT_EINVALID, "model hash %s, not %s: "
				"made for another model (only files of one "
				"model merge)", src->hash, dst->hash),
		       QOPT_EINVALID;
	for (i = 0; i < 2; i++)
		if (strcmp(m[i], "max"))
			return qir_fail(err, QOPT_EINVALID, "method '%s': only "
					"method max merges (the max over all "
					"samples is the max of each part's; "
					"percentile, entropy and mse are not "
					"associative: calibrate over all the "
					"samples at once)", m[i]),
			       QOPT_EINVALID;
	if (src->samples > LONG_MAX - dst->samples)
		return qir_fail(err, QOPT_EINVALID, "%ld + %ld samples: too "
				"many", dst->samples, src->samples),
		       QOPT_EINVALID;
	for (i = 0; i < src->n; i++) {
		at = cal_lookup(dst, src->e[i].key);
		if (at == (size_t)-1)
			continue;
		if (known(dst->e[at].dtype) && known(src->e[i].dtype) &&
		    strcmp(dst->e[at].dtype, src->e[i].dtype))
			return qir_fail(err, QOPT_EINVALID, "tensor '%s': dtype "
					"%s, not %s: the files disagree on "
					"what it is", src->e[i].key,
					src->e[i].dtype, dst->e[at].dtype),
			       QOPT_EINVALID;
	}
	return QOPT_OK;
}

/* "A + B" when the sources differ; NULL out of memory. */
static char *sources(const struct qopt_calib *dst,
		     const struct qopt_calib *src)
{
	const char *a = qopt_calib_source(dst), *b = qopt_calib_source(src);
	size_t n = strlen(a) + strlen(b) + 4;
	char *s = malloc(n);

	if (!s)
		return NULL;
	if (!strcmp(a, b) || !*b)
		snprintf(s, n, "%s", a);
	else if (!*a)
		snprintf(s, n, "%s", b);
	else
		snprintf(s, n, "%s + %s", a, b);
	return s;
}

/* dst's fields into a new calibration, samples and source merged. */
static struct qopt_calib *head(const struct qopt_calib *dst,
			       const struct qopt_calib *src)
{
	struct qopt_calib *c = cal_alloc();

	if (!c)
		return NULL;
	memcpy(c->hash, dst->hash, sizeof(c->hash));
	c->model = dst->model ? strdup(dst->model) : NULL;
	c->method = dst->method ? strdup(dst->method) : NULL;
	c->source = sources(dst, src);
	c->percentile = dst->percentile;
	c->bins = dst->bins;
	c->samples = dst->samples + src->samples;
	if ((dst->model && !c->model) || (dst->method && !c->method) ||
	    !c->source) {
		qopt_calib_free(c);
		return NULL;
	}
	return c;
}

/* The merge built beside dst (so that a failure leaves dst as it was):
 * dst's keys in dst's order, then src's new ones. */
static struct qopt_calib *merged(const struct qopt_calib *dst,
				 const struct qopt_calib *src)
{
	struct qopt_calib *c = head(dst, src);
	const struct cal_entry *d, *e;
	size_t i, at;
	int rc = c ? 0 : -1;

	for (i = 0; !rc && i < dst->n; i++) {
		d = &dst->e[i];
		at = cal_lookup(src, d->key);
		e = at == (size_t)-1 ? NULL : &src->e[at];
		rc = cal_append(c, d->key, known(d->dtype) || !e ? d->dtype :
				e->dtype, e && e->amax > d->amax ? e->amax :
				d->amax);
	}
	for (i = 0; !rc && i < src->n; i++)
		if (cal_lookup(dst, src->e[i].key) == (size_t)-1)
			rc = cal_append(c, src->e[i].key, src->e[i].dtype,
					src->e[i].amax);
	if (rc) {
		qopt_calib_free(c);
		return NULL;
	}
	return c;
}

qopt_status qopt_calib_merge(qopt_calib *dst, const qopt_calib *src,
			     qir_error *err)
{
	struct qopt_calib *c, old;
	qopt_status st;

	if (!dst || !src)
		return qir_fail(err, QOPT_EUSAGE, "qopt_calib_merge: no "
				"calibration"), QOPT_EUSAGE;
	if ((st = check(dst, src, err)))
		return st;
	if (!(c = merged(dst, src)))
		return qir_fail(err, QOPT_ENOMEM, "out of memory"), QOPT_ENOMEM;
	/* dst keeps its identity (the caller's pointer) and its binding */
	old = *dst;
	*dst = *c;
	dst->names = old.names;
	old.names = NULL;
	*c = old;
	qopt_calib_free(c);
	return QOPT_OK;
}

/*
 * core/calib/calib.c - a calibration in memory (qopt/calib.h): its
 * fields, its entries in the order they came, and an index by key (a
 * hash table: files of many thousand tensors are built one add at a
 * time, and each add checks its key is new).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qopt/dtype.h>

#include "calib/calib-internal.h"

struct qopt_calib *cal_alloc(void)
{
	struct qopt_calib *c = calloc(1, sizeof(*c));

	if (c) {
		c->percentile = 100;
		c->bins = CAL_BINS;
	}
	return c;
}

static size_t hash_key(const char *s)
{
	uint64_t h = 14695981039346656037ull;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return (size_t)h;
}

/* The slot holding key, or the empty slot where it would go. */
static size_t probe(const struct qopt_calib *c, const char *key)
{
	size_t i = hash_key(key) & (c->nslot - 1);

	while (c->slot[i] && strcmp(c->e[c->slot[i] - 1].key, key))
		i = (i + 1) & (c->nslot - 1);
	return i;
}

static int grow_index(struct qopt_calib *c)
{
	size_t n = c->nslot ? 2 * c->nslot : 64, k;
	size_t *old = c->slot, oldn = c->nslot;

	if (!(c->slot = calloc(n, sizeof(*c->slot)))) {
		c->slot = old;
		return -1;
	}
	c->nslot = n;
	for (k = 0; k < oldn; k++)
		if (old[k])
			c->slot[probe(c, c->e[old[k] - 1].key)] = old[k];
	free(old);
	return 0;
}

size_t cal_lookup(const struct qopt_calib *c, const char *key)
{
	size_t i;

	if (!c->nslot)
		return (size_t)-1;
	i = probe(c, key);
	return c->slot[i] ? c->slot[i] - 1 : (size_t)-1;
}

int cal_append(struct qopt_calib *c, const char *key, const char *dtype,
	       double amax)
{
	struct cal_entry *grown;
	size_t i;

	if (cal_lookup(c, key) != (size_t)-1)
		return 1;
	if (2 * (c->n + 1) >= c->nslot && grow_index(c))
		return -1;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;

		if (!(grown = realloc(c->e, cap * sizeof(*grown))))
			return -1;
		c->e = grown;
		c->cap = cap;
	}
	c->e[c->n].key = strdup(key);
	c->e[c->n].dtype = dtype ? strdup(dtype) : NULL;
	c->e[c->n].amax = amax;
	if (!c->e[c->n].key || (dtype && !c->e[c->n].dtype)) {
		free(c->e[c->n].key);
		free(c->e[c->n].dtype);
		return -1;
	}
	i = probe(c, key);
	c->slot[i] = ++c->n;
	return 0;
}

const char *cal_method(const struct qopt_calib *c)
{
	return c->method ? c->method : "max";
}

qopt_status qopt_calib_new(const char *model, uint64_t hash,
			   const char *method, double percentile,
			   long samples, const char *source,
			   qopt_calib **out)
{
	struct qopt_calib *c = cal_alloc();

	*out = NULL;
	if (!c)
		return QOPT_ENOMEM;
	if (!method)	/* a caller of before --method: its percentile says */
		method = percentile < 100 ? "percentile" : "max";
	snprintf(c->hash, sizeof(c->hash), "%016llx", (unsigned long long)hash);
	c->model = strdup(model ? model : "");
	c->method = strdup(method);
	c->source = strdup(source ? source : "");
	c->percentile = percentile;
	c->samples = samples;
	if (!c->model || !c->method || !c->source) {
		qopt_calib_free(c);
		return QOPT_ENOMEM;
	}
	*out = c;
	return QOPT_OK;
}

qopt_status qopt_calib_add(qopt_calib *c, const char *key,
			   const char *dtype, double amax, qir_error *err)
{
	int rc;

	if (!c || !key)
		return qir_fail(err, QOPT_EUSAGE, "qopt_calib_add: no %s",
				c ? "key" : "calibration"), QOPT_EUSAGE;
	if (!isfinite(amax) || amax < 0)
		return qir_fail(err, QOPT_EINVALID, "tensor '%s': amax %g "
				"cannot be written", key, amax), QOPT_EINVALID;
	if (dtype && qir_dtype_from_name(dtype) < 0)
		return qir_fail(err, QOPT_EINVALID, "tensor '%s': dtype '%s' "
				"is no ONNX element type", key, dtype),
		       QOPT_EINVALID;
	rc = cal_append(c, key, dtype, amax);
	if (rc > 0)
		return qir_fail(err, QOPT_EINVALID, "tensor '%s' given twice",
				key), QOPT_EINVALID;
	if (rc < 0)
		return qir_fail(err, QOPT_ENOMEM, "out of memory"), QOPT_ENOMEM;
	return QOPT_OK;
}

const char *qopt_calib_model_hash(const qopt_calib *c)
{
	return c->hash;
}

const char *qopt_calib_method(const qopt_calib *c)
{
	return cal_method(c);
}

const char *qopt_calib_model(const qopt_calib *c)
{
	return c->model ? c->model : "";
}

const char *qopt_calib_source(const qopt_calib *c)
{
	return c->source ? c->source : "";
}

double qopt_calib_percentile(const qopt_calib *c)
{
	return c->percentile;
}

long qopt_calib_samples(const qopt_calib *c)
{
	return c->samples;
}

size_t qopt_calib_count(const qopt_calib *c)
{
	return c->n;
}

qopt_status qopt_calib_at(const qopt_calib *c, size_t i, const char **key,
			  const char **dtype, double *amax)
{
	if (i >= c->n)
		return QOPT_EUSAGE;
	if (key)
		*key = c->e[i].key;
	if (dtype)
		*dtype = c->e[i].dtype ? c->e[i].dtype : "UNDEFINED";
	if (amax)
		*amax = c->e[i].amax;
	return QOPT_OK;
}

qopt_status qopt_calib_find(const qopt_calib *c, const char *key,
			    double *amax)
{
	size_t i = cal_lookup(c, key);

	if (i == (size_t)-1)
		return QOPT_ENOTFOUND;
	if (amax)
		*amax = c->e[i].amax;
	return QOPT_OK;
}

void qopt_calib_free(qopt_calib *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		free(c->e[i].key);
		free(c->e[i].dtype);
	}
	free(c->e);
	free(c->slot);
	free(c->model);
	free(c->method);
	free(c->source);
	cal_names_free(c->names);
	free(c);
}

/*
 * passes/support/results.c - big pass results built in reused buffers
 * and kept off the heap: a pass that quantizes one weight after another
 * would otherwise touch fresh pages for every weight and hold them all
 * until the save.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

uint8_t *ps_grow(uint8_t **buf, size_t *cap, size_t n)
{
	uint8_t *p;

	if (*cap >= n)
		return *buf;
	p = realloc(*buf, n ? n : 1);
	if (!p)
		return NULL;
	*buf = p;
	*cap = n;
	return p;
}

/* The bytes a tensor of this shape holds: qir_dtype_nbytes, after an
 * element count that cannot wrap. -1 on a negative dimension, an
 * overflow or an unsized type. */
static int result_bytes(int dtype, int rank, const int64_t *dims,
			uint64_t *out)
{
	uint64_t numel = 1;

	for (int i = 0; i < rank; i++) {
		if (dims[i] < 0 ||
		    (dims[i] && numel > UINT64_MAX / (uint64_t)dims[i]))
			return -1;
		numel *= (uint64_t)dims[i];
	}
	return qir_dtype_nbytes(dtype, numel, out);
}

/* The warning of a failed spill: said once, then results stay put. */
static void spill_failed(const struct ps_results *r, qir_error *err)
{
	qopt_warn(r->ctx, "%s; %s stay in memory until the model is saved",
		  err->msg, r->what);
	*r->spill_failed = 1;
	memset(err, 0, sizeof(*err));
}

void ps_spill(const struct ps_results *r, qir_tensor *t)
{
	qir_error err = { 0 };

	if (*r->spill_failed || t->nbytes < r->spill_min)
		return;
	if (qir_tensor_spill(r->m, t, &err))
		spill_failed(r, &err);
}

qir_tensor *ps_result(const struct ps_results *r, const char *name, int dtype,
		      int rank, const int64_t *dims, const void *bytes,
		      size_t nbytes, qir_error *err)
{
	uint64_t need;
	qir_tensor *t;
	void *d;

	if (result_bytes(dtype, rank, dims, &need) < 0) {
		qir_fail(err, QIR_EINVALID, "tensor '%s': its shape has no "
			 "byte size (negative, too large or an unsized type)",
			 name);
		return NULL;
	}
	if (need != nbytes) {
		qir_fail(err, QIR_EINVALID, "tensor '%s': %zu bytes made for "
			 "its shape, which needs %" PRIu64, name, nbytes, need);
		return NULL;
	}
	if (!*r->spill_failed && nbytes >= r->spill_min) {
		t = qir_tensor_new_spilled(r->m, name, dtype, rank, dims, bytes,
					   err);
		if (t)
			return t;
		spill_failed(r, err);
	}
	t = qir_tensor_new(name, dtype, rank, dims, err);
	d = t ? qir_tensor_mutable_data(t, err) : NULL;
	if (!d) {
		qir_tensor_free(t);
		return NULL;
	}
	memcpy(d, bytes, nbytes);
	return t;
}

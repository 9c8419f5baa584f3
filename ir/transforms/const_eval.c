/*
 * ir/transforms/const_eval.c - folding small constant subgraphs (shape arithmetic,
 * weight reshapes and transposes) into one tensor.
 *
 * Values are evaluated recursively from constants (initializers and
 * Constant nodes), memoized so a shared subexpression is computed once.
 * Float math runs in float (double for DOUBLE) and is rounded into the
 * output type; integer math wraps like the fixed-width types do.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/fold.h>
#include <qopt/kernels.h>
#include "model/internal.h"

#define MAX_DEPTH 512
#define MAX_RANK 64

struct memo {
	qir_value *v;
	qir_tensor *t;
	int owned;
};

struct ce {
	uint64_t max_bytes;	/* 0: no limit */
	int64_t opset;
	qir_error *err;
	struct memo *memo;
	size_t nmemo;
	int depth;
	qir_node *node;		/* node being folded, for messages */
	char lbl[512];
};

static const char *lbl(struct ce *c)
{
	return ir_node_label(c->node, c->lbl, sizeof(c->lbl));
}

static int fail_node(struct ce *c, int code, const char *why)
{
	return qir_fail(c->err, code, "cannot fold node %s: %s", lbl(c), why);
}

/* ---- element access ----------------------------------------------- */

static int is_fp(int dt)
{
	return dt == QIR_FLOAT || dt == QIR_FLOAT16 || dt == QIR_BFLOAT16 ||
	       dt == QIR_DOUBLE;
}

static int is_int(int dt)
{
	return dt == QIR_INT32 || dt == QIR_INT64 || dt == QIR_INT8 ||
	       dt == QIR_UINT8;
}

static int numeric(int dt)
{
	return is_fp(dt) || is_int(dt) || dt == QIR_BOOL;
}

/* Bytes per element of a byte-addressable type, else 0. */
static size_t esize(int dt)
{
	int bits = qir_dtype_bits(dt);

	return dt != QIR_STRING && bits >= 8 && bits % 8 == 0 ? bits / 8 : 0;
}

static double ld_f(const uint8_t *d, int dt, size_t i)
{
	switch (dt) {
	case QIR_FLOAT: { float f; memcpy(&f, d + 4 * i, 4); return f; }
	case QIR_DOUBLE: { double x; memcpy(&x, d + 8 * i, 8); return x; }
	case QIR_FLOAT16: { uint16_t h; memcpy(&h, d + 2 * i, 2); return qk_f16_to_f32(h); }
	case QIR_BFLOAT16: { uint16_t h; memcpy(&h, d + 2 * i, 2); return qk_bf16_to_f32(h); }
	}
	return 0;
}

static int64_t ld_i(const uint8_t *d, int dt, size_t i)
{
	switch (dt) {
	case QIR_INT8: return (int8_t)d[i];
	case QIR_UINT8: case QIR_BOOL: return d[i];
	case QIR_INT32: { int32_t x; memcpy(&x, d + 4 * i, 4); return x; }
	case QIR_INT64: { int64_t x; memcpy(&x, d + 8 * i, 8); return x; }
	}
	return 0;
}

static void st_f(uint8_t *d, int dt, size_t i, double x)
{
	switch (dt) {
	case QIR_FLOAT: { float f = (float)x; memcpy(d + 4 * i, &f, 4); break; }
	case QIR_DOUBLE: memcpy(d + 8 * i, &x, 8); break;
	case QIR_FLOAT16: { uint16_t h = qk_f32_to_f16((float)x); memcpy(d + 2 * i, &h, 2); break; }
	case QIR_BFLOAT16: { uint16_t h = qk_f32_to_bf16((float)x); memcpy(d + 2 * i, &h, 2); break; }
	}
}

static void st_i(uint8_t *d, int dt, size_t i, int64_t x)
{
	switch (dt) {
	case QIR_INT8: case QIR_UINT8: d[i] = (uint8_t)x; break;
	case QIR_BOOL: d[i] = x != 0; break;
	case QIR_INT32: { int32_t v = (int32_t)(uint32_t)(uint64_t)x; memcpy(d + 4 * i, &v, 4); break; }
	case QIR_INT64: memcpy(d + 8 * i, &x, 8); break;
	}
}

/* Float to integer the way a saturating cast would: NaN -> 0. */
static int64_t f_to_i(double x)
{
	if (x != x)
		return 0;
	if (x >= 9223372036854775807.0)
		return INT64_MAX;
	if (x <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)x;
}

/* ---- tensors -------------------------------------------------------- */

static const uint8_t *bytes(struct ce *c, qir_tensor *t)
{
	const uint8_t *d = qir_tensor_data(t, c->err);

	if (!d && t->nbytes == 0) {
		static const uint8_t none[8];

		return none;
	}
	return d;
}

static qir_tensor *new_out(struct ce *c, int dtype, int rank,
			   const int64_t *dims)
{
	const char *name = c->node->noutputs && c->node->outputs[0] ?
			   c->node->outputs[0]->name : "";
	qir_tensor *t;
	uint64_t numel = 1, nb;
	int i;

	if (rank > MAX_RANK) {
		fail_node(c, QIR_EUNSUPPORTED, "result rank too large");
		return NULL;
	}
	for (i = 0; i < rank; i++) {
		if (dims[i] < 0 || (dims[i] && numel > UINT64_MAX / dims[i])) {
			fail_node(c, QIR_EINVALID, "bad result shape");
			return NULL;
		}
		numel *= dims[i];
	}
	if (qir_dtype_nbytes(dtype, numel, &nb) < 0) {
		fail_node(c, QIR_EUNSUPPORTED, "result type has no byte size");
		return NULL;
	}
	if (c->max_bytes && nb > c->max_bytes) {
		qir_fail(c->err, QIR_EUNSUPPORTED,
			 "cannot fold node %s: result of %" PRIu64
			 " bytes exceeds the limit of %" PRIu64,
			 lbl(c), nb, c->max_bytes);
		return NULL;
	}
	t = qir_tensor_new(name, dtype, rank, dims, c->err);
	return t;
}

static uint8_t *wdata(qir_tensor *t)
{
	return qir_tensor_mutable_data(t, NULL);
}

/* Reads a small integer tensor (shape, axes, starts...). *out malloc'd. */
static int read_ints(struct ce *c, qir_tensor *t, const char *what,
		     int64_t **out, size_t *n)
{
	uint64_t k, cnt = qir_tensor_numel(t);

	if (t->dtype != QIR_INT64 && t->dtype != QIR_INT32)
		return qir_fail(c->err, QIR_EUNSUPPORTED,
				"cannot fold node %s: %s must be INT64 or INT32",
				lbl(c), what);
	if (cnt > (1u << 20))
		return fail_node(c, QIR_EUNSUPPORTED, "index tensor too large");
	*out = malloc((cnt ? cnt : 1) * sizeof(int64_t));
	if (!*out)
		return fail_node(c, QIR_ENOMEM, "out of memory");
	for (k = 0; k < cnt; k++)
		if (qir_tensor_get_i64(t, k, &(*out)[k], c->err) < 0) {
			free(*out);
			return -1;
		}
	*n = (size_t)cnt;
	return 0;
}

static int norm_axis(struct ce *c, int64_t *axis, int rank)
{
	if (*axis < -rank || *axis >= rank || rank == 0)
		return qir_fail(c->err, QIR_EINVALID,
				"cannot fold node %s: axis %" PRId64 " out of range for rank %d",
				lbl(c), *axis, rank);
	if (*axis < 0)
		*axis += rank;
	return 0;
}

/* Axes from the attribute (older opsets) or input 1 (opset >= since). */
static int get_axes(struct ce *c, qir_tensor **in, size_t nin, int since,
		    int64_t **axes, size_t *n, int *given)
{
	qir_attr *a;

	*given = 0;
	*axes = NULL;
	*n = 0;
	if (c->opset >= since) {
		if (nin < 2 || !in[1])
			return 0;
		*given = 1;
		return read_ints(c, in[1], "axes", axes, n);
	}
	a = qir_node_attr(c->node, "axes");
	if (!a || a->type != QIR_ATTR_INTS)
		return 0;
	*given = 1;
	*axes = malloc((a->n ? a->n : 1) * sizeof(int64_t));
	if (!*axes)
		return fail_node(c, QIR_ENOMEM, "out of memory");
	if (a->n)
		memcpy(*axes, a->ints, a->n * sizeof(int64_t));
	*n = a->n;
	return 0;
}

/* ---- data movement ------------------------------------------------- */

static int need_in(struct ce *c, qir_tensor **in, size_t nin, size_t k)
{
	size_t i;

	for (i = 0; i < k; i++)
		if (i >= nin || !in[i])
			return qir_fail(c->err, QIR_EINVALID,
					"cannot fold node %s: input %zu missing",
					lbl(c), i);
	return 0;
}

static int copy_reshaped(struct ce *c, qir_tensor *x, int rank,
			 const int64_t *dims, qir_tensor **out)
{
	const uint8_t *src = bytes(c, x);
	qir_tensor *t;

	if (!src)
		return -1;
	if (x->dtype == QIR_STRING)
		return fail_node(c, QIR_EUNSUPPORTED, "STRING data");
	t = new_out(c, x->dtype, rank, dims);
	if (!t)
		return -1;
	if (t->nbytes != x->nbytes) {
		qir_tensor_free(t);
		return fail_node(c, QIR_EINVALID,
				 "element count changes");
	}
	if (t->nbytes)
		memcpy(wdata(t), src, t->nbytes);
	*out = t;
	return 0;
}

static int op_identity(struct ce *c, qir_tensor **in, size_t nin,
		       qir_tensor **out)
{
	if (need_in(c, in, nin, 1) < 0)
		return -1;
	return copy_reshaped(c, in[0], in[0]->rank, in[0]->dims, out);
}

static int op_reshape(struct ce *c, qir_tensor **in, size_t nin,
		      qir_tensor **out)
{
	int allowzero = c->opset >= 14 &&
			qir_node_attr_int(c->node, "allowzero", 0);
	int64_t *shape, known = 1;
	size_t n, i, infer = (size_t)-1;
	uint64_t numel;
	int rc;

	if (need_in(c, in, nin, 2) < 0 ||
	    read_ints(c, in[1], "shape", &shape, &n) < 0)
		return -1;
	numel = qir_tensor_numel(in[0]);
	rc = -1;
	if (n > MAX_RANK) {
		fail_node(c, QIR_EUNSUPPORTED, "shape rank too large");
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (shape[i] == 0 && !allowzero) {
			if ((int)i >= in[0]->rank) {
				fail_node(c, QIR_EINVALID, "0 in shape past the input rank");
				goto out;
			}
			shape[i] = in[0]->dims[i];
		}
		if (shape[i] == -1) {
			if (infer != (size_t)-1) {
				fail_node(c, QIR_EINVALID, "more than one -1 in shape");
				goto out;
			}
			infer = i;
			continue;
		}
		if (shape[i] < 0) {
			fail_node(c, QIR_EINVALID, "negative dim in shape");
			goto out;
		}
		known *= shape[i];
	}
	if (infer != (size_t)-1) {
		if (known == 0 || numel % known) {
			fail_node(c, QIR_EINVALID, "cannot infer -1 in shape");
			goto out;
		}
		shape[infer] = numel / known;
	}
	rc = copy_reshaped(c, in[0], (int)n, shape, out);
out:
	free(shape);
	return rc;
}

/* Generic strided gather of whole elements: out[i] = in[offset(i)]. */
struct walk {
	int rank;
	int64_t dims[MAX_RANK];		/* output dims */
	int64_t stride[MAX_RANK];	/* input element stride per out dim */
	int64_t base;			/* input element offset of out[0] */
};

static void run_walk(const struct walk *w, const uint8_t *src, uint8_t *dst,
		     size_t es, uint64_t total)
{
	int64_t idx[MAX_RANK] = { 0 };
	int64_t off = w->base;
	uint64_t k;
	int d;

	for (k = 0; k < total; k++) {
		memcpy(dst + k * es, src + off * es, es);
		for (d = w->rank - 1; d >= 0; d--) {
			off += w->stride[d];
			if (++idx[d] < w->dims[d])
				break;
			off -= w->stride[d] * idx[d];
			idx[d] = 0;
		}
	}
}

static void strides_of(const qir_tensor *x, int64_t *st)
{
	int64_t s = 1;
	int i;

	for (i = x->rank - 1; i >= 0; i--) {
		st[i] = s;
		s *= x->dims[i];
	}
}

static int finish_walk(struct ce *c, qir_tensor *x, struct walk *w,
		       qir_tensor **out)
{
	size_t es = esize(x->dtype);
	const uint8_t *src;
	qir_tensor *t;

	if (!es)
		return fail_node(c, QIR_EUNSUPPORTED,
				 "element type is not byte-sized");
	src = bytes(c, x);
	if (!src)
		return -1;
	t = new_out(c, x->dtype, w->rank, w->dims);
	if (!t)
		return -1;
	if (t->nbytes)
		run_walk(w, src, wdata(t), es, qir_tensor_numel(t));
	*out = t;
	return 0;
}

static int op_transpose(struct ce *c, qir_tensor **in, size_t nin,
			qir_tensor **out)
{
	qir_attr *a = qir_node_attr(c->node, "perm");
	int64_t st[MAX_RANK];
	struct walk w = { 0 };
	int seen[MAX_RANK] = { 0 };
	int r, i;

	if (need_in(c, in, nin, 1) < 0)
		return -1;
	r = in[0]->rank;
	if (r > MAX_RANK)
		return fail_node(c, QIR_EUNSUPPORTED, "rank too large");
	if (a && (a->type != QIR_ATTR_INTS || a->n != (size_t)r))
		return fail_node(c, QIR_EINVALID, "perm does not match the rank");
	strides_of(in[0], st);
	w.rank = r;
	for (i = 0; i < r; i++) {
		int64_t p = a ? a->ints[i] : r - 1 - i;

		if (p < 0 || p >= r || seen[p]++)
			return fail_node(c, QIR_EINVALID, "perm is not a permutation");
		w.dims[i] = in[0]->dims[p];
		w.stride[i] = st[p];
	}
	return finish_walk(c, in[0], &w, out);
}

static int op_squeeze(struct ce *c, qir_tensor **in, size_t nin,
		      qir_tensor **out)
{
	int64_t dims[MAX_RANK], *axes;
	int drop[MAX_RANK] = { 0 };
	size_t n, i;
	int given, r, k = 0, rc = -1;

	if (need_in(c, in, nin, 1) < 0 ||
	    get_axes(c, in, nin, 13, &axes, &n, &given) < 0)
		return -1;
	r = in[0]->rank;
	if (r > MAX_RANK) {
		fail_node(c, QIR_EUNSUPPORTED, "rank too large");
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (norm_axis(c, &axes[i], r) < 0)
			goto out;
		if (in[0]->dims[axes[i]] != 1) {
			fail_node(c, QIR_EINVALID, "squeezed dim is not 1");
			goto out;
		}
		drop[axes[i]] = 1;
	}
	for (i = 0; i < (size_t)r; i++)
		if (!(given ? drop[i] : in[0]->dims[i] == 1))
			dims[k++] = in[0]->dims[i];
	rc = copy_reshaped(c, in[0], k, dims, out);
out:
	free(axes);
	return rc;
}

static int op_unsqueeze(struct ce *c, qir_tensor **in, size_t nin,
			qir_tensor **out)
{
	int64_t dims[MAX_RANK], *axes;
	int ins[MAX_RANK] = { 0 };
	size_t n, i;
	int given, r, j, k = 0, rc = -1;

	if (need_in(c, in, nin, 1) < 0 ||
	    get_axes(c, in, nin, 13, &axes, &n, &given) < 0)
		return -1;
	if (!given) {
		fail_node(c, QIR_EINVALID, "Unsqueeze without axes");
		goto out;
	}
	r = in[0]->rank + (int)n;
	if (n > MAX_RANK || r > MAX_RANK) {
		fail_node(c, QIR_EUNSUPPORTED, "rank too large");
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (norm_axis(c, &axes[i], r) < 0)
			goto out;
		if (ins[axes[i]]++) {
			fail_node(c, QIR_EINVALID, "repeated axis");
			goto out;
		}
	}
	for (j = 0; j < r; j++)
		dims[j] = ins[j] ? 1 : in[0]->dims[k++];
	rc = copy_reshaped(c, in[0], r, dims, out);
out:
	free(axes);
	return rc;
}

static int op_concat(struct ce *c, qir_tensor **in, size_t nin,
		     qir_tensor **out)
{
	int64_t axis = qir_node_attr_int(c->node, "axis", INT64_MIN);
	int64_t dims[MAX_RANK];
	uint64_t outer = 1, inner = 1, off = 0, o;
	size_t i, es;
	int r, d;
	qir_tensor *t;
	uint8_t *dst;

	if (nin == 0 || need_in(c, in, nin, nin) < 0)
		return fail_node(c, QIR_EINVALID, "Concat needs inputs");
	r = in[0]->rank;
	es = esize(in[0]->dtype);
	if (axis == INT64_MIN)
		return fail_node(c, QIR_EINVALID, "Concat without axis");
	if (r > MAX_RANK || !es)
		return fail_node(c, QIR_EUNSUPPORTED, "rank or element type");
	if (norm_axis(c, &axis, r) < 0)
		return -1;
	memcpy(dims, in[0]->dims, r * sizeof(int64_t));
	dims[axis] = 0;
	for (i = 0; i < nin; i++) {
		if (in[i]->dtype != in[0]->dtype || in[i]->rank != r)
			return fail_node(c, QIR_EINVALID,
					 "inputs differ in type or rank");
		for (d = 0; d < r; d++)
			if (d != axis && in[i]->dims[d] != in[0]->dims[d])
				return fail_node(c, QIR_EINVALID,
						 "inputs differ in shape");
		dims[axis] += in[i]->dims[axis];
	}
	for (d = 0; d < axis; d++)
		outer *= dims[d];
	for (d = axis + 1; d < r; d++)
		inner *= dims[d];
	t = new_out(c, in[0]->dtype, r, dims);
	if (!t)
		return -1;
	dst = wdata(t);
	for (o = 0; o < outer; o++) {
		for (i = 0; i < nin; i++) {
			uint64_t chunk = in[i]->dims[axis] * inner * es;
			const uint8_t *src = bytes(c, in[i]);

			if (!src) {
				qir_tensor_free(t);
				return -1;
			}
			if (chunk)
				memcpy(dst + off, src + o * chunk, chunk);
			off += chunk;
		}
	}
	*out = t;
	return 0;
}

static int64_t clampi(int64_t x, int64_t lo, int64_t hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

static int op_slice(struct ce *c, qir_tensor **in, size_t nin,
		    qir_tensor **out)
{
	int64_t *v[4] = { 0 }, st[MAX_RANK];
	size_t cnt[4] = { 0 }, i;
	struct walk w = { 0 };
	int r, rc = -1, done[MAX_RANK] = { 0 }, k;
	const char *names[4] = { "starts", "ends", "axes", "steps" };

	if (need_in(c, in, nin, 1) < 0)
		return -1;
	r = in[0]->rank;
	if (r > MAX_RANK)
		return fail_node(c, QIR_EUNSUPPORTED, "rank too large");
	for (k = 0; k < 4; k++) {
		if (c->opset >= 10) {
			if ((size_t)k + 1 < nin && in[k + 1] &&
			    read_ints(c, in[k + 1], names[k], &v[k], &cnt[k]) < 0)
				goto out;
		} else if (k < 3) {
			qir_attr *a = qir_node_attr(c->node, names[k]);

			if (a && a->type == QIR_ATTR_INTS) {
				v[k] = malloc((a->n ? a->n : 1) * sizeof(int64_t));
				if (!v[k]) {
					fail_node(c, QIR_ENOMEM, "out of memory");
					goto out;
				}
				memcpy(v[k], a->ints, a->n * sizeof(int64_t));
				cnt[k] = a->n;
			}
		}
	}
	if (!v[0] || !v[1] || cnt[0] != cnt[1] || (v[2] && cnt[2] != cnt[0]) ||
	    (v[3] && cnt[3] != cnt[0])) {
		fail_node(c, QIR_EINVALID, "starts/ends/axes/steps do not match");
		goto out;
	}
	strides_of(in[0], st);
	w.rank = r;
	for (k = 0; k < r; k++) {
		w.dims[k] = in[0]->dims[k];
		w.stride[k] = st[k];
	}
	for (i = 0; i < cnt[0]; i++) {
		int64_t ax = v[2] ? v[2][i] : (int64_t)i, step = v[3] ? v[3][i] : 1;
		int64_t dim, s, e, n;

		if (norm_axis(c, &ax, r) < 0)
			goto out;
		if (done[ax]++ || step == 0) {
			fail_node(c, QIR_EINVALID, "repeated axis or zero step");
			goto out;
		}
		dim = in[0]->dims[ax];
		s = v[0][i];
		e = v[1][i];
		if (s < 0)
			s += dim;
		if (e < 0)
			e += dim;
		if (step > 0) {
			s = clampi(s, 0, dim);
			e = clampi(e, 0, dim);
			n = e > s ? (e - s + step - 1) / step : 0;
		} else {
			s = clampi(s, 0, dim - 1);
			e = clampi(e, -1, dim - 1);
			n = s > e ? (s - e + (-step) - 1) / (-step) : 0;
		}
		w.dims[ax] = n;
		w.stride[ax] = st[ax] * step;
		w.base += n ? s * st[ax] : 0;
	}
	rc = finish_walk(c, in[0], &w, out);
out:
	for (k = 0; k < 4; k++)
		free(v[k]);
	return rc;
}

static int op_gather(struct ce *c, qir_tensor **in, size_t nin,
		     qir_tensor **out)
{
	int64_t axis = qir_node_attr_int(c->node, "axis", 0);
	int64_t dims[MAX_RANK], *idx;
	uint64_t outer = 1, inner = 1, o;
	size_t n, i, es;
	const uint8_t *src;
	qir_tensor *x, *t;
	uint8_t *dst;
	int r, q, d, rc = -1;

	if (need_in(c, in, nin, 2) < 0)
		return -1;
	x = in[0];
	r = x->rank;
	q = in[1]->rank;
	es = esize(x->dtype);
	if (!es || r + q > MAX_RANK)
		return fail_node(c, QIR_EUNSUPPORTED, "rank or element type");
	if (norm_axis(c, &axis, r) < 0 ||
	    read_ints(c, in[1], "indices", &idx, &n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (idx[i] < -x->dims[axis] || idx[i] >= x->dims[axis]) {
			qir_fail(c->err, QIR_EINVALID,
				 "cannot fold node %s: index %" PRId64 " out of range",
				 lbl(c), idx[i]);
			goto out;
		}
		if (idx[i] < 0)
			idx[i] += x->dims[axis];
	}
	for (d = 0; d < axis; d++) {
		dims[d] = x->dims[d];
		outer *= x->dims[d];
	}
	memcpy(dims + axis, in[1]->dims, q * sizeof(int64_t));
	for (d = axis + 1; d < r; d++) {
		dims[d - 1 + q] = x->dims[d];
		inner *= x->dims[d];
	}
	src = bytes(c, x);
	if (!src || !(t = new_out(c, x->dtype, r - 1 + q, dims)))
		goto out;
	dst = wdata(t);
	for (o = 0; o < outer; o++)
		for (i = 0; i < n; i++)
			memcpy(dst + (o * n + i) * inner * es,
			       src + (o * x->dims[axis] + idx[i]) * inner * es,
			       inner * es);
	*out = t;
	rc = 0;
out:
	free(idx);
	return rc;
}

/* ---- arithmetic ---------------------------------------------------- */

enum bop { ADD, SUB, MUL, DIV, POW };	/* POW: float types only */

static int op_binary(struct ce *c, qir_tensor **in, size_t nin,
		     qir_tensor **out, enum bop op)
{
	int64_t dims[MAX_RANK], sa[MAX_RANK] = { 0 }, sb[MAX_RANK] = { 0 };
	int64_t idx[MAX_RANK] = { 0 }, oa = 0, ob = 0;
	const uint8_t *a, *b;
	qir_tensor *x, *y, *t;
	uint8_t *dst;
	uint64_t k, total;
	int r, i, dt;

	if (need_in(c, in, nin, 2) < 0)
		return -1;
	x = in[0];
	y = in[1];
	dt = x->dtype;
	if (y->dtype != dt)
		return fail_node(c, QIR_EINVALID, "input types differ");
	if ((!is_fp(dt) && !is_int(dt)) || (op == POW && !is_fp(dt)))
		return qir_fail(c->err, QIR_EUNSUPPORTED,
				"cannot fold node %s: type %s not supported",
				lbl(c), qir_dtype_name(dt) ? qir_dtype_name(dt) : "?");
	r = x->rank > y->rank ? x->rank : y->rank;
	if (r > MAX_RANK)
		return fail_node(c, QIR_EUNSUPPORTED, "rank too large");
	/* numpy broadcasting: align on the right, 1 stretches. */
	for (i = 0; i < r; i++) {
		int ix = i - (r - x->rank), iy = i - (r - y->rank);
		int64_t dx = ix >= 0 ? x->dims[ix] : 1;
		int64_t dy = iy >= 0 ? y->dims[iy] : 1;

		if (dx != dy && dx != 1 && dy != 1)
			return fail_node(c, QIR_EINVALID,
					 "shapes do not broadcast");
		dims[i] = dx == 1 ? dy : dx;
	}
	for (i = r - 1, oa = 1, ob = 1; i >= 0; i--) {
		int ix = i - (r - x->rank), iy = i - (r - y->rank);
		int64_t dx = ix >= 0 ? x->dims[ix] : 1;
		int64_t dy = iy >= 0 ? y->dims[iy] : 1;

		sa[i] = dx == 1 ? 0 : oa;
		sb[i] = dy == 1 ? 0 : ob;
		oa *= dx;
		ob *= dy;
	}
	a = bytes(c, x);
	b = bytes(c, y);
	if (!a || !b || !(t = new_out(c, dt, r, dims)))
		return -1;
	dst = wdata(t);
	total = qir_tensor_numel(t);
	oa = ob = 0;
	for (k = 0; k < total; k++) {
		if (dt == QIR_DOUBLE || is_fp(dt)) {
			double p = ld_f(a, dt, oa), q = ld_f(b, dt, ob), res;

			if (dt != QIR_DOUBLE) {
				float pf = (float)p, qf = (float)q;

				res = op == ADD ? pf + qf :
				      op == SUB ? pf - qf :
				      op == MUL ? pf * qf :
				      op == DIV ? pf / qf : powf(pf, qf);
			} else {
				res = op == ADD ? p + q : op == SUB ? p - q :
				      op == MUL ? p * q : op == DIV ? p / q :
				      pow(p, q);
			}
			st_f(dst, dt, k, res);
		} else {
			int64_t p = ld_i(a, dt, oa), q = ld_i(b, dt, ob), res;

			if (op == DIV && q == 0) {
				qir_tensor_free(t);
				return fail_node(c, QIR_EINVALID,
						 "integer division by zero");
			}
			if (op == ADD)
				res = (int64_t)((uint64_t)p + (uint64_t)q);
			else if (op == SUB)
				res = (int64_t)((uint64_t)p - (uint64_t)q);
			else if (op == MUL)
				res = (int64_t)((uint64_t)p * (uint64_t)q);
			else if (p == INT64_MIN && q == -1)
				res = INT64_MIN;
			else
				res = p / q;	/* truncates toward zero */
			st_i(dst, dt, k, res);
		}
		for (i = r - 1; i >= 0; i--) {
			oa += sa[i];
			ob += sb[i];
			if (++idx[i] < dims[i])
				break;
			oa -= sa[i] * idx[i];
			ob -= sb[i] * idx[i];
			idx[i] = 0;
		}
	}
	*out = t;
	return 0;
}

static int op_matmul(struct ce *c, qir_tensor **in, size_t nin,
		     qir_tensor **out)
{
	int64_t ad[MAX_RANK], bd[MAX_RANK], od[MAX_RANK];
	int64_t bdims[MAX_RANK], M, K, N, K2;
	int ra, rb, rbatch, i, dt, ro = 0;
	const uint8_t *a, *b;
	qir_tensor *x, *y, *t;
	uint64_t nb = 1, bi;
	uint8_t *dst;

	if (need_in(c, in, nin, 2) < 0)
		return -1;
	x = in[0];
	y = in[1];
	dt = x->dtype;
	if (y->dtype != dt || !(is_fp(dt) || is_int(dt)))
		return fail_node(c, QIR_EUNSUPPORTED, "input types");
	if (x->rank < 1 || y->rank < 1 || x->rank > MAX_RANK - 1 ||
	    y->rank > MAX_RANK - 1)
		return fail_node(c, QIR_EINVALID, "MatMul needs rank >= 1");
	/* 1-D operands become matrices, the added dim dropped after. */
	ra = x->rank == 1 ? 2 : x->rank;
	rb = y->rank == 1 ? 2 : y->rank;
	if (x->rank == 1) {
		ad[0] = 1;
		ad[1] = x->dims[0];
	} else {
		memcpy(ad, x->dims, ra * sizeof(int64_t));
	}
	if (y->rank == 1) {
		bd[0] = y->dims[0];
		bd[1] = 1;
	} else {
		memcpy(bd, y->dims, rb * sizeof(int64_t));
	}
	M = ad[ra - 2];
	K = ad[ra - 1];
	K2 = bd[rb - 2];
	N = bd[rb - 1];
	if (K != K2)
		return fail_node(c, QIR_EINVALID, "inner dimensions differ");
	rbatch = (ra > rb ? ra : rb) - 2;
	for (i = 0; i < rbatch; i++) {
		int ia = i - (rbatch - (ra - 2)), ib = i - (rbatch - (rb - 2));
		int64_t da = ia >= 0 ? ad[ia] : 1, db = ib >= 0 ? bd[ib] : 1;

		if (da != db && da != 1 && db != 1)
			return fail_node(c, QIR_EINVALID,
					 "batch dims do not broadcast");
		bdims[i] = da == 1 ? db : da;
		od[ro++] = bdims[i];
		nb *= bdims[i];
	}
	if (x->rank != 1)
		od[ro++] = M;
	if (y->rank != 1)
		od[ro++] = N;
	a = bytes(c, x);
	b = bytes(c, y);
	if (!a || !b || !(t = new_out(c, dt, ro, od)))
		return -1;
	dst = wdata(t);
	for (bi = 0; bi < nb; bi++) {
		/* Batch offsets of each operand (broadcast dims stay 0). */
		uint64_t rem = bi, offa = 0, offb = 0, sa = 1, sb = 1;
		int64_t m, n, k;

		for (i = rbatch - 1; i >= 0; i--) {
			int ia = i - (rbatch - (ra - 2)), ib = i - (rbatch - (rb - 2));
			uint64_t pos = rem % bdims[i];

			rem /= bdims[i];
			if (ia >= 0) {
				offa += (ad[ia] == 1 ? 0 : pos) * sa;
				sa *= ad[ia];
			}
			if (ib >= 0) {
				offb += (bd[ib] == 1 ? 0 : pos) * sb;
				sb *= bd[ib];
			}
		}
		offa *= M * K;
		offb *= K * N;
		for (m = 0; m < M; m++) {
			for (n = 0; n < N; n++) {
				uint64_t o = bi * M * N + m * N + n;

				if (dt == QIR_DOUBLE) {
					double s = 0;

					for (k = 0; k < K; k++)
						s += ld_f(a, dt, offa + m * K + k) *
						     ld_f(b, dt, offb + k * N + n);
					st_f(dst, dt, o, s);
				} else if (is_fp(dt)) {
					float s = 0;

					for (k = 0; k < K; k++)
						s += (float)ld_f(a, dt, offa + m * K + k) *
						     (float)ld_f(b, dt, offb + k * N + n);
					st_f(dst, dt, o, s);
				} else {
					uint64_t s = 0;

					for (k = 0; k < K; k++)
						s += (uint64_t)ld_i(a, dt, offa + m * K + k) *
						     (uint64_t)ld_i(b, dt, offb + k * N + n);
					st_i(dst, dt, o, (int64_t)s);
				}
			}
		}
	}
	*out = t;
	return 0;
}

static int op_cast(struct ce *c, qir_tensor **in, size_t nin,
		   qir_tensor **out)
{
	int to = qir_node_attr_dtype(c->node, "to");
	const uint8_t *src;
	qir_tensor *x, *t;
	uint64_t k, n;
	uint8_t *dst;

	if (need_in(c, in, nin, 1) < 0)
		return -1;
	x = in[0];
	if (!numeric(x->dtype) || !numeric(to))
		return qir_fail(c->err, QIR_EUNSUPPORTED,
				"cannot fold node %s: Cast from %s to %s not supported",
				lbl(c), qir_dtype_name(x->dtype) ? qir_dtype_name(x->dtype) : "?",
				qir_dtype_name(to) ? qir_dtype_name(to) : "?");
	src = bytes(c, x);
	if (!src || !(t = new_out(c, to, x->rank, x->dims)))
		return -1;
	dst = wdata(t);
	n = qir_tensor_numel(x);
	for (k = 0; k < n; k++) {
		if (is_fp(x->dtype)) {
			double f = ld_f(src, x->dtype, k);

			if (is_fp(to))
				st_f(dst, to, k, f);
			else if (to == QIR_BOOL)
				st_i(dst, to, k, f != 0);
			else
				st_i(dst, to, k, f_to_i(f));
		} else {
			int64_t i = ld_i(src, x->dtype, k);

			if (is_fp(to))
				st_f(dst, to, k, (double)i);
			else
				st_i(dst, to, k, i);
		}
	}
	*out = t;
	return 0;
}

static int emit_ints(struct ce *c, const int64_t *v, int64_t n,
		     qir_tensor **out)
{
	qir_tensor *t = new_out(c, QIR_INT64, 1, &n);

	if (!t)
		return -1;
	if (n)
		memcpy(wdata(t), v, n * sizeof(int64_t));
	*out = t;
	return 0;
}

static int shape_slice(struct ce *c, const int64_t *dims, int r,
		       qir_tensor **out)
{
	int64_t s = 0, e = r;

	if (c->opset >= 15) {
		s = qir_node_attr_int(c->node, "start", 0);
		e = qir_node_attr_int(c->node, "end", r);
		if (s < 0)
			s += r;
		if (e < 0)
			e += r;
		s = clampi(s, 0, r);
		e = clampi(e, 0, r);
	}
	return emit_ints(c, dims + s, e > s ? e - s : 0, out);
}

static int op_constant_of_shape(struct ce *c, qir_tensor **in, size_t nin,
				qir_tensor **out)
{
	qir_attr *a = qir_node_attr(c->node, "value");
	static const float zero;
	const uint8_t *fill = (const uint8_t *)&zero;
	int dtype = QIR_FLOAT, rc = -1;
	int64_t *shape;
	size_t n, es = 4;
	uint64_t k, total;
	qir_tensor *t;
	uint8_t *dst;

	if (need_in(c, in, nin, 1) < 0)
		return -1;
	if (a) {
		if (a->type != QIR_ATTR_TENSOR || !a->t ||
		    qir_tensor_numel(a->t) != 1 || !esize(a->t->dtype))
			return fail_node(c, QIR_EUNSUPPORTED,
					 "value is not a one-element tensor");
		dtype = a->t->dtype;
		es = esize(dtype);
		if (!(fill = bytes(c, a->t)))
			return -1;
	}
	if (read_ints(c, in[0], "shape", &shape, &n) < 0)
		return -1;
	if (n > MAX_RANK) {
		fail_node(c, QIR_EUNSUPPORTED, "rank too large");
		goto out;
	}
	if (!(t = new_out(c, dtype, (int)n, shape)))
		goto out;
	dst = wdata(t);
	total = qir_tensor_numel(t);
	for (k = 0; k < total; k++)
		memcpy(dst + k * es, fill, es);
	*out = t;
	rc = 0;
out:
	free(shape);
	return rc;
}

/* ---- driver -------------------------------------------------------- */

static int eval(struct ce *c, qir_value *v, qir_tensor **out);

static int memo_put(struct ce *c, qir_value *v, qir_tensor *t, int owned)
{
	struct memo m = { v, t, owned };

	if (ir_array_push(&c->memo, &c->nmemo, sizeof(m), &m) < 0) {
		if (owned)
			qir_tensor_free(t);
		return qir_fail(c->err, QIR_ENOMEM, "out of memory folding '%s'",
				v->name);
	}
	return 0;
}

/* Shape from the value's static type when its data is not constant. */
static int static_shape(qir_value *v, int64_t *dims)
{
	int i;

	if (v->rank < 0 || v->rank > MAX_RANK)
		return -1;
	for (i = 0; i < v->rank; i++) {
		if (v->dims[i].value < 0)
			return -1;
		dims[i] = v->dims[i].value;
	}
	return v->rank;
}

static int op_shape(struct ce *c, qir_node *n, qir_tensor **out)
{
	int64_t dims[MAX_RANK];
	qir_tensor *x;
	int r;

	if (n->ninputs < 1 || !n->inputs[0])
		return fail_node(c, QIR_EINVALID, "input 0 missing");
	r = static_shape(n->inputs[0], dims);
	if (r >= 0)
		return shape_slice(c, dims, r, out);
	if (eval(c, n->inputs[0], &x) < 0)
		return -1;
	c->node = n;
	if (x->rank > MAX_RANK)
		return fail_node(c, QIR_EUNSUPPORTED, "rank too large");
	return shape_slice(c, x->dims, x->rank, out);
}

static int run_op(struct ce *c, qir_node *n, qir_tensor **in, size_t nin,
		  qir_tensor **out)
{
	const char *op = n->op_type;

	c->node = n;
	if (!strcmp(op, "Identity"))
		return op_identity(c, in, nin, out);
	if (!strcmp(op, "Reshape"))
		return op_reshape(c, in, nin, out);
	if (!strcmp(op, "Transpose"))
		return op_transpose(c, in, nin, out);
	if (!strcmp(op, "MatMul"))
		return op_matmul(c, in, nin, out);
	if (!strcmp(op, "Add"))
		return op_binary(c, in, nin, out, ADD);
	if (!strcmp(op, "Sub"))
		return op_binary(c, in, nin, out, SUB);
	if (!strcmp(op, "Mul"))
		return op_binary(c, in, nin, out, MUL);
	if (!strcmp(op, "Div"))
		return op_binary(c, in, nin, out, DIV);
	/* torch writes 1/sqrt(head size) as Pow(d, 0.5) of constants */
	if (!strcmp(op, "Pow"))
		return op_binary(c, in, nin, out, POW);
	if (!strcmp(op, "Cast"))
		return op_cast(c, in, nin, out);
	if (!strcmp(op, "Squeeze"))
		return op_squeeze(c, in, nin, out);
	if (!strcmp(op, "Unsqueeze"))
		return op_unsqueeze(c, in, nin, out);
	if (!strcmp(op, "Concat"))
		return op_concat(c, in, nin, out);
	if (!strcmp(op, "Slice"))
		return op_slice(c, in, nin, out);
	if (!strcmp(op, "Gather"))
		return op_gather(c, in, nin, out);
	if (!strcmp(op, "ConstantOfShape"))
		return op_constant_of_shape(c, in, nin, out);
	return qir_fail(c->err, QIR_EUNSUPPORTED,
			"cannot fold node %s: op '%s' is not supported",
			lbl(c), op);
}

static int is_default_domain(const qir_node *n)
{
	return !n->domain[0] || !strcmp(n->domain, "ai.onnx");
}

static int eval_node(struct ce *c, qir_value *v, qir_tensor **out)
{
	qir_node *n = v->producer;
	qir_tensor **in;
	size_t i;
	int rc;

	c->node = n;
	if (!is_default_domain(n))
		return qir_fail(c->err, QIR_EUNSUPPORTED,
				"cannot fold node %s: domain '%s' is not supported",
				lbl(c), n->domain);
	if (v->producer_index != 0)
		return qir_fail(c->err, QIR_EUNSUPPORTED,
				"cannot fold node %s: only first outputs fold",
				lbl(c));
	if (!strcmp(n->op_type, "Shape"))
		return op_shape(c, n, out);
	if (!strcmp(n->op_type, "Constant"))
		return qir_fail(c->err, QIR_EUNSUPPORTED,
				"cannot fold node %s: Constant holds no tensor",
				lbl(c));
	in = calloc(n->ninputs ? n->ninputs : 1, sizeof(*in));
	if (!in)
		return qir_fail(c->err, QIR_ENOMEM, "out of memory");
	for (i = 0; i < n->ninputs; i++) {
		if (n->inputs[i] && eval(c, n->inputs[i], &in[i]) < 0) {
			free(in);
			return -1;
		}
	}
	rc = run_op(c, n, in, n->ninputs, out);
	free(in);
	return rc;
}

static int eval(struct ce *c, qir_value *v, qir_tensor **out)
{
	qir_tensor *t;
	size_t i;
	int rc;

	for (i = 0; i < c->nmemo; i++)
		if (c->memo[i].v == v) {
			*out = c->memo[i].t;
			return 0;
		}
	if ((t = qir_value_const(v))) {
		*out = t;
		return memo_put(c, v, t, 0);
	}
	if (!v->producer)
		return qir_fail(c->err, QIR_EUNSUPPORTED,
				"value '%s' is not a constant (%s)", v->name,
				v->is_input ? "graph input" : "no producer");
	if (++c->depth > MAX_DEPTH)
		return qir_fail(c->err, QIR_EUNSUPPORTED,
				"value '%s': constant chain deeper than %d",
				v->name, MAX_DEPTH);
	rc = eval_node(c, v, &t);
	c->depth--;
	if (rc < 0)
		return -1;
	*out = t;
	return memo_put(c, v, t, 1);
}

int qir_const_eval(qir_value *v, uint64_t max_bytes, qir_tensor **out,
		   qir_error *err)
{
	struct ce c = { .max_bytes = max_bytes, .err = err };
	qir_tensor *t;
	size_t i;
	int rc;

	*out = NULL;
	c.opset = qir_model_opset(v->graph->model, "");
	rc = eval(&c, v, &t);
	if (rc == 0) {
		if (max_bytes && t->nbytes > max_bytes)
			rc = qir_fail(err, QIR_EUNSUPPORTED,
				      "value '%s': %" PRIu64 " bytes exceed the limit of %" PRIu64,
				      v->name, t->nbytes, max_bytes);
		else if (!(*out = qir_tensor_clone(t, err)))
			rc = -1;
	}
	if (*out && strcmp((*out)->name, v->name) != 0) {
		char *nm = strdup(v->name);

		if (nm) {
			free((*out)->name);
			(*out)->name = nm;
		}
	}
	for (i = 0; i < c.nmemo; i++)
		if (c.memo[i].owned)
			qir_tensor_free(c.memo[i].t);
	free(c.memo);
	return rc;
}

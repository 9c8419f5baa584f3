/*
 * ir/infer/shape_ops.c - operators that compute or rearrange a shape:
 * Shape, Size, Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Expand,
 * Tile, Constant, ConstantOfShape, Range. Shape's result is folded when
 * every dim it reads is known, so a Shape -> Gather -> Unsqueeze ->
 * Concat -> Reshape chain (torch's dynamic reshape) still gives the
 * static shape.
 */
#include <string.h>
#include "infer/infer.h"

static int fold_out(struct iri_ctx *c, const qir_node *n, const int64_t *v,
		    const char *const *names, size_t len)
{
	return n->noutputs ?
	       iri_fold_set_named(c, n->outputs[0], v, names, len) : 0;
}

/* The length of shape vector input i when its contents are not known
 * but its own shape is: [k], k static (torch's expand(B, -1, -1) builds
 * Where(Equal(size, -1), ones, size) from a dynamic B: no contents, a
 * length of 3). -1 otherwise, or when k is beyond IRI_MAXRANK. */
static int shape_len(const qir_node *n, size_t i)
{
	iri_shape s;

	iri_input(n, i, &s);
	if (s.rank != 1 || s.d[0] < 0 || s.d[0] > IRI_MAXRANK)
		return -1;
	return (int)s.d[0];
}

int iri_shape_op(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		 size_t nout)
{
	iri_shape in;
	int64_t start, end;

	(void)nout;
	iri_input(n, 0, &in);
	out[0].dtype = QIR_INT64;
	if (in.rank < 0)
		return 0;
	start = qir_node_attr_int(n, "start", 0);
	end = qir_node_attr_int(n, "end", in.rank);
	start = start < 0 ? start + in.rank : start;
	end = end < 0 ? end + in.rank : end;
	start = start < 0 ? 0 : start > in.rank ? in.rank : start;
	end = end < 0 ? 0 : end > in.rank ? in.rank : end;
	if (end < start)
		end = start;
	iri_rank_only(&out[0], 1);
	out[0].d[0] = end - start;
	for (int64_t k = start; k < end; k++)
		in.d[k] = in.d[k] < 0 ? IRI_UNKNOWN : in.d[k];
	return fold_out(c, n, in.d + start, in.p + start, end - start);
}

int iri_size(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	     size_t nout)
{
	(void)c;
	(void)n;
	(void)nout;
	out[0].dtype = QIR_INT64;
	out[0].rank = 0;
	return 0;
}

/* Reshape: 0 copies the input dim (unless allowzero), -1 takes what is
 * left when every other dim is known. */
/* Reshape keeps the row-major order of the elements. */
static int64_t reshape_src(const void *arg, const iri_shape *in,
			   const iri_shape *out, const int64_t *idx)
{
	(void)arg;
	(void)in;
	return iri_flat(out, idx);
}

int iri_reshape(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		size_t nout)
{
	int64_t sh[IRI_MAXRANK], known = 1, total = 1;
	const char *names[IRI_MAXRANK];
	iri_shape in;
	size_t len, k;
	int minus = -1;

	(void)nout;
	iri_input(n, 0, &in);
	out[0].dtype = in.dtype;
	if (!iri_shape_ints_named(c, n, 1, sh, names, IRI_MAXRANK, &len)) {
		if (shape_len(n, 1) >= 0)	/* the rank, without dims */
			iri_rank_only(&out[0], shape_len(n, 1));
		return 0;
	}
	iri_rank_only(&out[0], (int)len);
	for (k = 0; k < len; k++) {
		if (sh[k] == IRI_UNKNOWN) {
			known = 0;	/* a dynamic dim: unknown here too */
			out[0].p[k] = names[k];
			continue;
		}
		if (sh[k] == 0 && !qir_node_attr_int(n, "allowzero", 0)) {
			if (in.rank < 0 || (int)k >= in.rank)
				return 0;	/* rank only */
			out[0].d[k] = in.d[k];
			out[0].p[k] = in.p[k];
		} else if (sh[k] == -1) {
			minus = (int)k;
			continue;
		} else if (sh[k] < 0) {
			out[0].rank = -1;
			return 0;
		} else {
			out[0].d[k] = sh[k];
		}
		known = out[0].d[k] < 0 ? 0 : known > 0 ?
			iri_mul(known, out[0].d[k]) : known;
	}
	if (minus >= 0 && iri_static(&in) && known) {
		for (int i = 0; i < in.rank; i++)
			total = iri_mul(total, in.d[i]);
		if (known > 0 && total >= 0 && total % known == 0)
			out[0].d[minus] = total / known;
	}
	return iri_fold_move(c, n, &in, &out[0], reshape_src, NULL);
}

static int64_t dims_product(const iri_shape *s, int from, int to)
{
	int64_t p = 1;

	for (int i = from; i < to; i++) {
		if (s->d[i] < 0)
			return -1;
		p = iri_mul(p, s->d[i]);
	}
	return p;
}

int iri_flatten(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		size_t nout)
{
	iri_shape in;
	int axis;

	(void)c;
	(void)nout;
	iri_input(n, 0, &in);
	out[0].dtype = in.dtype;
	if (in.rank < 0)
		return 0;
	{
		/* [-r, r]: -1 is r - 1, r itself keeps every dim in front */
		int64_t a = qir_node_attr_int(n, "axis", 1);

		a = a < 0 ? a + in.rank : a;
		if (a < 0 || a > in.rank)
			return 0;
		axis = (int)a;
	}
	iri_rank_only(&out[0], 2);
	out[0].d[0] = dims_product(&in, 0, axis);
	out[0].d[1] = dims_product(&in, axis, in.rank);
	return 0;
}

/* Output dim k is input dim perm[k]. */
static int64_t transpose_src(const void *arg, const iri_shape *in,
			     const iri_shape *out, const int64_t *idx)
{
	const int *perm = arg;
	int64_t at[IRI_MAXRANK];

	for (int k = 0; k < out->rank; k++)
		at[perm[k]] = idx[k];
	return iri_flat(in, at);
}

int iri_transpose(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		  size_t nout)
{
	int64_t perm[IRI_MAXRANK];
	int axes[IRI_MAXRANK], seen[IRI_MAXRANK] = { 0 };
	iri_shape in;
	size_t len;
	int present;

	(void)nout;
	iri_input(n, 0, &in);
	out[0].dtype = in.dtype;
	if (in.rank < 0)
		return 0;
	len = iri_attr_ints(n, "perm", perm, IRI_MAXRANK, &present);
	if (!present)
		for (len = 0; len < (size_t)in.rank; len++)
			perm[len] = in.rank - 1 - (int64_t)len;
	if ((int)len != in.rank)
		return 0;
	iri_rank_only(&out[0], in.rank);
	for (int k = 0; k < in.rank; k++) {
		int a = iri_axis(perm[k], in.rank);

		if (a < 0 || seen[a]++) {
			out[0].rank = -1;
			return 0;
		}
		axes[k] = a;
		out[0].d[k] = in.d[a];
		out[0].p[k] = in.p[a];
	}
	return iri_fold_move(c, n, &in, &out[0], transpose_src, axes);
}

/* Axes from input 1 (opset 13+) or the "axes" attribute; 1 when known
 * (absent counts as known, with *len 0 and *given 0). */
static int axes_of(struct iri_ctx *c, const qir_node *n, int64_t *axes,
		   size_t *len, int *given)
{
	int present;

	*given = 1;
	if (n->ninputs > 1 && n->inputs[1])
		return iri_const_ints(c, n, 1, axes, IRI_MAXRANK, len);
	*len = iri_attr_ints(n, "axes", axes, IRI_MAXRANK, &present);
	*given = present;
	return 1;
}

int iri_squeeze(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		size_t nout)
{
	int64_t axes[IRI_MAXRANK];
	char drop[IRI_MAXRANK] = { 0 };
	iri_shape in;
	size_t len;
	int given, r = 0;

	(void)nout;
	iri_input(n, 0, &in);
	out[0].dtype = in.dtype;
	if (in.rank < 0 || !axes_of(c, n, axes, &len, &given))
		return 0;
	for (size_t k = 0; k < len; k++) {
		int a = iri_axis(axes[k], in.rank);

		if (a < 0)
			return 0;
		drop[a] = 1;
	}
	if (!given)
		for (int k = 0; k < in.rank; k++) {
			if (in.d[k] < 0)
				return 0;	/* which go is unknown */
			drop[k] = in.d[k] == 1;
		}
	out[0].rank = 0;
	for (int k = 0; k < in.rank; k++)
		if (!drop[k]) {
			out[0].d[r] = in.d[k];
			out[0].p[r++] = in.p[k];
		}
	out[0].rank = r;
	return 0;
}

int iri_unsqueeze(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		  size_t nout)
{
	int64_t axes[IRI_MAXRANK], v[IRI_MAXFOLD];
	const char *names[IRI_MAXFOLD];
	char add[IRI_MAXRANK] = { 0 };
	iri_shape in;
	size_t len, vl;
	int given, r, j = 0;

	(void)nout;
	iri_input(n, 0, &in);
	out[0].dtype = in.dtype;
	if (in.rank < 0 || !axes_of(c, n, axes, &len, &given))
		return 0;
	r = in.rank + (int)len;
	if (r > IRI_MAXRANK)
		return 0;
	for (size_t k = 0; k < len; k++) {
		int a = iri_axis(axes[k], r);

		if (a < 0 || add[a])
			return 0;
		add[a] = 1;
	}
	for (int k = 0; k < r; k++) {
		out[0].d[k] = add[k] ? 1 : in.d[j];
		out[0].p[k] = add[k] ? NULL : in.p[j++];
	}
	out[0].rank = r;
	if (in.rank <= 1 &&
	    iri_shape_ints_named(c, n, 0, v, names, IRI_MAXFOLD, &vl))
		return fold_out(c, n, v, names, vl);
	return 0;
}

/* Expand: input 0 broadcast against the constant shape input 1. */
int iri_expand(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	       size_t nout)
{
	int64_t sh[IRI_MAXRANK];
	iri_shape in;
	size_t len;
	int r;

	(void)nout;
	iri_input(n, 0, &in);
	out[0].dtype = in.dtype;
	if (in.rank < 0)
		return 0;
	if (!iri_shape_ints(c, n, 1, sh, IRI_MAXRANK, &len)) {
		int k = shape_len(n, 1);

		if (k < 0)
			return 0;
		/* Sizes unknown: the rank still broadcasts, and an input
		 * dim above 1 is the output's (a size there is 1 or it). */
		len = (size_t)k;
		for (int j = 0; j < k; j++)
			sh[j] = IRI_UNKNOWN;
	}
	r = in.rank > (int)len ? in.rank : (int)len;
	iri_rank_only(&out[0], r);
	for (int k = 0; k < r; k++) {
		int ia = k - (r - in.rank), ib = k - (r - (int)len);
		int64_t a = ia >= 0 ? in.d[ia] : 1, b = ib >= 0 ? sh[ib] : 1;

		if (b == IRI_UNKNOWN) {
			out[0].d[k] = a > 1 ? a : -1;
		} else if (b == 1) {
			out[0].d[k] = a;
			out[0].p[k] = ia >= 0 ? in.p[ia] : NULL;
		} else if (a == 1 || a == b || a < 0) {
			out[0].d[k] = b;
		} else {
			out[0].rank = -1;
			return 0;
		}
	}
	return 0;
}

int iri_tile(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	     size_t nout)
{
	int64_t rep[IRI_MAXRANK];
	iri_shape in;
	size_t len;

	(void)nout;
	iri_input(n, 0, &in);
	out[0].dtype = in.dtype;
	if (in.rank < 0) {
		/* repeats has one entry per axis of the input */
		if (shape_len(n, 1) >= 0)
			iri_rank_only(&out[0], shape_len(n, 1));
		return 0;
	}
	iri_rank_only(&out[0], in.rank);
	if (!iri_const_ints(c, n, 1, rep, IRI_MAXRANK, &len) ||
	    (int)len != in.rank)
		return 0;
	for (int k = 0; k < in.rank; k++)
		out[0].d[k] = iri_mul(in.d[k], rep[k]);
	return 0;
}

int iri_constant(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		 size_t nout)
{
	qir_tensor *t = n->noutputs ? qir_value_const(n->outputs[0]) : NULL;

	(void)c;
	(void)nout;
	if (!t || t->rank > IRI_MAXRANK)
		return 0;
	out[0].dtype = t->dtype;
	iri_rank_only(&out[0], t->rank);
	for (int k = 0; k < t->rank; k++)
		out[0].d[k] = t->dims[k];
	return 0;
}

int iri_constant_of_shape(struct iri_ctx *c, const qir_node *n,
			  iri_shape *out, size_t nout)
{
	qir_attr *a = qir_node_attr(n, "value");
	int64_t sh[IRI_MAXRANK], v[IRI_MAXFOLD];
	size_t len;

	(void)nout;
	out[0].dtype = a && a->type == QIR_ATTR_TENSOR && a->t ? a->t->dtype
							     : QIR_FLOAT;
	if (!iri_const_ints(c, n, 0, sh, IRI_MAXRANK, &len)) {
		if (shape_len(n, 0) >= 0)	/* the rank, without dims */
			iri_rank_only(&out[0], shape_len(n, 0));
		return 0;
	}
	iri_rank_only(&out[0], (int)len);
	for (size_t k = 0; k < len; k++)
		out[0].d[k] = sh[k] >= 0 ? sh[k] : -1;
	/* ConstantOfShape([k]) of an int: a shape vector torch builds */
	if (len == 1 && sh[0] >= 0 && sh[0] <= IRI_MAXFOLD &&
	    out[0].dtype == QIR_INT64 && a && a->t &&
	    qir_tensor_get_i64(a->t, 0, &v[0], NULL) == 0) {
		for (int64_t k = 1; k < sh[0]; k++)
			v[k] = v[0];
		return fold_out(c, n, v, NULL, (size_t)sh[0]);
	}
	return 0;
}

int iri_range(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	      size_t nout)
{
	int64_t a[1], b[1], s[1];
	size_t l1, l2, l3;

	(void)nout;
	out[0].dtype = iri_input_dtype(n, 0);
	iri_rank_only(&out[0], 1);
	if (iri_const_ints(c, n, 0, a, 1, &l1) && l1 == 1 &&
	    iri_const_ints(c, n, 1, b, 1, &l2) && l2 == 1 &&
	    iri_const_ints(c, n, 2, s, 1, &l3) && l3 == 1 && s[0] != 0 &&
	    a[0] > INT32_MIN && a[0] < INT32_MAX && b[0] > INT32_MIN &&
	    b[0] < INT32_MAX && s[0] > INT32_MIN && s[0] < INT32_MAX) {
		/* ceil((limit - start) / delta), at least 0; operands kept
		 * within int32 so nothing overflows */
		int64_t span = b[0] - a[0], num = span / s[0];

		if (span % s[0] != 0 && (span < 0) == (s[0] < 0))
			num++;
		out[0].d[0] = num > 0 ? num : 0;
	}
	return 0;
}

/* DepthToSpace [N, C, H, W] -> [N, C/b², H b, W b]; SpaceToDepth the
 * other way, [N, C b², H/b, W/b]. A dim that does not divide stays
 * unknown (the model would fail at run time). */
int iri_depth_space(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		    size_t nout)
{
	int64_t b = qir_node_attr_int(n, "blocksize", 0), bb;
	int to_space = qir_node_is(n, "DepthToSpace");
	iri_shape in;

	(void)c;
	(void)nout;
	iri_input(n, 0, &in);
	out[0].dtype = in.dtype;
	if (in.rank != 4 || b < 1 || (bb = iri_mul(b, b)) < 0)
		return 0;
	iri_copy_shape(&out[0], &in);
	for (int k = 1; k < 4; k++)
		out[0].p[k] = NULL;
	if (to_space) {
		out[0].d[1] = in.d[1] >= 0 && in.d[1] % bb == 0 ?
			      in.d[1] / bb : -1;
		out[0].d[2] = iri_mul(in.d[2], b);
		out[0].d[3] = iri_mul(in.d[3], b);
		return 0;
	}
	out[0].d[1] = iri_mul(in.d[1], bb);
	for (int k = 2; k < 4; k++)
		out[0].d[k] = in.d[k] >= 0 && in.d[k] % b == 0 ? in.d[k] / b : -1;
	return 0;
}

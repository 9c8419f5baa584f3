/*
 * ir/infer/elementwise.c - operators whose output has an input's shape
 * (unary math, activations, normalizations that keep the shape) and
 * the multidirectional broadcast of Add, Mul, Where, comparisons, ...
 * (ONNX's numpy-style rule: align right, 1 stretches, equal stays).
 */
#include <string.h>
#include "infer/infer.h"

/* Output 0 (and any further ones) is input 0's type and shape. */
int iri_same(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	     size_t nout)
{
	(void)c;
	iri_input(n, 0, &out[0]);
	for (size_t i = 1; i < nout; i++)
		out[i] = out[0];
	return 0;
}

/* Not, IsNaN, IsInf: a BOOL of input 0's shape. */
int iri_bool_same(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		  size_t nout)
{
	iri_same(c, n, out, nout);
	out[0].dtype = QIR_BOOL;
	return 0;
}

/* One dim of the broadcast of a and b; 0 when they cannot broadcast
 * (the model is wrong: leave the shape unknown). */
static int bcast_dim(int64_t a, const char *pa, int64_t b, const char *pb,
		     int64_t *d, const char **p)
{
	if (a == 1) {
		*d = b;
		*p = pb;
	} else if (b == 1 || (a >= 0 && a == b)) {
		*d = a;
		*p = pa;
	} else if (a >= 0 && b >= 0) {
		return 0;
	} else if (a >= 0) {
		*d = a;		/* b is 1 or a at run time: a either way */
		*p = NULL;
	} else if (b >= 0) {
		*d = b;
		*p = NULL;
	} else {
		*d = -1;
		*p = pa && pb && !strcmp(pa, pb) ? pa : NULL;
	}
	return 1;
}

/* out = broadcast of out and s (shape only). */
static void bcast_into(iri_shape *out, const iri_shape *s)
{
	iri_shape r;
	int k;

	if (out->rank < 0 || s->rank < 0) {
		out->rank = -1;
		return;
	}
	r.rank = out->rank > s->rank ? out->rank : s->rank;
	for (k = 0; k < r.rank; k++) {
		int ia = k - (r.rank - out->rank), ib = k - (r.rank - s->rank);
		int64_t a = ia >= 0 ? out->d[ia] : 1, b = ib >= 0 ? s->d[ib] : 1;
		const char *pa = ia >= 0 ? out->p[ia] : NULL;
		const char *pb = ib >= 0 ? s->p[ib] : NULL;

		if (!bcast_dim(a, pa, b, pb, &r.d[k], &r.p[k])) {
			out->rank = -1;
			return;
		}
	}
	iri_copy_shape(out, &r);
}

/* Shape of the broadcast of inputs [from, n->ninputs). */
static void bcast_inputs(const qir_node *n, size_t from, iri_shape *out)
{
	iri_shape s;

	iri_input(n, from, out);
	for (size_t i = from + 1; i < n->ninputs; i++) {
		iri_input(n, i, &s);
		bcast_into(out, &s);
	}
}

/* a op b as the element type dtype computes it: wrapping (in unsigned,
 * no signed overflow here); a quotient that traps at run time (by 0,
 * INT_MIN / -1) is unknown. */
static int64_t arith(int dtype, const char *op, int64_t a, int64_t b)
{
	int64_t min = dtype == QIR_INT32 ? INT32_MIN : INT64_MIN;

	if (a == IRI_UNKNOWN || b == IRI_UNKNOWN)
		return IRI_UNKNOWN;
	switch (op[0]) {
	case 'A':
		return iri_wrap(dtype, (uint64_t)a + (uint64_t)b);
	case 'S':
		return iri_wrap(dtype, (uint64_t)a - (uint64_t)b);
	case 'M':
		return iri_wrap(dtype, (uint64_t)a * (uint64_t)b);
	default:
		return b == 0 || (a == min && b == -1) ? IRI_UNKNOWN : a / b;
	}
}

/* Add, Sub, Mul, Div of two int shape vectors (torch computes a head
 * size as Div(dim, heads)): folded elementwise, a 1-element side
 * broadcast (against 0 elements too: the result is then empty). */
static int fold_arith(struct iri_ctx *c, const qir_node *n, int dtype)
{
	int64_t a[IRI_MAXFOLD], b[IRI_MAXFOLD], v[IRI_MAXFOLD];
	size_t la, lb, len;
	const char *op = n->op_type;

	if (n->ninputs != 2 || !n->noutputs ||
	    (strcmp(op, "Add") && strcmp(op, "Sub") && strcmp(op, "Mul") &&
	     strcmp(op, "Div")) ||
	    !iri_shape_ints(c, n, 0, a, IRI_MAXFOLD, &la) ||
	    !iri_shape_ints(c, n, 1, b, IRI_MAXFOLD, &lb) ||
	    (la != lb && la != 1 && lb != 1))
		return 0;
	len = la == 1 ? lb : la;
	for (size_t k = 0; k < len; k++)
		v[k] = arith(dtype, op, a[la == 1 ? 0 : k], b[lb == 1 ? 0 : k]);
	return iri_fold_set(c, n->outputs[0], v, len);
}

int iri_broadcast(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		  size_t nout)
{
	(void)nout;
	bcast_inputs(n, 0, &out[0]);
	out[0].dtype = iri_input_dtype(n, 0);
	if (!out[0].dtype && n->ninputs > 1)
		out[0].dtype = iri_input_dtype(n, 1);
	if ((out[0].dtype == QIR_INT64 || out[0].dtype == QIR_INT32) &&
	    out[0].rank >= 0 && out[0].rank <= 1)
		return fold_arith(c, n, out[0].dtype);
	return 0;
}

int iri_compare(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		size_t nout)
{
	iri_broadcast(c, n, out, nout);
	out[0].dtype = QIR_BOOL;
	return 0;
}

/* Where(cond, x, y): x's type (y's when x is untyped). */
int iri_where(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	      size_t nout)
{
	(void)c;
	(void)nout;
	bcast_inputs(n, 0, &out[0]);
	out[0].dtype = iri_input_dtype(n, 1);
	if (!out[0].dtype)
		out[0].dtype = iri_input_dtype(n, 2);
	return 0;
}

/* Cast (to=) and CastLike (input 1's type). */
int iri_cast(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	     size_t nout)
{
	int64_t v[IRI_MAXFOLD];
	const char *names[IRI_MAXFOLD];
	size_t len;

	iri_same(c, n, out, nout);
	out[0].dtype = qir_node_is(n, "CastLike") ? iri_input_dtype(n, 1)
		       : qir_node_attr_dtype(n, "to");
	/* shape arithmetic torch casts to and from int64; to INT32 keeps
	 * the low 32 bits, as Cast does at run time */
	if ((out[0].dtype != QIR_INT64 && out[0].dtype != QIR_INT32) ||
	    !iri_shape_ints_named(c, n, 0, v, names, IRI_MAXFOLD, &len))
		return 0;
	for (size_t k = 0; k < len; k++)
		if (v[k] != IRI_UNKNOWN)
			v[k] = iri_wrap(out[0].dtype, (uint64_t)v[k]);
	return iri_fold_set_named(c, n->outputs[0], v, names, len) < 0 ? -1 : 0;
}

/* Input 0's shape, element type from the "dtype" attribute (input 0's
 * type when absent): RandomNormalLike, RandomUniformLike, EyeLike,
 * Bernoulli. */
int iri_dtype_attr(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		   size_t nout)
{
	int dt = qir_node_attr_dtype(n, "dtype");

	iri_same(c, n, out, nout);
	if (dt)
		out[0].dtype = dt;
	return 0;
}

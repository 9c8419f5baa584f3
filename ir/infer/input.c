/*
 * ir/infer/input.c - what the rules read: an input's type and shape
 * (declared, inferred, or an initializer's or Constant's tensor), the
 * int64 contents of constant or folded inputs, axes and int lists.
 */
#include <stdlib.h>
#include <string.h>
#include "infer/infer.h"

void iri_unknown(iri_shape *s)
{
	s->dtype = QIR_UNDEFINED;
	s->rank = -1;
}

void iri_rank_only(iri_shape *out, int r)
{
	if (r < 0 || r > IRI_MAXRANK) {
		out->rank = -1;
		return;
	}
	out->rank = r;
	for (int i = 0; i < r; i++) {
		out->d[i] = -1;
		out->p[i] = NULL;
	}
}

void iri_copy_shape(iri_shape *out, const iri_shape *in)
{
	out->rank = in->rank;
	if (in->rank > 0) {
		memcpy(out->d, in->d, in->rank * sizeof(*in->d));
		memcpy(out->p, in->p, in->rank * sizeof(*in->p));
	}
}

int64_t iri_mul(int64_t a, int64_t b)
{
	int64_t r;

	return a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r) ? -1 : r;
}

int64_t iri_add(int64_t a, int64_t b)
{
	int64_t r;

	return a < 0 || b < 0 || __builtin_add_overflow(a, b, &r) ? -1 : r;
}

int64_t iri_wrap(int dtype, uint64_t u)
{
	/* conversions by hand: a signed result out of range is never
	 * formed */
	if (dtype == QIR_INT32) {
		u &= UINT32_MAX;
		return u > INT32_MAX ? (int64_t)u - ((int64_t)1 << 32) :
				       (int64_t)u;
	}
	if (dtype != QIR_INT64)
		return IRI_UNKNOWN;
	return u > INT64_MAX ? -(int64_t)(UINT64_MAX - u) - 1 : (int64_t)u;
}

int iri_static(const iri_shape *s)
{
	if (s->rank < 0)
		return 0;
	for (int i = 0; i < s->rank; i++)
		if (s->d[i] < 0)
			return 0;
	return 1;
}

int iri_input_dtype(const qir_node *n, size_t i)
{
	return i < n->ninputs ? qir_value_elem_type(n->inputs[i]) : QIR_UNDEFINED;
}

void iri_input(const qir_node *n, size_t i, iri_shape *s)
{
	qir_value *v = i < n->ninputs ? n->inputs[i] : NULL;
	qir_tensor *t;

	iri_unknown(s);
	if (!v)
		return;
	s->dtype = qir_value_elem_type(v);
	if (v->rank >= 0) {
		if (v->rank > IRI_MAXRANK)
			return;
		s->rank = v->rank;
		for (int k = 0; k < v->rank; k++) {
			s->d[k] = v->dims[k].value;
			s->p[k] = v->dims[k].value < 0 ? v->dims[k].param : NULL;
		}
		return;
	}
	t = qir_value_const(v);
	if (t && t->rank <= IRI_MAXRANK) {
		s->rank = t->rank;
		for (int k = 0; k < t->rank; k++) {
			s->d[k] = t->dims[k];
			s->p[k] = NULL;
		}
	}
}

int iri_const_ints(struct iri_ctx *c, const qir_node *n, size_t i,
		   int64_t *out, size_t cap, size_t *len)
{
	if (!iri_shape_ints(c, n, i, out, cap, len))
		return 0;
	for (size_t k = 0; k < *len; k++)
		if (out[k] == IRI_UNKNOWN)
			return 0;
	return 1;
}

int iri_bound_ints(struct iri_ctx *c, const qir_node *n, size_t i,
		   int64_t *out, size_t cap, size_t *len)
{
	qir_value *v = i < n->ninputs ? n->inputs[i] : NULL;

	if (v && qir_value_const(v))
		return iri_shape_ints(c, n, i, out, cap, len);
	return iri_const_ints(c, n, i, out, cap, len);
}

int iri_shape_ints(struct iri_ctx *c, const qir_node *n, size_t i,
		   int64_t *out, size_t cap, size_t *len)
{
	return iri_shape_ints_named(c, n, i, out, NULL, cap, len);
}

int iri_shape_ints_named(struct iri_ctx *c, const qir_node *n, size_t i,
			 int64_t *out, const char **names, size_t cap,
			 size_t *len)
{
	qir_value *v = i < n->ninputs ? n->inputs[i] : NULL;
	const struct iri_fold *f;
	qir_tensor *t;
	uint64_t k, numel;

	if (!v)
		return 0;
	t = qir_value_const(v);
	if (t) {
		if (t->dtype != QIR_INT64 && t->dtype != QIR_INT32)
			return 0;
		numel = qir_tensor_numel(t);
		if (numel > cap)
			return 0;
		for (k = 0; k < numel; k++) {
			if (qir_tensor_get_i64(t, k, &out[k], NULL) < 0)
				return 0;
			if (names)
				names[k] = NULL;
		}
		*len = numel;
		return 1;
	}
	(void)c;
	f = QIR_VPRIV(v)->fold;
	if (!f || f->n > cap)
		return 0;
	memcpy(out, f->v, f->n * sizeof(*out));
	if (names)
		memcpy(names, f->p, f->n * sizeof(*names));
	*len = f->n;
	return 1;
}

int iri_fold_set(struct iri_ctx *c, const qir_value *v, const int64_t *vals,
		 size_t n)
{
	return iri_fold_set_named(c, v, vals, NULL, n);
}

int iri_fold_set_named(struct iri_ctx *c, const qir_value *v,
		       const int64_t *vals, const char *const *names, size_t n)
{
	struct iri_fold *f;

	if (!v || n > IRI_MAXFOLD || QIR_VPRIV(v)->fold)
		return 0;
	/* sized to its values: a load folds one per shape computation */
	f = malloc(sizeof(*f) + n * (sizeof(*f->v) + sizeof(*f->p)));
	if (!f)
		return -1;
	f->p = (const char **)(f->v + n);
	f->n = n;
	memcpy(f->v, vals, n * sizeof(*vals));
	for (size_t k = 0; k < n; k++)
		f->p[k] = names && vals[k] == IRI_UNKNOWN ? names[k] : NULL;
	f->owner = (qir_value *)v;
	f->next = c->folded;
	c->folded = f;
	QIR_VPRIV(v)->fold = f;
	return 0;
}

int iri_fold_move(struct iri_ctx *c, const qir_node *n, const iri_shape *in,
		  const iri_shape *out, iri_fold_src_fn src, const void *arg)
{
	int64_t v[IRI_MAXFOLD], w[IRI_MAXFOLD], idx[IRI_MAXRANK];
	const char *names[IRI_MAXFOLD], *wn[IRI_MAXFOLD];
	int64_t nin = 1, nout = 1;
	size_t len;

	if (!n->noutputs || !iri_static(in) || !iri_static(out) ||
	    in->rank < 0 || out->rank < 0)
		return 0;
	for (int k = 0; k < in->rank; k++)
		nin = iri_mul(nin, in->d[k]);
	for (int k = 0; k < out->rank; k++)
		nout = iri_mul(nout, out->d[k]);
	if (nin < 0 || nout < 0 || nout > IRI_MAXFOLD ||
	    !iri_shape_ints_named(c, n, 0, v, names, IRI_MAXFOLD, &len) ||
	    (int64_t)len != nin)
		return 0;
	memset(idx, 0, sizeof(idx));
	for (int64_t j = 0; j < nout; j++) {
		int64_t s = src(arg, in, out, idx);

		if (s < 0 || s >= nin)
			return 0;
		w[j] = v[s];
		wn[j] = names[s];
		/* the next output index, last axis fastest */
		for (int k = out->rank - 1; k >= 0 && ++idx[k] == out->d[k]; k--)
			idx[k] = 0;
	}
	return iri_fold_set_named(c, n->outputs[0], w, wn, (size_t)nout);
}

int64_t iri_flat(const iri_shape *s, const int64_t *idx)
{
	int64_t f = 0;

	for (int k = 0; k < s->rank; k++)
		f = f * s->d[k] + idx[k];
	return f;
}

int iri_axis(int64_t a, int r)
{
	if (a < 0)
		a += r;
	return a >= 0 && a < r ? (int)a : -1;
}

size_t iri_attr_ints(const qir_node *n, const char *name, int64_t *out,
		     size_t cap, int *present)
{
	qir_attr *a = qir_node_attr(n, name);

	*present = 0;
	if (!a || a->type != QIR_ATTR_INTS || a->n > cap)
		return 0;
	*present = 1;
	memcpy(out, a->ints, a->n * sizeof(*out));
	return a->n;
}

int64_t iri_opset(const qir_node *n)
{
	return n->graph && n->graph->model ?
	       qir_model_opset(n->graph->model, "") : 0;
}

int iri_const_floats(const qir_node *n, size_t i, float *out, size_t cap,
		     size_t *len)
{
	qir_value *v = i < n->ninputs ? n->inputs[i] : NULL;
	qir_tensor *t = v ? qir_value_const(v) : NULL;
	uint64_t numel;
	double d;

	/* the operators that read float constants (Resize's scales)
	 * take FLOAT only */
	if (!t || t->dtype != QIR_FLOAT)
		return 0;
	numel = qir_tensor_numel(t);
	if (numel > cap)
		return 0;
	for (uint64_t k = 0; k < numel; k++) {
		if (qir_tensor_get_f64(t, k, &d, NULL) < 0)
			return 0;
		out[k] = (float)d;
	}
	*len = numel;
	return 1;
}

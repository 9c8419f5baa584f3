/*
 * ir/infer/reduce.c - reductions (Reduce*, ArgMax/ArgMin, TopK) and
 * the normalizations with side outputs (LayerNormalization,
 * BatchNormalization, Dropout's mask).
 */
#include "infer/infer.h"

static void reduce_shape(const iri_shape *in, const int64_t *axes,
			 size_t len, int keep, int noop, iri_shape *out)
{
	char red[IRI_MAXRANK] = { 0 };
	int r = 0;

	if (in->rank < 0)
		return;
	if (len == 0 && noop) {
		iri_copy_shape(out, in);
		return;
	}
	for (size_t k = 0; k < len; k++) {
		int a = iri_axis(axes[k], in->rank);

		if (a < 0)
			return;
		red[a] = 1;
	}
	for (int k = 0; k < in->rank; k++) {
		if (len && !red[k]) {
			out->d[r] = in->d[k];
			out->p[r++] = in->p[k];
		} else if (keep) {
			out->d[r] = 1;
			out->p[r++] = NULL;
		}
	}
	out->rank = r;
}

int iri_reduce(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	       size_t nout)
{
	int64_t axes[IRI_MAXRANK];
	size_t len = 0;
	int present;
	iri_shape in;

	(void)nout;
	iri_input(n, 0, &in);
	out[0].dtype = in.dtype;
	if (n->ninputs > 1 && n->inputs[1]) {
		if (!iri_const_ints(c, n, 1, axes, IRI_MAXRANK, &len)) {
			if (qir_node_attr_int(n, "keepdims", 1))
				iri_rank_only(&out[0], in.rank);
			return 0;
		}
	} else {
		len = iri_attr_ints(n, "axes", axes, IRI_MAXRANK, &present);
	}
	reduce_shape(&in, axes, len, qir_node_attr_int(n, "keepdims", 1) != 0,
		     qir_node_attr_int(n, "noop_with_empty_axes", 0) != 0,
		     &out[0]);
	return 0;
}

int iri_argminmax(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		  size_t nout)
{
	int64_t axis = qir_node_attr_int(n, "axis", 0);
	iri_shape in;

	(void)c;
	(void)nout;
	iri_input(n, 0, &in);
	out[0].dtype = QIR_INT64;
	reduce_shape(&in, &axis, 1, qir_node_attr_int(n, "keepdims", 1) != 0,
		     0, &out[0]);
	return 0;
}

int iri_topk(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	     size_t nout)
{
	int64_t k[1];
	size_t len;
	iri_shape in;
	int axis;

	iri_input(n, 0, &in);
	out[0].dtype = in.dtype;
	if (nout > 1)
		out[1].dtype = QIR_INT64;
	if (in.rank < 0)
		return 0;
	axis = iri_axis(qir_node_attr_int(n, "axis", -1), in.rank);
	if (axis < 0)
		return 0;
	iri_copy_shape(&out[0], &in);
	out[0].p[axis] = NULL;
	out[0].d[axis] = iri_const_ints(c, n, 1, k, 1, &len) && len == 1 ?
			 k[0] : -1;
	if (nout > 1)
		iri_copy_shape(&out[1], &out[0]);
	return 0;
}

/* Y like X; Mean and InvStdDev (stash_type, FLOAT by default) keep the
 * dims before axis and are 1 from axis on. */
int iri_layer_norm(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		   size_t nout)
{
	iri_shape in;
	int axis, st = qir_node_attr_dtype(n, "stash_type");

	(void)c;
	iri_input(n, 0, &in);
	out[0] = in;
	for (size_t i = 1; i < nout; i++) {
		out[i].dtype = st ? st : QIR_FLOAT;
		if (in.rank < 0)
			continue;
		axis = iri_axis(qir_node_attr_int(n, "axis", -1), in.rank);
		if (axis < 0)
			continue;
		iri_copy_shape(&out[i], &in);
		for (int k = axis; k < in.rank; k++) {
			out[i].d[k] = 1;
			out[i].p[k] = NULL;
		}
	}
	return 0;
}

/* Y like X; running mean/var (training outputs) like the scale. */
int iri_batch_norm(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		   size_t nout)
{
	(void)c;
	iri_input(n, 0, &out[0]);
	for (size_t i = 1; i < nout; i++)
		iri_input(n, 1, &out[i]);
	return 0;
}

int iri_dropout(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		size_t nout)
{
	(void)c;
	iri_input(n, 0, &out[0]);
	if (nout > 1) {
		out[1] = out[0];
		out[1].dtype = QIR_BOOL;
	}
	return 0;
}

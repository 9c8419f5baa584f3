/*
 * passes/mxfp8/util.c - the bottom of the mxfp8 pass: what every other
 * file of it uses (types, node and constant builders, the opset, the
 * skip kinds); it calls none of them.
 */
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "../support/fail.h"

const struct ps_skip_kind mxfp8_skip_k_block = {
	"skipped (K not a multiple of 32)", PS_SKIP_INFO
};
const struct ps_skip_kind mxfp8_skip_mixed = {
	"skipped (shared with a non-selected consumer)", PS_SKIP_INFO
};
const struct ps_skip_kind mxfp8_skip_act_layout = {
	"activations skipped (layout)", PS_SKIP_INFO
};

int mxfp8_is_float(int dtype)
{
	return dtype == QIR_FLOAT || dtype == QIR_FLOAT16 ||
	       dtype == QIR_BFLOAT16;
}

int mxfp8_collect(qir_graph *g, void *arg)
{
	struct mxfp8_nodes *l = arg;
	qir_node *n;

	qir_graph_for_each_node(g, n) {
		if (!l->want(n))
			continue;
		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 32;
			qir_node **v = realloc(l->v, cap * sizeof(*v));

			if (!v)
				return -1;
			l->v = v;
			l->cap = cap;
		}
		l->v[l->n++] = n;
	}
	return 0;
}

qopt_status mxfp8_opset(struct mxfp8_cfg *cfg)
{
	int64_t want = cfg->mode == MXFP8_REAL && cfg->format == MXFP8_ONNX ? 24 : 19;
	const char *why = cfg->mode == MXFP8_FAKE ?
		"MXFP8 fake form (Cast to FLOAT8E4M3FN)" : want == 24 ?
		"MXFP8 DequantizeLinear with FLOAT8E8M0 scales" :
		"MXFP8 (FLOAT8E4M3FN tensors)";

	if (cfg->opset_asked)
		return cfg->opset_rc;
	cfg->opset_asked = 1;
	cfg->opset_rc = qopt_require_opset(cfg->ctx, want, why);
	if (!cfg->opset_rc && cfg->mode == MXFP8_REAL &&
	    qir_model_opset(cfg->m, MXFP8_DOMAIN) < 1 &&
	    qir_model_set_opset(cfg->m, MXFP8_DOMAIN, 1)) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
		cfg->opset_rc = QOPT_ENOMEM;
	}
	return cfg->opset_rc;
}

qir_node *mxfp8_node(qir_graph *g, const char *op, const char *domain,
		  const char *hint, qir_value *a, qir_value *b)
{
	qir_node *n = qir_node_new(g, op, domain, hint);

	if (!n || qir_node_add_input(n, a) || (b && qir_node_add_input(n, b)))
		return NULL;
	return n;
}

qir_value *mxfp8_out(qir_node *n, const char *hint, int dtype,
		  const qir_value *shape_from)
{
	qir_value *o = n ? qir_node_add_output(n, NULL, hint) : NULL;

	if (!o)
		return NULL;
	if (shape_from && qir_value_copy_shape(o, shape_from, dtype, NULL))
		return NULL;
	if (!shape_from && dtype != QIR_UNDEFINED &&
	    qir_value_set_type(o, dtype, -1, NULL, NULL))
		return NULL;
	return o;
}

qir_value *mxfp8_const(qir_graph *g, const char *name, int dtype, int rank,
		    const int64_t *dims, const void *v)
{
	qir_error err = { 0 };
	qir_tensor *t = qir_tensor_new(name, dtype, rank, dims, &err);
	void *d = t ? qir_tensor_mutable_data(t, &err) : NULL;

	if (t && t->nbytes && !d) {
		qir_tensor_free(t);
		return NULL;
	}
	if (t && t->nbytes)
		memcpy(d, v, t->nbytes);
	return ps_add_initializer(g, t);
}

qir_value *mxfp8_const_i64(qir_graph *g, const char *name, int rank,
			const int64_t *dims, const int64_t *v)
{
	return mxfp8_const(g, name, QIR_INT64, rank, dims, v);
}

qir_value *mxfp8_const_f32(qir_graph *g, const char *name, int rank,
			const int64_t *dims, const float *v)
{
	return mxfp8_const(g, name, QIR_FLOAT, rank, dims, v);
}

/*
 * passes/support/qdq.c - Q/DQ constants and nodes (qdq.h).
 */
#include <stdio.h>

#include "qdq.h"

qir_value *ps_add_initializer(qir_graph *g, qir_tensor *t)
{
	qir_value *v;

	if (!t)
		return NULL;
	v = qir_graph_add_initializer(g, t);
	if (!v)
		qir_tensor_free(t);
	return v;
}

qir_tensor *ps_filled_tensor(const char *name, int dtype, double x, int rank,
			     const int64_t *dims)
{
	qir_tensor *t;
	void *p;
	uint64_t i, n;

	if (dtype != QIR_FLOAT && dtype != QIR_FLOAT16 &&
	    dtype != QIR_BFLOAT16)
		return NULL;
	t = qir_tensor_new(name, dtype, rank, dims, NULL);
	p = t ? qir_tensor_mutable_data(t, NULL) : NULL;
	if (!p) {
		qir_tensor_free(t);
		return NULL;
	}
	n = qir_tensor_numel(t);
	for (i = 0; i < n; i++) {
		if (dtype == QIR_FLOAT)
			((float *)p)[i] = (float)x;
		else if (dtype == QIR_FLOAT16)
			((uint16_t *)p)[i] = qk_f32_to_f16((float)x);
		else
			((uint16_t *)p)[i] = qk_f32_to_bf16((float)x);
	}
	return t;
}

qir_tensor *ps_zero_point(const char *name, int qtype, int rank,
			  const int64_t *dims)
{
	/* qir_tensor_new zeroes the bytes. */
	return qir_tensor_new(name, qtype, rank, dims, NULL);
}

void ps_qdq_name(char *buf, size_t n, const char *base, const char *tag,
		 const char *suffix)
{
	snprintf(buf, n, "%s_%s_%s", base, tag, suffix);
}

qir_node *ps_qdq_node(qir_graph *g, const char *op, const char *hint,
		      qir_value *x, qir_value *s, qir_value *zp)
{
	qir_node *n = qir_node_new(g, op, NULL, hint);

	if (!n || qir_node_add_input(n, x) || qir_node_add_input(n, s) ||
	    (zp && qir_node_add_input(n, zp)) ||
	    !qir_node_add_output(n, NULL, hint))
		return NULL;
	return n;
}

static int set_attrs(qir_node *q, qir_node *dq, const struct ps_qdq_attrs *a)
{
	if (a->saturate && qir_node_set_attr_int(q, "saturate", 1))
		return -1;
	if (a->per_axis && (qir_node_set_attr_int(q, "axis", a->axis) ||
			    qir_node_set_attr_int(dq, "axis", a->axis)))
		return -1;
	if (a->block_size &&
	    (qir_node_set_attr_int(q, "block_size", a->block_size) ||
	     qir_node_set_attr_int(dq, "block_size", a->block_size)))
		return -1;
	return 0;
}

int ps_qdq_pair(qir_graph *g, const char *base, qir_value *x, qir_value *s,
		qir_value *zp, int qtype, int dtype,
		const struct ps_qdq_attrs *a, qir_node **q, qir_node **dq,
		qir_error *err)
{
	static const struct ps_qdq_attrs none = { 0 };
	char hint[512];

	snprintf(hint, sizeof(hint), "%s_q", base);
	*q = ps_qdq_node(g, "QuantizeLinear", hint, x, s, zp);
	snprintf(hint, sizeof(hint), "%s_dq", base);
	*dq = *q ? ps_qdq_node(g, "DequantizeLinear", hint, (*q)->outputs[0],
			       s, zp) : NULL;
	if (!*dq || set_attrs(*q, *dq, a ? a : &none) ||
	    qir_value_copy_shape((*q)->outputs[0], x, qtype, err) ||
	    qir_value_copy_shape((*dq)->outputs[0], x, dtype, err))
		return -1;
	return 0;
}

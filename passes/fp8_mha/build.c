/*
 * passes/fp8_mha/build.c - new constants (scales, zero points) and the
 * removal of what a rewrite left unused.
 */
#include "fp8mha.h"

qir_value *fp8mha_add_init(qir_graph *g, qir_tensor *t)
{
	qir_value *v;

	if (!t)
		return NULL;
	v = qir_graph_add_initializer(g, t);
	if (!v)
		qir_tensor_free(t);
	return v;
}

qir_tensor *fp8mha_scalar_tensor(const char *name, int dtype, double x,
				 int rank, const int64_t *dims)
{
	qir_tensor *t = qir_tensor_new(name, dtype, rank, dims, NULL);
	void *p = t ? qir_tensor_mutable_data(t, NULL) : NULL;
	uint64_t i, n;

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
		else if (dtype == QIR_BFLOAT16)
			((uint16_t *)p)[i] = qk_f32_to_bf16((float)x);
		else {
			qir_tensor_free(t);
			return NULL;
		}
	}
	return t;
}

qir_tensor *fp8mha_zero_point(const char *name, int fp8, int rank,
			      const int64_t *dims)
{
	/* qir_tensor_new zeroes the bytes: code 0 is +0 in every FP8 type. */
	return qir_tensor_new(name, fp8, rank, dims, NULL);
}

/* v and what only it kept alive, once nothing reads v: its producer
 * when every output is unused, or its initializer. DequantizeLinear
 * nodes are never erased here (the rewrites walk snapshots of them). */
void fp8mha_erase_unused(qir_value *v)
{
	qir_node *p;
	qir_value *in[8];
	qir_error err = { 0 };
	size_t i, n;

	if (!v || v->nuses || v->is_output || v->is_input)
		return;
	p = v->producer;
	if (!p) {
		/* Best effort: a failed removal leaves a dead initializer,
		 * which the writer keeps and nothing reads. */
		if (v->init && qir_graph_remove_initializer(v->graph, v, &err))
			return;
		return;
	}
	if (fp8mha_is_op(p, "DequantizeLinear"))
		return;
	for (i = 0; i < p->noutputs; i++)
		if (p->outputs[i] && (p->outputs[i]->nuses ||
				      p->outputs[i]->is_output))
			return;
	n = p->ninputs < 8 ? p->ninputs : 8;
	for (i = 0; i < n; i++)
		in[i] = p->inputs[i];
	if (qir_node_erase(p, &err))
		return;
	for (i = 0; i < n; i++) {
		size_t j;

		/* An input listed twice is visited once. */
		for (j = 0; j < i; j++)
			if (in[j] == in[i])
				break;
		if (j == i)
			fp8mha_erase_unused(in[i]);
	}
}

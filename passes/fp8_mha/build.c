/*
 * passes/fp8_mha/build.c - new constants (scales, zero points), the one
 * Q/DQ builder, and the removal of what a rewrite left unused.
 */
#include <stdio.h>
#include <stdlib.h>

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

static qir_node *qdq_node(qir_graph *g, const char *op, const char *base,
			  const char *suffix, qir_value *x, qir_value *s,
			  qir_value *zp)
{
	char hint[512];
	qir_node *n;

	snprintf(hint, sizeof(hint), "%s%s", base, suffix);
	n = qir_node_new(g, op, NULL, hint);
	if (!n || qir_node_add_input(n, x) || qir_node_add_input(n, s) ||
	    qir_node_add_input(n, zp) || !qir_node_add_output(n, NULL, hint))
		return NULL;
	return n;
}

qir_node *fp8mha_qdq_pair(qir_graph *g, qir_value *x, qir_value *s,
			  qir_value *zp, int axis, int dtype, const char *base,
			  qir_error *err)
{
	qir_node *q = qdq_node(g, "QuantizeLinear", base, "_q", x, s, zp);
	qir_node *dq = q ? qdq_node(g, "DequantizeLinear", base, "_dq",
				    q->outputs[0], s, zp) : NULL;

	if (!dq || qir_node_set_attr_int(q, "saturate", 1) ||
	    (axis >= 0 && (qir_node_set_attr_int(q, "axis", axis) ||
			   qir_node_set_attr_int(dq, "axis", axis))) ||
	    qir_value_copy_shape(q->outputs[0], x, fp8mha_q_fp8_type(q), err) ||
	    qir_value_copy_shape(dq->outputs[0], x, dtype, err))
		return NULL;
	return dq;
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
 * when every output is unused, or its initializer (queued: removed by
 * fp8mha_flush_dead in one walk, so that thousands of weights cost a
 * linear time). DequantizeLinear nodes are never erased here (the
 * rewrites walk snapshots of them). */
void fp8mha_erase_unused(struct fp8mha_cfg *cfg, qir_value *v)
{
	qir_node *p;
	qir_value *in[8];
	qir_error err = { 0 };
	size_t i, n;

	if (!v || v->nuses || v->is_output || v->is_input)
		return;
	p = v->producer;
	if (!p) {
		/* Best effort: one that cannot be queued stays behind as a
		 * dead initializer, which the writer keeps and nothing
		 * reads. */
		if (v->init && cfg->ndead == cfg->capdead) {
			size_t cap = cfg->capdead ? 2 * cfg->capdead : 64;
			qir_value **d = realloc(cfg->dead, cap * sizeof(*d));

			if (!d)
				return;
			cfg->dead = d;
			cfg->capdead = cap;
		}
		if (v->init)
			cfg->dead[cfg->ndead++] = v;
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
			fp8mha_erase_unused(cfg, in[i]);
	}
}

void fp8mha_flush_dead(struct fp8mha_cfg *cfg)
{
	qir_error err = { 0 };
	size_t i, k = 0;

	/* Those read again since they were queued stay. Each graph gets
	 * one call, for the run of entries queued from it. */
	for (i = 0; i < cfg->ndead; i++) {
		qir_value *v = cfg->dead[i];

		if (v->init && !v->nuses && !v->is_output && !v->is_input)
			cfg->dead[k++] = v;
	}
	for (i = 0; i < k;) {
		qir_graph *g = cfg->dead[i]->graph;
		size_t j = i;

		while (j < k && cfg->dead[j]->graph == g)
			j++;
		if (qir_graph_remove_initializers(g, cfg->dead + i, j - i, &err))
			qopt_debug(cfg->ctx, "dead initializers kept: %s",
				   err.msg);
		i = j;
	}
	cfg->ndead = 0;
}

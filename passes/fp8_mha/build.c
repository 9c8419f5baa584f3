/*
 * passes/fp8_mha/build.c - what a rewrite needs around what it builds
 * (constants and Q/DQ come from the toolkit, passes/support/qdq.h): the
 * opset FP8 Q/DQ need, and the removal of what a rewrite left unused.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fp8mha.h"

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

int fp8mha_prepare_opset(struct fp8mha_cfg *cfg)
{
	qopt_status rc = qopt_require_opset(cfg->ctx, FP8MHA_OPSET, "FP8 Q/DQ");

	if (rc == QOPT_ESKIPPED)
		return 1;
	return rc ? -1 : 0;
}

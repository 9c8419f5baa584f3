/*
 * passes/nvfp4/constants.c - large Constant tensors become
 * initializers. A Constant's tensor is written inline in its node, so
 * it can never go to external data and a model holding big ones
 * cannot exceed 2 GiB; as an initializer it can.
 */
#include <string.h>

#include "nvfp4.h"

struct sweep {
	struct nvfp4_cfg *cfg;
	int changed;
	int failed;
};

static int big_constant(const qir_node *n, int64_t threshold)
{
	const qir_attr *a;

	if (strcmp(n->op_type, "Constant") ||
	    (n->domain && n->domain[0] && strcmp(n->domain, "ai.onnx")))
		return 0;
	a = qir_node_attr(n, "value");
	return a && a->type == QIR_ATTR_TENSOR && a->t &&
	       a->t->nbytes > (uint64_t)threshold;
}

static int sweep_graph(qir_graph *g, void *arg)
{
	struct sweep *s = arg;
	qir_node *n, *next;
	qir_error err = { 0 };

	for (n = g->first; n; n = next) {
		uint64_t nbytes;

		next = n->next;
		if (!big_constant(n, s->cfg->constant_threshold))
			continue;
		nbytes = qir_node_attr(n, "value")->t->nbytes;
		if (!qopt_may_rewrite(s->cfg->ctx,
				      "move Constant '%s' (%llu bytes) to an initializer",
				      n->name, (unsigned long long)nbytes))
			continue;
		if (qir_graph_constant_to_initializer(g, n, &err)) {
			qopt_error(s->cfg->ctx, "Constant node '%s': %s",
				   n->name, err.msg);
			s->failed = 1;
			return 1;
		}
		qopt_stat_add(s->cfg->ctx, "constants moved to initializers", 1);
		s->changed = 1;
	}
	return 0;
}

int nvfp4_move_constants(struct nvfp4_cfg *cfg, int *changed)
{
	struct sweep s = { cfg, 0, 0 };

	if (cfg->constant_threshold < 0)
		return 0;
	qir_graph_walk(cfg->m->graph, sweep_graph, &s);
	if (s.changed)
		*changed = 1;
	return s.failed ? -1 : 0;
}

/*
 * passes/support/cleanup.c - unused initializers and nodes (cleanup.h).
 */
#include "cleanup.h"

int ps_unused_initializer(const qir_value *v)
{
	return v && v->init && !v->nuses && !v->is_output && !v->is_input &&
	       !v->producer;
}

int ps_node_unused(const qir_node *n)
{
	for (size_t i = 0; i < n->noutputs; i++)
		if (n->outputs[i] &&
		    (n->outputs[i]->nuses || n->outputs[i]->is_output))
			return 0;
	return 1;
}

int ps_drop_unused_initializer(qir_value *v, qir_error *err)
{
	if (!ps_unused_initializer(v))
		return 0;
	return qir_graph_remove_initializer(v->graph, v, err) < 0 ? -1 : 1;
}

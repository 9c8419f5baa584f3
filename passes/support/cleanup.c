/*
 * passes/support/cleanup.c - unused initializers and nodes (cleanup.h).
 */
#include <stdlib.h>

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

int ps_follow_all(const qir_node *p, void *arg)
{
	(void)p;
	(void)arg;
	return 1;
}

int ps_follow_not_dq(const qir_node *p, void *arg)
{
	(void)arg;
	return !qir_node_is(p, "DequantizeLinear");
}

/* Grows *a (of *cap entries) for one more: 0, or -1 out of memory. */
static int grow(void **a, size_t n, size_t *cap, size_t size)
{
	size_t c = *cap ? 2 * *cap : 16;
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(*a, c * size);
	if (!p)
		return -1;
	*a = p;
	*cap = c;
	return 0;
}

void ps_sweep_mark(struct ps_sweep *s, qir_node *n)
{
	if (!n)
		return;
	/* A node listed twice would be erased once and read once more. */
	for (size_t i = 0; i < s->nnodes; i++)
		if (s->nodes[i] == n)
			return;
	if (!grow((void **)&s->nodes, s->nnodes, &s->capnodes,
		  sizeof(*s->nodes)))
		s->nodes[s->nnodes++] = n;
}

void ps_sweep_value(struct ps_sweep *s, qir_value *v)
{
	if (!v)
		return;
	if (v->producer) {
		if (s->follow && s->follow(v->producer, s->arg))
			ps_sweep_mark(s, v->producer);
		return;
	}
	/* Listed twice is fine: ps_sweep_inits removes it once. */
	if (ps_unused_initializer(v) &&
	    !grow((void **)&s->inits, s->ninits, &s->capinits,
		  sizeof(*s->inits)))
		s->inits[s->ninits++] = v;
}

/* Erases n (unread) and marks its inputs; -1 when the IR refused. */
static int erase(struct ps_sweep *s, qir_node *n)
{
	qir_value *few[8], **in = few;
	size_t k, j, nin = n->ninputs;

	if (nin > 8)
		in = malloc(nin * sizeof(*in));
	if (!in)
		nin = 0;	/* out of memory: the inputs merely stay */
	for (k = 0; k < nin; k++)
		in[k] = n->inputs[k];
	if (qir_node_erase(n, NULL) < 0) {
		if (in != few)
			free(in);
		return -1;
	}
	for (k = 0; k < nin; k++) {
		for (j = 0; j < k && in[j] != in[k]; j++)
			;
		if (j == k)
			ps_sweep_value(s, in[k]);
	}
	if (in != few)
		free(in);
	return 0;
}

void ps_sweep_nodes(struct ps_sweep *s)
{
	int progress = 1;

	while (progress) {
		progress = 0;
		for (size_t i = 0; i < s->nnodes;) {
			qir_node *n = s->nodes[i];

			if (!ps_node_unused(n)) {
				i++;
				continue;
			}
			/* off the list before erase() marks its inputs */
			s->nodes[i] = s->nodes[--s->nnodes];
			if (erase(s, n))
				continue;	/* refused: it stays */
			progress = 1;
		}
	}
	/* The others are still read: forgotten, so that a node the pass
	 * erases later is never looked at again. */
	s->nnodes = 0;
}

int ps_sweep_inits(struct ps_sweep *s, qir_error *err)
{
	size_t i, j, k = 0;
	int rc = 0;

	/* Those read again since they were marked stay. */
	for (i = 0; i < s->ninits; i++)
		if (ps_unused_initializer(s->inits[i]))
			s->inits[k++] = s->inits[i];
	/* One call per run of entries from one graph. */
	for (i = 0; i < k; i = j) {
		qir_graph *g = s->inits[i]->graph;

		for (j = i; j < k && s->inits[j]->graph == g; j++)
			;
		if (qir_graph_remove_initializers(g, s->inits + i, j - i, err))
			rc = -1;
	}
	s->ninits = 0;
	return rc;
}

int ps_sweep(struct ps_sweep *s, qir_error *err)
{
	ps_sweep_nodes(s);
	return ps_sweep_inits(s, err);
}

void ps_sweep_fini(struct ps_sweep *s)
{
	free(s->nodes);
	free(s->inits);
	s->nodes = NULL;
	s->inits = NULL;
	s->nnodes = s->capnodes = s->ninits = s->capinits = 0;
}

/*
 * passes/typecheck/islands.c - the FLOAT islands of a low-precision
 * model: connected sets of nodes computing in FLOAT among nodes that
 * compute in FLOAT16 or BFLOAT16. Each costs TensorRT a reformat (the
 * Casts around it) and runs at FLOAT speed. With expect set, an island
 * none of whose nodes `allow` names is a finding (a warning: --strict
 * fails the run).
 */
#include <stdlib.h>
#include <string.h>

#include "typecheck.h"
#include "../support/fail.h"

static size_t find(size_t *p, size_t i)
{
	while (p[i] != i)
		i = p[i] = p[p[i]];
	return i;
}

static int is_float_node(const struct typecheck_node *r)
{
	return r && r->prec == QIR_FLOAT;
}

/* The island's FLOAT neighbour across a Cast, or across nothing. */
static struct typecheck_node *producer_of(struct typecheck_cfg *cfg, const qir_value *v,
				   int through_cast)
{
	qir_node *p = v ? v->producer : NULL;

	if (p && through_cast && qir_node_is(p, "Cast") && p->ninputs &&
	    p->inputs[0])
		p = p->inputs[0]->producer;
	return p ? typecheck_node_of(cfg, p) : NULL;
}

static void join(struct typecheck_cfg *cfg, size_t *p)
{
	size_t i, k;

	for (i = 0; i < cfg->nnodes; i++) {
		struct typecheck_node *r = &cfg->nodes[i];

		if (!is_float_node(r))
			continue;
		for (k = 0; k < r->n->ninputs; k++) {
			struct typecheck_node *q = producer_of(cfg, r->n->inputs[k], 0);

			if (is_float_node(q))
				p[find(p, i)] = find(p, (size_t)(q - cfg->nodes));
		}
	}
}

static int allowed(struct typecheck_cfg *cfg, const qir_node *n)
{
	const char *names[2] = { n->name, n->noutputs && n->outputs[0] ?
				 n->outputs[0]->name : NULL };

	return ps_globs_match(&cfg->tg.include, names, 2) >= 0;
}

/* Casts that feed the island or read from it. */
static uint64_t border_casts(struct typecheck_cfg *cfg, size_t *p, size_t root)
{
	uint64_t casts = 0;
	size_t i, k;

	for (i = 0; i < cfg->nnodes; i++) {
		qir_node *c = cfg->nodes[i].n;
		struct typecheck_node *in, *out = NULL;

		if (!qir_node_is(c, "Cast") || !c->ninputs || !c->noutputs ||
		    !c->outputs[0])
			continue;
		in = producer_of(cfg, c->inputs[0], 0);
		for (k = 0; k < c->outputs[0]->nuses && !out; k++) {
			struct typecheck_node *u = typecheck_node_of(cfg, c->outputs[0]->uses[k].node);

			if (is_float_node(u) && find(p, (size_t)(u - cfg->nodes)) == root)
				out = u;
		}
		casts += out || (is_float_node(in) &&
				 find(p, (size_t)(in - cfg->nodes)) == root);
	}
	return casts;
}

static void say(struct typecheck_cfg *cfg, size_t *p, size_t root)
{
	uint64_t size = 0;
	int asked = 0;
	size_t i;

	for (i = 0; i < cfg->nnodes; i++)
		if (is_float_node(&cfg->nodes[i]) && find(p, i) == root) {
			size++;
			asked |= allowed(cfg, cfg->nodes[i].n);
		}
	if (cfg->expect && !asked) {
		qopt_warn(cfg->ctx, "FLOAT island of %llu node(s) at %s, %llu "
			  "Cast(s) at its border, that no 'allow' pattern names",
			  (unsigned long long)size,
			  QIR_NODE_LABEL(cfg->nodes[root].n),
			  (unsigned long long)border_casts(cfg, p, root));
		cfg->findings++;
	} else {
		qopt_info(cfg->ctx, "FLOAT island of %llu node(s) at %s, %llu "
			  "Cast(s) at its border", (unsigned long long)size,
			  QIR_NODE_LABEL(cfg->nodes[root].n),
			  (unsigned long long)border_casts(cfg, p, root));
	}
}

int typecheck_islands(struct typecheck_cfg *cfg)
{
	size_t *p, i, low = 0, count = 0;

	for (i = 0; i < cfg->nnodes; i++)
		low += cfg->nodes[i].prec == QIR_FLOAT16 ||
		       cfg->nodes[i].prec == QIR_BFLOAT16;
	if (!low && !cfg->expect)
		return 0;	/* a FLOAT model has no islands, it is one */
	p = malloc((cfg->nnodes ? cfg->nnodes : 1) * sizeof(*p));
	if (!p) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
		return -1;
	}
	for (i = 0; i < cfg->nnodes; i++)
		p[i] = i;
	join(cfg, p);
	for (i = 0; i < cfg->nnodes; i++)
		if (is_float_node(&cfg->nodes[i]) && find(p, i) == i) {
			say(cfg, p, i);
			count++;
		}
	qopt_stat_add(cfg->ctx, "FLOAT islands", (int64_t)count);
	free(p);
	return 0;
}

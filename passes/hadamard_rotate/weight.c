/*
 * passes/hadamard_rotate/weight.c - the weight side, offline:
 * B' = R B along K through the kernels' Hadamard (CPU or CUDA, FP32
 * arithmetic, one rounding to the weight's own type). The result is a
 * new initializer (so that external data and later passes find it);
 * targets reading the same weight with the same block share it, and
 * the original stays for any other reader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hadamard_rotate.h"
#include "../support/support.h"

void hr_layout(const struct hr_target *t, size_t *outer, size_t *inner)
{
	*outer = 1;
	*inner = 1;
	for (int i = 0; i < t->kaxis; i++)
		*outer *= (size_t)t->w->dims[i];
	for (int i = t->kaxis + 1; i < t->w->rank; i++)
		*inner *= (size_t)t->w->dims[i];
}

/* Caller owns: R applied to a copy of t->w (or to t->w itself when it
 * was folded: it is then no longer t's). */
static qir_tensor *rotated_copy(struct hr_cfg *cfg, struct hr_target *t)
{
	qir_error err = { 0 };
	qir_tensor *c = t->folded ? t->w : qir_tensor_clone(t->w, &err);
	size_t outer, inner;
	void *p;
	int rc;

	if (!c) {
		qopt_error(cfg->ctx, "weight '%s': %s", t->wv->name,
			   err.msg[0] ? err.msg : "out of memory");
		return NULL;
	}
	t->folded = 0;	/* c is the caller's from here on */
	p = qir_tensor_mutable_data(c, &err);
	if (!p && c->nbytes) {
		qopt_error(cfg->ctx, "weight '%s': %s", t->wv->name,
			   err.msg[0] ? err.msg : "out of memory");
		qir_tensor_free(c);
		t->w = NULL;
		return NULL;
	}
	hr_layout(t, &outer, &inner);
	rc = qk_hadamard(cfg->qk, c->dtype, p, outer, (size_t)t->k, inner,
			 t->block);
	if (rc) {
		qopt_error(cfg->ctx, "weight '%s': Hadamard kernel: %s",
			   t->wv->name, qk_strerror(rc));
		qir_tensor_free(c);
		t->w = NULL;
		return NULL;
	}
	t->w = c;	/* borrowed from here on: the initializer owns it */
	return c;
}

/* Tensors below this stay in the heap: spilling them saves nothing. */
#define HR_SPILL_MIN ((uint64_t)1 << 20)

void hr_spill(struct hr_cfg *cfg, qir_tensor *t)
{
	const struct ps_results r = { cfg->ctx, cfg->m, HR_SPILL_MIN,
				      "rotated weights", &cfg->spill_failed };

	ps_spill(&r, t);
}

qir_value *hr_rotate_weight(struct hr_cfg *cfg, struct hr_target *t)
{
	char key[600], name[512];
	qir_value *v, *old = t->wv;
	qir_tensor *c;

	snprintf(key, sizeof(key), "w:%s:%d:%zu", old->name, t->kaxis, t->block);
	v = hr_memo_get(&cfg->memo, key);
	if (v)
		return v;
	c = rotated_copy(cfg, t);
	if (!c)
		return NULL;
	snprintf(name, sizeof(name), "%s_hadamard%zu", old->name, t->block);
	free(c->name);
	c->name = strdup(name);
	v = c->name ? qir_graph_add_initializer(t->node->graph, c) : NULL;
	if (!v) {
		qir_tensor_free(c);
		qopt_error(cfg->ctx, "weight '%s': out of memory", old->name);
		return NULL;
	}
	hr_spill(cfg, c);
	if (hr_memo_put(&cfg->memo, key, v)) {
		qopt_error(cfg->ctx, "out of memory");
		return NULL;
	}
	return v;
}

/*
 * passes/hadamard_rotate/weight.c - the weight side, offline:
 * B' = R B along K through the kernels' Hadamard (FP32 arithmetic, one
 * rounding to the weight's own type), deferred until its bytes are read
 * or written. The result is a new initializer (so that external data and later passes find it);
 * targets reading the same weight with the same block share it, and
 * the original stays for any other reader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hadamard_rotate.h"
#include "../support/fail.h"

/* outer and inner of w viewed as [outer, K, inner] along kaxis. */
static void hadamard_rotate_layout_of(const qir_tensor *w, int kaxis, size_t *outer,
			 size_t *inner)
{
	size_t k;

	ps_axis_split(w->dims, w->rank, kaxis, outer, &k, inner);
}

void hadamard_rotate_layout(const struct hadamard_rotate_target *t, size_t *outer, size_t *inner)
{
	hadamard_rotate_layout_of(t->w, t->kaxis, outer, inner);
}

/* R B as a deferred tensor (qir_tensor_new_deferred): the rotation
 * runs when someone reads the bytes, or in the writer straight into the
 * output's data file, not during the pass. On the CPU, or on CUDA when
 * --device cuda asks, with a context of its own
 * (passes/support/device.h; the bytes are the same everywhere). */
struct rot_recipe {
	struct ps_recipe base;	/* the weight's name, the device */
	size_t outer, k, inner, block;
};

static int rot_run(struct ps_recipe *base, qk_ctx *kc, const qir_tensor *in,
		   const void *src, void *const *dst, const char **step,
		   qir_error *err)
{
	struct rot_recipe *r = (struct rot_recipe *)base;
	int rc;

	(void)err;
	*step = "Hadamard rotation";
	memcpy(dst[0], src, in->nbytes);
	rc = qk_hadamard(kc, in->dtype, dst[0], r->outer, r->k, r->inner,
			 r->block);
	if (rc == QOPT_EDEVICE_CALL && base->dev == QK_DEVICE_CUDA) {
		/* The GPU failed after writing dst: start again on the CPU,
		 * as the kernels do for the calls they can redo themselves. */
		memcpy(dst[0], src, in->nbytes);
		rc = qk_hadamard(NULL, in->dtype, dst[0], r->outer, r->k,
				 r->inner, r->block);
	}
	return rc;
}

/* Caller owns: R applied to t->w (which the recipe takes when it was
 * folded: it is then no longer t's). */
static qir_tensor *rotated_copy(struct hadamard_rotate_cfg *cfg, struct hadamard_rotate_target *t)
{
	qir_error err = { 0 };
	struct rot_recipe *r = ps_recipe_new(cfg->ctx, sizeof(*r),
					     t->wv->name, rot_run, NULL);
	qir_tensor *w = t->w, *out = NULL;
	const qir_tensor_spec spec = { w->name, w->dtype, w->rank, w->dims };
	int own = t->folded;

	if (own)
		t->w = NULL;
	t->folded = 0;
	if (r) {
		hadamard_rotate_layout_of(w, t->kaxis, &r->outer, &r->inner);
		r->k = (size_t)t->k;
		r->block = t->block;
	} else if (own) {
		qir_tensor_free(w);
	}
	if (!r || ps_recipe_defer(cfg->m, &r->base, w, own, &spec, 1, &out,
				  &err)) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "weight '%s': %s", t->wv->name,
			   err.msg[0] ? err.msg : "out of memory");
		return NULL;
	}
	t->w = out;	/* borrowed from here on: the initializer owns it */
	return out;
}

/* Tensors below this stay in the heap: spilling them saves nothing. */
#define HADAMARD_ROTATE_SPILL_MIN ((uint64_t)1 << 20)

void hadamard_rotate_spill(struct hadamard_rotate_cfg *cfg, qir_tensor *t)
{
	const struct ps_results r = { cfg->ctx, cfg->m, HADAMARD_ROTATE_SPILL_MIN,
				      "rotated weights", &cfg->spill_failed };

	ps_spill(&r, t);
}

qir_value *hadamard_rotate_rotate_weight(struct hadamard_rotate_cfg *cfg, struct hadamard_rotate_target *t)
{
	char key[600], name[512];
	qir_value *v, *old = t->wv;
	qir_tensor *c;

	snprintf(key, sizeof(key), "w:%s:%d:%zu", old->name, t->kaxis, t->block);
	v = hadamard_rotate_memo_get(&cfg->memo, key);
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
		ps_fail(cfg->ctx, QOPT_ENOMEM, "weight '%s': out of memory", old->name);
		return NULL;
	}
	hadamard_rotate_spill(cfg, c);
	if (hadamard_rotate_memo_put(&cfg->memo, key, v)) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
		return NULL;
	}
	return v;
}

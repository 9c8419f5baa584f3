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

/* outer and inner of w viewed as [outer, K, inner] along kaxis. */
static void hr_layout_of(const qir_tensor *w, int kaxis, size_t *outer,
			 size_t *inner)
{
	size_t k;

	ps_axis_split(w->dims, w->rank, kaxis, outer, &k, inner);
}

void hr_layout(const struct hr_target *t, size_t *outer, size_t *inner)
{
	hr_layout_of(t->w, t->kaxis, outer, inner);
}

/* R B as a deferred tensor (qir_tensor_new_deferred): the rotation
 * runs when someone reads the bytes, or in the writer straight into the
 * output's data file, not during the pass. On the CPU, or on CUDA when
 * --device cuda asks, with a context of its own
 * (passes/support/device.h; the bytes are the same everywhere). */
struct rot_recipe {
	char *name;		/* the weight, for messages */
	qk_device dev;
	size_t outer, k, inner, block;
};

static int rot_fill(void *state, qir_tensor *const *in, size_t nin,
		    void *const *dst, qir_error *err)
{
	struct rot_recipe *r = state;
	const void *src = qir_tensor_data(in[0], err);
	qk_ctx *kc;
	int rc;

	(void)nin;
	if (!src)
		return -1;
	memcpy(dst[0], src, in[0]->nbytes);
	kc = ps_recipe_kernels(r->dev);
	rc = qk_hadamard(kc, in[0]->dtype, dst[0], r->outer, r->k, r->inner,
			 r->block);
	qk_ctx_free(kc);
	if (rc == QOPT_EDEVICE_CALL && r->dev == QK_DEVICE_CUDA) {
		/* The GPU failed after writing dst: start again on the CPU,
		 * as the kernels do for the calls they can redo themselves. */
		memcpy(dst[0], src, in[0]->nbytes);
		rc = qk_hadamard(NULL, in[0]->dtype, dst[0], r->outer, r->k,
				 r->inner, r->block);
	}
	if (rc)
		return qir_fail(err, QIR_EINVALID,
				"weight '%s': Hadamard kernel: %s", r->name,
				qk_strerror(rc));
	return 0;
}

static void rot_free(void *state)
{
	struct rot_recipe *r = state;

	if (r)
		free(r->name);
	free(r);
}

static const qir_recipe_ops rot_ops = { rot_fill, rot_free };

/* Caller owns: R applied to t->w (which the recipe takes when it was
 * folded: it is then no longer t's). */
static qir_tensor *rotated_copy(struct hr_cfg *cfg, struct hr_target *t)
{
	qir_error err = { 0 };
	struct rot_recipe *r = calloc(1, sizeof(*r));
	qir_tensor *in = NULL, *out = NULL;
	qir_tensor_spec spec;

	if (r && (r->name = strdup(t->wv->name)))
		in = t->folded ? t->w : qir_tensor_share(cfg->m, t->w, &err);
	if (t->folded)
		t->w = NULL;
	t->folded = 0;
	if (!in) {
		rot_free(r);
		qopt_error(cfg->ctx, "weight '%s': %s", t->wv->name,
			   err.msg[0] ? err.msg : "out of memory");
		return NULL;
	}
	hr_layout_of(in, t->kaxis, &r->outer, &r->inner);
	r->k = (size_t)t->k;
	r->block = t->block;
	r->dev = ps_recipe_device(cfg->ctx);
	spec.name = in->name;
	spec.dtype = in->dtype;
	spec.rank = in->rank;
	spec.dims = in->dims;
	if (qir_tensor_new_deferred(cfg->m, &rot_ops, r, &in, 1, &spec, 1,
				    &out, &err)) {
		qopt_error(cfg->ctx, "weight '%s': %s", t->wv->name,
			   err.msg[0] ? err.msg : "out of memory");
		return NULL;
	}
	t->w = out;	/* borrowed from here on: the initializer owns it */
	return out;
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

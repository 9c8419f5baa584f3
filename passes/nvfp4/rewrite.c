/*
 * passes/nvfp4/rewrite.c - quantizes one stored weight and
 * rewrites the graph around it.
 *
 * real: w_fp4 (FLOAT4E2M1, weight shape), w_fp4_scale (FLOAT8E4M3FN,
 *       K axis divided by 16), w_fp4_gscale (FLOAT scalar);
 *       DequantizeLinear(scale, gscale) -> DequantizeLinear(w_fp4, .,
 *       axis=K, block_size=16) [-> Cast back to FLOAT16/BFLOAT16]; the
 *       chain's output takes the original weight's name.
 * fake: the weight's bytes are replaced by the dequantized values in
 *       its own type (so ONNX Runtime can run the model), a deferred
 *       recipe the writer computes straight into the output.
 * Either way the original (initializer, Constant node, constant
 * subgraph, TRT_FP4QDQ placeholders) is removed once unused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvfp4.h"
#include "../support/fail.h"

struct layout {
	int rank;
	int64_t dims[16];
	int64_t sdims[16];	/* block scale shape */
	size_t outer, k, inner;
};

static int make_layout(const qir_tensor *t, int axis, struct layout *l)
{
	int i;

	if (t->rank > 16 || axis < 0 || axis >= t->rank)
		return -1;
	l->rank = t->rank;
	for (i = 0; i < t->rank; i++)
		l->dims[i] = l->sdims[i] = t->dims[i];
	ps_axis_split(t->dims, t->rank, axis, &l->outer, &l->k, &l->inner);
	l->sdims[axis] = t->dims[axis] / QK_NVFP4_BLOCK;
	return 0;
}

static int kerr(struct nvfp4_cfg *cfg, const char *what, const char *name,
		int rc)
{
	qopt_error(cfg->ctx, "%s of weight '%s' failed: %s", what, name,
		   qk_strerror(rc));
	return -1;
}

static int irerr(struct nvfp4_cfg *cfg, const char *name, const qir_error *e)
{
	ps_fail(cfg->ctx, QOPT_ENOMEM, "weight '%s': %s", name,
		   e->msg[0] ? e->msg : "out of memory");
	return -1;
}

/* Placeholders on the paths to the consumers disappear: their
 * consumers read the (to be quantized) weight path directly. */
static int drop_placeholders(struct nvfp4_cfg *cfg, struct nvfp4_weight *w)
{
	qir_error err = { 0 };
	size_t i;
	int j;

	for (i = 0; i < w->uses.n; i++) {
		for (j = 0; j < w->uses.v[i].npath; j++) {
			qir_node *p = w->uses.v[i].path[j];
			size_t k;

			if (!p || !ps_is_placeholder(p))
				continue;
			if (qir_value_replace_all_uses(p->outputs[0],
						       p->inputs[0]) < 0 ||
			    qir_node_erase(p, &err))
				return irerr(cfg, w->stored->name, &err);
			qopt_stat_add(cfg->ctx, "TRT_FP4QDQ placeholders replaced", 1);
			/* Other uses may share the path: forget the node. */
			for (k = 0; k < w->uses.n; k++) {
				int l;

				for (l = 0; l < w->uses.v[k].npath; l++)
					if (w->uses.v[k].path[l] == p)
						w->uses.v[k].path[l] = NULL;
			}
		}
	}
	return 0;
}

/* The node of g that holds n (n itself, or the node owning the
 * subgraph n lives in). */
static qir_node *anchor_in(qir_graph *g, qir_node *n)
{
	while (n && n->graph != g)
		n = n->graph->parent_node;
	return n;
}

/* First node of g that reads v, directly or from a subgraph. */
static qir_node *first_user(qir_graph *g, qir_value *v)
{
	qir_node *n;
	size_t i;

	qir_graph_for_each_node(g, n)
		for (i = 0; i < v->nuses; i++)
			if (anchor_in(g, v->uses[i].node) == n)
				return n;
	return NULL;
}

/* Backward cone of a folded weight inside its graph, to remove what
 * the rewrite leaves unused (and nothing else). */
struct cone {
	qir_node **nodes;
	size_t n, cap;
	qir_value **inits;
	size_t ni, capi;
};

static int cone_push(void ***arr, size_t *n, size_t *cap, void *p)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*arr)[i] == p)
			return 1;
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		void **a = realloc(*arr, c * sizeof(*a));

		if (!a)
			return -1;
		*arr = a;
		*cap = c;
	}
	(*arr)[(*n)++] = p;
	return 0;
}

static int cone_collect(struct cone *c, qir_graph *g, qir_value *v)
{
	qir_node *p = v->producer;
	size_t i;
	int rc;

	if (v->graph != g)
		return 0;
	if (!p) {
		if (v->init && !v->is_input)
			return cone_push((void ***)&c->inits, &c->ni, &c->capi,
					 v) < 0 ? -1 : 0;
		return 0;
	}
	rc = cone_push((void ***)&c->nodes, &c->n, &c->cap, p);
	if (rc)
		return rc < 0 ? -1 : 0;
	for (i = 0; i < p->ninputs; i++)
		if (p->inputs[i] && cone_collect(c, g, p->inputs[i]))
			return -1;
	return 0;
}

static void cone_sweep(struct cone *c, qir_graph *g)
{
	struct ps_sweep s = { 0 };
	size_t i;

	(void)g;
	/* The cone's nodes, each once nothing reads it, and the
	 * initializers they leave unread: no other producer is followed. */
	for (i = 0; i < c->n; i++)
		ps_sweep_mark(&s, c->nodes[i]);
	for (i = 0; i < c->ni; i++)
		ps_sweep_value(&s, c->inits[i]);
	/* The conditions are removal's only reasons to fail. */
	(void)ps_sweep(&s, NULL);
	ps_sweep_fini(&s);
}

static void cone_free(struct cone *c)
{
	free(c->nodes);
	free(c->inits);
}

/* Removes what used to define the weight, now that nothing reads it;
 * what cannot go (still read elsewhere) stays and is said. */
static void remove_original(struct nvfp4_cfg *cfg, struct nvfp4_weight *w,
			    struct cone *c)
{
	qir_error err = { 0 };
	int rc = 0;

	if (w->constant)
		rc = qir_node_erase(w->constant, &err);
	else if (w->folded)
		cone_sweep(c, w->graph);
	else
		rc = ps_drop_unused_initializer(w->stored, &err);
	if (rc < 0)
		qopt_info(cfg->ctx, "weight '%s': original kept: %s",
			  w->stored->name, err.msg);
}

/* n's output typed dtype of l's rank and dims; NULL when n is. */
static qir_value *typed(qir_node *n, int dtype, const struct layout *l,
			const int64_t *dims, qir_node **out)
{
	qir_value *o = n ? n->outputs[0] : NULL;

	if (!o || qir_value_set_type(o, dtype, l->rank, dims, NULL))
		return NULL;
	*out = n;
	return o;
}

/* Cast(a) to dtype named after hint. */
static qir_node *cast_node(qir_graph *g, qir_value *a, const char *hint,
			   int dtype)
{
	qir_node *n = qir_node_new(g, "Cast", NULL, hint);

	if (!n || qir_node_add_input(n, a) ||
	    !qir_node_add_output(n, NULL, hint) ||
	    qir_node_set_attr_int(n, "to", dtype))
		return NULL;
	return n;
}

static char *suffixed(const char *name, const char *suffix)
{
	size_t n = strlen(name) + strlen(suffix) + 1;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s%s", name, suffix);
	return s;
}

struct real_tensors {
	qir_tensor *f4, *s8, *g;
};

/* The real-mode recipe: one pass of the NVFP4 quantizer over the
 * weight fills all three outputs (codes, block scales, global scale).
 * Deferred (qir_tensor_new_deferred): the writer runs it straight into
 * the output's data file, a reader of the bytes runs it on demand: on
 * the CPU, or on CUDA when --device cuda asks, with a context of its own
 * (passes/support/device.h; the bytes are the same everywhere). */
struct real_recipe {
	struct ps_recipe base;	/* the weight's name, the device */
	int dtype;
	size_t outer, k, inner;
	float amax;		/* the weight's, or -1: the kernel finds it */
};

static int real_run(struct ps_recipe *base, qk_ctx *kc, const qir_tensor *in,
		    const void *src, void *const *dst, const char **step,
		    qir_error *err)
{
	struct real_recipe *r = (struct real_recipe *)base;
	float g = 0.0f;
	int rc;

	(void)in;
	(void)err;
	*step = "NVFP4 quantization";
	rc = r->amax >= 0 ?
	     qk_nvfp4_quantize_amax(kc, r->dtype, src, r->outer, r->k,
				    r->inner, r->amax, dst[0], dst[1], &g) :
	     qk_nvfp4_quantize(kc, r->dtype, src, r->outer, r->k, r->inner,
			       dst[0], dst[1], &g);
	if (!rc)
		memcpy(dst[2], &g, sizeof(g));
	return rc;
}

static int quantize_real(struct nvfp4_cfg *cfg, struct nvfp4_weight *w,
			 qir_tensor *t, const struct layout *l,
			 struct real_tensors *rt)
{
	qir_error err = { 0 };
	char *n4 = suffixed(w->stored->name, "_fp4");
	char *ns = suffixed(w->stored->name, "_fp4_scale");
	char *ng = suffixed(w->stored->name, "_fp4_gscale");
	struct real_recipe *r = ps_recipe_new(cfg->ctx, sizeof(*r),
					      w->stored->name, real_run, NULL);
	qir_tensor *out[3];
	int rc = -1;

	memset(rt, 0, sizeof(*rt));
	if (!n4 || !ns || !ng || !r) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "weight '%s': out of memory",
			   w->stored->name);
		ps_recipe_free(r);
		goto out;
	}
	if (l->k % QK_NVFP4_BLOCK) {
		ps_recipe_free(r);
		rc = kerr(cfg, "NVFP4 quantization", w->stored->name,
			  QK_EBLOCK);
		goto out;
	}
	r->dtype = t->dtype;
	r->outer = l->outer;
	r->k = l->k;
	r->inner = l->inner;
	r->amax = w->amax;
	/* The recipe's own view of the weight's bytes (shared): the
	 * original goes away with the rewrite. */
	{
		const qir_tensor_spec specs[3] = {
			{ n4, QIR_FLOAT4E2M1, l->rank, l->dims },
			{ ns, QIR_FLOAT8E4M3FN, l->rank, l->sdims },
			{ ng, QIR_FLOAT, 0, NULL },
		};

		if (ps_recipe_defer(cfg->m, &r->base, t, 0, specs, 3, out,
				    &err))
			goto ir_fail;
	}
	rt->f4 = out[0];
	rt->s8 = out[1];
	rt->g = out[2];
	rc = 0;
	goto out;
ir_fail:
	irerr(cfg, w->stored->name, &err);
out:
	free(n4);
	free(ns);
	free(ng);
	return rc;
}

/* Builds the DequantizeLinear chain; returns its output. */
static qir_value *build_chain(struct nvfp4_weight *w, struct real_tensors *rt,
			      const struct layout *l, int dtype, int axis)
{
	qir_graph *g = w->graph;
	qir_node *dq1 = NULL, *dq2 = NULL, *cast = NULL, *at;
	qir_value *v4, *vs, *vg, *s32, *out;

	w->written = rt->f4->nbytes + rt->s8->nbytes + rt->g->nbytes;
	v4 = ps_add_initializer(g, rt->f4);
	vs = ps_add_initializer(g, rt->s8);
	vg = ps_add_initializer(g, rt->g);
	memset(rt, 0, sizeof(*rt));
	if (!v4 || !vs || !vg)
		return NULL;
	s32 = typed(ps_qdq_node(g, "DequantizeLinear", vs->name, vs, vg, NULL),
		    QIR_FLOAT, l, l->sdims, &dq1);
	if (!s32)
		return NULL;
	out = typed(ps_qdq_node(g, "DequantizeLinear", v4->name, v4, s32, NULL),
		    QIR_FLOAT, l, l->dims, &dq2);
	if (!out || qir_node_set_attr_int(dq2, "axis", axis) ||
	    qir_node_set_attr_int(dq2, "block_size", QK_NVFP4_BLOCK))
		return NULL;
	if (dtype != QIR_FLOAT) {
		/* The consumer expects the weight's own type; a later
		 * cast-folding pass may retype the chain instead. */
		out = typed(cast_node(g, out, w->stored->name, dtype), dtype, l,
			    l->dims, &cast);
		if (!out)
			return NULL;
	}
	at = first_user(g, w->stored);
	if (at) {
		qir_node_move_before(dq1, at);
		qir_node_move_before(dq2, at);
		if (cast)
			qir_node_move_before(cast, at);
	}
	return out;
}

/* The chain's output (or the fake weight) takes the original name, so
 * consumers and later passes keep seeing the weight's name. */
static void take_name(struct nvfp4_cfg *cfg, qir_value *v, const char *name)
{
	qir_error err = { 0 };

	if (strcmp(v->name, name) && qir_value_rename(v, name, &err) < 0)
		qopt_info(cfg->ctx, "weight '%s' is now named '%s': %s", name,
			  v->name, err.msg);
}

static int rewrite_real(struct nvfp4_cfg *cfg, struct nvfp4_weight *w,
			qir_tensor *t, const struct layout *l,
			struct cone *c)
{
	struct real_tensors rt;
	qir_value *out;
	char *name;
	int dtype = t->dtype;

	/* The opset was raised before the weight's gate (plugin.c). */
	if (quantize_real(cfg, w, t, l, &rt))
		return -1;
	out = build_chain(w, &rt, l, dtype, w->kaxis);
	if (!out) {
		qopt_error(cfg->ctx, "weight '%s': cannot build the "
			   "DequantizeLinear chain", w->stored->name);
		return -1;
	}
	name = strdup(w->stored->name);
	if (!name)
		return -1;
	if (qir_value_replace_all_uses(w->stored, out) < 0) {
		free(name);
		ps_fail(cfg->ctx, QOPT_ENOMEM, "weight '%s': out of memory", w->stored->name);
		return -1;
	}
	remove_original(cfg, w, c);
	take_name(cfg, out, name);
	free(name);
	return 0;
}

/* Fake values as a deferred recipe: the writer computes them straight
 * into the output (in parallel with the rest of the save), so fake
 * mode costs what real mode does, with no copy in the heap or the
 * spill file. The bytes are those of ps_fake_nvfp4 (or, rotated,
 * nvfp4_fake_rotated's): the global scale from the weight's amax,
 * then strips of whole 16 x inner tiles quantized and dequantized
 * through a small buffer (tiles are independent given the global
 * scale, so the strips give the same bytes as the whole). */
struct fake_recipe {
	struct ps_recipe base;	/* the weight's name, the device */
	size_t outer, k, inner;
	float amax;		/* the weight's, or -1: found in the fill */
	int rotate_back;
};

/* Elements of one strip (128 KiB of FLOAT16): its codes and block
 * scales stay in the L2 cache between the two kernels. */
#define FAKE_STRIP_ELEMS ((size_t)1 << 16)

static int fake_strips(qk_ctx *kc, int dtype, const unsigned char *src,
		       unsigned char *dst, const struct fake_recipe *r,
		       const char **step)
{
	size_t tile = QK_NVFP4_BLOCK * r->inner, es = qir_dtype_bits(dtype) / 8;
	size_t tiles = r->outer * (r->k / QK_NVFP4_BLOCK), per, t0, h;
	float amax = r->amax, g;
	uint8_t *codes, *scales;
	int rc;

	*step = "NVFP4 quantization";
	if (amax < 0 && (rc = qk_amax(kc, dtype, src, tiles * tile, &amax)))
		return rc;
	g = qk_nvfp4_gscale(amax);
	per = tile < FAKE_STRIP_ELEMS ? FAKE_STRIP_ELEMS / tile : 1;
	per = per < tiles ? per : tiles;
	codes = malloc(per * tile / 2 + 1);
	scales = malloc(per * r->inner + 1);
	rc = codes && scales ? 0 : QK_ENOMEM;
	if (rc)
		*step = "out of memory";
	/* A strip of h tiles is the tensor [h, 16, inner]. */
	for (t0 = 0; t0 < tiles && !rc; t0 += h) {
		h = tiles - t0 < per ? tiles - t0 : per;
		*step = "NVFP4 quantization";
		rc = qk_nvfp4_quantize_gscale(kc, dtype, src + t0 * tile * es,
					      h, QK_NVFP4_BLOCK, r->inner, g,
					      codes, scales);
		if (rc)
			break;
		*step = "NVFP4 dequantization";
		rc = qk_nvfp4_dequantize(kc, codes, scales, g, h,
					 QK_NVFP4_BLOCK, r->inner, dtype,
					 dst + t0 * tile * es);
	}
	free(codes);
	free(scales);
	return rc;
}

static int fake_run(struct ps_recipe *base, qk_ctx *kc, const qir_tensor *in,
		    const void *src, void *const *dst, const char **step,
		    qir_error *err)
{
	struct fake_recipe *r = (struct fake_recipe *)base;

	(void)err;
	if (r->rotate_back)
		return nvfp4_fake_rotated_run(kc, in->dtype, src, r->outer,
					      r->k, r->inner, dst[0], step);
	return fake_strips(kc, in->dtype, src, dst[0], r, step);
}

static struct fake_recipe *fake_recipe(struct nvfp4_cfg *cfg,
				       struct nvfp4_weight *w,
				       const struct layout *l)
{
	struct fake_recipe *r = ps_recipe_new(cfg->ctx, sizeof(*r),
					      w->stored->name, fake_run, NULL);

	if (!r) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "weight '%s': out of memory",
			   w->stored->name);
		return NULL;
	}
	r->outer = l->outer;
	r->k = l->k;
	r->inner = l->inner;
	r->amax = w->amax;
	r->rotate_back = cfg->rotate_back;
	return r;
}

/* The initializer's bytes become the recipe's (same place, name, type
 * and shape). */
static int rewrite_fake_init(struct nvfp4_cfg *cfg, struct nvfp4_weight *w,
			     const struct layout *l)
{
	qir_error err = { 0 };
	struct fake_recipe *r = fake_recipe(cfg, w, l);

	if (!r || ps_recipe_replace(cfg->m, &r->base, w->stored, &err))
		return r ? irerr(cfg, w->stored->name, &err) : -1;
	w->tensor = w->stored->init;
	w->written = w->tensor->nbytes;
	return 0;
}

/* Folded weights become an initializer holding the fake values (a
 * recipe reading the folder's result); takes ownership of t
 * (caller-owned result of the constant folder). */
static int rewrite_fake_folded(struct nvfp4_cfg *cfg, struct nvfp4_weight *w,
			       qir_tensor *t, const struct layout *l,
			       struct cone *c)
{
	qir_error err = { 0 };
	struct fake_recipe *r = fake_recipe(cfg, w, l);
	char *name = strdup(w->stored->name);
	qir_tensor *ft = NULL;
	qir_value *v;

	if (!r || !name) {
		ps_recipe_free(r);
		qir_tensor_free(t);
		free(name);
		return r ? irerr(cfg, w->stored->name, &err) : -1;
	}
	/* The folder's result may be unnamed; the initializer is named
	 * after the weight (made unique until the original is gone). */
	{
		const qir_tensor_spec spec = { name, t->dtype, l->rank,
					       l->dims };

		if (ps_recipe_defer(cfg->m, &r->base, t, 1, &spec, 1, &ft,
				    &err)) {
			free(name);
			return irerr(cfg, w->stored->name, &err);
		}
	}
	w->written = ft->nbytes;
	v = ps_add_initializer(w->graph, ft);
	if (!v) {
		free(name);
		return irerr(cfg, w->stored->name, &err);
	}
	if (qir_value_replace_all_uses(w->stored, v) < 0) {
		free(name);
		return irerr(cfg, w->stored->name, &err);
	}
	remove_original(cfg, w, c);
	take_name(cfg, v, name);
	free(name);
	return 0;
}

/* Fake mode on a Constant node: it becomes an initializer first (so
 * the fake values can go to external data), then is rewritten there. */
static int constant_to_init(struct nvfp4_cfg *cfg, struct nvfp4_weight *w)
{
	qir_error err = { 0 };
	char *name = strdup(w->stored->name);
	qir_value *v;

	if (!name)
		return -1;
	if (qir_graph_constant_to_initializer(w->graph, w->constant, &err)) {
		free(name);
		return irerr(cfg, w->stored->name, &err);
	}
	v = qir_graph_find_value(w->graph, name);
	free(name);
	if (!v || !v->init) {
		qopt_error(cfg->ctx, "weight: Constant did not become an initializer");
		return -1;
	}
	w->stored = v;
	w->constant = NULL;
	w->tensor = v->init;
	return 0;
}

int nvfp4_rewrite(struct nvfp4_cfg *cfg, struct nvfp4_weight *w,
		  qir_tensor *t)
{
	struct cone c = { 0 };
	struct layout l;
	int rc = -1;

	if (make_layout(t, w->kaxis, &l)) {
		ps_fail(cfg->ctx, QOPT_EUNSUPPORTED, "weight '%s': rank %d not supported",
			   w->stored->name, t->rank);
		goto out;
	}
	if (w->folded && w->stored->producer &&
	    cone_collect(&c, w->graph, w->stored))
		goto out;
	if (drop_placeholders(cfg, w))
		goto out;
	if (cfg->mode == NVFP4_REAL) {
		rc = rewrite_real(cfg, w, t, &l, &c);
	} else if (w->folded) {
		rc = rewrite_fake_folded(cfg, w, t, &l, &c);
		t = NULL;	/* taken */
	} else {
		rc = w->constant ? constant_to_init(cfg, w) : 0;
		if (!rc)
			rc = rewrite_fake_init(cfg, w, &l);
	}
out:
	if (w->folded && t)
		qir_tensor_free(t);
	cone_free(&c);
	return rc;
}

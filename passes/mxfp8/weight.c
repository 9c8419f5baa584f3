/*
 * passes/mxfp8/weight.c - static MXFP8 weights: quantized once by
 * qk_mxfp8_quantize along K (the stored weight's reduction axis, found
 * through layout nodes by the toolkit's walk).
 *
 * real, format trt:  W_f8 (FLOAT8E4M3FN, W's shape), W_scale (UINT8
 *       E8M0 codes, K / 32) -> trt::TRT_MXFP8DequantizeLinear(axis=K,
 *       block_size=32, output_dtype=W's type), ModelOpt's form;
 * real, format onnx: the same bytes, the scale typed FLOAT8E8M0 ->
 *       DequantizeLinear-24(axis, block_size, output_dtype);
 * fake: the dequantized values in W's own type.
 * The chain's output (or the fake weight) takes the weight's name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weight.h"
#include "select.h"
#include "util.h"
#include "../support/fail.h"

static int remember(struct mxfp8_cfg *cfg, qir_value *v, int rc)
{
	if (cfg->ndone == cfg->capdone) {
		size_t cap = cfg->capdone ? 2 * cfg->capdone : 64;
		struct mxfp8_done *d = realloc(cfg->done, cap * sizeof(*d));

		if (!d) {
			ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
			return -1;
		}
		cfg->done = d;
		cfg->capdone = cap;
	}
	cfg->done[cfg->ndone].v = v;
	cfg->done[cfg->ndone++].rc = rc;
	return rc;
}

static int seen(const struct mxfp8_cfg *cfg, const qir_value *v)
{
	size_t i;

	for (i = 0; i < cfg->ndone; i++)
		if (cfg->done[i].v == v)
			return cfg->done[i].rc;
	return -1;
}

/* What defined a replaced value: the nodes and initializers behind it,
 * collected before anything is erased (an erased node frees its
 * outputs, which other entries may name). */
#define MXFP8_CONE 64
struct cone {
	qir_node *n[MXFP8_CONE];
	qir_value *init[MXFP8_CONE];
	size_t nn, ni;
};

static void cone_add(struct cone *c, qir_value *v, int depth)
{
	qir_node *p = v->producer;
	size_t i;

	if (!p) {
		for (i = 0; i < c->ni; i++)
			if (c->init[i] == v)
				return;
		if (v->init && !v->is_input && c->ni < MXFP8_CONE)
			c->init[c->ni++] = v;
		return;
	}
	for (i = 0; i < c->nn; i++)
		if (c->n[i] == p)
			return;
	if (c->nn == MXFP8_CONE || depth > 16)
		return;
	c->n[c->nn++] = p;
	for (i = 0; i < p->ninputs; i++)
		if (p->inputs[i] && p->inputs[i]->graph == v->graph)
			cone_add(c, p->inputs[i], depth + 1);
}

/* Removes what in c nothing reads any more (what is still read stays). */
static void cone_sweep(struct cone *c)
{
	qir_error err = { 0 };
	int again = 1;
	size_t i;

	while (again) {
		again = 0;
		for (i = 0; i < c->nn; i++)
			if (c->n[i] && ps_node_unused(c->n[i]) &&
			    !qir_node_erase(c->n[i], &err)) {
				c->n[i] = NULL;
				again = 1;
			}
	}
	for (i = 0; i < c->ni; i++)
		(void)ps_drop_unused_initializer(c->init[i], &err);
}

int mxfp8_replace(struct mxfp8_cfg *cfg, qir_value *old, qir_value *nv)
{
	qir_error err = { 0 };
	char *name = strdup(old->name);
	struct cone c = { .nn = 0 };

	if (!name || qir_value_replace_all_uses(old, nv) < 0) {
		free(name);
		ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
		return -1;
	}
	cone_add(&c, old, 0);
	cone_sweep(&c);
	if (strcmp(nv->name, name) && qir_value_rename(nv, name, &err) < 0)
		qopt_info(cfg->ctx, "'%s' is now named '%s': %s", name,
			  nv->name, err.msg);
	free(name);
	return 0;
}

static char *suffixed(const char *name, const char *suffix)
{
	size_t n = strlen(name) + strlen(suffix) + 1;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s%s", name, suffix);
	return s;
}

/* t's codes and scales (caller frees both), or -1 after qopt_error. */
static int quantize(struct mxfp8_cfg *cfg, qir_tensor *t, int kaxis,
		    const char *name, uint8_t **codes, uint8_t **scales)
{
	qir_error err = { 0 };
	const void *src = qir_tensor_data(t, &err);
	size_t outer, k, inner, n = qir_tensor_numel(t);
	int rc;

	*codes = malloc(n ? n : 1);
	*scales = malloc(n / MXFP8_BLOCK ? n / MXFP8_BLOCK : 1);
	if (!*codes || !*scales || (n && !src)) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "weight '%s': %s", name,
			   err.msg[0] ? err.msg : "out of memory");
		return -1;
	}
	ps_axis_split(t->dims, t->rank, kaxis, &outer, &k, &inner);
	rc = qk_mxfp8_quantize(cfg->qk, t->dtype, src, outer, k, inner,
			       *codes, *scales);
	if (rc) {
		qopt_error(cfg->ctx, "MXFP8 quantization of weight '%s' "
			   "failed: %s", name, qk_strerror(rc));
		return -1;
	}
	return 0;
}

/* A tensor named name+suffix holding a copy of bytes, added to g. */
static qir_value *add_tensor(struct mxfp8_cfg *cfg, qir_graph *g,
			     const char *name, const char *suffix, int dtype,
			     int rank, const int64_t *dims, const void *bytes)
{
	qir_error err = { 0 };
	char *nm = suffixed(name, suffix);
	qir_tensor *t = nm ? qir_tensor_new(nm, dtype, rank, dims, &err) : NULL;
	void *dst = t ? qir_tensor_mutable_data(t, &err) : NULL;
	qir_value *v;

	free(nm);
	if (t && t->nbytes && !dst) {
		qir_tensor_free(t);
		t = NULL;
	}
	if (t && t->nbytes)
		memcpy(dst, bytes, t->nbytes);
	v = ps_add_initializer(g, t);
	if (!v)
		ps_fail(cfg->ctx, QOPT_ENOMEM, "weight '%s': %s", name,
			   err.msg[0] ? err.msg : "out of memory");
	return v;
}

/* The fake values as a deferred recipe: computed by the writer straight
 * into the output (or by whoever reads them first), never held in the
 * heap or the spill file, so fake mode costs about what copying the
 * weight does. Tiles of 32 x inner are independent (one E8M0 scale per
 * block, no global scale), so strips of whole tiles quantized and
 * dequantized through a small buffer give the bytes of the whole. */
struct fake_recipe {
	struct ps_recipe base;	/* the weight's name, the device */
	size_t outer, k, inner;
};

/* Elements of one strip: its codes and scales stay in the cache
 * between the two kernels. */
#define MXFP8_STRIP_ELEMS ((size_t)1 << 16)

static int fake_run(struct ps_recipe *base, qk_ctx *kc, const qir_tensor *in,
		    const void *src, void *const *dst, const char **step,
		    qir_error *err)
{
	const struct fake_recipe *r = (const struct fake_recipe *)base;
	size_t tile = MXFP8_BLOCK * r->inner, es = qir_dtype_bits(in->dtype) / 8;
	size_t tiles = r->outer * (r->k / MXFP8_BLOCK), per, t0, h;
	const unsigned char *s = src;
	unsigned char *d = dst[0];
	uint8_t *codes, *scales;
	int rc;

	(void)err;
	per = tile < MXFP8_STRIP_ELEMS ? MXFP8_STRIP_ELEMS / tile : 1;
	per = per < tiles ? per : tiles;
	codes = malloc(per * tile + 1);
	scales = malloc(per * r->inner + 1);
	rc = codes && scales ? 0 : QK_ENOMEM;
	*step = "out of memory";
	/* A strip of h tiles is the tensor [h, 32, inner]. */
	for (t0 = 0; t0 < tiles && !rc; t0 += h) {
		h = tiles - t0 < per ? tiles - t0 : per;
		*step = "MXFP8 quantization";
		rc = qk_mxfp8_quantize(kc, in->dtype, s + t0 * tile * es, h,
				       MXFP8_BLOCK, r->inner, codes, scales);
		if (rc)
			break;
		*step = "MXFP8 dequantization";
		rc = qk_mxfp8_dequantize(kc, codes, scales, h, MXFP8_BLOCK,
					 r->inner, in->dtype,
					 d + t0 * tile * es);
	}
	free(codes);
	free(scales);
	return rc;
}

static qir_value *fake_value(struct mxfp8_cfg *cfg, qir_graph *g, qir_tensor *t,
			     int kaxis, const char *name)
{
	qir_error err = { 0 };
	char *nm = suffixed(name, "_mxfp8");
	struct fake_recipe *r = ps_recipe_new(cfg->ctx, sizeof(*r), name,
					      fake_run, NULL);
	qir_tensor *f = NULL;

	if (!nm || !r) {
		free(nm);
		ps_recipe_free(r);
		ps_fail(cfg->ctx, QOPT_ENOMEM, "weight '%s': out of memory", name);
		return NULL;
	}
	ps_axis_split(t->dims, t->rank, kaxis, &r->outer, &r->k, &r->inner);
	{
		const qir_tensor_spec spec = { nm, t->dtype, t->rank, t->dims };

		/* A shared view of t: external and inline bytes are not
		 * copied (a folded t, which the caller frees, is). */
		if (ps_recipe_defer(cfg->m, &r->base, t, 0, &spec, 1, &f,
				    &err)) {
			free(nm);
			ps_fail(cfg->ctx, QOPT_ENOMEM, "weight '%s': %s", name,
				   err.msg[0] ? err.msg : "out of memory");
			return NULL;
		}
	}
	free(nm);
	qir_tensor_keep_fields(f, t);	/* W's doc_string, metadata */
	return ps_add_initializer(g, f);
}

/* The dequantize node over codes c8 and scales sc (typed by format). */
static qir_value *dq_node(struct mxfp8_cfg *cfg, qir_graph *g, qir_value *c8,
			  qir_value *sc, int kaxis, int dtype, int rank,
			  const int64_t *dims, const char *name)
{
	int onnx = cfg->format == MXFP8_ONNX;
	qir_node *n = mxfp8_node(g, onnx ? "DequantizeLinear" : MXFP8_DQ,
			      onnx ? NULL : MXFP8_DOMAIN, name, c8, sc);
	qir_value *o = n ? qir_node_add_output(n, NULL, name) : NULL;

	if (!o || qir_value_set_type(o, dtype, rank, dims, NULL) ||
	    qir_node_set_attr_int(n, "axis", kaxis) ||
	    qir_node_set_attr_int(n, "block_size", MXFP8_BLOCK) ||
	    qir_node_set_attr_int(n, "output_dtype", dtype)) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "weight '%s': out of memory", name);
		return NULL;
	}
	return o;
}

qir_value *mxfp8_weight_value(struct mxfp8_cfg *cfg, qir_graph *g, qir_tensor *t,
			   int kaxis, const char *name)
{
	uint8_t *c = NULL, *s = NULL;
	qir_value *v = NULL, *c8, *sc;
	int64_t sdims[16];
	int i;

	if (t->rank > 16)
		return NULL;
	if (cfg->mode == MXFP8_FAKE)
		return fake_value(cfg, g, t, kaxis, name);
	if (quantize(cfg, t, kaxis, name, &c, &s))
		goto out;
	for (i = 0; i < t->rank; i++)
		sdims[i] = t->dims[i];
	sdims[kaxis] /= MXFP8_BLOCK;
	c8 = add_tensor(cfg, g, name, "_f8", QIR_FLOAT8E4M3FN, t->rank,
			t->dims, c);
	sc = c8 ? add_tensor(cfg, g, name, "_scale", cfg->format == MXFP8_ONNX ?
			     QIR_FLOAT8E8M0 : QIR_UINT8, t->rank, sdims, s) :
		  NULL;
	if (sc)
		v = dq_node(cfg, g, c8, sc, kaxis, t->dtype, t->rank, t->dims,
			    name);
out:
	free(c);
	free(s);
	return v;
}

/* Every consumer must be a selected layer: a weight also read by a
 * layer the targets leave alone stays float for both. */
static void check_uses(struct mxfp8_cfg *cfg, const struct ps_uses *u,
		       struct ps_skip *s)
{
	size_t i;

	for (i = 0; i < u->n && !s->kind; i++) {
		struct ps_skip o = { 0 };

		if (mxfp8_match(cfg, u->v[i].node, &o))
			ps_skip_set(s, &mxfp8_skip_mixed, "also read by '%s', "
				    "which the targets leave alone",
				    u->v[i].node->name);
	}
}

static void check_tensor(struct mxfp8_cfg *cfg, qir_tensor *t, int kaxis,
			 struct ps_skip *s)
{
	qir_error err = { 0 };
	const char *what;
	uint64_t at;
	float amax;
	int rc;

	if (!mxfp8_is_float(t->dtype)) {
		ps_skip_set(s, &ps_skip_not_float, "type %s",
			    qir_dtype_name(t->dtype) ? qir_dtype_name(t->dtype) : "?");
		return;
	}
	if (kaxis < 0 || kaxis >= t->rank) {
		ps_skip_set(s, &ps_skip_layout, "rank %d", t->rank);
		return;
	}
	if (t->dims[kaxis] % MXFP8_BLOCK) {
		ps_skip_set(s, &mxfp8_skip_k_block, "K = %lld (axis %d)",
			    (long long)t->dims[kaxis], kaxis);
		return;
	}
	if (!qir_tensor_numel(t)) {
		ps_skip_set(s, &ps_skip_empty, "no elements");
		return;
	}
	if ((int64_t)qir_tensor_numel(t) < cfg->tg.min_size) {
		ps_skip_set(s, &ps_skip_below_min_size, "%llu elements < %lld",
			    (unsigned long long)qir_tensor_numel(t),
			    (long long)cfg->tg.min_size);
		return;
	}
	rc = ps_nonfinite(cfg->qk, t, &at, &what, &amax, &err);
	if (rc < 0)
		ps_skip_set(s, &ps_skip_unreadable, "%s", err.msg);
	else if (rc > 0)
		ps_skip_set(s, &ps_skip_nonfinite, "holds %s at element %llu",
			    what, (unsigned long long)at);
}

int mxfp8_weight(struct mxfp8_cfg *cfg, qir_value *stored)
{
	struct ps_uses u = { 0 };
	struct ps_skip s = { 0 };
	qir_tensor *t = NULL;
	qir_value *nv;
	int folded = 0, kaxis = -1, rc = seen(cfg, stored);
	int pattern = cfg->pattern;	/* check_uses matches again */
	uint64_t before, after, numel;

	if (rc >= 0)
		return rc;
	if (ps_collect_uses(stored, 0, &u, &s)) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
		return -1;
	}
	check_uses(cfg, &u, &s);
	if (!s.kind)
		t = ps_weight_tensor(stored, MXFP8_FOLD_MAX_BYTES, &folded, &s);
	if (t && !ps_uses_kaxis(&u, t->rank, &kaxis, &s))
		check_tensor(cfg, t, kaxis, &s);
	ps_uses_free(&u);
	if (!s.kind) {
		qopt_status st = mxfp8_opset(cfg);

		if (st == QOPT_ESKIPPED)
			ps_skip_set(&s, &ps_skip_bisect, "the opset upgrade it "
				    "needs did not run");
		else if (st)
			goto failed;
	}
	if (!s.kind && !qopt_may_rewrite(cfg->ctx, "quantize weight '%s' to "
					 "MXFP8 (K axis %d)", stored->name,
					 kaxis))
		ps_skip_set(&s, &ps_skip_bisect, "the rewrite gate said no");
	if (s.kind) {
		ps_skip_report(cfg->ctx, &s, "weight", stored->name);
		if (t) {
			numel = qir_tensor_numel(t);
			before = t->nbytes;
		} else {
			ps_coverage_size(stored, &numel, &before);
		}
		ps_coverage_add(&cfg->cov, stored->name, numel, before, pattern,
				NULL, &s);
		if (folded)
			qir_tensor_free(t);
		return remember(cfg, stored, 1);
	}
	before = t->nbytes;
	numel = qir_tensor_numel(t);
	ps_coverage_add(&cfg->cov, stored->name, numel, before, pattern,
			cfg->mode == MXFP8_FAKE ? "mxfp8-fake" : "mxfp8", NULL);
	/* real: one code byte per element and one scale per 32 */
	after = cfg->mode == MXFP8_FAKE ? t->nbytes :
		qir_tensor_numel(t) + qir_tensor_numel(t) / MXFP8_BLOCK;
	nv = mxfp8_weight_value(cfg, stored->graph, t, kaxis, stored->name);
	if (folded)
		qir_tensor_free(t);
	if (!nv || mxfp8_replace(cfg, stored, nv))
		return -1;
	qopt_stat_add(cfg->ctx, "weights quantized", 1);
	qopt_stat_add(cfg->ctx, "bytes before", (int64_t)before);
	qopt_stat_add(cfg->ctx, "bytes after", (int64_t)after);
	return remember(cfg, nv, 0);
failed:
	if (folded)
		qir_tensor_free(t);
	return -1;
}

/*
 * passes/fp8/fake.c - rewrite 2 under weight_mode = fake: a constant
 * weight behind Q -> DQ becomes a float initializer in the weight's own
 * type, read wherever the DQ output was, and the Q and DQ go. Without
 * rotation it holds DQ(Q(W)) computed as the two nodes define it (the
 * Q's scale and saturate, the DQ's scale), so every consumer sees the
 * values it saw before, bit for bit. With rotate = rotate_back it holds
 * R fq(R W) (rotate.c). Either way the values are a deferred recipe the
 * writer fills straight into the output (no copy in the heap or the
 * spill file). The model then carries no FP8 on its weights:
 * the form for measuring accuracy in any runtime, not for TensorRT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp8.h"
#include "../support/fail.h"

/* Element type of the DQ output: as typed, else output_dtype, else its
 * scale's (a constant subgraph's folded result); 0 when unknown. */
static int dq_type(qir_node *dq)
{
	int t = qir_value_elem_type(dq->outputs[0]), owned;
	qir_tensor *s;

	if (!t)
		t = (int)qir_node_attr_int(dq, "output_dtype", 0);
	if (!t)
		t = qir_value_elem_type(dq->inputs[1]);
	if (!t && (s = fp8_const(dq->inputs[1], &owned))) {
		t = s->dtype;
		if (owned)
			qir_tensor_free(s);
	}
	return t;
}

/* The DQ's scales must map onto W as the Q's do (plain fake values
 * are dequantized with them). */
static const char *dq_scale_check(struct fp8_wcand *c, char *why,
				  size_t n)
{
	float *ds = NULL;
	uint64_t nds = 0;
	qk_qlayout dl;
	const char *bad = NULL;

	if (fp8_scale_f32(c->dq, &ds, &nds))
		bad = "DQ scale is not a constant per-tensor or per-axis float";
	else
		(void)fp8_scale_layout(c->dq, c->w, nds, &dl, &bad);
	free(ds);
	if (!bad)
		return NULL;
	snprintf(why, n, "%s", bad);
	return "weights skipped (unsupported)";
}

/* Why the weight cannot be replaced (NULL when it can): the DQ side
 * for plain fake values, the consumers (kaxis) under rotate_back. */
static const char *check(int rotate_back, struct fp8_wcand *c,
			 int *kaxis, char *why, size_t n)
{
	qir_tensor *w = c->w;
	int64_t k;

	int dt = dq_type(c->dq);

	if (dt != w->dtype) {
		snprintf(why, n, "DQ output type %s is not the weight's %s",
			 dt && qir_dtype_name(dt) ? qir_dtype_name(dt) :
			 "unknown", qir_dtype_name(w->dtype));
		return "weights skipped (fake: DQ type differs)";
	}
	if (c->dq->outputs[0]->is_output) {
		snprintf(why, n, "DQ output '%s' is a graph output",
			 c->dq->outputs[0]->name);
		return "weights skipped (fake: DQ output is a graph output)";
	}
	if (!fp8_zero_point_is_zero(c->dq)) {
		snprintf(why, n, "DQ zero point is not a constant 0");
		return "weights skipped (unsupported)";
	}
	if (!rotate_back)
		return dq_scale_check(c, why, n);
	if (c->fp8 != QIR_FLOAT8E4M3FN) {
		snprintf(why, n, "codes are %s; the recomputed scale amax/448 "
			 "is for FLOAT8E4M3FN", qir_dtype_name(c->fp8));
		return "weights skipped (rotate_back: not E4M3FN)";
	}
	if (fp8_weight_kaxis(c->dq->outputs[0], w->rank, kaxis, why, n))
		return "weights skipped (rotate_back: consumer)";
	k = w->dims[*kaxis];
	if ((k & -k) < 2) {
		snprintf(why, n, "K = %lld (stored axis %d) is odd: no Hadamard "
			 "block of 2 or more", (long long)k, *kaxis);
		return "weights skipped (rotate_back: K odd)";
	}
	return NULL;
}

/* DQ(Q(W)) in W's type as a deferred recipe (codes with Q's scales,
 * values with DQ's): the writer computes it straight into the output,
 * so fake weights cost about a copy of the model, with no result held
 * in the heap or the spill file. The recipe reads its own view of W and
 * copies of both scale sets. */
struct plain_recipe {
	struct ps_recipe base;	/* the weight's name, the device */
	int fp8, sat;
	float *qs, *ds;		/* Q's and DQ's scales (owned) */
	qk_qlayout ql, dl;
};

static void plain_fini(struct ps_recipe *base)
{
	struct plain_recipe *r = (struct plain_recipe *)base;

	free(r->qs);
	free(r->ds);
}

static int plain_run(struct ps_recipe *base, qk_ctx *kc, const qir_tensor *in,
		     const void *src, void *const *dst, const char **step,
		     qir_error *err)
{
	const struct plain_recipe *r = (const struct plain_recipe *)base;
	uint8_t *codes = malloc((size_t)qir_tensor_numel(in) + 1);
	int rc;

	(void)err;
	*step = "out of memory";
	if (!codes)
		return QK_ENOMEM;
	*step = "fake FP8 values";
	rc = qk_fp8_quantize(kc, r->fp8, codes, in->dtype, src, r->qs, &r->ql,
			     r->sat);
	if (!rc)
		rc = qk_fp8_dequantize(kc, in->dtype, dst[0], r->fp8, codes,
				       r->ds, &r->dl);
	free(codes);
	return rc;
}

/* The deferred DQ(Q(W)) named name, or NULL after an error message. */
static qir_tensor *plain_values(struct fp8_cfg *cfg,
				struct fp8_wcand *c, const char *name)
{
	struct plain_recipe *r = ps_recipe_new(cfg->ctx, sizeof(*r),
					       c->q->inputs[0]->name,
					       plain_run, plain_fini);
	const qir_tensor_spec spec = { name, c->w->dtype, c->w->rank,
				       c->w->dims };
	qir_error err = { 0 };
	qir_tensor *out = NULL;
	uint64_t nds = 0;
	const char *why = NULL;

	/* Checked before the gate (dq_scale_check): only memory fails. */
	if (!r || !(r->qs = malloc(c->nscales * sizeof(float))) ||
	    fp8_scale_f32(c->dq, &r->ds, &nds) ||
	    fp8_scale_layout(c->dq, c->w, nds, &r->dl, &why) < 0) {
		ps_recipe_free(r);
		ps_fail(cfg->ctx, QOPT_ENOMEM, "weight '%s': fake FP8 values: %s",
			   c->q->inputs[0]->name, why ? why : "out of memory");
		return NULL;
	}
	memcpy(r->qs, c->scales, c->nscales * sizeof(float));
	r->ql = c->lay;
	r->fp8 = c->fp8;
	r->sat = (int)qir_node_attr_int(c->q, "saturate", 1);
	if (ps_recipe_defer(cfg->m, &r->base, c->w, 0, &spec, 1, &out, &err)) {
		fp8_fail(cfg, c->dq, &err);
		return NULL;
	}
	return out;
}

/* Replaces the DQ output by nt (taken; *out: where it now lives) and
 * erases Q, DQ and what only they read. */
static int splice(struct fp8_cfg *cfg, struct fp8_wcand *c,
		  qir_tensor *nt, qir_tensor **out)
{
	qir_value *nv, *dead[5];
	qir_error err = { 0 };
	size_t i, j, nd = 0;

	nv = ps_add_initializer(c->dq->graph, nt);
	if (!nv || qir_value_replace_all_uses(c->dq->outputs[0], nv))
		return fp8_fail(cfg, c->dq, NULL);
	*out = nv->init;
	for (i = 0; i < 3; i++) {
		qir_value *a = i < c->q->ninputs ? c->q->inputs[i] : NULL;
		qir_value *b = i && i < c->dq->ninputs ? c->dq->inputs[i] : NULL;

		/* Each value once (fp8_erase_unused may erase a node). */
		for (j = 0; a && j < nd && dead[j] != a; j++)
			;
		if (a && j == nd)
			dead[nd++] = a;
		for (j = 0; b && j < nd && dead[j] != b; j++)
			;
		if (b && j == nd)
			dead[nd++] = b;
	}
	fp8_note_forget(cfg, c->dq);
	fp8_note_forget(cfg, c->q);
	if (qir_node_erase(c->dq, &err) || qir_node_erase(c->q, &err))
		return fp8_fail(cfg, NULL, &err);
	c->dq = c->q = NULL;
	for (i = 0; i < nd; i++)
		fp8_erase_unused(cfg, dead[i]);
	return 0;
}

int fp8_fake_weight(struct fp8_cfg *cfg,
		       const struct fp8_weight_opts *o,
		       struct fp8_wcand *c, qir_tensor **out)
{
	const char *wname = c->q->inputs[0]->name, *skip;
	char why[256], name[512];
	qir_error err = { 0 };
	qir_tensor *nt = NULL;
	float amax = -1;
	int kaxis = -1, over = 0;

	*out = NULL;
	skip = check(o->rotate_back, c, &kaxis, why, sizeof(why));
	/* W must be readable now: the recipe reads it only when written. */
	if (!skip && !qir_tensor_data(c->w, &err))
		return fp8_fail(cfg, c->dq, &err);
	/* The rotation would spread a NaN or Inf over its block. */
	if (!skip && o->rotate_back) {
		uint64_t at;
		const char *what;
		int nf = ps_nonfinite(cfg->qk, c->w, &at, &what, &amax, &err);

		if (nf < 0)
			return fp8_fail(cfg, c->dq, &err);
		if (nf) {
			snprintf(why, sizeof(why), "element %llu is not "
				 "finite (%s)", (unsigned long long)at, what);
			skip = "weights skipped (rotate_back: not finite)";
		}
	}
	if (skip) {
		fp8_skip(cfg, c->dq, skip, "weight '%s': %s", wname, why);
		return 0;
	}
	if (!(o->rotate_back ?
	      qopt_may_rewrite(cfg->ctx, "replace weight '%s' and its Q/DQ "
			       "by R fq(R W) (K axis %d)", wname, kaxis) :
	      qopt_may_rewrite(cfg->ctx, "replace weight '%s' and its Q/DQ "
			       "by DQ(Q(W))", wname)))
		return 0;
	snprintf(name, sizeof(name), "%s_%s", wname,
		 o->rotate_back ? "fq_rot" : "fq");
	nt = o->rotate_back ?
	     fp8_rotated_recipe(cfg, c, kaxis, amax, name, &over) :
	     plain_values(cfg, c, name);
	if (over) {
		fp8_skip(cfg, c->dq, "weights skipped (rotate_back: "
			    "overflows FP32)", "weight '%s': R W leaves "
			    "FP32's range (max |W| %g)", wname, (double)amax);
		return 0;
	}
	if (!nt)
		return -1;
	/* W's doc_string and metadata go with its values. */
	qir_tensor_keep_fields(nt, c->w);
	/* The pass's read of W (the finiteness scan) is over; the
	 * recipe reads it again when the writer fills it. */
	if (o->rotate_back)
		(void)qir_tensor_advise(c->w, QIR_ADVISE_DONE, NULL);
	if (splice(cfg, c, nt, out))
		return -1;
	/* plain float now: later weight passes must not round it again */
	if (ps_fake_record(cfg->m, name, "fp8") < 0) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
		return -1;
	}
	qopt_stat_add(cfg->ctx, o->rotate_back ?
		      "weights fake-quantized (rotate_back)" :
		      "weights fake-quantized", 1);
	return 1;
}

/*
 * passes/fp8/weights.c - rewrite 2, first half: a constant weight
 * behind `QuantizeLinear -> DequantizeLinear` is quantized once, here,
 * and stored as an FP8 initializer feeding the DequantizeLinear (the Q
 * node goes). The codes are those QuantizeLinear would compute
 * (x / scale, round-half-to-even, saturating as its attribute says), so
 * the DQ output is unchanged bit for bit. Under weight_mode = fake the
 * candidate goes to fake.c instead (float values, no Q/DQ).
 *
 * The codes are deferred tensors: computed by the writer straight into
 * the output's data file (or by whoever reads them first), so a weight
 * is never computed into memory and parked until the save.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp8.h"

static void cand_free(struct fp8_wcand *c)
{
	if (c->owned)
		qir_tensor_free(c->w);
	free(c->scales);
}

/* The code type of Q when its weight is one this run stores: FP8, or
 * INT8 for the pass int8 (which stores only its own); else 0. */
static int code_type(const qir_node *q, int int8)
{
	int t;

	if (!int8)
		return fp8_q_fp8_type(q);
	t = q->ninputs >= 3 && q->inputs[2] ?
	    qir_value_elem_type(q->inputs[2]) : 0;
	return t == QIR_INT8 ? t : 0;
}

/* 1 when c is a candidate, 0 when dq is not a weight's, -1 skipped. */
static int match(struct fp8_cfg *cfg, qir_node *dq, int int8,
		 struct fp8_wcand *c)
{
	qir_node *q = dq->inputs[0]->producer;
	const char *why = NULL;

	memset(c, 0, sizeof(*c));
	if (!fp8_is_q(q) || !(c->fp8 = code_type(q, int8)))
		return 0;
	c->q = q;
	c->dq = dq;
	c->w = fp8_const(q->inputs[0], &c->owned);
	if (!c->w)
		return 0;	/* an activation */
	if (fp8_sole_user(q->outputs[0]) != dq) {
		fp8_skip(cfg, dq, "weights skipped (Q output shared)",
			    "weight '%s': Q output has %zu consumers%s",
			    q->inputs[0]->name, q->outputs[0]->nuses,
			    q->outputs[0]->is_output ? " and is a graph output" :
			    "");
		return -1;
	}
	if (!fp8_is_float(c->w->dtype))
		why = "weight is not FLOAT, FLOAT16 or BFLOAT16";
	else if (!qir_tensor_numel(c->w))
		why = "weight is empty";
	else if (fp8_scale_f32(q, &c->scales, &c->nscales))
		why = "Q scale is not a constant per-tensor or per-axis float";
	else if (!fp8_zero_point_is_zero(q))
		why = "Q zero point is not a constant 0";
	else
		c->axis = fp8_scale_layout(q, c->w, c->nscales, &c->lay,
					      &why);
	if (why) {
		fp8_skip(cfg, dq, "weights skipped (unsupported)",
			    "weight '%s': %s", q->inputs[0]->name, why);
		return -1;
	}
	return 1;
}

/* A weight's FP8 codes as a deferred tensor (qir_tensor_new_deferred):
 * computed by whoever reads them, or by the writer straight into the
 * output's data file, never parked in between. The recipe holds its
 * own view of the weight and copies of Q's scales and layout; it runs
 * on the CPU, or on CUDA when --device cuda asks, with a context of its
 * own (passes/support/device.h; the bytes are the same everywhere).
 * transposed: the codes of the [R, C] weight stored as [C, R], built a
 * strip of rows at a time so the untransposed codes never exist in
 * full. */
struct fp8_recipe {
	struct ps_recipe base;	/* the weight's name, the device */
	int fp8, sat, transposed, axis;
	float *scales;		/* owned copy */
	qk_qlayout lay;
};

static void fp8_recipe_fini(struct ps_recipe *base)
{
	free(((struct fp8_recipe *)base)->scales);
}

static int fp8_fill_transposed(const struct fp8_recipe *r, qk_ctx *kc,
			       const qir_tensor *w, const uint8_t *src,
			       uint8_t *tr, qir_error *err);

/* The codes of src (dtype) under scales and lay, in r's format. */
static qopt_status codes(const struct fp8_recipe *r, qk_ctx *kc, void *dst,
			 int dtype, const void *src, const float *scales,
			 const qk_qlayout *lay)
{
	if (r->fp8 == QIR_INT8)
		return qk_int8_quantize(kc, dst, dtype, src, scales, lay);
	return qk_fp8_quantize(kc, r->fp8, dst, dtype, src, scales, lay,
			       r->sat);
}

static int fp8_recipe_run(struct ps_recipe *base, qk_ctx *kc,
			  const qir_tensor *in,
		   const void *src, void *const *dst, const char **step,
		   qir_error *err)
{
	struct fp8_recipe *r = (struct fp8_recipe *)base;

	*step = r->fp8 == QIR_INT8 ? "INT8 quantization" : "FP8 quantization";
	if (r->transposed)
		return fp8_fill_transposed(r, kc, in, src, dst[0], err);
	return codes(r, kc, dst[0], in->dtype, src, r->scales, &r->lay);
}

/* The deferred codes of c's weight, named name with dims. */
static qir_tensor *fp8_deferred(struct fp8_cfg *cfg,
				const struct fp8_wcand *c, const char *name,
				const int64_t *dims, int transposed,
				qir_error *err)
{
	struct fp8_recipe *r = ps_recipe_new(cfg->ctx, sizeof(*r),
					     c->q->inputs[0]->name, fp8_recipe_run,
					     fp8_recipe_fini);
	const qir_tensor_spec spec = { name, c->fp8, c->w->rank, dims };
	qir_tensor *out = NULL;

	if (!r || !(r->scales = malloc(c->nscales * sizeof(float)))) {
		ps_recipe_free(r);
		qir_fail(err, QIR_ENOMEM, "out of memory");
		return NULL;
	}
	memcpy(r->scales, c->scales, c->nscales * sizeof(float));
	r->fp8 = c->fp8;
	r->sat = (int)qir_node_attr_int(c->q, "saturate", 1);
	r->transposed = transposed;
	r->axis = c->axis;
	r->lay = c->lay;
	if (ps_recipe_defer(cfg->m, &r->base, c->w, 0, &spec, 1, &out, err))
		return NULL;
	return out;
}

static int quantize(struct fp8_cfg *cfg, struct fp8_wcand *c,
		    qir_value **out)
{
	qir_error err = { 0 };
	char name[512];
	qir_tensor *t;

	snprintf(name, sizeof(name), "%s_%s", c->q->inputs[0]->name,
		 c->fp8 == QIR_INT8 ? "int8" : "fp8");
	t = fp8_deferred(cfg, c, name, c->w->dims, 0, &err);
	if (!t)
		return fp8_fail(cfg, c->dq, &err);
	*out = ps_add_initializer(c->dq->graph, t);
	return *out ? 0 : fp8_fail(cfg, c->dq, NULL);
}

/* The fused path quantizes a strip of rows into a buffer and writes it
 * transposed at once, so the untransposed codes of a big weight never
 * exist in full. It runs only in the recipe, on the CPU (no kernel
 * context), so the strip is sized for the cache, not for CUDA: about
 * 1 MiB of input in whole 64-row tiles, whose codes the transpose reads
 * back from L2 (with 16 MiB strips it read them from memory: 17% more
 * CPU on the fp8-mha bench model). */
#define STRIP_BYTES (1u << 20)
#define STRIP_ALIGN 64

static int64_t strip_rows(int64_t rows, int64_t row_bytes)
{
	int64_t n = ((int64_t)STRIP_BYTES + row_bytes - 1) / row_bytes;

	n = (n + STRIP_ALIGN - 1) / STRIP_ALIGN * STRIP_ALIGN;
	return n < rows ? n : rows;
}

/* Q's scales over the rows r0 .. r0 + h of an [R, C] weight. */
static void strip_layout(const struct fp8_recipe *c, int64_t cols, int64_t r0,
			 int64_t h, qk_qlayout *lay, const float **scales)
{
	*lay = c->lay;
	*scales = c->scales;
	if (lay->mode == QK_SCALE_TENSOR) {
		lay->outer = lay->inner = 1;
		lay->axis = (size_t)(h * cols);
	} else if (c->axis == 0) {
		lay->outer = 1;
		lay->axis = (size_t)h;
		lay->inner = (size_t)cols;
		*scales += r0;
	} else {
		lay->outer = (size_t)h;
	}
}

static int fp8_fill_transposed(const struct fp8_recipe *r, qk_ctx *kc,
			       const qir_tensor *w, const uint8_t *src,
			       uint8_t *tr, qir_error *err)
{
	int64_t rows = w->dims[0], cols = w->dims[1], r0, h, strip;
	size_t es = (size_t)qir_dtype_bits(w->dtype) / 8;
	uint8_t *buf;
	int rc = 0;

	strip = strip_rows(rows, cols * (int64_t)es);
	buf = malloc((size_t)(strip * cols));
	if (!buf)
		return qir_fail(err, QIR_ENOMEM, "weight '%s': out of memory",
				r->base.name);
	for (r0 = 0; r0 < rows && !rc; r0 += strip) {
		qk_qlayout lay;
		const float *sc;

		h = rows - r0 < strip ? rows - r0 : strip;
		strip_layout(r, cols, r0, h, &lay, &sc);
		rc = codes(r, kc, buf, w->dtype,
			   src + (size_t)(r0 * cols) * es, sc, &lay);
		if (!rc)
			rc = qk_transpose(NULL, 1, buf, (size_t)h,
					  (size_t)cols, tr + r0, (size_t)rows);
	}
	free(buf);
	if (rc)
		return qir_fail(err, QIR_EINVALID,
				"%s quantization and transpose of weight '%s' failed: %s",
				qir_dtype_name(r->fp8), r->base.name, qk_strerror(rc));
	return 0;
}

static int quantize_transposed(struct fp8_cfg *cfg, struct fp8_wcand *c,
			       const struct fp8_pt *pt, qir_tensor **out)
{
	qir_error err = { 0 };
	char name[512];

	snprintf(name, sizeof(name), "%s_%s_T", c->q->inputs[0]->name,
		 c->fp8 == QIR_INT8 ? "int8" : "fp8");
	*out = fp8_deferred(cfg, c, name, pt->dims, 1, &err);
	return *out ? 0 : fp8_fail(cfg, c->dq, &err);
}

/* 1 compressed, 2 compressed and stored transposed, 0 gated off, -1. */
static int compress(struct fp8_cfg *cfg, struct fp8_wcand *c)
{
	qir_value *w = c->q->inputs[0], *scale = c->q->inputs[1];
	qir_value *zp = c->q->ninputs >= 3 ? c->q->inputs[2] : NULL;
	qir_value *codes = NULL;
	qir_tensor *nt = NULL;
	struct fp8_pt pt;
	qir_error err = { 0 };
	uint64_t before = c->w->nbytes, after;
	int fused;

	fused = fp8_pretranspose_plan(cfg, c->dq, w, c->w, &pt);
	if (!qopt_may_rewrite(cfg->ctx, "store weight '%s' as %s for '%s'",
			      w->name, qir_dtype_name(c->fp8), c->dq->name))
		return 0;
	fused = fused && fp8_pretranspose_gate(cfg, &pt);
	if (fused) {
		if (quantize_transposed(cfg, c, &pt, &nt))
			return -1;
		after = nt->nbytes;
		if (fp8_pretranspose_finish(cfg, &pt, nt) < 0)
			return -1;
	} else {
		if (quantize(cfg, c, &codes))
			return -1;
		after = codes->init->nbytes;
		if (qir_node_set_input(c->dq, 0, codes))
			return fp8_fail(cfg, c->dq, NULL);
	}
	if (qir_node_erase(c->q, &err))
		return fp8_fail(cfg, c->dq, &err);
	fp8_erase_unused(cfg, w);
	fp8_erase_unused(cfg, scale);
	fp8_erase_unused(cfg, zp);
	qopt_stat_add(cfg->ctx, "weights compressed", 1);
	qopt_stat_add(cfg->ctx, "weight bytes before", (int64_t)before);
	qopt_stat_add(cfg->ctx, "weight bytes after", (int64_t)after);
	return fused ? 2 : 1;
}

/* What the walk hands each weight DQ. */
struct walk {
	const struct ps_results *res;
	const struct fp8_weight_opts *o;
};

/* One weight DQ: compressed (and pre-transposed) when its weight is
 * Q(constant W). 1 changed, 0 not, -1 error. */
static int one(struct fp8_cfg *cfg, qir_node *dq, void *arg)
{
	const struct walk *wk = arg;
	struct fp8_wcand c;
	int rc = 0;

	if (match(cfg, dq, wk->o->int8, &c) > 0) {
		qir_tensor *ft = NULL;

		if (!wk->o->compress) {
			fp8_skip(cfg, dq, "weights skipped",
				    "compress_weights = no");
		} else if (wk->o->fake) {
			/* dq is gone when this returns 1 */
			rc = fp8_fake_weight(cfg, wk->o, &c, &ft);
			if (rc > 0)
				ps_spill(wk->res, ft);
		} else if ((rc = compress(cfg, &c)) == 1) {
			rc = fp8_pretranspose_dq(cfg, dq);
			/* Left as it is: its bytes leave the heap now. */
			if (!rc)
				ps_spill(wk->res, dq->inputs[0]->init);
			rc = rc < 0 ? -1 : 1;
		} else if (rc == 2) {
			rc = 1;	/* stored transposed, spilled */
		}
	}
	cand_free(&c);
	return rc;
}

int fp8_compress_weights(struct fp8_cfg *cfg,
			    const struct fp8_weight_opts *o, int *changed)
{
	const struct ps_results res = fp8_results(cfg);
	const struct walk wk = { &res, o };

	return fp8_each_weight_dq(cfg, one, (void *)&wk, "fp8 weights",
				     changed);
}

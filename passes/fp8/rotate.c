/*
 * passes/fp8/rotate.c - options weight_mode and rotate, and
 * rotate = rotate_back for the weights of rewrite 2 (the walk to K and
 * the rotation are the toolkit's, passes/support): quantize each
 * weight in a Hadamard-rotated basis and rotate back, W' = R fq(R W),
 * R the normalized Walsh-Hadamard transform along the axis the
 * consumers reduce over (K), in blocks of K & -K (symmetric and
 * orthogonal: its own inverse). The model keeps its activations
 * unrotated. Only fake mode can store that: real FP8 codes would hold
 * fq(R W) and need the inverse rotation at run time, so real mode
 * refuses the option rather than drop the inverse.
 *
 * The exporter's scale was calibrated for W, not R W (the rotation
 * spreads outliers, lowering the amax), so the FP8 scale is recomputed:
 * amax(R W) / 448 per tensor or per slice along the Q scale's axis, the
 * granularity the exporter chose; 1 where that amax is 0.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp8.h"
#include "../support/fail.h"

#define E4M3_MAX 448.0f

int fp8_rotate_options(qopt_ctx *ctx, struct fp8_weight_opts *o)
{
	/* The manager has checked both words against the choices. */
	o->fake = qopt_opt_enum(ctx, "weight_mode") == 1;
	o->rotate_back = qopt_opt_enum(ctx, "rotate") == 1;
	if (o->rotate_back && !o->fake) {
		ps_fail(ctx, QOPT_EINVALID, "rotate = rotate_back needs weight_mode = "
			   "fake: real FP8 weights would hold the rotated "
			   "values and the inverse rotation would be lost");
		return -1;
	}
	return 0;
}

int fp8_weight_kaxis(qir_value *v, int rank, int *kaxis, char *why,
			size_t n)
{
	struct ps_uses u = { 0 };
	struct ps_skip s = { 0 };
	int rc;

	*kaxis = -1;
	/* Either MatMul input: a weight may be read as input A too. */
	rc = ps_collect_uses(v, PS_WALK_ACTIVATION, &u, &s);
	if (rc)
		snprintf(s.why, sizeof(s.why), "out of memory");
	else if (!s.kind)
		rc = ps_uses_kaxis(&u, rank, kaxis, &s);
	else
		rc = -1;
	if (!rc && *kaxis < 0) {
		snprintf(s.why, sizeof(s.why), "'%s' has no consumer", v->name);
		rc = -1;
	}
	if (rc)
		snprintf(why, n, "%s", s.why);
	ps_uses_free(&u);
	return rc;
}

/* rotate_back's values as a deferred recipe (ps_recipe_defer): the
 * writer computes R fq(R W) straight into the output, so the fake
 * weights cost about a copy of the model, with no result held in the
 * heap or the spill file. The scale is amax(R W), known only once the
 * whole rotated weight is: the fill rotates the weight twice in strips
 * (rot_strips), or holds it whole in FP32 where a strip would be all of
 * it (ps_rotate_back), never the model. The recipe keeps what it needs
 * of the candidate, which is gone by then. */
struct rot_recipe {
	struct ps_recipe base;	/* the weight's name, the device */
	int fp8;		/* FLOAT8E4M3FN (fake.c checked) */
	uint64_t nscales;	/* Q's granularity: 1, or one per slice */
	qk_qlayout lay;		/* Q's scales over W */
	size_t outer, k, inner;	/* W as [outer, K, inner] */
};

/* amax(|x|) of the rotated weight at the Q scale's granularity, into
 * scales[r->nscales], then scales = amax / 448 (1 where 0). */
static int rotated_scales(const struct rot_recipe *r, qk_ctx *qk,
			  const float *x, size_t numel, float *scales)
{
	const qk_qlayout *l = &r->lay;
	float *part;
	size_t o, a;
	int rc;

	if (l->mode == QK_SCALE_TENSOR) {
		rc = qk_amax(qk, QIR_FLOAT, x, numel, &scales[0]);
	} else {
		/* [outer, axis, inner] viewed as [outer * axis, inner, 1]:
		 * one block per (o, a), then the max over o. */
		part = malloc(l->outer * l->axis * sizeof(*part) + 1);
		if (!part)
			return QK_ENOMEM;
		rc = qk_amax_blocks(qk, QIR_FLOAT, x, l->outer * l->axis,
				    l->inner, 1, l->inner, part);
		for (a = 0; a < l->axis && !rc; a++) {
			scales[a] = 0;
			for (o = 0; o < l->outer; o++)
				scales[a] = fmaxf(scales[a],
						  part[o * l->axis + a]);
		}
		free(part);
	}
	for (a = 0; a < r->nscales && !rc; a++) {
		if (!isfinite(scales[a]))
			return QK_EINVAL;	/* R W overflowed FP32 */
		scales[a] /= E4M3_MAX;
		if (!(scales[a] > 0))
			scales[a] = 1;	/* an all-zero slice codes exactly */
	}
	return rc;
}

/* The fake quantizer of rotate_back (passes/support/rotate.h): x = R W
 * becomes dq(q(x)) with scales amax(R W)/448 at Q's granularity. */
static int fake_quantize(void *arg, qk_ctx *qk, float *x, size_t outer,
			 size_t k, size_t inner, const char **step)
{
	const struct rot_recipe *r = arg;
	size_t numel = outer * k * inner;
	float *scales = malloc(r->nscales * sizeof(*scales) + 1);
	uint8_t *codes = malloc(numel + 1);
	int rc = QK_ENOMEM;

	*step = "out of memory";
	if (!scales || !codes)
		goto out;
	*step = "amax of the rotated weight (finite in FP32?)";
	rc = rotated_scales(r, qk, x, numel, scales);
	if (rc)
		goto out;
	*step = "FP8 quantization";
	rc = qk_fp8_quantize(qk, r->fp8, codes, QIR_FLOAT, x, scales, &r->lay,
			     1);
	if (rc)
		goto out;
	*step = "FP8 dequantization";
	rc = qk_fp8_dequantize(qk, QIR_FLOAT, x, r->fp8, codes, scales,
			       &r->lay);
out:
	free(scales);
	free(codes);
	return rc;
}

/* Strips: R acts along K only, so whole rows of [outer, K, inner] rotate
 * on their own, and amax is exact in any order: a first sweep rotates
 * each strip for the scales, a second rotates it again, quantizes,
 * dequantizes, rotates back and writes it. The bytes are those of the
 * whole weight at once (fake_quantize), with a buffer of about
 * ROT_STRIP_ELEMS floats per fill instead of the weight in FP32. */
#define ROT_STRIP_ELEMS ((size_t)1 << 18)

struct strips {
	size_t row;		/* elements of one row: K * inner */
	size_t unit;		/* rows a strip is a multiple of */
	int per_block;		/* scales per block of unit rows */
};

/* How Q's scales fall on rows; 0 when a strip of whole units cannot
 * carry them (then the whole weight is one strip). */
static int strip_plan(const struct rot_recipe *r, struct strips *p)
{
	const qk_qlayout *l = &r->lay;
	size_t span = l->axis * l->inner;

	p->row = r->k * r->inner;
	p->unit = 1;
	p->per_block = 0;
	if (l->mode == QK_SCALE_TENSOR || !(p->row % span))
		return 1;	/* one scale, or whole axis cycles per row */
	if (l->inner % p->row)
		return 0;
	p->unit = l->inner / p->row;	/* one scale per unit rows */
	p->per_block = 1;
	return 1;
}

/* x = R W over rows [r0, r0 + n) (FP32). */
static int strip_rotate(const struct rot_recipe *r, qk_ctx *kc, int dtype,
			const unsigned char *src, size_t r0, size_t n,
			float *x, const char **step)
{
	size_t row = r->k * r->inner, es = qir_dtype_bits(dtype) / 8;
	int rc;

	*step = "conversion to FP32";
	rc = qk_convert(kc, QIR_FLOAT, x, dtype, src + r0 * row * es,
			n * row);
	if (rc)
		return rc;
	*step = "Hadamard rotation";
	return qk_hadamard(kc, QIR_FLOAT, x, n, r->k, r->inner, r->k & -r->k);
}

/* The scale of element e of W (at Q's granularity). */
static size_t scale_index(const qk_qlayout *l, size_t e)
{
	return l->mode == QK_SCALE_TENSOR ? 0 : (e / l->inner) % l->axis;
}

/* Sweep 1: amax of R W per scale into s (then /448, 1 where 0). */
static int strip_scales(const struct rot_recipe *r, qk_ctx *kc, int dtype,
			const void *src, size_t rows, float *x, float *s,
			const char **step)
{
	size_t row = r->k * r->inner, r0, n, j, e;
	float a;
	int rc = 0;

	for (j = 0; j < r->nscales; j++)
		s[j] = 0;
	for (r0 = 0; r0 < r->outer && !rc; r0 += n) {
		n = r->outer - r0 < rows ? r->outer - r0 : rows;
		rc = strip_rotate(r, kc, dtype, src, r0, n, x, step);
		if (rc)
			break;
		*step = "amax of the rotated weight (finite in FP32?)";
		if (r->lay.mode == QK_SCALE_TENSOR) {
			rc = qk_amax(kc, QIR_FLOAT, x, n * row, &a);
			s[0] = fmaxf(s[0], a);
			continue;
		}
		for (j = 0, e = r0 * row; j < n * row; j++, e++)
			s[scale_index(&r->lay, e)] =
				fmaxf(s[scale_index(&r->lay, e)], fabsf(x[j]));
	}
	for (j = 0; j < r->nscales && !rc; j++) {
		if (!isfinite(s[j]))
			return QK_EINVAL;	/* R W overflowed FP32 */
		s[j] /= E4M3_MAX;
		if (!(s[j] > 0))
			s[j] = 1;
	}
	return rc;
}

/* fq(x) for rows [r0, r0 + n) with the scales s, in place. */
static int strip_fq(const struct rot_recipe *r, qk_ctx *kc,
		    const struct strips *p, size_t r0, size_t n, float *x,
		    uint8_t *codes, const float *s, const char **step)
{
	const qk_qlayout *l = &r->lay;
	size_t len = n * p->row, b, nb = p->per_block ? n / p->unit : 1;
	size_t blen = len / nb;
	qk_qlayout sl = { 1, blen, 1, QK_SCALE_TENSOR, 0 };
	int rc = 0;

	if (l->mode != QK_SCALE_TENSOR && !p->per_block)
		sl = (qk_qlayout){ len / (l->axis * l->inner), l->axis,
				   l->inner, QK_SCALE_AXIS, 0 };
	for (b = 0; b < nb && !rc; b++) {
		float *xb = x + b * blen;
		const float *sb = p->per_block ?
			&s[scale_index(l, r0 * p->row + b * blen)] : s;

		*step = "FP8 quantization";
		rc = qk_fp8_quantize(kc, r->fp8, codes, QIR_FLOAT, xb, sb, &sl,
				     1);
		if (rc)
			break;
		*step = "FP8 dequantization";
		rc = qk_fp8_dequantize(kc, QIR_FLOAT, xb, r->fp8, codes, sb,
				       &sl);
	}
	return rc;
}

static int rot_strips(const struct rot_recipe *r, qk_ctx *kc, int dtype,
		      const void *src, void *dst, const struct strips *p,
		      size_t rows, const char **step)
{
	size_t es = qir_dtype_bits(dtype) / 8, r0, n;
	float *x = malloc(rows * p->row * sizeof(*x) + 1);
	float *s = malloc(r->nscales * sizeof(*s) + 1);
	uint8_t *codes = malloc(rows * p->row + 1);
	int rc = QK_ENOMEM;

	*step = "out of memory";
	if (!x || !s || !codes)
		goto out;
	rc = strip_scales(r, kc, dtype, src, rows, x, s, step);
	for (r0 = 0; r0 < r->outer && !rc; r0 += n) {
		n = r->outer - r0 < rows ? r->outer - r0 : rows;
		rc = strip_rotate(r, kc, dtype, src, r0, n, x, step);
		if (!rc)
			rc = strip_fq(r, kc, p, r0, n, x, codes, s, step);
		if (rc)
			break;
		*step = "inverse Hadamard rotation";
		rc = qk_hadamard(kc, QIR_FLOAT, x, n, r->k, r->inner,
				 r->k & -r->k);
		if (rc)
			break;
		*step = "conversion to the weight's type";
		rc = qk_convert(kc, dtype, (unsigned char *)dst +
				r0 * p->row * es, QIR_FLOAT, x, n * p->row);
	}
out:
	free(x);
	free(s);
	free(codes);
	return rc;
}

static int rot_run(struct ps_recipe *base, qk_ctx *kc, const qir_tensor *in,
		   const void *src, void *const *dst, const char **step,
		   qir_error *err)
{
	struct rot_recipe *r = (struct rot_recipe *)base;
	struct strips p;
	size_t rows = 0;

	(void)err;
	if (strip_plan(r, &p)) {
		rows = ROT_STRIP_ELEMS / p.row / p.unit * p.unit;
		rows = rows ? rows : p.unit;
	}
	/* Fewer rows than the weight's: strips; else the whole at once. */
	if (rows && rows < r->outer)
		return rot_strips(r, kc, in->dtype, src, dst[0], &p, rows,
				  step);
	return ps_rotate_back(kc, in->dtype, src, dst[0], r->outer, r->k,
			      r->inner, r->k & -r->k, fake_quantize, r, step);
}

/* 1 when R W may leave FP32's range: the butterflies of a block of b
 * sum b elements before scaling, so amax * b below FLT_MAX is safe. */
static int may_overflow(const struct rot_recipe *r, float amax)
{
	return !(amax >= 0) ||
	       (double)amax * (double)(r->k & -r->k) >= (double)FLT_MAX;
}

/* Runs the recipe once into scratch: 1 when R W overflows FP32 (the
 * scale would be infinite), 0 when not, a kernel code otherwise. */
static int overflows(struct rot_recipe *r, qir_tensor *w, const void *src)
{
	void *scratch = malloc(w->nbytes + 1);
	const char *step;
	qir_error err = { 0 };
	int rc;

	if (!scratch)
		return QK_ENOMEM;
	rc = rot_run(&r->base, NULL, w, src, &scratch, &step, &err);
	free(scratch);
	return rc == QK_EINVAL && !strcmp(step, "amax of the rotated weight "
					 "(finite in FP32?)") ? 1 : rc;
}

qir_tensor *fp8_rotated_recipe(struct fp8_cfg *cfg,
				  const struct fp8_wcand *c, int kaxis,
				  float amax, const char *name, int *skip)
{
	const char *wname = c->q->inputs[0]->name;
	struct rot_recipe *r = ps_recipe_new(cfg->ctx, sizeof(*r), wname,
					     rot_run, NULL);
	const qir_tensor_spec spec = { name, c->w->dtype, c->w->rank,
				       c->w->dims };
	qir_error err = { 0 };
	qir_tensor *out = NULL;
	const void *src;
	int rc = 0;

	*skip = 0;
	if (!r) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "weight '%s': rotate_back: out of memory",
			   wname);
		return NULL;
	}
	r->fp8 = c->fp8;
	r->nscales = c->nscales;
	r->lay = c->lay;
	ps_axis_split(c->w->dims, c->w->rank, kaxis, &r->outer, &r->k,
		      &r->inner);
	/* The fill must not fail on the weight's values: where the bound
	 * says it might, the one case it could is looked at now. */
	if (may_overflow(r, amax)) {
		src = qir_tensor_data(c->w, &err);
		rc = src ? overflows(r, c->w, src) : -1;
		if (rc) {
			ps_recipe_free(r);
			if (rc == 1) {
				*skip = 1;
				return NULL;
			}
			if (rc < 0)
				fp8_fail(cfg, c->dq, &err);
			else
				qopt_error(cfg->ctx, "weight '%s': rotate_back:"
					   " %s", wname, qk_strerror(rc));
			return NULL;
		}
	}
	if (ps_recipe_defer(cfg->m, &r->base, c->w, 0, &spec, 1, &out, &err)) {
		fp8_fail(cfg, c->dq, &err);
		return NULL;
	}
	return out;
}

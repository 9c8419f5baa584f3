/*
 * passes/fp8_mha/rotate.c - options weight_mode and rotate, and
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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fp8mha.h"

#define E4M3_MAX 448.0f

int fp8mha_rotate_options(qopt_ctx *ctx, struct fp8mha_weight_opts *o)
{
	/* The manager has checked both words against the choices. */
	o->fake = qopt_opt_enum(ctx, "weight_mode") == 1;
	o->rotate_back = qopt_opt_enum(ctx, "rotate") == 1;
	if (o->rotate_back && !o->fake) {
		qopt_error(ctx, "rotate = rotate_back needs weight_mode = "
			   "fake: real FP8 weights would hold the rotated "
			   "values and the inverse rotation would be lost");
		return -1;
	}
	return 0;
}

int fp8mha_weight_kaxis(qir_value *v, int rank, int *kaxis, char *why,
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

/* amax(|x|) of the rotated weight at the Q scale's granularity, into
 * scales[c->nscales], then scales = amax / 448 (1 where 0). */
static int rotated_scales(struct fp8mha_cfg *cfg,
			  const struct fp8mha_wcand *c, const float *x,
			  size_t numel, float *scales)
{
	const qk_qlayout *l = &c->lay;
	float *part;
	size_t o, a;
	int rc;

	if (l->mode == QK_SCALE_TENSOR) {
		rc = qk_amax(cfg->qk, QIR_FLOAT, x, numel, &scales[0]);
	} else {
		/* [outer, axis, inner] viewed as [outer * axis, inner, 1]:
		 * one block per (o, a), then the max over o. */
		part = malloc(l->outer * l->axis * sizeof(*part) + 1);
		if (!part)
			return QK_ENOMEM;
		rc = qk_amax_blocks(cfg->qk, QIR_FLOAT, x, l->outer * l->axis,
				    l->inner, 1, l->inner, part);
		for (a = 0; a < l->axis && !rc; a++) {
			scales[a] = 0;
			for (o = 0; o < l->outer; o++)
				scales[a] = fmaxf(scales[a],
						  part[o * l->axis + a]);
		}
		free(part);
	}
	for (a = 0; a < c->nscales && !rc; a++) {
		if (!isfinite(scales[a]))
			return QK_EINVAL;	/* R W overflowed FP32 */
		scales[a] /= E4M3_MAX;
		if (!(scales[a] > 0))
			scales[a] = 1;	/* an all-zero slice codes exactly */
	}
	return rc;
}

struct fq_arg {
	struct fp8mha_cfg *cfg;
	const struct fp8mha_wcand *c;
};

/* The fake quantizer of rotate_back (passes/support/rotate.h): x = R W
 * becomes dq(q(x)) with scales amax(R W)/448 at Q's granularity. */
static int fake_quantize(void *arg, qk_ctx *qk, float *x, size_t outer,
			 size_t k, size_t inner, const char **step)
{
	const struct fq_arg *a = arg;
	const struct fp8mha_wcand *c = a->c;
	size_t numel = outer * k * inner;
	float *scales = malloc(c->nscales * sizeof(*scales) + 1);
	uint8_t *codes = malloc(numel + 1);
	int rc = QK_ENOMEM;

	*step = "out of memory";
	if (!scales || !codes)
		goto out;
	*step = "amax of the rotated weight (finite in FP32?)";
	rc = rotated_scales(a->cfg, c, x, numel, scales);
	if (rc)
		goto out;
	*step = "FP8 quantization";
	rc = qk_fp8_quantize(qk, c->fp8, codes, QIR_FLOAT, x, scales, &c->lay,
			     1);
	if (rc)
		goto out;
	*step = "FP8 dequantization";
	rc = qk_fp8_dequantize(qk, QIR_FLOAT, x, c->fp8, codes, scales,
			       &c->lay);
out:
	free(scales);
	free(codes);
	return rc;
}

int fp8mha_rotated_values(struct fp8mha_cfg *cfg, const struct fp8mha_wcand *c,
			  int kaxis, const void *src, void *dst)
{
	struct fq_arg arg = { cfg, c };
	size_t outer, k, inner;
	const char *step = "out of memory";
	int rc;

	ps_axis_split(c->w->dims, c->w->rank, kaxis, &outer, &k, &inner);
	rc = ps_rotate_back(cfg->qk, c->w->dtype, src, dst, outer, k, inner,
			    k & -k, fake_quantize, &arg, &step);
	if (rc)
		qopt_error(cfg->ctx, "weight '%s': rotate_back: %s: %s",
			   c->q->inputs[0]->name, step, qk_strerror(rc));
	return rc ? -1 : 0;
}

/*
 * passes/fp8_mha/rotate.c - options weight_mode and rotate, and
 * rotate = rotate_back for the weights of rewrite 2: quantize each
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

int fp8mha_rotate_options(struct fp8mha_cfg *cfg)
{
	/* The manager has checked both words against the choices. */
	cfg->weight_fake = qopt_opt_enum(cfg->ctx, "weight_mode") == 1;
	cfg->rotate_back = qopt_opt_enum(cfg->ctx, "rotate") == 1;
	if (cfg->rotate_back && !cfg->weight_fake) {
		qopt_error(cfg->ctx, "rotate = rotate_back needs weight_mode = "
			   "fake: real FP8 weights would hold the rotated "
			   "values and the inverse rotation would be lost");
		return -1;
	}
	return 0;
}

static int is_float_cast(const qir_node *n)
{
	return fp8mha_is_op(n, "Cast") && n->ninputs == 1 &&
	       fp8mha_is_float((int)qir_node_attr_int(n, "to", 0));
}

/* The reduction axis of input slot of n, a MatMul or Gemm reading a
 * value of the given rank; -1 when n does not reduce over it. */
static int reduce_axis(const qir_node *n, int slot, int rank)
{
	if (fp8mha_is_op(n, "MatMul") && slot == 0)
		return rank - 1;
	if (fp8mha_is_op(n, "MatMul") && slot == 1)
		return rank >= 2 ? rank - 2 : 0;
	if (fp8mha_is_op(n, "Gemm") && rank == 2 && slot == 0)
		return qir_node_attr_int(n, "transA", 0) ? 0 : 1;
	if (fp8mha_is_op(n, "Gemm") && rank == 2 && slot == 1)
		return qir_node_attr_int(n, "transB", 0) ? 1 : 0;
	return -1;
}

/* map[i]: the stored axis that axis i of v is. */
static int walk(qir_value *v, const int64_t *map, int rank, int depth,
		int *kaxis, char *why, size_t n)
{
	char label[160];
	size_t i;

	if (v->is_output) {
		snprintf(why, n, "'%s' is a graph output", v->name);
		return -1;
	}
	if (!v->nuses) {
		snprintf(why, n, "'%s' has no consumer", v->name);
		return -1;
	}
	for (i = 0; i < v->nuses; i++) {
		qir_node *u = v->uses[i].node;
		int slot = v->uses[i].index, k, j;
		int64_t perm[FP8MHA_PT_MAXRANK], next[FP8MHA_PT_MAXRANK];

		qir_node_label(u, label, sizeof(label));
		if (depth <= 0) {
			snprintf(why, n, "more than %d layout nodes before %s",
				 FP8MHA_MAX_HOPS, label);
			return -1;
		}
		if (is_float_cast(u) || fp8mha_is_op(u, "Identity")) {
			if (walk(u->outputs[0], map, rank, depth - 1, kaxis,
				 why, n))
				return -1;
			continue;
		}
		if (fp8mha_is_op(u, "Transpose")) {
			if (fp8mha_transpose_perm(u, rank, perm)) {
				snprintf(why, n, "%s: perm does not fit rank %d",
					 label, rank);
				return -1;
			}
			for (j = 0; j < rank; j++)
				next[j] = map[perm[j]];
			if (walk(u->outputs[0], next, rank, depth - 1, kaxis,
				 why, n))
				return -1;
			continue;
		}
		k = reduce_axis(u, slot, rank);
		if (k < 0) {
			snprintf(why, n, "'%s' is read by %s (input %d), which "
				 "is not a MatMul/Gemm reducing over it",
				 v->name, label, slot);
			return -1;
		}
		if (*kaxis >= 0 && *kaxis != (int)map[k]) {
			snprintf(why, n, "%s reduces over stored axis %d, "
				 "another consumer over axis %d", label,
				 (int)map[k], *kaxis);
			return -1;
		}
		*kaxis = (int)map[k];
	}
	return 0;
}

int fp8mha_weight_kaxis(qir_value *v, int rank, int *kaxis, char *why,
			size_t n)
{
	int64_t map[FP8MHA_PT_MAXRANK];
	int i;

	*kaxis = -1;
	if (rank < 1 || rank > FP8MHA_PT_MAXRANK) {
		snprintf(why, n, "rank %d is outside 1..%d", rank,
			 FP8MHA_PT_MAXRANK);
		return -1;
	}
	for (i = 0; i < rank; i++)
		map[i] = i;
	return walk(v, map, rank, FP8MHA_MAX_HOPS, kaxis, why, n);
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

int fp8mha_rotated_values(struct fp8mha_cfg *cfg, const struct fp8mha_wcand *c,
			  int kaxis, float *x, void *dst)
{
	size_t numel = (size_t)qir_tensor_numel(c->w), outer = 1, inner = 1;
	size_t k = (size_t)c->w->dims[kaxis];
	float *scales = malloc(c->nscales * sizeof(*scales) + 1);
	uint8_t *codes = malloc(numel + 1);
	const char *step = "out of memory";
	int i, rc = QK_ENOMEM;

	for (i = 0; i < c->w->rank; i++) {
		if (i < kaxis)
			outer *= (size_t)c->w->dims[i];
		else if (i > kaxis)
			inner *= (size_t)c->w->dims[i];
	}
	if (!scales || !codes)
		goto out;
	step = "Hadamard rotation";
	rc = qk_hadamard(cfg->qk, QIR_FLOAT, x, outer, k, inner, k & -k);
	if (rc)
		goto out;
	step = "amax of the rotated weight (finite in FP32?)";
	rc = rotated_scales(cfg, c, x, numel, scales);
	if (rc)
		goto out;
	step = "FP8 quantization";
	rc = qk_fp8_quantize(cfg->qk, c->fp8, codes, QIR_FLOAT, x, scales,
			     &c->lay, 1);
	if (rc)
		goto out;
	step = "FP8 dequantization";
	rc = qk_fp8_dequantize(cfg->qk, QIR_FLOAT, x, c->fp8, codes, scales,
			       &c->lay);
	if (rc)
		goto out;
	step = "inverse Hadamard rotation";
	rc = qk_hadamard(cfg->qk, QIR_FLOAT, x, outer, k, inner, k & -k);
	if (rc)
		goto out;
	step = "conversion to the weight's type";
	rc = qk_convert(cfg->qk, c->w->dtype, dst, QIR_FLOAT, x, numel);
out:
	if (rc)
		qopt_error(cfg->ctx, "weight '%s': rotate_back: %s: %s",
			   c->q->inputs[0]->name, step, qk_strerror(rc));
	free(scales);
	free(codes);
	return rc ? -1 : 0;
}

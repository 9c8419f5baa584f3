/*
 * passes/hadamard_rotate/quantizer.c - quantizer = nvfp4 | fp8: rotate
 * a weight only where the rotation lowers its reconstruction error in
 * that format. R is orthogonal, so the error in the original basis,
 * |R^T fq(R W) - W|, equals |fq(R W) - R W|: both figures come from one
 * fake quantization each, through the kernels.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hadamard_rotate.h"
#include "../support/fail.h"

/* |fq(x) - x|^2 and |x|^2 for x [outer, k, inner] FLOAT; -1 on error. */
static int fq_error(struct hadamard_rotate_cfg *cfg, float *x, size_t outer, size_t k,
		    size_t inner, double *err2, double *norm2)
{
	size_t n = outer * k * inner;
	float *y = malloc(n * sizeof(float)), amax = 0, s;
	const char *step;
	uint8_t *codes = malloc(n + 1), *scales = malloc(n / 16 + 1);
	qk_qlayout lay = { 1, n, 1, QK_SCALE_TENSOR, 0 };
	int rc;

	if (!y || !codes || !scales) {
		rc = QK_ENOMEM;
		goto out;
	}
	if (cfg->quantizer == HADAMARD_ROTATE_Q_NVFP4) {
		rc = ps_fake_nvfp4(cfg->qk, QIR_FLOAT, x, y, outer, k, inner,
				   &step);
	} else {
		rc = qk_amax(cfg->qk, QIR_FLOAT, x, n, &amax);
		s = amax > 0 ? amax / 448.0f : 1.0f;
		if (!rc)
			rc = qk_fp8_quantize(cfg->qk, QIR_FLOAT8E4M3FN, codes,
					     QIR_FLOAT, x, &s, &lay, 1);
		if (!rc)
			rc = qk_fp8_dequantize(cfg->qk, QIR_FLOAT, y,
					       QIR_FLOAT8E4M3FN, codes, &s, &lay);
	}
	*err2 = *norm2 = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		double d = (double)y[i] - x[i];

		*err2 += d * d;
		*norm2 += (double)x[i] * x[i];
	}
out:
	free(y);
	free(codes);
	free(scales);
	return rc;
}

int hadamard_rotate_quantizer_says(struct hadamard_rotate_cfg *cfg, struct hadamard_rotate_target *t)
{
	size_t outer, inner, n = qir_tensor_numel(t->w);
	const void *src;
	qir_error err = { 0 };
	double e0, e1, nn, r0, r1, r1n;
	float *x = NULL;
	int rc;

	if (cfg->quantizer == HADAMARD_ROTATE_Q_NVFP4 && t->k % QK_NVFP4_BLOCK) {
		ps_skip_set(&t->skip, &hadamard_rotate_skip_cannot_judge, "K = %lld is not "
			    "a multiple of the NVFP4 block %d", (long long)t->k,
			    QK_NVFP4_BLOCK);
		return 0;
	}
	src = qir_tensor_data(t->w, &err);
	x = malloc(n * sizeof(float));
	if (!src || !x) {
		free(x);
		ps_fail(cfg->ctx, QOPT_ENOMEM, "weight '%s': %s", t->wv->name,
			   src || !err.msg[0] ? "out of memory" : err.msg);
		return -1;
	}
	hadamard_rotate_layout(t, &outer, &inner);
	rc = qk_convert(cfg->qk, QIR_FLOAT, x, t->w->dtype, src, n);
	if (!rc)
		rc = fq_error(cfg, x, outer, (size_t)t->k, inner, &e0, &nn);
	if (!rc)
		rc = qk_hadamard(cfg->qk, QIR_FLOAT, x, outer, (size_t)t->k,
				 inner, t->block);
	if (!rc)
		rc = fq_error(cfg, x, outer, (size_t)t->k, inner, &e1, &r1n);
	free(x);
	if (rc) {
		qopt_error(cfg->ctx, "weight '%s': %s", t->wv->name,
			   qk_strerror(rc));
		return -1;
	}
	r0 = nn > 0 ? sqrt(e0 / nn) : 0;
	r1 = nn > 0 ? sqrt(e1 / nn) : 0;
	t->judged = 1;
	t->q_e0 = e0;
	t->q_e1 = e1;
	t->q_nn = nn;
	qopt_stat_add(cfg->ctx, "weights judged by the quantizer", 1);
	if (r1 < r0) {
		qopt_info(cfg->ctx, "weight '%s': %s relative error %.4g "
			  "unrotated, %.4g rotated (block %zu): rotating",
			  t->wv->name, cfg->quantizer == HADAMARD_ROTATE_Q_NVFP4 ? "NVFP4" :
			  "FP8", r0, r1, t->block);
		return 1;
	}
	ps_skip_set(&t->skip, &hadamard_rotate_skip_no_help, "%s relative error %.4g "
		    "unrotated, %.4g rotated (block %zu)",
		    cfg->quantizer == HADAMARD_ROTATE_Q_NVFP4 ? "NVFP4" : "FP8", r0, r1,
		    t->block);
	return 0;
}

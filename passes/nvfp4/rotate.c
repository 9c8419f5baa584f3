/*
 * passes/nvfp4/rotate.c - rotate = rotate_back: quantize each
 * weight in a Hadamard-rotated basis and rotate back, W' = R fq(R W)
 * (R the normalized Walsh-Hadamard transform along K in blocks of
 * K & -K: symmetric and orthogonal, its own inverse), so that the model
 * keeps its activations unrotated. Only fake mode can store that: real
 * NVFP4 codes hold fq(R W) and would need the inverse rotation at run
 * time, so real mode refuses the option rather than drop the inverse.
 * The rotation itself is the toolkit's (passes/support/rotate.h).
 */
#include <stdlib.h>
#include <string.h>

#include "nvfp4.h"
#include "../support/fail.h"

int nvfp4_rotate_option(struct nvfp4_cfg *cfg, const char *v)
{
	if (!v || !strcmp(v, "no"))
		return 0;
	if (strcmp(v, "rotate_back")) {
		ps_fail(cfg->ctx, QOPT_EINVALID, "rotate: '%s' is not no or rotate_back", v);
		return -1;
	}
	if (cfg->mode != NVFP4_FAKE) {
		ps_fail(cfg->ctx, QOPT_EINVALID, "rotate = rotate_back needs mode = fake: "
			   "real NVFP4 weights would hold the rotated values "
			   "and the inverse rotation would be lost");
		return -1;
	}
	cfg->rotate_back = 1;
	return 0;
}

/* NVFP4 fake quantization in place (ps_rotate_back's fq). */
static int fake_nvfp4(void *arg, qk_ctx *qk, float *x, size_t outer,
		      size_t k, size_t inner, const char **step)
{
	(void)arg;
	return ps_fake_nvfp4(qk, QIR_FLOAT, x, x, outer, k, inner, step);
}

int nvfp4_fake_rotated_run(qk_ctx *kc, int dtype, const void *src,
			   size_t outer, size_t k, size_t inner, void *dst,
			   const char **step)
{
	return ps_rotate_back(kc, dtype, src, dst, outer, k, inner, 0,
			      fake_nvfp4, NULL, step);
}

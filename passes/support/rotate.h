/*
 * passes/support/rotate.h - the Hadamard rotation R along K, for the
 * weight side of a rotation (hadamard-rotate: B' = R B) and for
 * "rotate_back" (nvfp4-weights, fp8-mha: W' = R fq(R W), quantized in
 * the rotated basis and rotated back, so the activations stay as they
 * are). R is the normalized Walsh-Hadamard transform in blocks along K
 * (qk_hadamard; block 0: K & -K): symmetric and orthogonal, its own
 * inverse. The weight is viewed as [outer, K, inner] (ps_axis_split,
 * weight.h).
 */
#ifndef PASSES_SUPPORT_ROTATE_H
#define PASSES_SUPPORT_ROTATE_H

#include <stddef.h>

#include <qopt/qopt.h>

/* Fake quantization of x ([outer, k, inner] FLOAT) in place: x becomes
 * dq(q(x)) in the pass's format. *step names the failing step for
 * messages ("NVFP4 quantization"). Returns 0 or a kernel code. */
typedef int (*ps_fake_quant_fn)(void *arg, qk_ctx *qk, float *x,
				size_t outer, size_t k, size_t inner,
				const char **step);

/* dst (dtype) = R fq(R src) (src of dtype too), FP32 throughout and
 * one rounding to dtype at the end. 0, or a kernel code with *step
 * naming the step that failed ("Hadamard rotation", ...). */
int ps_rotate_back(qk_ctx *qk, int dtype, const void *src, void *dst,
		   size_t outer, size_t k, size_t inner, size_t block,
		   ps_fake_quant_fn fq, void *arg, const char **step);

#endif

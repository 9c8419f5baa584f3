/*
 * passes/support/fakequant.h - fake quantization: the values a weight
 * takes after quantizing and dequantizing, in its own type. What
 * nvfp4-weights stores in fake mode (and inside rotate_back), and what
 * hadamard-rotate's quantizer measures the error of.
 */
#ifndef PASSES_SUPPORT_FAKEQUANT_H
#define PASSES_SUPPORT_FAKEQUANT_H

#include <stddef.h>

#include <qopt/qopt.h>

/* dst = dq(q(src)) in NVFP4 (blocks of 16 along K, FP8 block scales,
 * an FP32 global scale) for [outer, k, inner] elements of dtype
 * (FLOAT, FLOAT16 or BFLOAT16) in src and dst, which may be the same
 * buffer. 0, or a kernel code with *step naming what failed ("NVFP4
 * quantization", "NVFP4 dequantization", "out of memory"). */
int ps_fake_nvfp4(qk_ctx *qk, int dtype, const void *src, void *dst,
		  size_t outer, size_t k, size_t inner, const char **step);

#endif

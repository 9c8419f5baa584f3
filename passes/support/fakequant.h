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

/* A fake-quantized weight is plain float again: nothing in the graph
 * says a later weight pass (fp8 after nvfp4-weights:mode=fake) would
 * round it a second time. The passes that write one record it in the
 * model's metadata (PS_FAKE_META: "weight=NAME format=F;" each), and
 * the weight passes skip a weight recorded there
 * (ps_skip_fake_quantized). */
#define PS_FAKE_META "qopt.fake_quantized"
/* The format weight is recorded with, copied into fmt (n bytes), or
 * NULL when it is not recorded. */
const char *ps_fake_recorded(const qir_model *m, const char *weight,
			     char *fmt, size_t n);
/* Records weight as fake-quantized in format: 0, or -1 out of memory. */
int ps_fake_record(qir_model *m, const char *weight, const char *format);

#endif

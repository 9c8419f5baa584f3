/*
 * tests/kernels/fake-cuda.c - a stand-in for libqopt-cuda.so with the
 * same function table (kernels/cuda-abi.h) and no GPU: each call
 * returns what $FAKE_CUDA says, so tests/kernels/cuda-status can check
 * how libqopt treats every status the module may return, on a machine
 * without CUDA. "ok": amax answers 42 (so a test sees the module ran);
 * "call": a CUDA call failed before writing (QOPT_EDEVICE_CALL);
 * int8_quantize under "ok" writes code 42 everywhere (the module ran);
 * "clobber": it failed after writing caller memory (hadamard scribbles
 * over x); "nonfinite": a result for the caller.
 */
#include <stdlib.h>
#include <string.h>
#include "cuda-abi.h"

static qopt_status told(void)
{
	const char *m = getenv("FAKE_CUDA");

	if (!m || !strcmp(m, "ok"))
		return QOPT_OK;
	if (!strcmp(m, "call"))
		return QOPT_EDEVICE_CALL;
	if (!strcmp(m, "clobber"))
		return QKI_CUDA_ECLOBBERED;
	return QOPT_EINVALID_NONFINITE;
}

static qopt_status init(char *why, size_t len)
{
	(void)why;
	(void)len;
	return QOPT_OK;
}

static const char *last_error(void)
{
	return "fake: launch failed";
}

static qopt_status amax(int dtype, const void *x, size_t n, float *out)
{
	qopt_status s = told();

	(void)dtype;
	(void)x;
	(void)n;
	if (s == QOPT_OK)
		*out = 42;
	return s;
}

static qopt_status hadamard(int dtype, void *x, size_t outer, size_t n,
			    size_t inner, size_t block)
{
	qopt_status s = told();

	(void)block;
	if (s == QKI_CUDA_ECLOBBERED)
		memset(x, 0xff, outer * n * inner * (dtype == 1 ? 4 : 2));
	return s;
}

static qopt_status nvfp4_quantize(int src_dtype, const void *w, size_t outer,
				  size_t k, size_t inner, uint8_t *codes,
				  uint8_t *scales, float *gscale)
{
	(void)src_dtype;
	(void)w;
	(void)outer;
	(void)k;
	(void)inner;
	(void)codes;
	(void)scales;
	(void)gscale;
	return told();
}

static qopt_status int8_quantize(int8_t *dst, int rt, const void *src,
				 const void *scales, size_t nscales,
				 size_t outer, size_t axis, size_t inner,
				 int mode, size_t block)
{
	qopt_status s = told();

	(void)rt, (void)src, (void)scales, (void)nscales, (void)mode;
	(void)block;
	if (s == QOPT_OK)
		memset(dst, 42, outer * axis * inner);
	return s;
}

/* The kernels no test above needs an answer from: they report what
 * $FAKE_CUDA says and write nothing (so "ok" leaves garbage: tests use
 * "call" for them, which libqopt redoes on the CPU). */
static qopt_status convert(int dt, void *dst, int st, const void *src,
			   size_t n)
{
	(void)dt, (void)dst, (void)st, (void)src, (void)n;
	return told();
}

static qopt_status amax_blocks(int dtype, const void *x, size_t outer,
			       size_t axis, size_t inner, size_t block,
			       float *out)
{
	(void)dtype, (void)x, (void)outer, (void)axis, (void)inner;
	(void)block, (void)out;
	return told();
}

static qopt_status fp8_quantize(int fmt, uint8_t *dst, int rt,
				const void *src, const void *scales,
				size_t nscales, size_t outer, size_t axis,
				size_t inner, int mode, size_t block, int sat)
{
	(void)fmt, (void)dst, (void)rt, (void)src, (void)scales;
	(void)nscales, (void)outer, (void)axis, (void)inner, (void)mode;
	(void)block, (void)sat;
	return told();
}

static qopt_status fp8_dequantize(int rt, void *dst, int fmt,
				  const uint8_t *src, const void *scales,
				  size_t nscales, size_t outer, size_t axis,
				  size_t inner, int mode, size_t block)
{
	(void)rt, (void)dst, (void)fmt, (void)src, (void)scales;
	(void)nscales, (void)outer, (void)axis, (void)inner, (void)mode;
	(void)block;
	return told();
}

static qopt_status nvfp4_dequantize(const uint8_t *codes,
				    const uint8_t *scales, float g,
				    size_t outer, size_t k, size_t inner,
				    int dt, void *dst)
{
	(void)codes, (void)scales, (void)g, (void)outer, (void)k;
	(void)inner, (void)dt, (void)dst;
	return told();
}

static qopt_status int8_dequantize(int rt, void *dst, const int8_t *src,
				   const void *scales, size_t nscales,
				   size_t outer, size_t axis, size_t inner,
				   int mode, size_t block)
{
	(void)rt, (void)dst, (void)src, (void)scales, (void)nscales;
	(void)outer, (void)axis, (void)inner, (void)mode, (void)block;
	return told();
}

static const struct qki_cuda_ops ops = {
	.abi = QK_CUDA_ABI,
	.size = sizeof(struct qki_cuda_ops),
	.init = init,
	.last_error = last_error,
	.convert = convert,
	.amax = amax,
	.amax_blocks = amax_blocks,
	.fp8_quantize = fp8_quantize,
	.fp8_dequantize = fp8_dequantize,
	.nvfp4_quantize = nvfp4_quantize,
	.nvfp4_dequantize = nvfp4_dequantize,
	.hadamard = hadamard,
	.int8_quantize = int8_quantize,
	.int8_dequantize = int8_dequantize,
};

__attribute__((visibility("default")))
const struct qki_cuda_ops *qki_cuda_module_entry(void);
const struct qki_cuda_ops *qki_cuda_module_entry(void)
{
	/* FAKE_CUDA_TABLE=incomplete: the table without its FP8
	 * quantizer, which libqopt must refuse rather than call. */
	static struct qki_cuda_ops incomplete;
	const char *t = getenv("FAKE_CUDA_TABLE");

	if (!t || strcmp(t, "incomplete"))
		return &ops;
	incomplete = ops;
	incomplete.fp8_quantize = NULL;
	return &incomplete;
}

/*
 * kernels/cuda-internal.cuh - what the CUDA module's files share.
 *
 * The module is C++ (nvcc) but keeps to the C subset plus kernels and a
 * small buffer type. Kernels read and write through numerics.h, the
 * same code the CPU kernels run, with every float operation rounded to
 * nearest explicitly (numerics.h uses __fadd_rn & co on the device and
 * the module is compiled with -fmad=false).
 */
#ifndef QK_CUDA_INTERNAL_CUH
#define QK_CUDA_INTERNAL_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "qopt/kernels.h"
#include "numerics.h"
#include "cuda-abi.h"

#define QKC_THREADS 256
/* Grid-stride kernels launch at most this many blocks. */
#define QKC_MAX_BLOCKS 8192u

/* Records "what: CUDA's message" for last_error(); returns
 * QOPT_EDEVICE_CALL so that callers can write `return qkc_fail(...)`
 * (the CPU may redo the call: cuda-abi.h). */
qopt_status qkc_fail(const char *what, cudaError_t e);
/* Checks the last launch and waits for it; QOPT_OK or as qkc_fail. */
qopt_status qkc_sync(const char *what);

static inline unsigned qkc_blocks(size_t n)
{
	size_t b = (n + QKC_THREADS - 1) / QKC_THREADS;

	return b == 0 ? 1u : b > QKC_MAX_BLOCKS ? QKC_MAX_BLOCKS : (unsigned)b;
}

static inline size_t qkc_dtype_size(int dtype)
{
	switch (dtype) {
	case QK_T_FLOAT:
		return 4;
	case QK_T_FLOAT16:
	case QK_T_BFLOAT16:
		return 2;
	default:
		return 1; /* E4M3FN, E5M2: a size, never a status */
	}
}

/* A device allocation freed on scope exit. */
struct qkc_buf {
	void *p = nullptr;
	qkc_buf() = default;
	qkc_buf(const qkc_buf &) = delete;
	qkc_buf &operator=(const qkc_buf &) = delete;
	~qkc_buf()
	{
		if (p)
			cudaFree(p);
	}
	/* QOPT_OK or as qkc_fail. */
	int alloc(size_t bytes)
	{
		cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);

		return e == cudaSuccess ? 0 : qkc_fail("cudaMalloc", e);
	}
	int from_host(const void *src, size_t bytes)
	{
		cudaError_t e;

		if (alloc(bytes))
			return QOPT_EDEVICE_CALL;
		/* Empty tensors may come with NULL host pointers: copy
		 * nothing rather than ask cudaMemcpy about them. */
		if (!bytes)
			return 0;
		e = cudaMemcpy(p, src, bytes, cudaMemcpyHostToDevice);
		return e == cudaSuccess ? 0 : qkc_fail("copy to device", e);
	}
	int to_host(void *dst, size_t bytes) const
	{
		cudaError_t e = bytes ? cudaMemcpy(dst, p, bytes,
						   cudaMemcpyDeviceToHost) :
					cudaSuccess;

		return e == cudaSuccess ? 0 : qkc_fail("copy to host", e);
	}
};

/* A quantizer's scales over [outer, axis, inner] (qk_qlayout), on the
 * device: the FP8 and INT8 kernels' (kernels/qlayout.c on the CPU). */
struct qkc_scales {
	int mode;
	const float *scales;
	size_t axis, inner, block, nb;
};

static inline qkc_scales qkc_scales_of(const float *scales, size_t axis,
				       size_t inner, int mode, size_t block)
{
	qkc_scales s;

	s.mode = mode;
	s.scales = scales;
	s.axis = axis;
	s.inner = inner;
	s.block = block;
	s.nb = mode == QK_SCALE_BLOCK ? axis / block + (axis % block != 0) : 1;
	return s;
}

/* The scale of flat element i. */
__device__ __forceinline__ float qkc_scale_at(const qkc_scales &a, size_t i)
{
	size_t row, t, ax, o;

	if (a.mode == QK_SCALE_TENSOR)
		return a.scales[0];
	row = i / a.inner;
	t = i % a.inner;
	ax = row % a.axis;
	if (a.mode == QK_SCALE_AXIS)
		return a.scales[ax];
	o = row / a.axis;
	return a.scales[(o * a.nb + ax / a.block) * a.inner + t];
}

/* Element i of a FLOAT/FLOAT16/BFLOAT16/E4M3FN/E5M2 array as float. */
__device__ __forceinline__ float qkc_load(int dtype, const void *p, size_t i)
{
	switch (dtype) {
	case QK_T_FLOAT:
		return ((const float *)p)[i];
	case QK_T_FLOAT16:
		return qki_dec_f16(((const uint16_t *)p)[i]);
	case QK_T_BFLOAT16:
		return qki_dec_bf16(((const uint16_t *)p)[i]);
	case QK_T_E4M3FN:
		return qki_dec_e4m3(((const uint8_t *)p)[i]);
	default:
		return qki_dec_e5m2(((const uint8_t *)p)[i]);
	}
}

/* Stores v as element i; FP8 saturates (Cast's default). */
__device__ __forceinline__ void qkc_store(int dtype, void *p, size_t i,
					  float v)
{
	switch (dtype) {
	case QK_T_FLOAT:
		((float *)p)[i] = v;
		break;
	case QK_T_FLOAT16:
		((uint16_t *)p)[i] = (uint16_t)qki_enc_f16(v);
		break;
	case QK_T_BFLOAT16:
		((uint16_t *)p)[i] = (uint16_t)qki_enc_bf16(v);
		break;
	case QK_T_E4M3FN:
		((uint8_t *)p)[i] = (uint8_t)qki_enc_e4m3(v, 1);
		break;
	default:
		((uint8_t *)p)[i] = (uint8_t)qki_enc_e5m2(v, 1);
		break;
	}
}

/* ---- launchers on device memory (default stream, not synchronized;
 * they return QOPT_OK or fail like qkc_fail). The host-pointer entry points and
 * bench() are built on them. ---- */

qopt_status qkc_convert_dev(int dt, void *dst, int st, const void *src, size_t n);
/* *amax_bits (device) = max over qki_abs_bits; zeroes it first. */
qopt_status qkc_amax_dev(int dtype, const void *x, size_t n, unsigned *amax_bits);
qopt_status qkc_amax_blocks_dev(int dtype, const void *x, size_t outer,
			size_t axis, size_t inner, size_t block, float *out);
qopt_status qkc_fp8_dev(int quant, int fmt, int rt, const void *src, void *dst,
		const float *scales, size_t outer, size_t axis, size_t inner,
		int mode, size_t block, int sat);
/* Whole NVFP4 quantization; tmp: n bytes when inner > 1 (else unused).
 * Reads the amax back to the host to form g. Returns
 * QOPT_EINVALID_NONFINITE for an infinite amax. */
qopt_status qkc_nvfp4_q_dev(int dtype, const void *w, size_t outer, size_t k,
		    size_t inner, uint8_t *codes, uint8_t *scales,
		    uint8_t *tmp, unsigned *amax_bits, float *g);
qopt_status qkc_nvfp4_dq_dev(const uint8_t *codes, const uint8_t *scales, float g,
		     size_t outer, size_t k, size_t inner, int dt, void *dst);
/* In place; work: outer*n*inner floats unless dtype is FLOAT and the
 * shared-memory path applies (may be NULL then: see qkc_hadamard_work). */
qopt_status qkc_hadamard_dev(int dtype, void *x, size_t outer, size_t n,
		     size_t inner, size_t block, float *work);
/* Floats of work memory qkc_hadamard_dev needs (0: none). */
size_t qkc_hadamard_work(int dtype, size_t outer, size_t n, size_t inner,
			 size_t block);

/* ---- the table's entry points (host pointers; see cuda-abi.h) ---- */

qopt_status qkc_convert(int dst_dtype, void *dst, int src_dtype, const void *src,
		size_t n);
qopt_status qkc_amax(int dtype, const void *x, size_t n, float *amax);
qopt_status qkc_amax_blocks(int dtype, const void *x, size_t outer, size_t axis,
		    size_t inner, size_t block, float *out);
qopt_status qkc_fp8_quantize(int fp8_dtype, uint8_t *dst, int src_dtype,
		     const void *src, const void *scales, size_t nscales,
		     size_t outer, size_t axis, size_t inner, int mode,
		     size_t block, int saturate);
qopt_status qkc_fp8_dequantize(int dst_dtype, void *dst, int fp8_dtype,
		       const uint8_t *src, const void *scales, size_t nscales,
		       size_t outer, size_t axis, size_t inner, int mode,
		       size_t block);
qopt_status qkc_nvfp4_quantize(int src_dtype, const void *w, size_t outer, size_t k,
		       size_t inner, uint8_t *codes, uint8_t *scales,
		       float *gscale);
qopt_status qkc_nvfp4_dequantize(const uint8_t *codes, const uint8_t *scales,
			 float gscale, size_t outer, size_t k, size_t inner,
			 int dst_dtype, void *dst);
qopt_status qkc_hadamard(int dtype, void *x, size_t outer, size_t n, size_t inner,
		 size_t block);
qopt_status qkc_int8_quantize(int8_t *dst, int src_dtype, const void *src,
		      const void *scales, size_t nscales, size_t outer,
		      size_t axis, size_t inner, int mode, size_t block);
qopt_status qkc_int8_dequantize(int dst_dtype, void *dst, const int8_t *src,
			const void *scales, size_t nscales, size_t outer,
			size_t axis, size_t inner, int mode, size_t block);

#endif /* QK_CUDA_INTERNAL_CUH */

/*
 * kernels/cuda-abi.h - the function table libqopt-cuda.so exports.
 *
 * libqopt dlopens the module and calls QK_CUDA_ENTRY_NAME; the table
 * is versioned so that a module from another build is refused instead
 * of called with the wrong arguments. Bump QK_CUDA_ABI on any change
 * below. Plain C types only: the module is C++ (nvcc) on its side.
 *
 * Every kernel takes host pointers, validated by libqopt beforehand,
 * and returns a qopt_status (qopt/status.h):
 *  QOPT_OK              done;
 *  QOPT_EDEVICE_CALL    a CUDA call failed before any caller memory was
 *                       written (the CPU redoes the call);
 *  QKI_CUDA_ECLOBBERED  a CUDA call failed after writing caller memory
 *                       (hadamard in place only): libqopt returns
 *                       QOPT_EDEVICE_CALL to its caller;
 *  other codes          the result for the caller (nvfp4_quantize:
 *                       QOPT_EINVALID_NONFINITE on inf).
 * last_error() tells why a CUDA call failed, for the fallback reason.
 * tests/kernels/fake-cuda.c is a module with this table and no GPU, so
 * libqopt's handling of each status is tested on any machine.
 * init() returns QOPT_OK or QOPT_EDEVICE_UNAVAILABLE, bench() QOPT_OK,
 * QOPT_EDEVICE_CALL or QOPT_EINVALID_ARG (an unknown kind).
 */
#ifndef QK_CUDA_ABI_H
#define QK_CUDA_ABI_H

#include <stddef.h>
#include <stdint.h>
#include "qopt/status.h"

/* 2: qopt_status returns (was 0/1/2/negative QK_E*); 3: INT8. */
#define QK_CUDA_ABI 3
/* Private to libqopt and its module: never returned by a qk_ function. */
#define QKI_CUDA_ECLOBBERED (QOPT_EDEVICE | 0x80 << 8)
#define QK_CUDA_ENTRY_NAME "qki_cuda_module_entry"

/* Kernels the module's bench() can time. */
enum qki_cuda_bench_kind {
	QK_CB_MEMCPY = 0,  /* device-to-device cudaMemcpy */
	QK_CB_AMAX,
	QK_CB_CONVERT,     /* FLOAT -> FLOAT16 */
	QK_CB_FP8_Q,       /* FLOAT -> E4M3FN, per tensor */
	QK_CB_FP8_DQ,      /* E4M3FN -> FLOAT, per tensor */
	QK_CB_NVFP4_Q,
	QK_CB_NVFP4_DQ,
	QK_CB_HADAMARD,    /* FLOAT, block 128 */
	QK_CB_COUNT
};

struct qki_cuda_ops {
	uint32_t abi;  /* QK_CUDA_ABI */
	uint32_t size; /* sizeof(struct qki_cuda_ops) */

	/* Finds the driver and a device that runs this module's code.
	 * QOPT_OK when usable; else writes why into why[len]. */
	qopt_status (*init)(char *why, size_t len);
	const char *(*last_error)(void);

	qopt_status (*convert)(int dst_dtype, void *dst, int src_dtype,
		       const void *src, size_t n);
	qopt_status (*amax)(int dtype, const void *x, size_t n, float *amax);
	qopt_status (*amax_blocks)(int dtype, const void *x, size_t outer,
			   size_t axis, size_t inner, size_t block,
			   float *out);
	/* mode/block as qk_qlayout; nscales FLOAT scales are copied from
	 * scales, which may be at any address (the caller's). */
	qopt_status (*fp8_quantize)(int fp8_dtype, uint8_t *dst, int src_dtype,
			    const void *src, const void *scales,
			    size_t nscales, size_t outer, size_t axis,
			    size_t inner, int mode, size_t block,
			    int saturate);
	qopt_status (*fp8_dequantize)(int dst_dtype, void *dst, int fp8_dtype,
			      const uint8_t *src, const void *scales,
			      size_t nscales, size_t outer, size_t axis,
			      size_t inner, int mode, size_t block);
	qopt_status (*nvfp4_quantize)(int src_dtype, const void *w, size_t outer,
			      size_t k, size_t inner, uint8_t *codes,
			      uint8_t *scales, float *gscale);
	qopt_status (*nvfp4_dequantize)(const uint8_t *codes, const uint8_t *scales,
				float gscale, size_t outer, size_t k,
				size_t inner, int dst_dtype, void *dst);
	qopt_status (*hadamard)(int dtype, void *x, size_t outer, size_t n,
			size_t inner, size_t block);
	/* Symmetric INT8, scales as fp8_quantize's. */
	qopt_status (*int8_quantize)(int8_t *dst, int src_dtype, const void *src,
				     const void *scales, size_t nscales,
				     size_t outer, size_t axis, size_t inner,
				     int mode, size_t block);
	qopt_status (*int8_dequantize)(int dst_dtype, void *dst,
				       const int8_t *src, const void *scales,
				       size_t nscales, size_t outer,
				       size_t axis, size_t inner, int mode,
				       size_t block);

	/* Times one kernel on n FLOAT elements resident on the device;
	 * *gbps is bytes of the FLOAT tensor (4 n) per second / 1e9 (for
	 * QK_CB_MEMCPY: bytes copied). QOPT_OK on success. */
	qopt_status (*bench)(int kind, size_t n, double *gbps);
	/* Name of the device in use, e.g. "NVIDIA H100 80GB HBM3". */
	const char *(*device_name)(void);
};

typedef const struct qki_cuda_ops *(*qki_cuda_entry_fn)(void);

#endif /* QK_CUDA_ABI_H */

/*
 * kernels/cuda-abi.h - the function table libqopt-cuda.so exports.
 *
 * libqopt dlopens the module and calls QK_CUDA_ENTRY_NAME; the table
 * is versioned so that a module from another build is refused instead
 * of called with the wrong arguments. Bump QK_CUDA_ABI on any change
 * below. Plain C types only: the module is C++ (nvcc) on its side.
 *
 * Every kernel takes host pointers, validated by libqopt beforehand,
 * and returns:
 *   0  done;
 *   1  failed before writing any caller memory (the CPU can redo it);
 *   2  failed after writing caller memory (hadamard in place only);
 *  <0  a QK_E* code for the caller (nvfp4_quantize: QK_EINVAL on inf).
 * last_error() tells why for 1 and 2, for the fallback reason.
 */
#ifndef QK_CUDA_ABI_H
#define QK_CUDA_ABI_H

#include <stddef.h>
#include <stdint.h>

#define QK_CUDA_ABI 1
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
	 * 0 when usable; else writes why into why[len]. */
	int (*init)(char *why, size_t len);
	const char *(*last_error)(void);

	int (*convert)(int dst_dtype, void *dst, int src_dtype,
		       const void *src, size_t n);
	int (*amax)(int dtype, const void *x, size_t n, float *amax);
	int (*amax_blocks)(int dtype, const void *x, size_t outer,
			   size_t axis, size_t inner, size_t block,
			   float *out);
	/* mode/block as qk_qlayout; nscales scales are read. */
	int (*fp8_quantize)(int fp8_dtype, uint8_t *dst, int src_dtype,
			    const void *src, const float *scales,
			    size_t nscales, size_t outer, size_t axis,
			    size_t inner, int mode, size_t block,
			    int saturate);
	int (*fp8_dequantize)(int dst_dtype, void *dst, int fp8_dtype,
			      const uint8_t *src, const float *scales,
			      size_t nscales, size_t outer, size_t axis,
			      size_t inner, int mode, size_t block);
	int (*nvfp4_quantize)(int src_dtype, const void *w, size_t outer,
			      size_t k, size_t inner, uint8_t *codes,
			      uint8_t *scales, float *gscale);
	int (*nvfp4_dequantize)(const uint8_t *codes, const uint8_t *scales,
				float gscale, size_t outer, size_t k,
				size_t inner, int dst_dtype, void *dst);
	int (*hadamard)(int dtype, void *x, size_t outer, size_t n,
			size_t inner, size_t block);

	/* Times one kernel on n FLOAT elements resident on the device;
	 * *gbps is bytes of the FLOAT tensor (4 n) per second / 1e9 (for
	 * QK_CB_MEMCPY: bytes copied). 0 on success. */
	int (*bench)(int kind, size_t n, double *gbps);
	/* Name of the device in use, e.g. "NVIDIA H100 80GB HBM3". */
	const char *(*device_name)(void);
};

typedef const struct qki_cuda_ops *(*qki_cuda_entry_fn)(void);

#endif /* QK_CUDA_ABI_H */

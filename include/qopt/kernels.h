/*
 * qopt/kernels.h - numeric kernels on plain buffers (public, versioned).
 *
 * The kernels know nothing of ONNX or the IR: they take element types
 * (the ONNX TensorProto.DataType numbers, see qopt/dtype.h), counts and
 * layouts. Every array kernel takes a qk_ctx that selects the device
 * (CPU reference or CUDA) and the CPU thread count. CPU and CUDA results
 * are bit-identical by contract; docs/numerics.md defines every result.
 *
 * Layouts: a tensor is viewed as [outer, axis, inner] (row-major), the
 * middle dimension being the one that carries blocks or per-axis scales.
 *
 * Errors: the array kernels return a qopt_status (qopt/status.h): QK_OK
 * (0) on success, else one of the QK_E* codes below, which are
 * qopt_status extended codes (ABI 3.0; they were negative before). Test
 * for nonzero, not for < 0. qk_strerror() names the code. Nothing here
 * prints.
 *
 * Alignment: element buffers may sit at any address. Tensor bytes the
 * IR hands out (qir_tensor_data) are borrowed from the mapped model file
 * or external data wherever the file put them, so the CPU kernels read
 * and write src, dst, x, w and the FP8 scales through unaligned-safe
 * loads and stores, which compile to the same vector instructions on
 * the aligned path; nothing is copied to align it. Exceptions: the
 * small float outputs (amax, out, gscale) and qk_hadamard's x (written
 * in place, so a writable copy the caller owns) must be aligned for
 * their element type.
 *
 * Contexts: a ctx is used by one thread at a time (the kernels start
 * their own threads). A NULL ctx means CPU, one thread, no statistics.
 * Device choice: CPU always works. QK_DEVICE_AUTO uses CUDA for calls
 * of at least 16 MiB of input when the CUDA module loads and a device
 * answers, else the CPU (counted in cuda_fallbacks when CUDA was
 * wanted). QK_DEVICE_CUDA returns QK_EDEVICE when CUDA is unusable; a
 * CUDA call that fails at run time is redone on the CPU (counted), but
 * an in-place qk_hadamard whose copy-back failed returns
 * QOPT_EDEVICE_CALL (x may be partly written).
 * The reason is in qk_stats.fallback_reason either way. The environment
 * variable QOPT_DEVICE (cpu|cuda|auto), read by qk_ctx_new, overrides
 * the device asked for; QOPT_CUDA_MODULE names the module file.
 *
 * NaN: conversions keep NaN (sign and, where it fits, payload). Results
 * of arithmetic never carry a hardware NaN (they differ between x86,
 * ARM and CUDA): FP8 quantization gives the NaN code with the input's
 * sign for a NaN input and the positive one for a NaN made by the
 * division; dequantization and the Hadamard transform give the
 * canonical quiet NaN (FLOAT 0x7fc00000, FLOAT16 0x7e00, BFLOAT16 0x7fc0).
 */
#ifndef QOPT_KERNELS_H
#define QOPT_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <qopt/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The kernels' codes, as qopt_status extended codes (ABI 3.0). */
enum qk_errcode {
	QK_OK = QOPT_OK,
	QK_EINVAL = QOPT_EINVALID_ARG,	/* bad argument (null buffer, zero block, ...) */
	QK_EDTYPE = QOPT_EUNSUPPORTED_DTYPE, /* element type not supported by this kernel */
	QK_EBLOCK = QOPT_EINVALID_BLOCK, /* axis length not a multiple of the block */
	QK_ENOMEM = QOPT_ENOMEM,
	QK_EDEVICE = QOPT_EDEVICE_UNAVAILABLE, /* CUDA requested explicitly but unusable */
};

/* The same static text as qopt_status_str(code). */
const char *qk_strerror(qopt_status code);

typedef enum qk_device {
	QK_DEVICE_AUTO = 0, /* CUDA when built, present and the work is large */
	QK_DEVICE_CPU = 1,
	QK_DEVICE_CUDA = 2,
} qk_device;

typedef struct qk_ctx qk_ctx;

/* Statistics a context accumulates; the pass manager reports them. */
typedef struct qk_stats {
	uint64_t cpu_calls;
	uint64_t cuda_calls;
	uint64_t cuda_fallbacks; /* AUTO or CUDA asked, CPU used */
	uint64_t bytes_in;       /* bytes of input processed */
	char fallback_reason[128]; /* last reason CUDA was not used */
} qk_stats;

/* Caller owns the result; free with qk_ctx_free(). threads <= 0: all
 * online CPUs. Returns NULL only on allocation failure. */
qk_ctx *qk_ctx_new(qk_device dev, int threads);
void qk_ctx_free(qk_ctx *ctx);
qk_device qk_ctx_device(const qk_ctx *ctx);
const qk_stats *qk_ctx_stats(const qk_ctx *ctx);
/* Parses "cpu", "cuda" or "auto"; returns -1 for anything else. */
int qk_device_from_name(const char *name);
const char *qk_device_name(qk_device dev);
/* 1 when CUDA support was compiled in and a device answers. */
int qk_cuda_available(void);

/* ---- scalar conversions (exact; round-half-to-even) ---- */
uint16_t qk_f32_to_f16(float x);
float qk_f16_to_f32(uint16_t h);
uint16_t qk_f32_to_bf16(float x);
float qk_bf16_to_f32(uint16_t h);
uint8_t qk_f32_to_e4m3(float x, int saturate);   /* FLOAT8E4M3FN */
float qk_e4m3_to_f32(uint8_t code);
uint8_t qk_f32_to_e5m2(float x, int saturate);   /* FLOAT8E5M2 */
float qk_e5m2_to_f32(uint8_t code);
uint8_t qk_f32_to_e2m1(float x);                 /* 4-bit code, bit 3 = sign */
float qk_e2m1_to_f32(uint8_t code);
/* Notes: FP8 and E2M1 encoders round half to even and keep the sign of
 * zero. E4M3FN: NaN -> S.1111.111; beyond 448 (inf too) -> +-448 when
 * saturating, else NaN. E5M2: NaN -> S.11111.11; beyond 57344 -> +-57344
 * when saturating, else +-inf. E2M1 saturates at 6; NaN -> 0x7 (+6),
 * as the ONNX reference cast does. FLOAT16 overflows to inf. */

/* FLOAT4E2M1 packing of n floats: ceil(n/2) bytes, low nibble first. */
void qk_e2m1_pack(const float *x, size_t n, uint8_t *dst);
void qk_e2m1_unpack(const uint8_t *src, size_t n, float *dst);

/* ---- array kernels ---- */

/* Element-wise conversion among FLOAT, FLOAT16 and BFLOAT16 (and to
 * FLOAT from FLOAT8E4M3FN/FLOAT8E5M2). n elements. Also: FP8 to
 * FLOAT16/BFLOAT16 (exact), and FLOAT/FLOAT16/BFLOAT16 to FP8 with
 * Cast's default saturate=1. */
qopt_status qk_convert(qk_ctx *ctx, int dst_dtype, void *dst,
	       int src_dtype, const void *src, size_t n);

/* amax(|x|) over n elements of FLOAT, FLOAT16 or BFLOAT16. NaN ignored. */
qopt_status qk_amax(qk_ctx *ctx, int dtype, const void *x, size_t n, float *amax);

/* ABI 3.0: *at = the index of the first Inf or NaN among n elements of
 * FLOAT, FLOAT16 or BFLOAT16 (any alignment), or n when all are
 * finite; then amax (when not NULL) receives max |x|, the value
 * qk_amax gives (0 for n == 0), else -1. On the CPU, on ctx's threads;
 * the answer does not depend on them. */
qopt_status qk_find_nonfinite(qk_ctx *ctx, int dtype, const void *x, size_t n,
		      size_t *at, float *amax);

/* Per-block amax along the middle axis of [outer, axis, inner];
 * out has [outer, ceil(axis/block), inner] floats. */
qopt_status qk_amax_blocks(qk_ctx *ctx, int dtype, const void *x,
		   size_t outer, size_t axis, size_t inner, size_t block,
		   float *out);

/* How scales map onto [outer, axis, inner]:
 *  QK_SCALE_TENSOR: one scale;
 *  QK_SCALE_AXIS:   scales[axis];
 *  QK_SCALE_BLOCK:  scales[outer][ceil(axis/block)][inner]. */
typedef enum qk_scale_mode {
	QK_SCALE_TENSOR = 0,
	QK_SCALE_AXIS = 1,
	QK_SCALE_BLOCK = 2,
} qk_scale_mode;

typedef struct qk_qlayout {
	size_t outer, axis, inner;
	qk_scale_mode mode;
	size_t block; /* QK_SCALE_BLOCK only */
} qk_qlayout;

/* FP8 (FLOAT8E4M3FN or FLOAT8E5M2) quantize: q = fp8(x / scale), the
 * ONNX QuantizeLinear definition; saturate as the attribute says; NaN
 * stays NaN. src FLOAT, FLOAT16 or BFLOAT16; scales are FP32. */
qopt_status qk_fp8_quantize(qk_ctx *ctx, int fp8_dtype, uint8_t *dst,
		    int src_dtype, const void *src, const float *scales,
		    const qk_qlayout *lay, int saturate);
/* y = fp8 * scale, written as dst_dtype (FLOAT, FLOAT16, BFLOAT16). */
qopt_status qk_fp8_dequantize(qk_ctx *ctx, int dst_dtype, void *dst,
		      int fp8_dtype, const uint8_t *src, const float *scales,
		      const qk_qlayout *lay);

/* Since ABI 4.3: symmetric INT8 (zero point 0), the form TensorRT's
 * explicit INT8 quantization reads (docs/int8.md):
 *   q = clamp(round_half_even(x / scale), -127, 127), one FP32 division,
 * NaN -> 0, +-inf saturated; -128 is never produced. For a scale of
 * amax / 127 (a weight's), these are the codes ONNX QuantizeLinear
 * gives. src FLOAT, FLOAT16 or BFLOAT16 (read exactly as FP32); scales
 * are FP32. Dequantize: y = q * scale (one rounding), written as
 * dst_dtype (FLOAT, FLOAT16, BFLOAT16). */
qopt_status qk_int8_quantize(qk_ctx *ctx, int8_t *dst, int src_dtype,
			     const void *src, const float *scales,
			     const qk_qlayout *lay);
qopt_status qk_int8_dequantize(qk_ctx *ctx, int dst_dtype, void *dst,
			       const int8_t *src, const float *scales,
			       const qk_qlayout *lay);

/* NVFP4 (docs/numerics.md; graph form: docs/graph-forms.md): W viewed as [outer, k, inner], k the
 * reduction axis, k % 16 == 0 (else QK_EBLOCK, never padded).
 *  codes:  packed E2M1, element order of W, ceil(n/2) bytes, low nibble
 *          first;
 *  scales: FLOAT8E4M3FN codes, [outer, k/16, inner];
 *  gscale: the FP32 global scale.
 * src FLOAT, FLOAT16 or BFLOAT16.
 * Arithmetic, all in FP32 with IEEE round-to-nearest (the CUDA kernels
 * do the same operations, so results are bit-identical):
 *   amax   = max |w| (NaN ignored); inf in w gives
 *            QOPT_EINVALID_NONFINITE;
 *   g      = amax / 2688.0f (one division); 1 when amax == 0; held at
 *            FLT_MIN when a positive amax would make it subnormal;
 *   s      = e4m3(amax_blk / 6.0f / g)  (two divisions, in this order,
 *            saturating); 0x38 (1.0) when amax_blk == 0; 0x01 (2^-9)
 *            when a positive amax_blk rounds to 0;
 *   S      = e4m3_to_f32(s) * g  (one rounding);
 *   code   = e2m1(w / S)  (one division);
 * and dequantization computes e2m1_to_f32(code) * S with the same S,
 * a NaN weight encoding as 0x7 (+6). The CPU path for inner == 1 keeps
 * every block's amax between its two passes (4 bytes per 16 weights;
 * QK_ENOMEM if that cannot be allocated). */
#define QK_NVFP4_BLOCK 16
/* ABI 3.0: qk_nvfp4_quantize for a w whose amax (max |w|, finite) the
 * caller already has, from qk_find_nonfinite or qk_amax: the CPU path
 * then reads w once instead of twice. Same bytes as qk_nvfp4_quantize
 * when amax is right; QK_EINVAL when it is negative, NaN or Inf. */
qopt_status qk_nvfp4_quantize_amax(qk_ctx *ctx, int src_dtype, const void *w,
			   size_t outer, size_t k, size_t inner, float amax,
			   uint8_t *codes, uint8_t *scales, float *gscale);
qopt_status qk_nvfp4_quantize(qk_ctx *ctx, int src_dtype, const void *w,
		      size_t outer, size_t k, size_t inner,
		      uint8_t *codes, uint8_t *scales, float *gscale);
/* Since ABI 4.0: TensorRT's dynamic NVFP4 quantization of an activation
 * (trt::TRT_FP4DynamicQuantize, axis = k, block 16): the arithmetic of
 * qk_nvfp4_quantize with the global scale given (from calibration:
 * qk_nvfp4_gscale(amax)) instead of taken from x. Blocks whose amax
 * exceeds 2688 * gscale saturate (scale 448, codes +-6); +-inf
 * saturates the same way. QK_EINVAL when gscale is not a positive
 * normal finite float. Runs on the CPU under every device (the CUDA
 * module derives g from x). */
qopt_status qk_nvfp4_quantize_gscale(qk_ctx *ctx, int src_dtype,
				     const void *x, size_t outer, size_t k,
				     size_t inner, float gscale,
				     uint8_t *codes, uint8_t *scales);
/* The global scale qk_nvfp4_quantize uses for a tensor of max |x| amax:
 * amax / 2688.0f, 1 when amax is 0, FLT_MIN when that would be
 * subnormal. */
float qk_nvfp4_gscale(float amax);
/* e2m1(code) * e4m3(scale) * gscale, written as dst_dtype. */
qopt_status qk_nvfp4_dequantize(qk_ctx *ctx, const uint8_t *codes,
			const uint8_t *scales, float gscale,
			size_t outer, size_t k, size_t inner,
			int dst_dtype, void *dst);

/* Normalized Walsh-Hadamard transform in place along the middle axis of
 * [outer, n, inner], block b (power of two dividing n; 0 picks the
 * default: n if a power of two, else n & -n), Sylvester order, scaled
 * by 1/sqrt(b). FLOAT16/BFLOAT16 are computed in FP32. */
qopt_status qk_hadamard(qk_ctx *ctx, int dtype, void *x,
		size_t outer, size_t n, size_t inner, size_t block);
/* The default block for an axis of length n (0 when n == 0). */
size_t qk_hadamard_default_block(size_t n);

/* dst[j * dst_stride + i] = src[i * cols + j] for i < rows, j < cols:
 * the [rows, cols] matrix transposed into rows of dst_stride (>= rows)
 * elements of esize bytes (1, 2, 4 or 8). Moves bytes only, so it runs
 * on the CPU under every device, on ctx's threads; any alignment; src
 * and dst must not overlap. QK_EINVAL for another esize, a stride below
 * rows, a size overflow or a NULL buffer. Since ABI 2.2. */
qopt_status qk_transpose(qk_ctx *ctx, size_t esize, const void *src, size_t rows,
		 size_t cols, void *dst, size_t dst_stride);


/* MXFP8 (OCP microscaling FP8, TensorRT's MXFP8): x viewed as
 * [outer, k, inner], blocks of 32 along k, k % 32 == 0 (else
 * QK_EBLOCK). Since ABI 4.0.
 *  codes:  FLOAT8E4M3FN, one byte per element, x's element order;
 *  scales: E8M0 codes (FLOAT8E8M0, or ModelOpt's UINT8 "biased
 *          exponent"), [outer, k/32, inner]: code c means 2^(c - 127),
 *          255 is NaN.
 * src FLOAT, FLOAT16 or BFLOAT16 (taken exactly as FP32). Per block:
 *   amax = max |x| (NaN ignored);
 *   e    = the smallest integer in [-127, 127] with amax <= 448 * 2^e,
 *          i.e. ceil(log2(amax / 448)) computed exactly; -127 for a
 *          zero block, 127 when amax is inf; code = e + 127;
 *   code = e4m3(x * 2^-e) with saturation (one exact-or-RNE
 *          multiplication, then round half to even; NaN stays NaN).
 * Dequantization: e4m3_to_f32(code) * 2^(c - 127), one FP32 rounding,
 * then RNE to dst_dtype; a NaN result (NaN code or scale 255) is the
 * canonical NaN. Runs on the CPU under every device (no CUDA twin). */
#define QK_MXFP8_BLOCK 32
qopt_status qk_mxfp8_quantize(qk_ctx *ctx, int src_dtype, const void *x,
		      size_t outer, size_t k, size_t inner,
		      uint8_t *codes, uint8_t *scales);
qopt_status qk_mxfp8_dequantize(qk_ctx *ctx, const uint8_t *codes,
			const uint8_t *scales, size_t outer, size_t k,
			size_t inner, int dst_dtype, void *dst);
/* The E8M0 code of one block amax, as above (NaN amax: 255). */
uint8_t qk_mxfp8_scale_code(float amax);

#ifdef __cplusplus
}
#endif
#endif /* QOPT_KERNELS_H */

/*
 * kernels/internal.h - what the CPU kernel files share (not installed).
 *
 * Internal symbols use the qki_ prefix: libqopt exports ^qk_ only, so
 * these stay private to the library.
 */
#ifndef QK_INTERNAL_H
#define QK_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "qopt/kernels.h"
#include "numerics.h"
#include "cuda-abi.h"

/* Upper bound on worker threads of one call (partial results live on
 * the stack, one slot per thread). */
#define QKI_MAX_THREADS 256
/* Below this many input bytes per thread, starting a thread costs more
 * than it saves (a thread start is ~10-50 us; this is ~20-100 us of
 * work). */
#define QKI_MIN_BYTES_PER_THREAD (256u * 1024u)
/* QK_DEVICE_AUTO sends a call to CUDA only from this many input bytes
 * on: below it the PCIe round trip and launch latency outweigh the
 * CPU's time (an NVFP4 pass over 16 MiB is a few ms on a few cores). */
#define QKI_CUDA_AUTO_MIN_BYTES (16u * 1024u * 1024u)
/* Streaming kernels prefetch this many elements ahead. */
#define QKI_PF_AHEAD 2048
/* Floats one gather/compute chunk holds: fixed-size inner loops are
 * what GCC's -O2 ("very cheap") vectorizer accepts. */
#define QKI_CHUNK 256

/* Runs body for i in [0, n): in fixed groups of QKI_VEC, then the
 * rest. The fixed trip count is what lets GCC's -O2 ("very cheap")
 * vectorizer take the loop; pointers in body should be restrict. */
#define QKI_VEC 64
#define QKI_FOR_VEC(i, n, body)                                           \
	do {                                                              \
		size_t i##_0 = 0, i##_n = (n);                            \
		for (; i##_0 + QKI_VEC <= i##_n; i##_0 += QKI_VEC)        \
			for (size_t i = i##_0; i < i##_0 + QKI_VEC; i++) { \
				body;                                     \
			}                                                 \
		for (size_t i = i##_0; i < i##_n; i++) {                  \
			body;                                             \
		}                                                         \
	} while (0)

/* The hot loops also get AVX2 and AVX-512 (x86-64-v4) clones, chosen
 * once at load time (GNU ifunc). Same IEEE operations, wider vectors:
 * results do not change (the code has no a * b + c that FMA could
 * contract, and ISO C mode compiles with -ffp-contract=off anyway).
 * Not under ASan (its run time is not set up when ifunc resolvers
 * run); -DQKI_HOT= builds the portable code only. */
#ifndef QKI_HOT
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
	defined(__linux__) && !defined(__SANITIZE_ADDRESS__)
#define QKI_HOT __attribute__((target_clones("arch=x86-64-v4", "avx2", \
						 "default")))
#else
#define QKI_HOT
#endif
#endif

/* Elements at any address. Tensor bytes borrowed from a mapped model
 * file or external data sit wherever the file put them (kernels.h):
 * the kernels read and write caller buffers through these types, whose
 * loads compile to the same (unaligned) vector loads on x86-64 and
 * AArch64, so the aligned path loses nothing. Internal buffers keep
 * the plain types. */
typedef float qki_f32u __attribute__((aligned(1)));
typedef uint16_t qki_u16u __attribute__((aligned(1)));

/* An F16C path for FLOAT16 loads, chosen at run time (GCC or Clang on
 * x86-64 Linux, not under ASan; -DQKI_HAVE_F16C=0 turns it off). */
#ifndef QKI_HAVE_F16C
#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__) && \
	!defined(__SANITIZE_ADDRESS__)
#define QKI_HAVE_F16C 1
#else
#define QKI_HAVE_F16C 0
#endif
#if QKI_HAVE_F16C
/* AVX2 and F16C both present (kernels/elem.c); asked once. */
int qki_cpu_f16c(void);
/* AVX-512 F, BW and VL present (kernels/hadamard-avx512.c). */
int qki_have_avx512(void);
/* NVFP4 tiles of inner % 16 == 0 on AVX-512 (kernels/nvfp4-avx512.c):
 * tiles [lo, hi) of W [outer, k, inner], bit for bit what
 * kernels/nvfp4.c writes. */
void qki_nv_tiles_avx512(int dtype, const void *w, size_t inner, float g,
			 size_t lo, size_t hi, uint8_t *codes,
			 uint8_t *scales);
/* The inverse for inner % 16 == 0: tiles [lo, hi) of codes and scales
 * to out [outer, k, inner] as dtype, bit for bit kernels/nvfp4.c's. */
void qki_nv_dq_tiles_avx512(int dtype, void *out, size_t inner, float g,
			    size_t lo, size_t hi, const uint8_t *codes,
			    const uint8_t *scales);
/* The same two on AVX2 + F16C (kernels/nvfp4-avx2.c) for inner % 8
 * == 0, where AVX-512 is missing (or QK_NO_SIMD=avx512); the same
 * bits. */
void qki_nv_tiles_avx2(int dtype, const void *w, size_t inner, float g,
		       size_t lo, size_t hi, uint8_t *codes, uint8_t *scales);
void qki_nv_dq_tiles_avx2(int dtype, void *out, size_t inner, float g,
			  size_t lo, size_t hi, const uint8_t *codes,
			  const uint8_t *scales);
/* inner == 1 on AVX2: qki_nv_blocks_avx512's 16 blocks; and the
 * dequantization of n blocks (a multiple of 8) from block blk. */
void qki_nv_blocks_avx2(int dtype, const void *w, const float *m, float g,
			uint8_t *codes, uint8_t *scales);
void qki_nv_dq_blocks_avx2(int dtype, void *out, float g, size_t blk,
			   size_t n, const uint8_t *codes,
			   const uint8_t *scales);
/* inner == 1: 16 blocks of 16 elements at w, their maxima m (as
 * qki_amax16 gives them) -> 16 scales and 128 code bytes, bit for bit
 * what kernels/nvfp4.c writes. */
void qki_nv_blocks_avx512(int dtype, const void *w, const float *m,
			  float g, uint8_t *codes, uint8_t *scales);
/* FP8 quantization of elements [i, i + n) of src into q (q[0] is
 * element i) on AVX-512 (kernels/fp8-avx512.c): scale s, or sv[0..n)
 * when sv is not NULL; bit for bit what kernels/fp8.c writes. */
void qki_fp8_q_avx512(int fmt, int sat, int dt, const void *src, size_t i,
		      uint8_t *q, float s, const qki_f32u *sv, size_t n);
#endif
#endif

/* 1 when QK_NO_SIMD is set to anything but "", "0" or "avx512" (read
 * once, kernels/ctx.c): the run-time chosen SIMD paths (F16C loads,
 * the AVX2 and AVX-512 NVFP4 code, the AVX-512 Hadamard) then step
 * aside for the portable code, so tests can compare the two in one
 * build. The compiler's target_clones of the portable loops stay: they
 * are the same C. */
int qki_simd_off(void);
/* 1 when QK_NO_SIMD is set at all (as above, or to "avx512"): the
 * AVX-512 paths step aside, the AVX2 ones then run where present, so
 * an AVX-512 machine tests those too. */
int qki_avx512_off(void);

struct qk_ctx {
	qk_device dev;
	int threads;
	qk_stats stats;
};

/* Work split: fn handles units [lo, hi) as part `part` (0-based,
 * < QKI_MAX_THREADS); returns QK_OK or a QK_E* code. */
typedef int (*qki_range_fn)(void *arg, unsigned part, size_t lo, size_t hi);

/* Runs fn over [0, units) on up to ctx->threads threads, splitting in
 * contiguous ranges; total_bytes sizes the split. Returns the number
 * of parts used (>= 1) in *parts when parts is not NULL. The result is
 * the first nonzero return of fn, else 0. */
int qki_parallel(const qk_ctx *ctx, size_t units, size_t total_bytes,
		 qki_range_fn fn, void *arg, unsigned *parts);

/* ---- dispatch (ctx.c) ---- */

/* Where one call runs: QK_OK with *ops set (CUDA) or NULL (CPU), or
 * QK_EDEVICE when CUDA was asked explicitly and is unusable. */
qopt_status qki_route(qk_ctx *ctx, size_t bytes_in,
		      const struct qki_cuda_ops **ops);
/* Records a finished call (cuda: 1 when it ran on the GPU). */
void qki_account(qk_ctx *ctx, int cuda, size_t bytes_in);
/* Takes the status a CUDA module kernel returned (see cuda-abi.h):
 * QKI_CPU when the CPU must do the work (the reason is recorded), else
 * the status the kernel returns to its caller. QKI_CPU is negative,
 * never a qopt_status. */
#define QKI_CPU (-1)
int qki_cuda_result(qk_ctx *ctx, const struct qki_cuda_ops *ops,
		    qopt_status rc, size_t bytes_in);

/* m[b] = max |x| over block b, for QKI_AMAX16 blocks of 16 floats
 * (NaN ignored). */
#define QKI_AMAX16 16
void qki_amax16(const qki_f32u *restrict x, float *restrict m);

/* max |x| over n elements of a real dtype on the CPU, as float bits
 * (NaN ignored). */
uint32_t qki_amax_bits(const qk_ctx *ctx, int dtype, const void *x,
		       size_t n);

/* ---- element access ---- */

/* Bytes per element of FLOAT, FLOAT16, BFLOAT16, E4M3FN, E5M2; 0 for
 * anything else. */
size_t qki_dtype_size(int dtype);
/* 1 for FLOAT, FLOAT16 and BFLOAT16: the kernels' "real" inputs. */
int qki_is_real(int dtype);
/* out[0..n) = src[i..i+n) as floats (exact for every real dtype). */
void qki_load_f32(int dtype, const void *src, size_t i, size_t n,
		  float *restrict out);
/* dst[i..i+n) = x[0..n) converted (RNE) to a real dtype. */
void qki_store_f32(int dtype, void *dst, size_t i, size_t n,
		   const float *restrict x);

/* dst[0..n) = fp8 codes (E4M3FN or E5M2) of x[0..n). */
void qki_enc_fp8(int fmt, uint8_t *restrict dst, const float *restrict x,
		 size_t n, int sat);
/* dst[0..n) = values of fp8 codes src[0..n). */
void qki_dec_fp8(int fmt, float *restrict dst, const uint8_t *restrict src,
		 size_t n);

/* ---- scale layouts (qlayout.c): the FP8 and INT8 quantizers' ---- */

struct qki_scale_walk {
	int mode;			/* qk_scale_mode */
	const qki_f32u *scales;		/* the caller's, at any address */
	size_t axis, inner, block, nb;	/* nb: blocks along the axis */
};

/* Checks lay and fills w from it (w->scales is the caller's); *n
 * elements, *nscales scales. QK_EINVAL on a bad layout. */
int qki_scale_walk_init(struct qki_scale_walk *w, const qk_qlayout *lay,
			size_t *n, size_t *nscales);
/* The run that starts at flat index i (at most hi - i long) over which
 * the scale is one value (*sv NULL, *s set) or runs along sv[0..len). */
size_t qki_scale_run(const struct qki_scale_walk *w, size_t i, size_t hi,
		     float *s, const qki_f32u **sv);

/* Asks for [p, p + bytes) to be brought into the cache (streams run
 * faster with software prefetch some KiB ahead of use). */
static inline void qki_prefetch(const void *p, size_t bytes)
{
	for (size_t l = 0; l < bytes; l += 64)
		__builtin_prefetch((const char *)p + l);
}

/* a * b * c without overflow; 0 on success. */
int qki_mul3(size_t a, size_t b, size_t c, size_t *out);

#endif /* QK_INTERNAL_H */

/*
 * kernels/hadamard.c - normalized Walsh-Hadamard transform along the
 * middle axis of [outer, n, inner], in blocks of b (Sylvester order).
 *
 * Per transformed column the operations are fixed: for stages
 * h = 1, 2, 4 .. b/2, each pair (j, j + h) with bit h of j clear becomes
 * (u + v, u - v); then one multiplication by qki_hadamard_scale(b); a NaN
 * result becomes the canonical NaN. Every value of a stage depends only
 * on two values of the previous stage, so the pairs of a stage may be
 * computed in any grouping and several stages may be fused in registers
 * without changing a bit. kernels/cuda-hadamard.cu computes the same
 * stages in the same order, so both agree bit for bit.
 *
 * Speed (memory bound, one pass over memory): work is loaded into an
 * FP32 buffer (FLOAT16 and BFLOAT16 converted exactly), all stages run
 * there, and the result is scaled, rounded once to the element type and
 * stored. Inside the buffer the stages are cache blocked: those that
 * stay within QKI_HL1 floats run chunk by chunk in the L1 cache, the
 * rest (b > QKI_HL1) over the whole block. Where the CPU has AVX-512,
 * rows go through kernels/hadamard-avx512.c instead (blocks up to 256 in
 * registers, longer ones through a padded buffer, fewer passes).
 *
 * Layouts: inner == 1 transforms rows, several whole row blocks per
 * buffer. inner > 1 gathers b rows of up to QKI_HCOLS inner columns
 * into a b x cols tile; row r of the tile is then "element" r of width
 * cols, and a stage h pairs spans of h * cols floats.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "hadamard.h"

#define QKI_HCOLS 16
/* Floats per L1 chunk: 32 KiB (L1d is 32 to 48 KiB on current x86). */
#define QKI_HL1 8192

/* GCC vector extension: 8 floats; each clone of QKI_HOT code gets the
 * widest instructions it can use for it. Loads and stores go through
 * memcpy (no alignment or aliasing assumption). */
typedef float qki_v8 __attribute__((vector_size(32)));
typedef int32_t qki_i8 __attribute__((vector_size(32)));
typedef float qki_v16 __attribute__((vector_size(64)));
typedef uint32_t qki_u8 __attribute__((vector_size(32)));
typedef uint16_t qki_h8 __attribute__((vector_size(16)));

#if defined(__clang__)
#define QKI_SHUF1(v, ...) __builtin_shufflevector((v), (v), __VA_ARGS__)
#define QKI_SHUF2(a, b, ...) __builtin_shufflevector((a), (b), __VA_ARGS__)
#else
#define QKI_SHUF1(v, ...) __builtin_shuffle((v), (qki_i8){ __VA_ARGS__ })
#define QKI_SHUF2(a, b, ...) __builtin_shuffle((a), (b), (qki_i8){ __VA_ARGS__ })
#endif

size_t qk_hadamard_default_block(size_t n)
{
	return n & (~n + 1); /* n itself for a power of two, else n & -n */
}

#define QKI_LD(v, p) memcpy(&(v), (p), sizeof(v))
#define QKI_ST(p, v) memcpy((p), &(v), sizeof(v))

/* One butterfly: (a, b) -> (a + b, a - b). */
#define QKI_BF(a, b)                      \
	do {                              \
		__typeof__(a) u_ = (a);   \
		(a) = QK_FADD(u_, (b));   \
		(b) = QK_FSUB(u_, (b));   \
	} while (0)

/* Stages h, 2h, 4h of a[0..8) (a[k] is element k * h). */
#define QKI_R8(a)                                                         \
	do {                                                              \
		QKI_BF(a[0], a[1]); QKI_BF(a[2], a[3]);                   \
		QKI_BF(a[4], a[5]); QKI_BF(a[6], a[7]);                   \
		QKI_BF(a[0], a[2]); QKI_BF(a[1], a[3]);                   \
		QKI_BF(a[4], a[6]); QKI_BF(a[5], a[7]);                   \
		QKI_BF(a[0], a[4]); QKI_BF(a[1], a[5]);                   \
		QKI_BF(a[2], a[6]); QKI_BF(a[3], a[7]);                   \
	} while (0)
#define QKI_R4(a)                                                         \
	do {                                                              \
		QKI_BF(a[0], a[1]); QKI_BF(a[2], a[3]);                   \
		QKI_BF(a[0], a[2]); QKI_BF(a[1], a[3]);                   \
	} while (0)

/* Stages 1, 2 and 4 (those below b) of every 8-float vector of t,
 * n a multiple of 8. The sum lanes come from u + v, the difference
 * lanes from u - v, exactly as the scalar butterfly. */
static inline __attribute__((always_inline)) void
qki_lanes(float *t, size_t n, size_t b)
{
	for (size_t j = 0; j < n; j += 8) {
		qki_v8 v, p;

		QKI_LD(v, t + j);

		p = QKI_SHUF1(v, 1, 0, 3, 2, 5, 4, 7, 6);
		v = QKI_SHUF2(QK_FADD(v, p), QK_FSUB(p, v),
			      0, 9, 2, 11, 4, 13, 6, 15);
		if (b > 2) {
			p = QKI_SHUF1(v, 2, 3, 0, 1, 6, 7, 4, 5);
			v = QKI_SHUF2(QK_FADD(v, p), QK_FSUB(p, v),
				      0, 1, 10, 11, 4, 5, 14, 15);
		}
		if (b > 4) {
			p = QKI_SHUF1(v, 4, 5, 6, 7, 0, 1, 2, 3);
			v = QKI_SHUF2(QK_FADD(v, p), QK_FSUB(p, v),
				      0, 1, 2, 3, 12, 13, 14, 15);
		}
		QKI_ST(t + j, v);
	}
}

/* Explicit loads and stores of the m = 2^r elements at p + k * s: a
 * loop over k would leave the vectors in memory. */
#define QKI_LD8(a, p, s)                                                  \
	do {                                                              \
		QKI_LD(a[0], (p)); QKI_LD(a[1], (p) + (s));               \
		QKI_LD(a[2], (p) + 2 * (s)); QKI_LD(a[3], (p) + 3 * (s)); \
		QKI_LD(a[4], (p) + 4 * (s)); QKI_LD(a[5], (p) + 5 * (s)); \
		QKI_LD(a[6], (p) + 6 * (s)); QKI_LD(a[7], (p) + 7 * (s)); \
	} while (0)
#define QKI_ST8(p, s, a)                                                  \
	do {                                                              \
		QKI_ST((p), a[0]); QKI_ST((p) + (s), a[1]);               \
		QKI_ST((p) + 2 * (s), a[2]); QKI_ST((p) + 3 * (s), a[3]); \
		QKI_ST((p) + 4 * (s), a[4]); QKI_ST((p) + 5 * (s), a[5]); \
		QKI_ST((p) + 6 * (s), a[6]); QKI_ST((p) + 7 * (s), a[7]); \
	} while (0)
#define QKI_LD4(a, p, s)                                                  \
	do {                                                              \
		QKI_LD(a[0], (p)); QKI_LD(a[1], (p) + (s));               \
		QKI_LD(a[2], (p) + 2 * (s)); QKI_LD(a[3], (p) + 3 * (s)); \
	} while (0)
#define QKI_ST4(p, s, a)                                                  \
	do {                                                              \
		QKI_ST((p), a[0]); QKI_ST((p) + (s), a[1]);               \
		QKI_ST((p) + 2 * (s), a[2]); QKI_ST((p) + 3 * (s), a[3]); \
	} while (0)

/* One fused pass of r stages over f in [0, s) at p, elements of type
 * T, W floats at a time. */
#define QKI_PASS_BODY(T, W, p, s, r)                                      \
	for (size_t f = 0; f < (s); f += (W)) {                           \
		T a[8];                                                   \
		float *q = (p) + f;                                       \
                                                                          \
		if ((r) == 3) {                                           \
			QKI_LD8(a, q, (s));                               \
			QKI_R8(a);                                        \
			QKI_ST8(q, (s), a);                               \
		} else if ((r) == 2) {                                    \
			QKI_LD4(a, q, (s));                               \
			QKI_R4(a);                                        \
			QKI_ST4(q, (s), a);                               \
		} else {                                                  \
			QKI_LD(a[0], q);                                  \
			QKI_LD(a[1], q + (s));                            \
			QKI_BF(a[0], a[1]);                               \
			QKI_ST(q, a[0]);                                  \
			QKI_ST(q + (s), a[1]);                            \
		}                                                         \
	}

/* r fused stages (1 to 3) with element stride s floats over t[0..n):
 * groups of (s << r) floats, each s floats wide. Vector code when s is
 * a multiple of 8, scalar otherwise (same operations). */
static inline __attribute__((always_inline)) void
qki_pass(float *t, size_t n, size_t s, int r)
{
	size_t g = s << r, base;

	for (base = 0; base < n; base += g) {
		float *p = t + base;

		if (s % 16 == 0) {
			QKI_PASS_BODY(qki_v16, 16, p, s, r)
		} else if (s % 8 == 0) {
			QKI_PASS_BODY(qki_v8, 8, p, s, r)
		} else {
			for (size_t f = 0; f < s; f++) {
				float a[8], *q = p + f;

				for (int k = 0; k < (1 << r); k++)
					a[k] = q[k * s];
				if (r == 3)
					QKI_R8(a);
				else if (r == 2)
					QKI_R4(a);
				else
					QKI_BF(a[0], a[1]);
				for (int k = 0; k < (1 << r); k++)
					q[k * s] = a[k];
			}
		}
	}
}

/* Stages 1, 2 and 4 of an 8-float vector v, in registers. For the pair
 * (i, j = i + h): lane i gets x[j] + x[i] (= x[i] + x[j], IEEE addition
 * commutes) and lane j gets x[i] + (-x[j]) (= x[i] - x[j], which IEEE
 * defines as that sum): the butterfly's values, bit for bit (a NaN may
 * differ in sign or payload; it becomes the canonical NaN at the end).
 * Stage 8 of 16 floats held as two such vectors (lo, hi) is a plain
 * butterfly between them. */
#define QKI_S INT32_MIN
#define QKI_NEG8(v, ...) ((qki_v8)((qki_i8)(v) ^ (qki_i8){ __VA_ARGS__ }))
#define QKI_LANES8(v)                                                     \
	do {                                                              \
		v = QK_FADD(QKI_SHUF1(v, 1, 0, 3, 2, 5, 4, 7, 6),         \
			    QKI_NEG8(v, 0, QKI_S, 0, QKI_S, 0, QKI_S, 0,  \
				     QKI_S));                             \
		v = QK_FADD(QKI_SHUF1(v, 2, 3, 0, 1, 6, 7, 4, 5),         \
			    QKI_NEG8(v, 0, 0, QKI_S, QKI_S, 0, 0, QKI_S,  \
				     QKI_S));                             \
		v = QK_FADD(QKI_SHUF1(v, 4, 5, 6, 7, 0, 1, 2, 3),         \
			    QKI_NEG8(v, 0, 0, 0, 0, QKI_S, QKI_S, QKI_S,  \
				     QKI_S));                             \
	} while (0)
#define QKI_LANES16(lo, hi, t)                                            \
	do {                                                              \
		QKI_LANES8(lo);                                           \
		QKI_LANES8(hi);                                           \
		QKI_BF(lo, hi);                                           \
		QKI_ST((t), lo);                                          \
		QKI_ST((t) + 8, hi);                                      \
	} while (0)

/* Loads n elements (n % 16 == 0) from src into t as floats, with
 * stages 1 .. 8 done on the way (blocks of 16 or more). */
QKI_HOT static void qki_in_f32(const unsigned char *src, float *t, size_t n)
{
	for (size_t j = 0; j < n; j += 16) {
		qki_v8 lo, hi;

		memcpy(&lo, src + 4 * j, sizeof(lo));
		memcpy(&hi, src + 4 * j + 32, sizeof(hi));
		QKI_LANES16(lo, hi, t + j);
	}
}

QKI_HOT static void qki_in_bf16(const unsigned char *src, float *t, size_t n)
{
	for (size_t j = 0; j < n; j += 16) {
		qki_h8 a, b;
		qki_u8 ua, ub;
		qki_v8 lo, hi;

		memcpy(&a, src + 2 * j, sizeof(a));
		memcpy(&b, src + 2 * j + 16, sizeof(b));
		ua = __builtin_convertvector(a, qki_u8) << 16;
		ub = __builtin_convertvector(b, qki_u8) << 16;
		memcpy(&lo, &ua, sizeof(lo));
		memcpy(&hi, &ub, sizeof(hi));
		QKI_LANES16(lo, hi, t + j);
	}
}

QKI_HOT static void qki_lanes16_all(float *t, size_t n)
{
	for (size_t j = 0; j < n; j += 16) {
		qki_v8 lo, hi;

		QKI_LD(lo, t + j);
		QKI_LD(hi, t + j + 8);
		QKI_LANES16(lo, hi, t + j);
	}
}

#if QKI_HAVE_F16C
#include <immintrin.h>

/* F16C converts every half exactly (a NaN stays a NaN, which is all
 * the transform needs). */
__attribute__((target("avx2,f16c"))) static void
qki_in_f16c(const unsigned char *src, float *t, size_t n)
{
	for (size_t j = 0; j < n; j += 16) {
		__m256 a = _mm256_cvtph_ps(
			_mm_loadu_si128((const __m128i *)(src + 2 * j)));
		__m256 b = _mm256_cvtph_ps(
			_mm_loadu_si128((const __m128i *)(src + 2 * j + 16)));
		qki_v8 lo, hi;

		memcpy(&lo, &a, sizeof(lo));
		memcpy(&hi, &b, sizeof(hi));
		QKI_LANES16(lo, hi, t + j);
	}
}
#endif

/* Stages h = lo, 2 lo, .. < hi (element units of w floats) over
 * t[0..n), three at a time. */
QKI_HOT static void qki_stages(float *t, size_t n, size_t w, size_t lo,
			       size_t hi)
{
	size_t h = lo;

	while (h < hi) {
		size_t left = hi / h; /* 2^(stages left) */

		if (left >= 8) {
			qki_pass(t, n, h * w, 3);
			h <<= 3;
		} else if (left >= 4) {
			qki_pass(t, n, h * w, 2);
			h <<= 2;
		} else {
			qki_pass(t, n, h * w, 1);
			h <<= 1;
		}
	}
}

QKI_HOT static void qki_lanes_all(float *t, size_t n, size_t b)
{
	qki_lanes(t, n, b);
}

QKI_HOT static void qki_scale(float *restrict x, size_t n, float scale)
{
	QKI_FOR_VEC(j, n, x[j] = qki_canon(QK_FMUL(x[j], scale)));
}

/* The last step fused with the store: h[j] = bf16(canon(t[j] * scale)),
 * qki_enc_bf16's rounding (to nearest even) on 8 lanes at a time; the
 * canonical NaN 0x7fc00000 encodes as 0x7fc0. */
QKI_HOT static void qki_out_bf16(uint16_t *restrict h, const float *restrict t,
				 size_t n, float scale)
{
	size_t j = 0;

	for (; j + 8 <= n; j += 8) {
		qki_v8 v;
		qki_u8 u, nan;
		qki_h8 r;

		QKI_LD(v, t + j);
		v = QK_FMUL(v, scale);
		memcpy(&u, &v, sizeof(u));
		nan = (qki_u8)((u & 0x7fffffffu) > 0x7f800000u);
		u = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
		u = (u & ~nan) | (0x7fc0u & nan);
		r = __builtin_convertvector(u, qki_h8);
		memcpy(h + j, &r, sizeof(r));
	}
	QKI_FOR_VEC(k, n - j, h[j + k] = (uint16_t)qki_enc_bf16(
				      qki_canon(QK_FMUL(t[j + k], scale))));
}

QKI_HOT static void qki_out_f16(uint16_t *restrict h, const float *restrict t,
				size_t n, float scale)
{
	QKI_FOR_VEC(j, n, h[j] = (uint16_t)qki_enc_f16(
				  qki_canon(QK_FMUL(t[j], scale))));
}

#if QKI_HAVE_F16C
/* F16C's conversion with immediate rounding 0 is IEEE round to nearest
 * even, independent of MXCSR, and turns the canonical NaN into 0x7e00:
 * the same half as qki_enc_f16. */
__attribute__((target("avx2,f16c"))) static void
qki_out_f16c(uint16_t *h, const float *t, size_t n, float scale)
{
	const __m256 sc = _mm256_set1_ps(scale);
	const __m256 qnan = _mm256_castsi256_ps(_mm256_set1_epi32(QK_NAN_BITS));
	size_t j = 0;

	for (; j + 8 <= n; j += 8) {
		__m256 y = _mm256_mul_ps(_mm256_loadu_ps(t + j), sc);

		y = _mm256_blendv_ps(y, qnan, _mm256_cmp_ps(y, y, _CMP_UNORD_Q));
		_mm_storeu_si128((__m128i *)(h + j),
				 _mm256_cvtps_ph(y, _MM_FROUND_TO_NEAREST_INT));
	}
	qki_out_f16(h + j, t + j, n - j, scale);
}

#endif

/* dst[i..i+n) = t[0..n) times scale, NaN canonical, rounded once to
 * the element type. */
static void qki_out(int dtype, void *dst, size_t i, size_t n, float *t,
		    float scale)
{
	uint16_t *h = (uint16_t *)dst + i;

#if QKI_HAVE_F16C
	if (n % 16 == 0 && qki_have_avx512()) {
		qki_out512(dtype, (unsigned char *)dst + i * qki_dtype_size(dtype),
			   t, n, scale);
		return;
	}
#endif
	switch (dtype) {
	case QK_T_FLOAT:
		qki_scale(t, n, scale);
		memcpy((float *)dst + i, t, n * sizeof(float));
		break;
	case QK_T_FLOAT16:
#if QKI_HAVE_F16C
		if (qki_cpu_f16c()) {
			qki_out_f16c(h, t, n, scale);
			break;
		}
#endif
		qki_out_f16(h, t, n, scale);
		break;
	default:
		qki_out_bf16(h, t, n, scale);
		break;
	}
}

/* The whole transform of t: n floats, blocks of b elements of w floats
 * (n a multiple of b * w). */
/* t[0..n) as floats for the transform; returns the first stage left
 * to do (16 when stages 1 .. 8 were done while loading). */
static size_t qki_in(int dtype, const void *x, size_t i, size_t n,
		     size_t b, float *t)
{
	const unsigned char *src = (const unsigned char *)x;

	if (b < 16 || n % 16) {
		qki_load_f32(dtype, x, i, n, t);
		return 1;
	}
#if QKI_HAVE_F16C
	if (n % 64 == 0 && qki_have_avx512())
		return qki_in512(dtype, src + i * qki_dtype_size(dtype), t, n, b);
#endif
	switch (dtype) {
	case QK_T_FLOAT:
		qki_in_f32(src + 4 * i, t, n);
		break;
	case QK_T_BFLOAT16:
		qki_in_bf16(src + 2 * i, t, n);
		break;
	default:
#if QKI_HAVE_F16C
		if (qki_cpu_f16c()) {
			qki_in_f16c(src + 2 * i, t, n);
			break;
		}
#endif
		qki_load_f32(dtype, x, i, n, t);
		qki_lanes16_all(t, n);
		break;
	}
	return 16;
}

/* Stages lo0 .. b/2 of t: n floats, blocks of b elements of w floats
 * (n a multiple of b * w); stages below lo0 are done. */
static void qki_fwht(float *t, size_t n, size_t b, size_t w, size_t lo0)
{
	size_t c = 1, lo = 1, len, off;

	/* c: elements per L1 chunk (a power of two, at most b) */
	while (c < b && 2 * c * w <= QKI_HL1)
		c <<= 1;
	/* the low stages run region by region: whole blocks when they fit
	 * in a chunk, else one chunk of c elements */
	len = c * w;
	if (c == b && QKI_HL1 / (b * w) > 1)
		len = QKI_HL1 / (b * w) * (b * w);
	for (off = 0; off < n; off += len) {
		size_t m = n - off < len ? n - off : len;

		lo = lo0;
		if (lo == 1 && w == 1 && b >= 2 && m % 8 == 0) {
			qki_lanes_all(t + off, m, b);
			lo = b < 8 ? b : 8;
		}
		qki_stages(t + off, m, w, lo, c);
	}
	qki_stages(t, n, w, lo0 > c ? lo0 : c, b);
}

struct qki_had {
	int dtype;
	void *x;
	size_t n, inner, b, nblk, nchunk;
	size_t rows_per; /* inner == 1: row blocks per unit */
	size_t nrb;      /* inner == 1: row blocks, outer * nblk */
	float scale;
};

/* The bytes of the unit after rows [rb, rb + cnt), to bring toward L2
 * while the stages on the buffer run (they touch no memory outside
 * it), instead of the core waiting for them after its last store. */
static struct qki_pf qki_next_unit(const struct qki_had *a, size_t rb,
				   size_t cnt)
{
	size_t sz = qki_dtype_size(a->dtype), nx;
	struct qki_pf pf = { NULL, NULL };

	if (rb + cnt >= a->nrb)
		return pf;
	nx = a->nrb - rb - cnt < a->rows_per ? a->nrb - rb - cnt : a->rows_per;
	pf.p = (const char *)a->x + (rb + cnt) * a->b * sz;
	pf.end = pf.p + nx * a->b * sz;
	return pf;
}

/* inner == 1: unit u is row blocks [u * rows_per, ...), contiguous. */
static void qki_had_rows(const struct qki_had *a, size_t u, float *t)
{
	size_t rb = u * a->rows_per, cnt = a->nrb - rb, lo;
	struct qki_pf pf;

	if (cnt > a->rows_per)
		cnt = a->rows_per;
#if QKI_HAVE_F16C
	if (a->b >= 16 && (cnt * a->b) % 256 == 0 && qki_have_avx512()) {
		unsigned char *x = (unsigned char *)a->x +
				   rb * a->b * qki_dtype_size(a->dtype);

		pf = qki_next_unit(a, rb, cnt);
		qki_rows512(a->dtype, x, t, cnt * a->b, a->b, a->scale, &pf);
		return;
	}
#endif
	lo = qki_in(a->dtype, a->x, rb * a->b, cnt * a->b, a->b, t);
	pf = qki_next_unit(a, rb, cnt);
	qki_pf_step(&pf, INT_MAX);
	qki_fwht(t, cnt * a->b, a->b, 1, lo);
	qki_out(a->dtype, a->x, rb * a->b, cnt * a->b, t, a->scale);
}

/* inner > 1: unit u is block bi of outer index o, restricted to a
 * chunk of at most QKI_HCOLS inner columns. */
static void qki_had_cols(const struct qki_had *a, size_t u, float *t)
{
	size_t cc = u % a->nchunk, rest = u / a->nchunk;
	size_t bi = rest % a->nblk, o = rest / a->nblk;
	size_t c0 = cc * QKI_HCOLS, cols = a->inner - c0, r;
	size_t base = (o * a->n + bi * a->b) * a->inner + c0;

	if (cols > QKI_HCOLS)
		cols = QKI_HCOLS;
	for (r = 0; r < a->b; r++)
		qki_load_f32(a->dtype, a->x, base + r * a->inner, cols,
			     t + r * cols);
	qki_fwht(t, a->b * cols, a->b, cols, 1);
	for (r = 0; r < a->b; r++)
		qki_out(a->dtype, a->x, base + r * a->inner, cols,
			t + r * cols, a->scale);
}

static int qki_had_range(void *arg, unsigned part, size_t lo, size_t hi)
{
	const struct qki_had *a = arg;
	size_t nf = a->inner == 1 ? a->rows_per * a->b : QKI_HCOLS * a->b;
	float *t = aligned_alloc(64, (QKI_PADDED(nf) * sizeof(float) + 63) /
				     64 * 64);

	(void)part;
	if (!t)
		return QK_ENOMEM;
	for (; lo < hi; lo++) {
		if (a->inner == 1)
			qki_had_rows(a, lo, t);
		else
			qki_had_cols(a, lo, t);
	}
	free(t);
	return 0;
}

qopt_status qk_hadamard(qk_ctx *ctx, int dtype, void *x,
		size_t outer, size_t n, size_t inner, size_t block)
{
	struct qki_had a = { .dtype = dtype, .x = x, .n = n, .inner = inner };
	size_t total, units, sz = qki_dtype_size(dtype);
	const struct qki_cuda_ops *ops;
	int rc;

	if (!qki_is_real(dtype))
		return QK_EDTYPE;
	if (qki_mul3(outer, n, inner, &total) || total > SIZE_MAX / 8)
		return QK_EINVAL;
	if (total && !x)
		return QK_EINVAL;
	if (!block)
		block = qk_hadamard_default_block(n);
	if (!n)
		return 0;
	if (block & (block - 1))
		return QK_EINVAL;
	if (n % block)
		return QK_EBLOCK;
	rc = qki_route(ctx, total * sz, &ops);
	if (rc)
		return rc;
	if (ops) {
		rc = ops->hadamard(dtype, x, outer, n, inner, block);
		rc = qki_cuda_result(ctx, ops, rc, total * sz);
		if (rc != QKI_CPU)
			return rc;
	}
	a.b = block;
	a.nblk = n / block;
	a.nchunk = (inner + QKI_HCOLS - 1) / QKI_HCOLS;
	a.nrb = outer * a.nblk;
	a.rows_per = block >= QKI_HL1 ? 1 : QKI_HL1 / block;
	a.scale = qki_hadamard_scale(block);
	units = inner == 1 ? (a.nrb + a.rows_per - 1) / a.rows_per :
			     a.nrb * a.nchunk;
	if (total)
		rc = qki_parallel(ctx, units, total * sz, qki_had_range, &a,
				  NULL);
	if (rc)
		return rc;
	qki_account(ctx, 0, total * sz);
	return 0;
}

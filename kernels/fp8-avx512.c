/*
 * kernels/fp8-avx512.c - FP8 QuantizeLinear of a run of elements on
 * AVX-512: load (FLOAT16 through vcvtph2ps), divide by the scale,
 * encode and narrow to bytes in registers, 16 elements a step, where
 * kernels/fp8.c converts a chunk into a float buffer first and then
 * encodes it (qki_quant_e4m3 / qki_quant_e5m2 of numerics.h).
 *
 * The same IEEE operations in the same order, so the same bytes: the
 * division x / s, the sign a NaN quotient gets (x's when x is NaN,
 * else +), the encoder's integer rounding and its one float add for
 * the subnormal range. vcvtph2ps quiets a signaling NaN, which cannot
 * show: a NaN's code depends on its sign only, which it keeps.
 */
#include "internal.h"

#if QKI_HAVE_F16C
#include <immintrin.h>

#define QKI_512 __attribute__((target("avx512f,avx512bw,avx512vl")))
#define QKI_SEL(c, a, b) _mm512_mask_blend_epi32((c), (b), (a))
#define QKI_C(v) _mm512_set1_epi32((int)(v))

/* An FP8 format as numerics.h's encoder spells it. */
struct qki_f8 {
	int shift;	   /* mantissa bits dropped: 20 (E4M3), 21 (E5M2) */
	uint32_t bias;	   /* rebias of the exponent field, in code units */
	float sub_add;	   /* 2^k whose ulp is the smallest subnormal */
	uint32_t sub_bits; /* its bits */
	uint32_t norm_min; /* smallest |x| encoded on the bits */
	uint32_t top;	   /* largest finite code */
	uint32_t over;	   /* code past top, not saturating */
};

static const struct qki_f8 qki_e4m3 = { 20, 120u << 3, 16384.0f,
					0x46800000u, 0x3c800000u, 0x7eu,
					0x7fu };
static const struct qki_f8 qki_e5m2 = { 21, 112u << 2, 128.0f, 0x43000000u,
					0x38800000u, 0x7bu, 0x7cu };

/* qki_quant_e4m3 / qki_quant_e5m2 (x, s, sat) of 16 lanes. */
QKI_512 static inline __attribute__((always_inline)) __m512i
qki_q16(const struct qki_f8 *f, int sat,
				      __m512 x, __m512 s)
{
	__m512i xb = _mm512_castps_si512(x);
	__m512i qb = _mm512_castps_si512(_mm512_div_ps(x, s));
	__m512i a = _mm512_and_si512(qb, QKI_C(0x7fffffff));
	__mmask16 qnan = _mm512_cmpgt_epu32_mask(a, QKI_C(0x7f800000));
	__mmask16 xnan = _mm512_cmpgt_epu32_mask(
		_mm512_and_si512(xb, QKI_C(0x7fffffff)), QKI_C(0x7f800000));
	/* qki_quot_nan: a NaN quotient takes x's sign if x is NaN, else + */
	__m512i sign = _mm512_maskz_and_epi32(xnan, xb, QKI_C(0x80000000));
	__m512i b = _mm512_mask_blend_epi32(
		qnan, qb, _mm512_or_si512(
			_mm512_and_si512(qb, QKI_C(0x7fffffff)), sign));
	__m512i odd = _mm512_and_si512(_mm512_srli_epi32(a, f->shift),
				       QKI_C(1));
	__m512i norm = _mm512_sub_epi32(
		_mm512_srli_epi32(
			_mm512_add_epi32(_mm512_add_epi32(a,
				QKI_C((1u << f->shift) / 2 - 1)), odd),
			f->shift),
		QKI_C(f->bias));
	__m512i sub = _mm512_sub_epi32(
		_mm512_castps_si512(_mm512_add_ps(
			_mm512_castsi512_ps(a), _mm512_set1_ps(f->sub_add))),
		QKI_C(f->sub_bits));
	__m512i m = QKI_SEL(_mm512_cmplt_epu32_mask(a, QKI_C(f->norm_min)),
			    sub, norm);

	m = QKI_SEL(_mm512_cmpgt_epu32_mask(m, QKI_C(f->top)),
		    QKI_C(sat ? f->top : f->over), m);
	m = QKI_SEL(qnan, QKI_C(0x7f), m);
	return _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi32(b, 24),
						QKI_C(0x80)), m);
}

/* Up to 16 elements of a real dtype at p (k: the lanes to load). */
QKI_512 static inline __attribute__((always_inline)) __m512
qki_ld(int dt, const void *p, __mmask16 k)
{
	if (dt == QK_T_FLOAT)
		return _mm512_maskz_loadu_ps(k, p);
	if (dt == QK_T_FLOAT16)
		return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(k, p));
	return _mm512_castsi512_ps(_mm512_slli_epi32(
		_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(k, p)), 16));
}

/* Inlined into one loop per format and mode, constants folded. The
 * source is fetched QKI_PF_AHEAD elements ahead, as kernels/fp8.c does
 * (without it the loads waited on memory half of the time). */
QKI_512 static inline __attribute__((always_inline)) void
qki_q_run(const struct qki_f8 *f, int sat, int dt, const unsigned char *x,
	  uint8_t *q, float s, const qki_f32u *sv, size_t n)
{
	size_t es = dt == QK_T_FLOAT ? 4 : 2, j;
	__m512 sc = _mm512_set1_ps(s);

	for (j = 0; j < n; j += 16) {
		__mmask16 k = n - j >= 16 ? 0xffff :
				(__mmask16)((1u << (n - j)) - 1);
		__m512 v = qki_ld(dt, x + j * es, k);

		if (j + QKI_PF_AHEAD + 16 <= n)
			__builtin_prefetch(x + (j + QKI_PF_AHEAD) * es);
		if (dt == QK_T_FLOAT && j + QKI_PF_AHEAD + 16 <= n)
			__builtin_prefetch(x + (j + QKI_PF_AHEAD + 8) * es);

		if (sv)
			sc = _mm512_maskz_loadu_ps(k, (const float *)(sv + j));
		_mm_mask_storeu_epi8(q + j, k,
				     _mm512_cvtepi32_epi8(qki_q16(f, sat, v,
								  sc)));
	}
}

/* One loop per source type (the load), format and saturation. */
#define QKI_Q_RUNS(dt)                                                    \
	do {                                                              \
		if (fmt == QK_T_E4M3FN && sat)                            \
			qki_q_run(&qki_e4m3, 1, dt, x, q, s, sv, n);      \
		else if (fmt == QK_T_E4M3FN)                              \
			qki_q_run(&qki_e4m3, 0, dt, x, q, s, sv, n);      \
		else if (sat)                                             \
			qki_q_run(&qki_e5m2, 1, dt, x, q, s, sv, n);      \
		else                                                      \
			qki_q_run(&qki_e5m2, 0, dt, x, q, s, sv, n);      \
	} while (0)

QKI_512 void qki_fp8_q_avx512(int fmt, int sat, int dt, const void *src,
			      size_t i, uint8_t *q, float s,
			      const qki_f32u *sv, size_t n)
{
	const unsigned char *x = (const unsigned char *)src +
				 i * qki_dtype_size(dt);

	if (dt == QK_T_FLOAT16)
		QKI_Q_RUNS(QK_T_FLOAT16);
	else if (dt == QK_T_BFLOAT16)
		QKI_Q_RUNS(QK_T_BFLOAT16);
	else
		QKI_Q_RUNS(QK_T_FLOAT);
}
#endif

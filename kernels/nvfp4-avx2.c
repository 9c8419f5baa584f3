/*
 * kernels/nvfp4-avx2.c - NVFP4 quantization and dequantization on
 * AVX2 + F16C, for CPUs without AVX-512 (most of the small machines
 * users and CI have): kernels/nvfp4-avx512.c's sequence on 8 columns
 * of a tile at a time (inner % 8 == 0), and on blocks of 16 (inner 1).
 *
 * The portable loops of kernels/nvfp4.c stage each chunk through float
 * and code buffers and decode every nibble with integer selects; the
 * compiler's AVX2 clone of them ran at a third of this. Every float
 * operation is the IEEE one numerics.h names, in the same order, so the
 * bits are the portable code's (tests/kernels/simd compares them, with
 * QK_NO_SIMD=avx512 selecting this path where AVX-512 is present).
 * AVX2 has no unsigned 32-bit compares: every value compared here is
 * the bits of a non-negative float or a small code, below 2^31, where
 * the signed compare says the same.
 */
#include "internal.h"

#if QKI_HAVE_F16C
#include <immintrin.h>
#include <string.h>

#define QKI_AVX2 __attribute__((target("avx2,f16c")))

/* c ? a : b per lane, c all ones or all zeros. */
#define QKI_SEL8(c, a, b) _mm256_blendv_epi8((b), (a), (c))
#define QKI_I(x) _mm256_set1_epi32((int)(x))

/* qki_enc_e4m3(x, 1) of 8 lanes. */
QKI_AVX2 static inline __m256i qki_e4m3_sat8(__m256 x)
{
	__m256i b = _mm256_castps_si256(x);
	__m256i a = _mm256_and_si256(b, QKI_I(0x7fffffff));
	__m256i sign = _mm256_and_si256(_mm256_srli_epi32(b, 24), QKI_I(0x80));
	__m256i odd = _mm256_and_si256(_mm256_srli_epi32(a, 20), QKI_I(1));
	__m256i norm = _mm256_sub_epi32(
		_mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(a,
			QKI_I(0x7ffff)), odd), 20), QKI_I(120 << 3));
	__m256i sub = _mm256_sub_epi32(
		_mm256_castps_si256(_mm256_add_ps(_mm256_castsi256_ps(a),
						  _mm256_set1_ps(16384.0f))),
		QKI_I(0x46800000));
	__m256i m = QKI_SEL8(_mm256_cmpgt_epi32(QKI_I(0x3c800000), a), sub,
			     norm);

	m = QKI_SEL8(_mm256_cmpgt_epi32(m, QKI_I(0x7e)), QKI_I(0x7e), m);
	m = QKI_SEL8(_mm256_cmpgt_epi32(a, QKI_I(0x7f800000)), QKI_I(0x7f), m);
	return _mm256_or_si256(sign, m);
}

/* qki_dec_e4m3 of 8 codes in 0 .. 0x7f. */
QKI_AVX2 static inline __m256 qki_e4m3_dec8(__m256i em)
{
	__m256i norm = _mm256_add_epi32(_mm256_slli_epi32(em, 20),
					QKI_I(120 << 23));
	__m256i sub = _mm256_castps_si256(_mm256_sub_ps(
		_mm256_castsi256_ps(_mm256_or_si256(QKI_I(0x46800000), em)),
		_mm256_set1_ps(16384.0f)));
	__m256i m = QKI_SEL8(_mm256_cmpgt_epi32(QKI_I(8), em), sub, norm);

	m = QKI_SEL8(_mm256_cmpeq_epi32(em, QKI_I(0x7f)), QKI_I(0x7fc00000),
		     m);
	return _mm256_castsi256_ps(m);
}

/* qki_enc_e2m1 of 8 lanes. */
QKI_AVX2 static inline __m256i qki_e2m1_8(__m256 x)
{
	__m256i b = _mm256_castps_si256(x);
	__m256i a = _mm256_and_si256(b, QKI_I(0x7fffffff));
	__m256i sign = _mm256_and_si256(
		_mm256_cmpgt_epi32(QKI_I(0x7f800001), a),
		_mm256_and_si256(_mm256_srli_epi32(b, 28), QKI_I(8)));
	__m256i norm, sub;

	a = _mm256_min_epi32(a, QKI_I(0x40c00000));
	norm = _mm256_sub_epi32(
		_mm256_srli_epi32(_mm256_add_epi32(
			_mm256_add_epi32(a, QKI_I(0x1fffff)),
			_mm256_and_si256(_mm256_srli_epi32(a, 22), QKI_I(1))),
			22), QKI_I(126 << 1));
	sub = _mm256_sub_epi32(
		_mm256_castps_si256(_mm256_add_ps(_mm256_castsi256_ps(a),
						  _mm256_set1_ps(4194304.0f))),
		QKI_I(0x4a800000));
	return _mm256_or_si256(
		QKI_SEL8(_mm256_cmpgt_epi32(QKI_I(0x3f800000), a), sub, norm),
		sign);
}

/* 8 elements of a real dtype at p as floats. */
QKI_AVX2 static inline __m256 qki_ld8(int dtype, const unsigned char *p)
{
	__m128i h;

	if (dtype == QK_T_FLOAT)
		return _mm256_loadu_ps((const float *)p);
	h = _mm_loadu_si128((const __m128i *)p);
	if (dtype == QK_T_FLOAT16)
		return _mm256_cvtph_ps(h);
	return _mm256_castsi256_ps(
		_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

/* The low byte of each of the 8 lanes, as 8 bytes at p. */
QKI_AVX2 static inline void qki_st_lo8(uint8_t *p, __m256i v)
{
	const __m256i pick = _mm256_setr_epi8(
		0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
		0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
	__m256i s = _mm256_shuffle_epi8(v, pick);

	_mm_storel_epi64((__m128i *)p, _mm_unpacklo_epi32(
		_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1)));
}

/* E2M1 codes of v / div packed to 4 bytes at codes (lanes 2j, 2j + 1:
 * low nibble, high nibble of byte j). */
QKI_AVX2 static inline void qki_nv_codes8(__m256 v, __m256 div,
					  uint8_t *codes)
{
	const __m256i pick = _mm256_setr_epi8(
		0, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
		0, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
	__m256i c = qki_e2m1_8(_mm256_div_ps(v, div));
	uint16_t lo, hi;

	c = _mm256_shuffle_epi8(_mm256_or_si256(c, _mm256_srli_epi64(c, 28)),
				pick);
	lo = (uint16_t)_mm_extract_epi16(_mm256_castsi256_si128(c), 0);
	hi = (uint16_t)_mm_extract_epi16(_mm256_extracti128_si256(c, 1), 0);
	memcpy(codes, &lo, 2);
	memcpy(codes + 2, &hi, 2);
}

/* The E4M3 scale codes of 8 block maxima m (|x| bits, NaN as 0):
 * qki_nvfp4_scale_code; *div gets qki_nvfp4_block_div of each. */
QKI_AVX2 static inline __m256i qki_nv_scales8(__m256i m, __m256 gv,
					      __m256 *div)
{
	__m256i s = qki_e4m3_sat8(_mm256_div_ps(
		_mm256_div_ps(_mm256_castsi256_ps(m), _mm256_set1_ps(6.0f)),
		gv));

	s = QKI_SEL8(_mm256_cmpeq_epi32(s, _mm256_setzero_si256()), QKI_I(1),
		     s);
	s = QKI_SEL8(_mm256_cmpeq_epi32(m, _mm256_setzero_si256()),
		     QKI_I(0x38), s);
	*div = _mm256_mul_ps(qki_e4m3_dec8(s), gv);
	return s;
}

/* Columns [col, col + 8) of a tile: x points at row 0, rows are stride
 * bytes apart; scales and codes at the tile's row 0, column col. The
 * rows are loaded twice (block amax, then codes): the second time from
 * L1, where sixteen rows would not fit the sixteen registers. */
QKI_AVX2 static void qki_nv_cols8(int dtype, const unsigned char *x,
				  size_t stride, size_t inner, float g,
				  uint8_t *scales, uint8_t *codes)
{
	const __m256 gv = _mm256_set1_ps(g);
	__m256i m = _mm256_setzero_si256(), s;
	__m256 div;
	int r;

	for (r = 0; r < QK_NVFP4_BLOCK; r++) {
		__m256i a = _mm256_and_si256(
			_mm256_castps_si256(qki_ld8(dtype, x + r * stride)),
			QKI_I(0x7fffffff));

		/* NaN counts as 0 (qki_abs_bits) */
		a = _mm256_and_si256(a, _mm256_cmpgt_epi32(QKI_I(0x7f800001),
							   a));
		m = _mm256_max_epi32(m, a);
	}
	s = qki_nv_scales8(m, gv, &div);
	qki_st_lo8(scales, s);
	for (r = 0; r < QK_NVFP4_BLOCK; r++)
		qki_nv_codes8(qki_ld8(dtype, x + r * stride), div,
			      codes + r * inner / 2);
}

QKI_AVX2 void qki_nv_tiles_avx2(int dtype, const void *w, size_t inner,
				float g, size_t lo, size_t hi, uint8_t *codes,
				uint8_t *scales)
{
	size_t es = qki_dtype_size(dtype), t, col;

	for (t = lo; t < hi; t++) {
		size_t base = t * QK_NVFP4_BLOCK * inner;
		const unsigned char *x = (const unsigned char *)w + base * es;

		for (col = 0; col < inner; col += 8)
			qki_nv_cols8(dtype, x + col * es, inner * es, inner, g,
				     scales + t * inner + col,
				     codes + base / 2 + col / 2);
	}
}

/* inner == 1: 16 blocks of 16 elements at w with their maxima m (as
 * qki_amax16 gives them), each block two vectors of one divisor. */
QKI_AVX2 void qki_nv_blocks_avx2(int dtype, const void *w, const float *m,
				 float g, uint8_t *codes, uint8_t *scales)
{
	const unsigned char *x = w;
	const __m256 gv = _mm256_set1_ps(g);
	size_t es = qki_dtype_size(dtype);
	float d[QK_NVFP4_BLOCK];
	int h, b;

	for (h = 0; h < 2; h++) {
		__m256 div;
		__m256i s = qki_nv_scales8(_mm256_castps_si256(
			_mm256_loadu_ps(m + 8 * h)), gv, &div);

		qki_st_lo8(scales + 8 * h, s);
		_mm256_storeu_ps(d + 8 * h, div);
	}
	for (b = 0; b < QK_NVFP4_BLOCK; b++) {
		const unsigned char *p = x + b * QK_NVFP4_BLOCK * es;
		__m256 div = _mm256_set1_ps(d[b]);

		qki_nv_codes8(qki_ld8(dtype, p), div, codes + b * 8);
		qki_nv_codes8(qki_ld8(dtype, p + 8 * es), div, codes + b * 8 + 4);
	}
}

/* ---- dequantization ---- */

/* 8 floats to dst as dtype: FLOAT16 with vcvtps2ph (rounding to
 * nearest even; the canonical NaN gives 0x7e00, qki_enc_f16's bits),
 * BFLOAT16 with qki_enc_bf16's rounding (NaN is canonical by then and
 * 0x7fc00000 rounds to 0x7fc0, the code qki_enc_bf16 gives it). */
QKI_AVX2 static inline void qki_st8(int dtype, unsigned char *dst, __m256 y)
{
	__m256i u = _mm256_castps_si256(y);

	if (dtype == QK_T_FLOAT) {
		_mm256_storeu_ps((float *)dst, y);
		return;
	}
	if (dtype == QK_T_FLOAT16) {
		_mm_storeu_si128((__m128i *)dst, _mm256_cvtps_ph(
			y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
		return;
	}
	u = _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(
		QKI_I(0x7fff), _mm256_and_si256(_mm256_srli_epi32(u, 16),
						QKI_I(1)))), 16);
	/* every lane is below 2^16: the signed saturation keeps it */
	_mm_storeu_si128((__m128i *)dst, _mm_packus_epi32(
		_mm256_castsi256_si128(u), _mm256_extracti128_si256(u, 1)));
}

/* The block divisors of 8 scale codes at scales (qki_nvfp4_block_div,
 * sign and NaN codes included). */
QKI_AVX2 static inline __m256 qki_nv_divs8(const uint8_t *scales, __m256 gv)
{
	__m256i s = _mm256_cvtepu8_epi32(
		_mm_loadl_epi64((const __m128i *)scales));
	__m256i sign = _mm256_slli_epi32(_mm256_and_si256(s, QKI_I(0x80)), 24);

	return _mm256_mul_ps(_mm256_castsi256_ps(_mm256_or_si256(
		_mm256_castps_si256(qki_e4m3_dec8(_mm256_and_si256(
			s, QKI_I(0x7f)))), sign)), gv);
}

/* The 8 values of the 4 code bytes at codes times div (lane 2j: the
 * low nibble of byte j, lane 2j + 1: the high one): the magnitude
 * looked up in the E2M1 values by its low 3 bits (vpermps), the sign
 * bit 3 moved to bit 31 (qki_dec_e2m1's), one multiply, the NaN made
 * canonical: kernels/nvfp4.c's qki_nv_dq_run, so the same bits. */
QKI_AVX2 static inline __m256 qki_nv_dq8(const uint8_t *codes, __m256 div)
{
	const __m256 e2m1 = _mm256_setr_ps(0.0f, 0.5f, 1.0f, 1.5f, 2.0f,
					   3.0f, 4.0f, 6.0f);
	uint32_t w;
	__m256i c;
	__m256 v;

	memcpy(&w, codes, 4);
	c = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128((int)w));
	c = _mm256_or_si256(c, _mm256_slli_epi64(c, 28));
	v = _mm256_castsi256_ps(_mm256_or_si256(
		_mm256_castps_si256(_mm256_permutevar8x32_ps(e2m1, c)),
		_mm256_slli_epi32(_mm256_and_si256(c, QKI_I(8)), 28)));
	v = _mm256_mul_ps(v, div);
	return _mm256_blendv_ps(v, _mm256_castsi256_ps(QKI_I(QK_NAN_BITS)),
				_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

/* Columns [col, col + 8) of a tile back to dtype: the 8 block scales
 * decoded once, then 8 values a row. */
QKI_AVX2 static void qki_nv_dq_cols8(int dtype, unsigned char *y,
				     size_t stride, const uint8_t *codes,
				     size_t cstride, const uint8_t *scales,
				     __m256 gv)
{
	__m256 div = qki_nv_divs8(scales, gv);
	int r;

	for (r = 0; r < QK_NVFP4_BLOCK; r++)
		qki_st8(dtype, y + r * stride, qki_nv_dq8(codes + r * cstride,
							  div));
}

QKI_AVX2 void qki_nv_dq_tiles_avx2(int dtype, void *out, size_t inner,
				   float g, size_t lo, size_t hi,
				   const uint8_t *codes, const uint8_t *scales)
{
	size_t es = qki_dtype_size(dtype), t, col;
	const __m256 gv = _mm256_set1_ps(g);

	for (t = lo; t < hi; t++) {
		size_t base = t * QK_NVFP4_BLOCK * inner;
		unsigned char *y = (unsigned char *)out + base * es;

		for (col = 0; col < inner; col += 8)
			qki_nv_dq_cols8(dtype, y + col * es, inner * es,
					codes + base / 2 + col / 2, inner / 2,
					scales + t * inner + col, gv);
	}
}
/* inner == 1: n blocks (8 bytes of codes and a scale each) from block
 * blk to out as dtype. */
QKI_AVX2 void qki_nv_dq_blocks_avx2(int dtype, void *out, float g, size_t blk,
				    size_t n, const uint8_t *codes,
				    const uint8_t *scales)
{
	size_t es = qki_dtype_size(dtype), b = 0, i;
	const __m256 gv = _mm256_set1_ps(g);
	unsigned char *y = (unsigned char *)out + blk * QK_NVFP4_BLOCK * es;
	float d[8];

	codes += blk * 8;
	scales += blk;
	for (; b + 8 <= n; b += 8) {
		_mm256_storeu_ps(d, qki_nv_divs8(scales + b, gv));
		for (i = 0; i < 8; i++) {
			const uint8_t *c = codes + (b + i) * 8;
			unsigned char *p = y + (b + i) * QK_NVFP4_BLOCK * es;
			__m256 div = _mm256_set1_ps(d[i]);

			qki_st8(dtype, p, qki_nv_dq8(c, div));
			qki_st8(dtype, p + 8 * es, qki_nv_dq8(c + 4, div));
		}
	}
}
#endif

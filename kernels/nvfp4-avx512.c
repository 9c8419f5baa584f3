/*
 * kernels/nvfp4-avx512.c - NVFP4 quantization and dequantization tiles
 * (inner > 1) on AVX-512: the sequence of kernels/nvfp4.c's
 * qki_nv_q_chunk (and qki_nv_dq), lane for lane, on 16 columns at a
 * time held in registers.
 *
 * kernels/nvfp4.c stages a chunk through two 16 KiB buffers (the
 * floats, then 32-bit codes) and packs the codes in a third loop; here
 * the 16 rows of 16 columns are loaded and converted straight into
 * sixteen registers, their block amax, E4M3 scale and E2M1 codes
 * computed there and the codes packed and stored as 8 bytes a row.
 * Every float operation is the IEEE one numerics.h names (the division
 * x / S, the adds of the subnormal tricks), in the same order, so the
 * bits are the same. FLOAT16 converts with vcvtph2ps: it quiets a
 * signaling NaN, which changes nothing here (a NaN's amax bits are 0
 * and its code is +6 whatever its payload and sign).
 */
#include "internal.h"

#if QKI_HAVE_F16C
#include <immintrin.h>

#define QKI_512 __attribute__((target("avx512f,avx512bw,avx512vl")))

/* c ? a : b per lane (the qki_sel of numerics.h). */
#define QKI_SEL(c, a, b) _mm512_mask_blend_epi32((c), (b), (a))

/* qki_enc_e4m3(x, 1) of 16 lanes. */
QKI_512 static inline __m512i qki_e4m3_sat16(__m512 x)
{
	const __m512i abs = _mm512_set1_epi32(0x7fffffff);
	__m512i b = _mm512_castps_si512(x), a = _mm512_and_si512(b, abs);
	__m512i sign = _mm512_and_si512(_mm512_srli_epi32(b, 24),
					_mm512_set1_epi32(0x80));
	__m512i odd = _mm512_and_si512(_mm512_srli_epi32(a, 20),
				       _mm512_set1_epi32(1));
	__m512i norm = _mm512_sub_epi32(
		_mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(a,
			_mm512_set1_epi32(0x7ffff)), odd), 20),
		_mm512_set1_epi32(120 << 3));
	__m512i sub = _mm512_sub_epi32(
		_mm512_castps_si512(_mm512_add_ps(_mm512_castsi512_ps(a),
						  _mm512_set1_ps(16384.0f))),
		_mm512_set1_epi32(0x46800000));
	__m512i m = QKI_SEL(_mm512_cmplt_epu32_mask(a,
				_mm512_set1_epi32(0x3c800000)), sub, norm);

	m = QKI_SEL(_mm512_cmpgt_epu32_mask(m, _mm512_set1_epi32(0x7e)),
		    _mm512_set1_epi32(0x7e), m);
	m = QKI_SEL(_mm512_cmpgt_epu32_mask(a, _mm512_set1_epi32(0x7f800000)),
		    _mm512_set1_epi32(0x7f), m);
	return _mm512_or_si512(sign, m);
}

/* qki_dec_e4m3 of 16 codes in 0 .. 0x7f (block scales: no sign). */
QKI_512 static inline __m512 qki_e4m3_dec16(__m512i em)
{
	__m512i norm = _mm512_add_epi32(_mm512_slli_epi32(em, 20),
					_mm512_set1_epi32(120 << 23));
	__m512i sub = _mm512_castps_si512(_mm512_sub_ps(
		_mm512_castsi512_ps(_mm512_or_si512(
			_mm512_set1_epi32(0x46800000), em)),
		_mm512_set1_ps(16384.0f)));
	__m512i m = QKI_SEL(_mm512_cmplt_epu32_mask(em, _mm512_set1_epi32(8)),
			    sub, norm);

	m = QKI_SEL(_mm512_cmpeq_epi32_mask(em, _mm512_set1_epi32(0x7f)),
		    _mm512_set1_epi32(0x7fc00000), m);
	return _mm512_castsi512_ps(m);
}

/* qki_enc_e2m1 of 16 lanes. */
QKI_512 static inline __m512i qki_e2m1_16(__m512 x)
{
	__m512i b = _mm512_castps_si512(x);
	__m512i a = _mm512_and_si512(b, _mm512_set1_epi32(0x7fffffff));
	__m512i sign = _mm512_maskz_and_epi32(
		_mm512_cmple_epu32_mask(a, _mm512_set1_epi32(0x7f800000)),
		_mm512_srli_epi32(b, 28), _mm512_set1_epi32(8));
	__m512i norm, sub;

	a = _mm512_min_epu32(a, _mm512_set1_epi32(0x40c00000));
	norm = _mm512_sub_epi32(
		_mm512_srli_epi32(_mm512_add_epi32(
			_mm512_add_epi32(a, _mm512_set1_epi32(0x1fffff)),
			_mm512_and_si512(_mm512_srli_epi32(a, 22),
					 _mm512_set1_epi32(1))), 22),
		_mm512_set1_epi32(126 << 1));
	sub = _mm512_sub_epi32(
		_mm512_castps_si512(_mm512_add_ps(_mm512_castsi512_ps(a),
						  _mm512_set1_ps(4194304.0f))),
		_mm512_set1_epi32(0x4a800000));
	return _mm512_or_si512(
		QKI_SEL(_mm512_cmplt_epu32_mask(a, _mm512_set1_epi32(0x3f800000)),
			sub, norm), sign);
}

/* 16 elements of a real dtype at p as floats. */
QKI_512 static inline __m512 qki_ld16(int dtype, const unsigned char *p)
{
	__m256i h;

	if (dtype == QK_T_FLOAT)
		return _mm512_loadu_ps(p);
	h = _mm256_loadu_si256((const __m256i *)p);
	if (dtype == QK_T_FLOAT16)
		return _mm512_cvtph_ps(h);
	return _mm512_castsi512_ps(
		_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

/* The E4M3 scale codes of 16 block maxima m (|x| bits, NaN as 0):
 * qki_nvfp4_scale_code; *div gets qki_nvfp4_block_div of each. */
QKI_512 static inline __m512i qki_nv_scales16(__m512i m, __m512 gv,
					      __m512 *div)
{
	__m512i s = qki_e4m3_sat16(_mm512_div_ps(
		_mm512_div_ps(_mm512_castsi512_ps(m), _mm512_set1_ps(6.0f)),
		gv));

	s = QKI_SEL(_mm512_cmpeq_epi32_mask(s, _mm512_setzero_si512()),
		    _mm512_set1_epi32(1), s);
	s = QKI_SEL(_mm512_cmpneq_epi32_mask(m, _mm512_setzero_si512()), s,
		    _mm512_set1_epi32(0x38));
	*div = _mm512_mul_ps(qki_e4m3_dec16(s), gv);
	return s;
}

/* E2M1 codes of v / div packed to 8 bytes at codes (lanes 2j, 2j + 1:
 * low nibble, high nibble of byte j). */
QKI_512 static inline void qki_nv_codes16(__m512 v, __m512 div,
					  uint8_t *codes)
{
	__m512i c = qki_e2m1_16(_mm512_div_ps(v, div));

	c = _mm512_or_si512(c, _mm512_srli_epi64(c, 28));
	_mm_storel_epi64((__m128i *)codes, _mm512_cvtepi64_epi8(c));
}

/* Columns [col, col + 16) of a tile: x points at row 0, rows are
 * stride bytes apart; scales and codes at the tile's row 0, column
 * col. */
QKI_512 static void qki_nv_cols16(int dtype, const unsigned char *x,
				  size_t stride, size_t inner, float g,
				  uint8_t *scales, uint8_t *codes)
{
	const __m512i abs = _mm512_set1_epi32(0x7fffffff);
	const __m512i inf = _mm512_set1_epi32(0x7f800000);
	const __m512 gv = _mm512_set1_ps(g);
	__m512 v[QK_NVFP4_BLOCK], div;
	__m512i m = _mm512_setzero_si512(), s;
	int r;

	for (r = 0; r < QK_NVFP4_BLOCK; r++) {
		__m512i a;

		v[r] = qki_ld16(dtype, x + r * stride);
		a = _mm512_and_si512(_mm512_castps_si512(v[r]), abs);
		a = _mm512_maskz_mov_epi32(_mm512_cmple_epu32_mask(a, inf), a);
		m = _mm512_max_epu32(m, a);
	}
	s = qki_nv_scales16(m, gv, &div);
	_mm_storeu_si128((__m128i *)scales, _mm512_cvtepi32_epi8(s));
	for (r = 0; r < QK_NVFP4_BLOCK; r++)
		qki_nv_codes16(v[r], div, codes + r * inner / 2);
}

QKI_512 void qki_nv_blocks_avx512(int dtype, const void *w, const float *m,
				  float g, uint8_t *codes, uint8_t *scales)
{
	const unsigned char *x = w;
	size_t es = qki_dtype_size(dtype);
	float d[QK_NVFP4_BLOCK];
	__m512 div;
	__m512i s = qki_nv_scales16(_mm512_castps_si512(_mm512_loadu_ps(m)),
				    _mm512_set1_ps(g), &div);
	int b;

	_mm_storeu_si128((__m128i *)scales, _mm512_cvtepi32_epi8(s));
	_mm512_storeu_ps(d, div);
	for (b = 0; b < QK_NVFP4_BLOCK; b++)
		qki_nv_codes16(qki_ld16(dtype, x + b * QK_NVFP4_BLOCK * es),
			       _mm512_set1_ps(d[b]), codes + b * 8);
}

void qki_nv_tiles_avx512(int dtype, const void *w, size_t inner, float g,
			 size_t lo, size_t hi, uint8_t *codes, uint8_t *scales)
{
	size_t es = qki_dtype_size(dtype), t, col;

	for (t = lo; t < hi; t++) {
		size_t base = t * QK_NVFP4_BLOCK * inner;
		const unsigned char *x = (const unsigned char *)w + base * es;

		for (col = 0; col < inner; col += 16)
			qki_nv_cols16(dtype, x + col * es, inner * es, inner,
				      g, scales + t * inner + col,
				      codes + base / 2 + col / 2);
	}
}
/* ---- dequantization ---- */

/* 16 floats to dst as dtype: FLOAT16 with vcvtps2ph (rounding to
 * nearest even, the canonical NaN to 0x7e00: qki_enc_f16's bits),
 * BFLOAT16 with qki_enc_bf16's rounding (NaN is canonical by then and
 * 0x7fc00000 rounds to 0x7fc0, the code qki_enc_bf16 gives it). */
QKI_512 static inline void qki_st16(int dtype, unsigned char *dst, __m512 y)
{
	__m512i u = _mm512_castps_si512(y);

	if (dtype == QK_T_FLOAT) {
		_mm512_storeu_ps(dst, y);
		return;
	}
	if (dtype == QK_T_FLOAT16) {
		_mm256_storeu_si256((__m256i *)dst, _mm512_cvtps_ph(
			y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
		return;
	}
	u = _mm512_add_epi32(u, _mm512_add_epi32(_mm512_set1_epi32(0x7fff),
		_mm512_and_si512(_mm512_srli_epi32(u, 16),
				 _mm512_set1_epi32(1))));
	_mm256_storeu_si256((__m256i *)dst,
			    _mm512_cvtepi32_epi16(_mm512_srli_epi32(u, 16)));
}

/* Columns [col, col + 16) of a tile back to dtype: the 16 block scales
 * decoded once (qki_nvfp4_block_div, sign and NaN codes included),
 * then per row 8 code bytes spread to 16 lanes (lane 2j: the low
 * nibble of byte j, lane 2j + 1: the high one; vpermps reads only the
 * low 4 bits of each index), looked up in the E2M1 values
 * (qki_dec_e2m1's), multiplied and the NaN made canonical: the one
 * multiply of kernels/nvfp4.c's qki_nv_dq_run, so the same bits. */
QKI_512 static void qki_nv_dq_cols16(int dtype, unsigned char *y,
				     size_t stride, const uint8_t *codes,
				     size_t cstride, const uint8_t *scales,
				     __m512 gv)
{
	const __m512 e2m1 = _mm512_setr_ps(0.0f, 0.5f, 1.0f, 1.5f, 2.0f,
					   3.0f, 4.0f, 6.0f, -0.0f, -0.5f,
					   -1.0f, -1.5f, -2.0f, -3.0f, -4.0f,
					   -6.0f);
	const __m512 qnan = _mm512_castsi512_ps(_mm512_set1_epi32(QK_NAN_BITS));
	__m512i s = _mm512_cvtepu8_epi32(
		_mm_loadu_si128((const __m128i *)scales));
	__m512i sign = _mm512_slli_epi32(
		_mm512_and_si512(s, _mm512_set1_epi32(0x80)), 24);
	__m512 div = _mm512_mul_ps(_mm512_castsi512_ps(_mm512_or_si512(
		_mm512_castps_si512(qki_e4m3_dec16(_mm512_and_si512(
			s, _mm512_set1_epi32(0x7f)))), sign)), gv);
	int r;

	for (r = 0; r < QK_NVFP4_BLOCK; r++) {
		__m512i c = _mm512_cvtepu8_epi64(_mm_loadl_epi64(
			(const __m128i *)(codes + r * cstride)));
		__m512 v;

		c = _mm512_or_si512(c, _mm512_slli_epi64(c, 28));
		v = _mm512_mul_ps(_mm512_permutexvar_ps(c, e2m1), div);
		v = _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, v,
							     _CMP_UNORD_Q), qnan);
		qki_st16(dtype, y + r * stride, v);
	}
}

QKI_512 void qki_nv_dq_tiles_avx512(int dtype, void *out, size_t inner,
				    float g, size_t lo, size_t hi, const uint8_t *codes,
			    const uint8_t *scales)
{
	size_t es = qki_dtype_size(dtype), t, col;
	const __m512 gv = _mm512_set1_ps(g);

	for (t = lo; t < hi; t++) {
		size_t base = t * QK_NVFP4_BLOCK * inner;
		unsigned char *y = (unsigned char *)out + base * es;

		for (col = 0; col < inner; col += 16)
			qki_nv_dq_cols16(dtype, y + col * es, inner * es,
					 codes + base / 2 + col / 2, inner / 2,
					 scales + t * inner + col, gv);
	}
}
#endif

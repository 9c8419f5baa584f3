/*
 * kernels/elem.c - reading and writing elements of the real types
 * (FLOAT, FLOAT16, BFLOAT16) and of FP8 as floats; size arithmetic.
 *
 * One loop per type (and per FP8 saturation mode), so that each loop
 * is a plain conversion the vectorizer takes.
 */
#include <string.h>

#include "internal.h"

#if QKI_HAVE_F16C
#include <cpuid.h>
#include <immintrin.h>

/* Asked once per process; threads racing to ask first store the same
 * answer. */
int qki_cpu_f16c(void)
{
	static int have = -1;
	int h = __atomic_load_n(&have, __ATOMIC_RELAXED);

	if (h < 0) {
		unsigned a, b, c, d;

		/* clang's __builtin_cpu_supports knows no "f16c": read
		 * CPUID leaf 1 (ECX bit 29) as both compilers can. */
		__builtin_cpu_init();
		h = __builtin_cpu_supports("avx2") &&
		    __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) &&
		    !qki_simd_off();
		__atomic_store_n(&have, h, __ATOMIC_RELAXED);
	}
	return h;
}
#endif

size_t qki_dtype_size(int dtype)
{
	switch (dtype) {
	case QK_T_FLOAT:
		return 4;
	case QK_T_FLOAT16:
	case QK_T_BFLOAT16:
		return 2;
	case QK_T_E4M3FN:
	case QK_T_E5M2:
		return 1;
	default:
		return 0;
	}
}

int qki_is_real(int dtype)
{
	return dtype == QK_T_FLOAT || dtype == QK_T_FLOAT16 ||
	       dtype == QK_T_BFLOAT16;
}

#if QKI_HAVE_F16C
/* FLOAT16 to float with F16C: one instruction per 8 elements where
 * qki_dec_f16 vectorized takes a dozen (the NVFP4 quantizer of FLOAT16
 * weights spent a third of its time here). The conversion is exact,
 * subnormals included; only a signaling NaN differs (the instruction
 * quiets it), so blocks holding a NaN take qki_dec_f16, which keeps the
 * payload as it is. */
__attribute__((target("avx2,f16c"))) static void
qki_f16_load_f16c(const qki_u16u *restrict h, size_t n, float *restrict out)
{
	const __m128i mag = _mm_set1_epi16(0x7fff);
	const __m128i inf = _mm_set1_epi16(0x7c00);
	size_t j = 0, k;

	for (; j + 8 <= n; j += 8) {
		__m128i v = _mm_loadu_si128((const __m128i *)(h + j));
		__m128i nan = _mm_cmpgt_epi16(_mm_and_si128(v, mag), inf);

		_mm256_storeu_ps(out + j, _mm256_cvtph_ps(v));
		if (_mm_movemask_epi8(nan))
			for (k = j; k < j + 8; k++)
				out[k] = qki_dec_f16(h[k]);
	}
	for (; j < n; j++)
		out[j] = qki_dec_f16(h[j]);
}
#endif

QKI_HOT static void qki_bf16_load(const qki_u16u *restrict h, size_t n,
				  float *restrict out)
{
	QKI_FOR_VEC(j, n, out[j] = qki_dec_bf16(h[j]));
}

QKI_HOT static void qki_f16_load(const qki_u16u *restrict h, size_t n,
				 float *restrict out)
{
	QKI_FOR_VEC(j, n, out[j] = qki_dec_f16(h[j]));
}

void qki_load_f32(int dtype, const void *src, size_t i, size_t n,
		  float *restrict out)
{
	const qki_u16u *restrict h = (const qki_u16u *)src + i;

	switch (dtype) {
	case QK_T_FLOAT:
		memcpy(out, (const char *)src + i * sizeof(float),
		       n * sizeof(float));
		break;
	case QK_T_FLOAT16:
#if QKI_HAVE_F16C
		if (qki_cpu_f16c()) {
			qki_f16_load_f16c(h, n, out);
			break;
		}
#endif
		qki_f16_load(h, n, out);
		break;
	case QK_T_BFLOAT16:
		qki_bf16_load(h, n, out);
		break;
	}
}

QKI_HOT void qki_store_f32(int dtype, void *dst, size_t i, size_t n,
		   const float *restrict x)
{
	qki_u16u *restrict h = (qki_u16u *)dst + i;

	switch (dtype) {
	case QK_T_FLOAT:
		memcpy((char *)dst + i * sizeof(float), x, n * sizeof(float));
		break;
	case QK_T_FLOAT16:
		QKI_FOR_VEC(j, n, h[j] = (uint16_t)qki_enc_f16(x[j]));
		break;
	case QK_T_BFLOAT16:
		QKI_FOR_VEC(j, n, h[j] = (uint16_t)qki_enc_bf16(x[j]));
		break;
	}
}

QKI_HOT void qki_enc_fp8(int fmt, uint8_t *restrict dst, const float *restrict x,
		 size_t n, int sat)
{
	if (fmt == QK_T_E4M3FN && sat)
		QKI_FOR_VEC(j, n, dst[j] = (uint8_t)qki_enc_e4m3(x[j], 1));
	else if (fmt == QK_T_E4M3FN)
		QKI_FOR_VEC(j, n, dst[j] = (uint8_t)qki_enc_e4m3(x[j], 0));
	else if (sat)
		QKI_FOR_VEC(j, n, dst[j] = (uint8_t)qki_enc_e5m2(x[j], 1));
	else
		QKI_FOR_VEC(j, n, dst[j] = (uint8_t)qki_enc_e5m2(x[j], 0));
}

QKI_HOT void qki_dec_fp8(int fmt, float *restrict dst, const uint8_t *restrict src,
		 size_t n)
{
	if (fmt == QK_T_E4M3FN)
		QKI_FOR_VEC(j, n, dst[j] = qki_dec_e4m3(src[j]));
	else
		QKI_FOR_VEC(j, n, dst[j] = qki_dec_e5m2(src[j]));
}

int qki_mul3(size_t a, size_t b, size_t c, size_t *out)
{
	size_t ab;

	if (__builtin_mul_overflow(a, b, &ab) ||
	    __builtin_mul_overflow(ab, c, out))
		return -1;
	return 0;
}

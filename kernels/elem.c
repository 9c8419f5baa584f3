/*
 * kernels/elem.c - reading and writing elements of the real types
 * (FLOAT, FLOAT16, BFLOAT16) and of FP8 as floats; size arithmetic.
 *
 * One loop per type (and per FP8 saturation mode), so that each loop
 * is a plain conversion the vectorizer takes.
 */
#include <string.h>

#include "internal.h"

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

QKI_HOT void qki_load_f32(int dtype, const void *src, size_t i, size_t n,
		  float *restrict out)
{
	const uint16_t *restrict h = (const uint16_t *)src + i;

	switch (dtype) {
	case QK_T_FLOAT:
		memcpy(out, (const float *)src + i, n * sizeof(float));
		break;
	case QK_T_FLOAT16:
		QKI_FOR_VEC(j, n, out[j] = qk_dec_f16(h[j]));
		break;
	case QK_T_BFLOAT16:
		QKI_FOR_VEC(j, n, out[j] = qk_dec_bf16(h[j]));
		break;
	}
}

QKI_HOT void qki_store_f32(int dtype, void *dst, size_t i, size_t n,
		   const float *restrict x)
{
	uint16_t *restrict h = (uint16_t *)dst + i;

	switch (dtype) {
	case QK_T_FLOAT:
		memcpy((float *)dst + i, x, n * sizeof(float));
		break;
	case QK_T_FLOAT16:
		QKI_FOR_VEC(j, n, h[j] = (uint16_t)qk_enc_f16(x[j]));
		break;
	case QK_T_BFLOAT16:
		QKI_FOR_VEC(j, n, h[j] = (uint16_t)qk_enc_bf16(x[j]));
		break;
	}
}

QKI_HOT void qki_enc_fp8(int fmt, uint8_t *restrict dst, const float *restrict x,
		 size_t n, int sat)
{
	if (fmt == QK_T_E4M3FN && sat)
		QKI_FOR_VEC(j, n, dst[j] = (uint8_t)qk_enc_e4m3(x[j], 1));
	else if (fmt == QK_T_E4M3FN)
		QKI_FOR_VEC(j, n, dst[j] = (uint8_t)qk_enc_e4m3(x[j], 0));
	else if (sat)
		QKI_FOR_VEC(j, n, dst[j] = (uint8_t)qk_enc_e5m2(x[j], 1));
	else
		QKI_FOR_VEC(j, n, dst[j] = (uint8_t)qk_enc_e5m2(x[j], 0));
}

QKI_HOT void qki_dec_fp8(int fmt, float *restrict dst, const uint8_t *restrict src,
		 size_t n)
{
	if (fmt == QK_T_E4M3FN)
		QKI_FOR_VEC(j, n, dst[j] = qk_dec_e4m3(src[j]));
	else
		QKI_FOR_VEC(j, n, dst[j] = qk_dec_e5m2(src[j]));
}

int qki_mul3(size_t a, size_t b, size_t c, size_t *out)
{
	size_t ab;

	if (__builtin_mul_overflow(a, b, &ab) ||
	    __builtin_mul_overflow(ab, c, out))
		return -1;
	return 0;
}

/*
 * tests/kernels/mxfp8.c - MXFP8 quantization against a naive reference
 * written from the definition at qk_mxfp8_quantize (qopt/kernels.h):
 * the E8M0 rule ceil(log2(amax / 448)) on its boundaries, saturation,
 * ties, zero and NaN blocks, FLOAT16/BFLOAT16 inputs, layouts with
 * inner > 1, thread-count independence and argument errors.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qopt/dtype.h"
#include "qopt/kernels.h"
#include "../lib/tap.h"
#include "util.h"

#define B QK_MXFP8_BLOCK

/* The exponent by search in double (exact: 448 * 2^e is exact). */
static int ref_exp(float amax)
{
	int e;

	if (isnan(amax))
		return 128;
	for (e = -127; e < 127; e++)
		if ((double)amax <= ldexp(448.0, e))
			return e;
	return 127;
}

static void ref_quant(const float *x, size_t outer, size_t k, size_t inner,
		      uint8_t *codes, uint8_t *scales)
{
	for (size_t o = 0; o < outer; o++)
		for (size_t kb = 0; kb < k / B; kb++)
			for (size_t t = 0; t < inner; t++) {
				size_t e0 = (o * k + kb * B) * inner + t;
				float m = 0;
				int e;

				for (size_t r = 0; r < B; r++) {
					float a = fabsf(x[e0 + r * inner]);

					if (a > m)
						m = a;
				}
				e = ref_exp(m);
				scales[(o * (k / B) + kb) * inner + t] =
					(uint8_t)(e + 127);
				for (size_t r = 0; r < B; r++) {
					/* x / 2^e: exact or one rounding */
					float q = (float)((double)x[e0 + r * inner] /
							  ldexp(1.0, e));

					codes[e0 + r * inner] = qk_f32_to_e4m3(q, 1);
				}
			}
}

static float rnd_val(void)
{
	switch (kt_u32() % 8) {
	case 0: return (float)(kt_cauchy() * 100);
	case 1: return (float)ldexp(kt_normal(), (int)(kt_u32() % 250) - 125);
	case 2: return kt_float(kt_u32());	/* any bits, NaN and inf too */
	case 3: return 0.0f;
	default: return (float)kt_normal();
	}
}

static void test_scale_codes(void)
{
	static const struct { float a; int code; } g[] = {
		{ 0.0f, 0 }, { 448.0f, 127 }, { 449.0f, 128 }, { 224.0f, 126 },
		{ 1.0f, 119 }, { 1.75f, 119 }, { 1.75000012f, 120 },
		{ 896.0f, 128 }, { 896.000061f, 129 }, { FLT_MAX, 247 },
		{ 1e-38f, 0 }, { 1e-45f, 0 },
	};
	float lo = ldexpf(1.75f, -119); /* 448 * 2^-127 */

	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++)
		tap_ok(qk_mxfp8_scale_code(g[i].a) == g[i].code,
		       "scale code of %g is %d (got %d)", g[i].a, g[i].code,
		       qk_mxfp8_scale_code(g[i].a));
	tap_ok(qk_mxfp8_scale_code(lo) == 0, "448 * 2^-127 -> code 0");
	tap_ok(qk_mxfp8_scale_code(nextafterf(lo, 1)) == 1,
	       "just above 448 * 2^-127 -> code 1");
	tap_ok(qk_mxfp8_scale_code(INFINITY) == 254, "inf -> 254 (2^127)");
	tap_ok(qk_mxfp8_scale_code(NAN) == 255, "NaN -> 255");
	{
		int bad = 0;

		for (int i = 0; i < 200000; i++) {
			float a = fabsf(rnd_val());

			if (!isnan(a) && qk_mxfp8_scale_code(a) != ref_exp(a) + 127)
				bad++;
		}
		tap_ok(!bad, "scale code = search on 200000 values (%d off)", bad);
	}
}

/* Kernel against the reference for one layout and type; x holds values
 * exact in dtype. */
static void check_layout(int dtype, size_t outer, size_t k, size_t inner,
			 int threads)
{
	size_t n = outer * k * inner, nb = n / B;
	float *x = malloc(n * 4), *y = malloc(n * 4);
	uint16_t *h = malloc(n * 2);
	uint8_t *c = malloc(n), *s = malloc(nb), *rc = malloc(n),
		*rs = malloc(nb);
	qk_ctx *ctx = qk_ctx_new(QK_DEVICE_CPU, threads);
	const void *src = x;
	int bad = 0, rcq, rcd;

	for (size_t i = 0; i < n; i++) {
		float v = rnd_val();

		if (dtype == QIR_FLOAT16) {
			h[i] = qk_f32_to_f16(v);
			v = qk_f16_to_f32(h[i]);
		} else if (dtype == QIR_BFLOAT16) {
			h[i] = qk_f32_to_bf16(v);
			v = qk_bf16_to_f32(h[i]);
		}
		x[i] = v;
	}
	if (dtype != QIR_FLOAT)
		src = h;
	ref_quant(x, outer, k, inner, rc, rs);
	rcq = qk_mxfp8_quantize(ctx, dtype, src, outer, k, inner, c, s);
	for (size_t i = 0; i < n; i++)
		bad += c[i] != rc[i];
	for (size_t i = 0; i < nb; i++)
		bad += s[i] != rs[i];
	tap_ok(!rcq && !bad, "%s [%zu,%zu,%zu] %d threads: codes and scales "
	       "as the reference (%d differ)", qir_dtype_name(dtype), outer, k,
	       inner, threads, bad);
	rcd = qk_mxfp8_dequantize(ctx, c, s, outer, k, inner, QIR_FLOAT, y);
	bad = 0;
	for (size_t i = 0; i < n; i++) {
		size_t row = i / inner, si = (row / B) * inner + i % inner;
		float want = s[si] == 255 ? NAN : (float)((double)
			qk_e4m3_to_f32(c[i]) * ldexp(1.0, s[si] - 127));

		bad += !kt_same(y[i], want);
	}
	tap_ok(!rcd && !bad, "%s [%zu,%zu,%zu]: dequantized = e4m3 * 2^e (%d "
	       "differ)", qir_dtype_name(dtype), outer, k, inner, bad);
	qk_ctx_free(ctx);
	free(x), free(y), free(h), free(c), free(s), free(rc), free(rs);
}

static void test_specials(void)
{
	float x[B], y[B];
	uint8_t c[B], s[1];
	int bad = 0;

	/* ties: amax 448 (e = 0); 0.5 * (1 + 1/16) sits between E4M3's
	 * 0.5 and 0.5625: even code wins */
	memset(x, 0, sizeof(x));
	x[0] = 448.0f;
	x[1] = 0.53125f;	/* tie 0.5 | 0.5625 -> 0.5 (even) */
	x[2] = 0.59375f;	/* tie 0.5625 | 0.625 -> 0.625 (even) */
	x[3] = ldexpf(1.0f, -10); /* half the smallest subnormal -> 0 */
	x[4] = ldexpf(3.0f, -10); /* 1.5 subnormal steps -> 2 steps */
	x[5] = -0.0f;
	x[6] = NAN;
	qk_mxfp8_quantize(NULL, QIR_FLOAT, x, 1, B, 1, c, s);
	tap_ok(s[0] == 127 && c[0] == 0x7e && c[1] == 0x30 && c[2] == 0x32 &&
	       c[3] == 0x00 && c[4] == 0x02 && c[5] == 0x80 &&
	       (c[6] & 0x7f) == 0x7f, "ties to even, subnormals, -0, NaN "
	       "(%02x %02x %02x %02x %02x %02x %02x)", c[0], c[1], c[2], c[3],
	       c[4], c[5], c[6]);
	qk_mxfp8_dequantize(NULL, c, s, 1, B, 1, QIR_FLOAT, y);
	tap_ok(y[0] == 448.0f && y[1] == 0.5f && isnan(y[6]) &&
	       kt_bits(y[6]) == 0x7fc00000u && kt_bits(y[5]) == 0x80000000u,
	       "dequantized: 448, 0.5, -0, canonical NaN");
	/* all zero: scale 2^-127, codes 0 */
	memset(x, 0, sizeof(x));
	qk_mxfp8_quantize(NULL, QIR_FLOAT, x, 1, B, 1, c, s);
	for (int i = 0; i < B; i++)
		bad += c[i] != 0;
	tap_ok(s[0] == 0 && !bad, "zero block: scale code 0, codes 0");
	/* inf: the largest scale, saturated, back to inf */
	x[0] = -INFINITY;
	x[1] = 1.0f;
	qk_mxfp8_quantize(NULL, QIR_FLOAT, x, 1, B, 1, c, s);
	qk_mxfp8_dequantize(NULL, c, s, 1, B, 1, QIR_FLOAT, y);
	tap_ok(s[0] == 254 && c[0] == 0xfe && c[1] == 0 && y[0] == -INFINITY,
	       "inf block: scale 2^127, -448, -inf back");
	/* FLT_MAX: 2^128 after rounding to 256 * 2^120 */
	x[0] = FLT_MAX;
	qk_mxfp8_quantize(NULL, QIR_FLOAT, x, 1, B, 1, c, s);
	qk_mxfp8_dequantize(NULL, c, s, 1, B, 1, QIR_FLOAT, y);
	tap_ok(s[0] == 247 && y[0] == INFINITY,
	       "FLT_MAX rounds to 256 * 2^120, which overflows to inf");
	/* NaN scale code */
	s[0] = 255;
	qk_mxfp8_dequantize(NULL, c, s, 1, B, 1, QIR_FLOAT, y);
	tap_ok(kt_bits(y[1]) == 0x7fc00000u, "scale 255 (NaN) -> NaN");
}

static void test_errors(void)
{
	float x[64] = { 0 };
	uint8_t c[64], s[2];

	tap_ok(qk_mxfp8_quantize(NULL, QIR_FLOAT, x, 1, 48, 1, c, s) ==
	       QK_EBLOCK, "k = 48: QK_EBLOCK");
	tap_ok(qk_mxfp8_quantize(NULL, QIR_INT8, x, 1, 32, 1, c, s) ==
	       QK_EDTYPE, "INT8 source: QK_EDTYPE");
	tap_ok(qk_mxfp8_quantize(NULL, QIR_FLOAT, NULL, 1, 32, 1, c, s) ==
	       QK_EINVAL, "NULL source: QK_EINVAL");
	tap_ok(qk_mxfp8_dequantize(NULL, c, NULL, 1, 32, 1, QIR_FLOAT, x) ==
	       QK_EINVAL, "NULL scales: QK_EINVAL");
	tap_ok(qk_mxfp8_dequantize(NULL, c, s, 1, 33, 1, QIR_FLOAT, x) ==
	       QK_EBLOCK, "dequantize k = 33: QK_EBLOCK");
	tap_ok(qk_mxfp8_quantize(NULL, QIR_FLOAT, NULL, 0, 32, 1, NULL, NULL) ==
	       QK_OK, "empty tensor: nothing to do");
}

int main(void)
{
	kt_seed(12345);
	test_scale_codes();
	test_specials();
	test_errors();
	check_layout(QIR_FLOAT, 64, 256, 1, 1);
	check_layout(QIR_FLOAT, 7, 64, 3, 4);
	check_layout(QIR_FLOAT16, 16, 128, 1, 3);
	check_layout(QIR_BFLOAT16, 5, 96, 2, 2);
	check_layout(QIR_FLOAT, 3, 32, 300, 4);	/* inner past one chunk */
	return tap_done();
}

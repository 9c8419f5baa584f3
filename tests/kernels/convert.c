/*
 * tests/kernels/convert.c - array conversions (qk_convert), qk_amax and
 * qk_amax_blocks against element-wise references built on the scalar
 * conversions; odd lengths (vector tails), errors, thread counts.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qopt/dtype.h"
#include "qopt/kernels.h"
#include "../lib/tap.h"
#include "util.h"

static const int reals[] = { QIR_FLOAT, QIR_FLOAT16, QIR_BFLOAT16 };
static const int fp8s[] = { QIR_FLOAT8E4M3FN, QIR_FLOAT8E5M2 };

static const char *dt_name(int dt)
{
	switch (dt) {
	case QIR_FLOAT: return "FLOAT";
	case QIR_FLOAT16: return "FLOAT16";
	case QIR_BFLOAT16: return "BFLOAT16";
	case QIR_FLOAT8E4M3FN: return "FLOAT8E4M3FN";
	case QIR_FLOAT8E5M2: return "FLOAT8E5M2";
	}
	return "?";
}

static size_t dt_size(int dt)
{
	return dt == QIR_FLOAT ? 4 : dt == QIR_FLOAT16 || dt == QIR_BFLOAT16 ? 2 : 1;
}

/* Element i of an array of dt as float, through the scalar API. */
static float get(int dt, const void *p, size_t i)
{
	switch (dt) {
	case QIR_FLOAT: return ((const float *)p)[i];
	case QIR_FLOAT16: return qk_f16_to_f32(((const uint16_t *)p)[i]);
	case QIR_BFLOAT16: return qk_bf16_to_f32(((const uint16_t *)p)[i]);
	case QIR_FLOAT8E4M3FN: return qk_e4m3_to_f32(((const uint8_t *)p)[i]);
	default: return qk_e5m2_to_f32(((const uint8_t *)p)[i]);
	}
}

/* Stores x as element i of dt through the scalar API (FP8 saturating). */
static void put(int dt, void *p, size_t i, float x)
{
	switch (dt) {
	case QIR_FLOAT: ((float *)p)[i] = x; break;
	case QIR_FLOAT16: ((uint16_t *)p)[i] = qk_f32_to_f16(x); break;
	case QIR_BFLOAT16: ((uint16_t *)p)[i] = qk_f32_to_bf16(x); break;
	case QIR_FLOAT8E4M3FN: ((uint8_t *)p)[i] = qk_f32_to_e4m3(x, 1); break;
	default: ((uint8_t *)p)[i] = qk_f32_to_e5m2(x, 1); break;
	}
}

/* Random source data of dt: any bit pattern for the real types (NaN,
 * inf and subnormals included), any code for FP8. */
static void *random_array(int dt, size_t n)
{
	size_t sz = dt_size(dt);
	uint8_t *p = malloc(n * sz + 1);

	for (size_t i = 0; i < n * sz; i += 4) {
		uint32_t u = kt_u32();

		if (dt == QIR_FLOAT && (u & 3)) /* mostly ordinary values */
			u = kt_bits((float)(kt_normal() * pow(10, (int)(u % 13) - 6)));
		memcpy(p + i, &u, n * sz - i < 4 ? n * sz - i : 4);
	}
	return p;
}

static void check_pair(qk_ctx *ctx, int dt, int st, size_t n)
{
	void *src = random_array(st, n);
	void *got = calloc(n + 1, dt_size(dt)), *want = calloc(n + 1, dt_size(dt));
	int rc = qk_convert(ctx, dt, got, st, src, n);

	for (size_t i = 0; i < n; i++)
		put(dt, want, i, get(st, src, i));
	/* NaN payloads may differ: compare decoded values, NaN == NaN */
	int same = rc == 0;
	for (size_t i = 0; i < n && same; i++)
		same = kt_same(get(dt, got, i), get(dt, want, i)) &&
		       (isnan(get(dt, got, i)) ||
			!memcmp((char *)got + i * dt_size(dt),
				(char *)want + i * dt_size(dt), dt_size(dt)));
	tap_ok(same, "convert %s -> %s, n = %zu", dt_name(st), dt_name(dt), n);
	free(src);
	free(got);
	free(want);
}

static void conversions(qk_ctx *ctx)
{
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			check_pair(ctx, reals[b], reals[a], 1000003);
	for (int f = 0; f < 2; f++)
		for (int b = 0; b < 3; b++) {
			check_pair(ctx, reals[b], fp8s[f], 70001);
			check_pair(ctx, fp8s[f], reals[b], 70001);
		}
	check_pair(ctx, QIR_FLOAT16, QIR_FLOAT, 5);
	tap_ok(qk_convert(ctx, QIR_FLOAT, NULL, QIR_FLOAT16, NULL, 0) == 0,
	       "convert: n = 0 with NULL buffers is fine");
	{
		float x[2] = { 0 };
		uint8_t y[2];

		tap_ok(qk_convert(ctx, QIR_INT8, y, QIR_FLOAT, x, 2) == QK_EDTYPE &&
		       qk_convert(ctx, QIR_FLOAT8E5M2, y, QIR_FLOAT8E4M3FN, y, 2) ==
			       QK_EDTYPE &&
		       qk_convert(ctx, QIR_FLOAT, NULL, QIR_FLOAT16, x, 2) ==
			       QK_EINVAL,
		       "convert: unsupported pairs and NULL buffers refused");
	}
}

static void amax_tests(qk_ctx *ctx)
{
	size_t n = 300007;
	float *x = malloc(n * 4), a = -1, want = 0;
	uint16_t *h = malloc(n * 2);

	for (size_t i = 0; i < n; i++) {
		x[i] = (float)kt_normal();
		if (fabsf(x[i]) > want)
			want = fabsf(x[i]);
	}
	x[77] = NAN;
	x[n - 1] = -NAN;
	tap_ok(qk_amax(ctx, QIR_FLOAT, x, n, &a) == 0 && a == want,
	       "amax FLOAT = max |x|, NaN ignored (%g)", a);
	x[1234] = -INFINITY;
	tap_ok(qk_amax(ctx, QIR_FLOAT, x, n, &a) == 0 && a == INFINITY,
	       "amax FLOAT sees -inf as inf");
	x[1234] = 0;
	for (int d = 0; d < 2; d++) {
		float w = 0;

		for (size_t i = 0; i < n; i++) {
			h[i] = d ? qk_f32_to_bf16(x[i]) : qk_f32_to_f16(x[i]);
			float v = d ? qk_bf16_to_f32(h[i]) : qk_f16_to_f32(h[i]);

			if (fabsf(v) > w)
				w = fabsf(v);
		}
		tap_ok(qk_amax(ctx, d ? QIR_BFLOAT16 : QIR_FLOAT16, h, n, &a) == 0 &&
		       a == w, "amax %s", d ? "BFLOAT16" : "FLOAT16");
	}
	a = -1;
	tap_ok(qk_amax(ctx, QIR_FLOAT, NULL, 0, &a) == 0 && a == 0 &&
	       qk_amax(ctx, QIR_FLOAT, x, 3, NULL) == QK_EINVAL &&
	       qk_amax(ctx, QIR_INT32, x, 3, &a) == QK_EDTYPE,
	       "amax: empty gives 0; NULL result and bad dtype refused");
	x[0] = -0.0f;
	x[1] = NAN;
	tap_ok(qk_amax(ctx, QIR_FLOAT, x, 2, &a) == 0 && a == 0 && !signbit(a),
	       "amax of {-0, NaN} is +0");
	free(x);
	free(h);
}

static void amax_blocks_case(qk_ctx *ctx, int dt, size_t outer, size_t axis,
			     size_t inner, size_t block)
{
	size_t n = outer * axis * inner, nb = (axis + block - 1) / block;
	void *x = random_array(dt, n);
	float *got = malloc((outer * nb * inner + 1) * 4);
	int rc = qk_amax_blocks(ctx, dt, x, outer, axis, inner, block, got);
	int same = rc == 0;

	for (size_t o = 0; o < outer; o++)
		for (size_t b = 0; b < nb; b++)
			for (size_t t = 0; t < inner; t++) {
				float m = 0;

				for (size_t r = b * block; r < (b + 1) * block && r < axis; r++) {
					float v = fabsf(get(dt, x, (o * axis + r) * inner + t));

					if (v > m)
						m = v;
				}
				same &= kt_bits(got[(o * nb + b) * inner + t]) == kt_bits(m);
			}
	tap_ok(same, "amax_blocks %s [%zu,%zu,%zu] block %zu", dt_name(dt),
	       outer, axis, inner, block);
	free(x);
	free(got);
}

static void amax_blocks_tests(qk_ctx *ctx)
{
	float out[4], x[4] = { 0 };

	amax_blocks_case(ctx, QIR_FLOAT, 33, 64, 1, 16);
	amax_blocks_case(ctx, QIR_FLOAT, 5, 50, 1, 16);   /* partial block */
	amax_blocks_case(ctx, QIR_FLOAT, 3, 37, 70, 8);
	amax_blocks_case(ctx, QIR_FLOAT16, 2, 32, 300, 32);
	amax_blocks_case(ctx, QIR_BFLOAT16, 4, 17, 3, 5);
	amax_blocks_case(ctx, QIR_FLOAT, 1, 1000, 1, 1000);
	tap_ok(qk_amax_blocks(ctx, QIR_FLOAT, x, 1, 4, 1, 0, out) == QK_EINVAL &&
	       qk_amax_blocks(ctx, QIR_FLOAT8E4M3FN, x, 1, 4, 1, 2, out) ==
		       QK_EDTYPE,
	       "amax_blocks: block 0 and FP8 input refused");
}

/* Every FLOAT16 and BFLOAT16 pattern, read as FLOAT by qk_convert
 * (vector paths, F16C where the CPU has it) and by qk_amax, matches
 * the scalar conversion bit for bit: subnormals, infinities and the
 * payload and quiet bit of every NaN included. */
static void all_16bit(qk_ctx *ctx)
{
	uint16_t *h = malloc(65536 * 2);
	float *f = malloc(65536 * 4);

	for (int d = 0; d < 2; d++) {
		int dt = d ? QIR_BFLOAT16 : QIR_FLOAT16, bad = 0, abad = 0;

		for (uint32_t i = 0; i < 65536; i++)
			h[i] = (uint16_t)i;
		qk_convert(ctx, QIR_FLOAT, f, dt, h, 65536);
		for (uint32_t i = 0; i < 65536; i++)
			bad += kt_bits(f[i]) != kt_bits(get(dt, h, i));
		tap_ok(!bad, "%s -> FLOAT: all 65536 patterns = scalar (%d differ)",
		       dt_name(dt), bad);
		/* amax over runs of patterns: positive and negative
		 * finite, then with the infinities and NaNs. */
		for (uint32_t lo = 0; lo < 65536; lo += 4096) {
			float got, want = 0;

			for (uint32_t i = lo; i < lo + 4096; i++) {
				float v = fabsf(get(dt, h, i));

				if (!isnan(v) && v > want)
					want = v;
			}
			if (qk_amax(ctx, dt, h + lo, 4096, &got) ||
			    kt_bits(got) != kt_bits(want))
				abad++;
		}
		tap_ok(!abad, "%s amax over every pattern = scalar (%d runs differ)",
		       dt_name(dt), abad);
	}
	free(h);
	free(f);
}

static void threads(void)
{
	size_t n = 3000001;
	float *x = malloc(n * 4);
	uint16_t *h1 = malloc(n * 2), *h2 = malloc(n * 2);
	float a1, a2;
	int same = 1;
	qk_ctx *c1 = qk_ctx_new(QK_DEVICE_CPU, 1);

	for (size_t i = 0; i < n; i++)
		x[i] = (float)kt_cauchy();
	qk_convert(c1, QIR_FLOAT16, h1, QIR_FLOAT, x, n);
	qk_amax(c1, QIR_FLOAT, x, n, &a1);
	for (int t = 2; t <= 7; t += 5) {
		qk_ctx *c = qk_ctx_new(QK_DEVICE_CPU, t);

		qk_convert(c, QIR_FLOAT16, h2, QIR_FLOAT, x, n);
		qk_amax(c, QIR_FLOAT, x, n, &a2);
		same &= !memcmp(h1, h2, n * 2) && a1 == a2;
		qk_ctx_free(c);
	}
	tap_ok(same, "convert and amax: same results with 1, 2 and 7 threads");
	qk_ctx_free(c1);
	free(x);
	free(h1);
	free(h2);
}

int main(void)
{
	qk_ctx *ctx;

	unsetenv("QOPT_DEVICE"); /* these test the CPU kernels */
	ctx = qk_ctx_new(QK_DEVICE_CPU, 0);

	kt_seed(2);
	conversions(ctx);
	amax_tests(ctx);
	amax_blocks_tests(ctx);
	all_16bit(ctx);
	threads();
	qk_ctx_free(ctx);
	return tap_done();
}

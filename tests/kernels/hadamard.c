/*
 * tests/kernels/hadamard.c - the Walsh-Hadamard rotation against an
 * explicit Sylvester matrix product (double precision) for every block
 * size 1 .. 4096, involution (twice = identity), FLOAT16/BFLOAT16
 * input, the default block rule, strided layouts, errors and threads.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qopt/dtype.h"
#include "qopt/kernels.h"
#include "../lib/tap.h"
#include "util.h"

/* Sylvester order: H[i][j] = (-1)^popcount(i & j). */
static int h_sign(size_t i, size_t j)
{
	return __builtin_popcountll(i & j) & 1 ? -1 : 1;
}

/* y = x (I (x) H_b / sqrt(b)) along the middle axis, in double. */
static void ref_had(const float *x, double *y, size_t outer, size_t n,
		    size_t inner, size_t b)
{
	double s = 1 / sqrt((double)b);

	for (size_t o = 0; o < outer; o++)
		for (size_t t = 0; t < inner; t++)
			for (size_t i = 0; i < n; i++) {
				size_t blk = i / b * b;
				double acc = 0;

				for (size_t j = 0; j < b; j++)
					acc += h_sign(i - blk, j) *
					       (double)x[((o * n) + blk + j) * inner + t];
				y[(o * n + i) * inner + t] = acc * s;
			}
}

/* max |got - ref| relative to the largest |ref| of the tensor. */
static double rel_err(const float *got, const double *ref, size_t n)
{
	double m = 0, e = 0;

	for (size_t i = 0; i < n; i++) {
		m = fmax(m, fabs(ref[i]));
		e = fmax(e, fabs(got[i] - ref[i]));
	}
	return m > 0 ? e / m : e;
}

static void against_matrix(qk_ctx *ctx)
{
	int bad = 0;
	double worst = 0;

	for (size_t b = 1; b <= 4096; b *= 2) {
		size_t n = b, outer = b >= 1024 ? 1 : 3;
		float *x = malloc(outer * n * 4), *y = malloc(outer * n * 4);
		double *r = malloc(outer * n * 8), e;

		for (size_t i = 0; i < outer * n; i++)
			x[i] = y[i] = (float)kt_normal();
		ref_had(x, r, outer, n, 1, b);
		if (qk_hadamard(ctx, QIR_FLOAT, y, outer, n, 1, b))
			bad++;
		e = rel_err(y, r, outer * n);
		/* log2(b) rounded additions and one scaling */
		if (e > 4e-7 * (log2((double)b) + 2)) {
			bad++;
			tap_diag("b = %zu: relative error %g", b, e);
		}
		worst = fmax(worst, e);
		free(x);
		free(y);
		free(r);
	}
	tap_ok(!bad, "b = 1, 2, ..., 4096: equals x (H_b / sqrt(b)) (worst "
	       "relative error %.2g)", worst);
}

static void layouts(qk_ctx *ctx)
{
	/* [outer, n, inner] with several blocks per axis and odd inner */
	static const size_t cases[][4] = { { 2, 96, 5, 32 }, { 3, 64, 17, 16 },
					   { 1, 48, 40, 16 }, { 5, 40, 1, 8 },
					   { 37, 32, 1, 32 } };

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t o = cases[c][0], n = cases[c][1], in = cases[c][2];
		size_t b = cases[c][3], tot = o * n * in;
		float *x = malloc(tot * 4), *y = malloc(tot * 4);
		double *r = malloc(tot * 8);

		for (size_t i = 0; i < tot; i++)
			x[i] = y[i] = (float)kt_normal();
		ref_had(x, r, o, n, in, b);
		tap_ok(!qk_hadamard(ctx, QIR_FLOAT, y, o, n, in, b) &&
		       rel_err(y, r, tot) < 4e-7 * 8,
		       "[%zu,%zu,%zu] block %zu = matrix product", o, n, in, b);
		free(x);
		free(y);
		free(r);
	}
}

static void involution(qk_ctx *ctx)
{
	size_t outer = 16, n = 3 * 1024, inner = 1;
	size_t tot = outer * n * inner;
	float *x = malloc(tot * 4), *y = malloc(tot * 4);
	double e = 0, m = 0;

	for (size_t i = 0; i < tot; i++)
		x[i] = y[i] = (float)kt_student(3);
	/* default block for 3072: 1024 */
	qk_hadamard(ctx, QIR_FLOAT, y, outer, n, inner, 0);
	qk_hadamard(ctx, QIR_FLOAT, y, outer, n, inner, 0);
	for (size_t i = 0; i < tot; i++) {
		e = fmax(e, fabs((double)y[i] - x[i]));
		m = fmax(m, fabs(x[i]));
	}
	tap_ok(e <= m * 4e-6, "applied twice = identity (max error %.2g of "
	       "max |x| %.2g)", e, m);
	free(x);
	free(y);
}

static void half_types(qk_ctx *ctx)
{
	size_t outer = 4, n = 256, inner = 3, tot = outer * n * inner;
	float *f = malloc(tot * 4);
	uint16_t *h = malloc(tot * 2);

	for (int d = 0; d < 2; d++) {
		int same = 1;

		for (size_t i = 0; i < tot; i++) {
			float v = (float)kt_normal();

			h[i] = d ? qk_f32_to_bf16(v) : qk_f32_to_f16(v);
			f[i] = d ? qk_bf16_to_f32(h[i]) : qk_f16_to_f32(h[i]);
		}
		qk_hadamard(ctx, QIR_FLOAT, f, outer, n, inner, 64);
		qk_hadamard(ctx, d ? QIR_BFLOAT16 : QIR_FLOAT16, h, outer, n,
			    inner, 64);
		for (size_t i = 0; i < tot; i++)
			same &= h[i] == (d ? qk_f32_to_bf16(f[i]) :
					 qk_f32_to_f16(f[i]));
		tap_ok(same, "%s input: computed in FP32, rounded once",
		       d ? "BFLOAT16" : "FLOAT16");
	}
	free(f);
	free(h);
}

static void default_block(qk_ctx *ctx)
{
	float x[96], y[96];

	tap_ok(qk_hadamard_default_block(4096) == 4096 &&
	       qk_hadamard_default_block(12288) == 4096 &&
	       qk_hadamard_default_block(96) == 32 &&
	       qk_hadamard_default_block(7) == 1 &&
	       qk_hadamard_default_block(1) == 1 &&
	       qk_hadamard_default_block(0) == 0,
	       "default block: n if a power of two, else n & -n, 0 for 0");
	for (int i = 0; i < 96; i++)
		x[i] = y[i] = (float)kt_normal();
	qk_hadamard(ctx, QIR_FLOAT, x, 1, 96, 1, 0);
	qk_hadamard(ctx, QIR_FLOAT, y, 1, 96, 1, 32);
	tap_ok(!memcmp(x, y, sizeof(x)), "block 0 uses the default block");
	tap_ok(qk_hadamard(ctx, QIR_FLOAT, x, 1, 96, 1, 3) == QK_EINVAL &&
	       qk_hadamard(ctx, QIR_FLOAT, x, 1, 96, 1, 64) == QK_EBLOCK &&
	       qk_hadamard(ctx, QIR_INT8, x, 1, 96, 1, 32) == QK_EDTYPE &&
	       qk_hadamard(ctx, QIR_FLOAT, NULL, 1, 96, 1, 32) == QK_EINVAL &&
	       qk_hadamard(ctx, QIR_FLOAT, NULL, 1, 0, 1, 0) == 0,
	       "errors: block not a power of two, not dividing n, bad dtype, "
	       "NULL; n = 0 is a no-op");
}

static void nan_canonical(qk_ctx *ctx)
{
	float x[8] = { 1, 2, -NAN, 4, 5, 6, 7, 8 };
	int ok = 1;

	qk_hadamard(ctx, QIR_FLOAT, x, 1, 8, 1, 8);
	for (int i = 0; i < 8; i++)
		ok &= kt_bits(x[i]) == 0x7fc00000u;
	tap_ok(ok, "a NaN spreads over its block as the canonical NaN");
}

static void threads(void)
{
	size_t outer = 64, n = 2048, inner = 24, tot = outer * n * inner;
	float *x = malloc(tot * 4), *y = malloc(tot * 4), *z = malloc(tot * 4);
	qk_ctx *c1 = qk_ctx_new(QK_DEVICE_CPU, 1);
	int same = 1;

	for (size_t i = 0; i < tot; i++)
		x[i] = (float)kt_normal();
	memcpy(y, x, tot * 4);
	qk_hadamard(c1, QIR_FLOAT, y, outer, n, inner, 512);
	for (int t = 2; t <= 6; t += 4) {
		qk_ctx *c = qk_ctx_new(QK_DEVICE_CPU, t);

		memcpy(z, x, tot * 4);
		qk_hadamard(c, QIR_FLOAT, z, outer, n, inner, 512);
		same &= !memcmp(y, z, tot * 4);
		/* inner == 1 takes the other path */
		memcpy(y, x, tot * 4);
		memcpy(z, x, tot * 4);
		qk_hadamard(c1, QIR_FLOAT, y, outer * inner, n, 1, 256);
		qk_hadamard(c, QIR_FLOAT, z, outer * inner, n, 1, 256);
		same &= !memcmp(y, z, tot * 4);
		memcpy(y, x, tot * 4);
		qk_hadamard(c1, QIR_FLOAT, y, outer, n, inner, 512);
		qk_ctx_free(c);
	}
	tap_ok(same, "same bytes with 1, 2 and 6 threads");
	qk_ctx_free(c1);
	free(x);
	free(y);
	free(z);
}

/* The documented operation order, one column at a time in scalar FP32:
 * stages h = 1 .. b/2 of (u + v, u - v), then one multiplication by
 * 2^-(k/2) (times the float 1/sqrt(2) when k = log2 b is odd), NaN
 * canonical. The CUDA kernel follows the same order, so bit equality
 * here is what makes CPU and GPU agree. */
static float order_scale(size_t b)
{
	int k = 0;
	float s;

	while (((size_t)1 << k) < b)
		k++;
	s = ldexpf(1.0f, -(k / 2));
	return k & 1 ? s * 0.70710678118654752440f : s;
}

static void ref_order(float *col, size_t b)
{
	float s = order_scale(b);

	for (size_t h = 1; h < b; h <<= 1)
		for (size_t j = 0; j < b; j++)
			if (!(j & h)) {
				float u = col[j], v = col[j + h];

				col[j] = u + v;
				col[j + h] = u - v;
			}
	for (size_t j = 0; j < b; j++) {
		col[j] *= s;
		if (isnan(col[j]))
			col[j] = NAN;
	}
}

static float dt_get(int dt, const void *x, size_t i)
{
	if (dt == QIR_FLOAT)
		return ((const float *)x)[i];
	return dt == QIR_FLOAT16 ? qk_f16_to_f32(((const uint16_t *)x)[i]) :
				   qk_bf16_to_f32(((const uint16_t *)x)[i]);
}

static int dt_same(int dt, const void *x, size_t i, float v)
{
	uint32_t a, b;

	if (dt == QIR_FLOAT) {
		memcpy(&a, (const float *)x + i, 4);
		memcpy(&b, &v, 4);
		return a == b;
	}
	return ((const uint16_t *)x)[i] ==
	       (dt == QIR_FLOAT16 ? qk_f32_to_f16(v) : qk_f32_to_bf16(v));
}

static void stage_order(qk_ctx *ctx)
{
	static const size_t cases[][4] = {
		{ 300, 16, 1, 16 }, { 5, 2048, 1, 256 }, { 2, 8192, 1, 8192 },
		{ 1, 32768, 1, 32768 }, { 3, 20, 1, 4 }, { 2, 64, 5, 64 },
		{ 1, 8192, 16, 8192 }, { 1, 1024, 33, 512 },
		/* rows whose load and store fuse stages (64-float groups) */
		{ 64, 32, 1, 32 }, { 32, 128, 1, 128 }, { 16, 512, 1, 512 },
		{ 8, 1024, 1, 1024 }, { 4, 2048, 1, 2048 }, { 3, 64, 1, 64 },
		/* rows straight from x to x (b <= 256), whole and with a
		 * short last unit; rows through the padded buffer with the
		 * last stages stored directly or through it */
		{ 40, 256, 1, 256 }, { 17, 256, 1, 256 }, { 600, 16, 1, 16 },
		{ 2, 4096, 1, 4096 }, { 1, 16384, 1, 16384 },
		{ 1, 65536, 1, 65536 },
	};
	static const int dts[3] = { QIR_FLOAT, QIR_FLOAT16, QIR_BFLOAT16 };

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t o = cases[c][0], n = cases[c][1], in = cases[c][2];
		size_t b = cases[c][3], tot = o * n * in;
		int bad = 0;

		for (int d = 0; d < 3; d++) {
			size_t sz = d ? 2 : 4;
			unsigned char *x = malloc(tot * sz), *y = malloc(tot * sz);
			float *col = malloc(b * sizeof(float));

			for (size_t i = 0; i < tot; i++) {
				/* every third case: signed zeros, ones,
				 * subnormals and infinities (inf - inf, sign
				 * of 0 - 0, subnormal results) */
				static const float sp[8] = { 0.0f, -0.0f, 1.0f,
							     -1.0f, 1e-39f,
							     -3e-39f, INFINITY,
							     -INFINITY };
				float v = c % 3 == 2 ? sp[rand() % (i % 64 ? 6 : 8)] :
						       (float)kt_student(3);
				uint16_t h = d == 1 ? qk_f32_to_f16(v) :
						      qk_f32_to_bf16(v);

				if (d)
					memcpy(x + 2 * i, &h, 2);
				else
					memcpy(x + 4 * i, &v, 4);
			}
			memcpy(y, x, tot * sz);
			bad += qk_hadamard(ctx, dts[d], y, o, n, in, b) != 0;
			for (size_t oo = 0; oo < o; oo++)
				for (size_t t = 0; t < in; t++)
					for (size_t bl = 0; bl < n; bl += b) {
						size_t e0 = (oo * n + bl) * in + t;

						for (size_t j = 0; j < b; j++)
							col[j] = dt_get(dts[d], x, e0 + j * in);
						ref_order(col, b);
						for (size_t j = 0; j < b; j++)
							bad += !dt_same(dts[d], y, e0 + j * in, col[j]);
					}
			free(x);
			free(y);
			free(col);
		}
		tap_ok(!bad, "[%zu,%zu,%zu] block %zu: FLOAT, FLOAT16, BFLOAT16 "
		       "bit-identical to the documented stage order", o, n,
		       in, b);
	}
}

int main(void)
{
	qk_ctx *ctx;

	unsetenv("QOPT_DEVICE"); /* these test the CPU kernels */
	ctx = qk_ctx_new(QK_DEVICE_CPU, 0);

	kt_seed(5);
	against_matrix(ctx);
	layouts(ctx);
	involution(ctx);
	half_types(ctx);
	default_block(ctx);
	nan_canonical(ctx);
	threads();
	stage_order(ctx);
	qk_ctx_free(ctx);
	return tap_done();
}

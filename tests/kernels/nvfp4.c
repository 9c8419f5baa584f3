/*
 * tests/kernels/nvfp4.c - NVFP4 quantization against a naive reference
 * written from docs/numerics.md, error bounds on random and
 * heavy-tailed weights, the special blocks (all zero, one outlier,
 * scale underflow), argument errors and thread-count independence.
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

#define B QK_NVFP4_BLOCK

/* The algorithm of docs/numerics.md, one element at a time, through the
 * public scalar conversions only. */
static void ref_quant(const float *w, size_t outer, size_t k, size_t inner,
		      uint8_t *codes, uint8_t *scales, float *gs)
{
	size_t n = outer * k * inner, nb = k / B;
	float amax = 0, g;

	for (size_t i = 0; i < n; i++)
		if (fabsf(w[i]) > amax)
			amax = fabsf(w[i]);
	g = amax > 0 ? amax / (6.0f * 448.0f) : 1.0f;
	if (g < FLT_MIN)
		g = FLT_MIN;
	memset(codes, 0, (n + 1) / 2);
	for (size_t o = 0; o < outer; o++)
		for (size_t kb = 0; kb < nb; kb++)
			for (size_t t = 0; t < inner; t++) {
				size_t e0 = (o * k + kb * B) * inner + t;
				float bm = 0, S;
				uint8_t s;

				for (size_t r = 0; r < B; r++)
					if (fabsf(w[e0 + r * inner]) > bm)
						bm = fabsf(w[e0 + r * inner]);
				s = bm > 0 ? qk_f32_to_e4m3(bm / 6.0f / g, 1) : 0x38;
				if (s == 0)
					s = 0x01;
				scales[(o * nb + kb) * inner + t] = s;
				S = qk_e4m3_to_f32(s) * g;
				for (size_t r = 0; r < B; r++) {
					size_t e = e0 + r * inner;
					uint8_t c = qk_f32_to_e2m1(w[e] / S);

					codes[e / 2] |= (uint8_t)(c << (e & 1 ? 4 : 0));
				}
			}
	*gs = g;
}

struct q {
	uint8_t *codes, *scales;
	float g;
	size_t n;
};

static void q_alloc(struct q *q, size_t n)
{
	q->n = n;
	q->codes = calloc(n / 2 + 1, 1);
	q->scales = calloc(n / B + 1, 1);
}

static void q_free(struct q *q)
{
	free(q->codes);
	free(q->scales);
}

static int q_same(const struct q *a, const struct q *b)
{
	return kt_bits(a->g) == kt_bits(b->g) &&
	       !memcmp(a->codes, b->codes, a->n / 2) &&
	       !memcmp(a->scales, b->scales, a->n / B);
}

/* Quantizes w with ctx and compares with the reference; returns the
 * kernel's result in *out (caller frees) when out is not NULL. */
static int check_ref(qk_ctx *ctx, const float *w, size_t outer, size_t k,
		     size_t inner, const char *what, struct q *out)
{
	size_t n = outer * k * inner;
	struct q got, want;
	int rc, ok;

	q_alloc(&got, n);
	q_alloc(&want, n);
	rc = qk_nvfp4_quantize(ctx, QIR_FLOAT, w, outer, k, inner, got.codes,
			       got.scales, &got.g);
	ref_quant(w, outer, k, inner, want.codes, want.scales, &want.g);
	ok = tap_ok(rc == 0 && q_same(&got, &want),
		    "%s [%zu,%zu,%zu]: codes, scales, g = reference", what,
		    outer, k, inner);
	if (!ok)
		tap_diag("rc %d, g %a vs %a", rc, got.g, want.g);
	q_free(&want);
	if (out)
		*out = got;
	else
		q_free(&got);
	return ok;
}

/* Half the spacing of the E2M1 grid around |q|. */
static float half_gap(float q)
{
	q = fabsf(q);
	return q <= 2 ? 0.25f : q <= 4 ? 0.5f : 1.0f;
}

/* Dequantizes and checks every element against the format bound:
 * |deq - w| <= S * half_gap(w / S) when |w / S| <= 6 (nearest grid
 * point; slack for the two roundings), deq = +-6S beyond; and, for
 * blocks whose FP8 scale is normal, |deq - w| <= amax_blk/6 * 17/16. */
static void check_bound(const float *w, size_t outer, size_t k,
			size_t inner, const struct q *q, const char *what)
{
	size_t n = outer * k * inner, nb = k / B, bad = 0, subn = 0;
	float *y = malloc(n * sizeof(float));
	double worst = 0;
	int rc = qk_nvfp4_dequantize(NULL, q->codes, q->scales, q->g, outer, k,
				     inner, QIR_FLOAT, y);

	for (size_t e = 0; e < n && !rc; e++) {
		size_t row = e / inner, t = e % inner;
		size_t o = row / k, kb = (row % k) / B;
		uint8_t s = q->scales[(o * nb + kb) * inner + t];
		float S = qk_e4m3_to_f32(s) * q->g, qv = w[e] / S;
		double err = fabs((double)y[e] - w[e]), lim;

		if (!isfinite(y[e])) {
			bad++;
			continue;
		}
		/* slack: the roundings of w / S and of code * S */
		lim = (fabs(w[e]) + fabs(y[e])) * 0x1p-23;
		if (fabsf(qv) <= 6)
			lim += S * half_gap(qv);
		else
			lim += fabs(fabs((double)w[e]) - 6.0 * S);
		if (s >= 0x08) { /* normal scale: the block-relative bound */
			float bm = 0;

			for (size_t r = 0; r < B; r++) {
				size_t i = (o * k + kb * B + r) * inner + t;

				bm = fmaxf(bm, fabsf(w[i]));
			}
			if (err > bm / 6.0 * 17 / 16 * (1 + 1e-6) && bad++ < 5)
				tap_diag("%s: w %a deq %a amax_blk %a", what,
					 w[e], y[e], bm);
			if (bm > 0 && err / (bm / 6.0) > worst)
				worst = err / (bm / 6.0);
		} else if (e % (B * inner) == t) {
			subn++;
		}
		if (err > lim && bad++ < 5)
			tap_diag("%s: w %a deq %a S %a", what, w[e], y[e], S);
	}
	tap_ok(!rc && !bad, "%s: dequantized error within the E2M1 bound "
	       "(worst %.3f of amax_blk/6; %zu subnormal scales)", what, worst,
	       subn);
	free(y);
}

static float *gen(size_t n, int kind)
{
	float *w = malloc(n * sizeof(float));

	for (size_t i = 0; i < n; i++) {
		double v = kind == 0 ? kt_normal() * 0.02 :
			   kind == 1 ? kt_student(3) * 0.05 : kt_cauchy();
		w[i] = (float)v;
	}
	return w;
}

static void random_weights(qk_ctx *ctx)
{
	static const char *names[] = { "normal", "student-t(3)", "cauchy" };
	static const size_t shapes[][3] = { { 64, 256, 1 }, { 3, 64, 7 },
					    { 1, 128, 96 } };

	for (int kind = 0; kind < 3; kind++)
		for (int s = 0; s < 3; s++) {
			size_t o = shapes[s][0], k = shapes[s][1], in = shapes[s][2];
			float *w = gen(o * k * in, kind);
			struct q q;
			char what[64];

			snprintf(what, sizeof(what), "%s", names[kind]);
			if (check_ref(ctx, w, o, k, in, what, &q)) {
				snprintf(what, sizeof(what), "%s [%zu,%zu,%zu]",
					 names[kind], o, k, in);
				check_bound(w, o, k, in, &q, what);
			}
			q_free(&q);
			free(w);
		}
}

static void special_blocks(qk_ctx *ctx)
{
	float w[4 * B], zero[2 * B] = { 0 };
	struct q q;

	/* block 1 all zero, block 2 one huge outlier, block 3 tiny */
	for (int i = 0; i < 4 * B; i++)
		w[i] = (float)kt_normal();
	for (int i = B; i < 2 * B; i++)
		w[i] = 0;
	w[2 * B + 5] = 1e6f;
	if (check_ref(ctx, w, 1, 4 * B, 1, "zero block + outlier", &q)) {
		float y[4 * B];

		qk_nvfp4_dequantize(ctx, q.codes, q.scales, q.g, 1, 4 * B, 1,
				    QIR_FLOAT, y);
		tap_ok(q.scales[1] == 0x38 && !memcmp(q.codes + 8, "\0\0\0\0\0\0\0\0", 8),
		       "all-zero block: scale 1.0 (0x38), codes 0");
		tap_ok(q.scales[2] == 0x7E &&
		       fabsf(y[2 * B + 5] - 1e6f) <= 1e6f * 0x1p-20f,
		       "outlier block: scale 448 (0x7E), outlier kept (%g)",
		       y[2 * B + 5]);
		check_bound(w, 1, 4 * B, 1, &q, "zero block + outlier");
		q_free(&q);
	}
	/* FP8 underflow of a block scale: no division by zero */
	for (int i = 0; i < 2 * B; i++)
		w[i] = (i & 1 ? -1e-10f : 1e-10f);
	w[B] = 1e30f;
	if (check_ref(ctx, w, 1, 2 * B, 1, "scale underflow", &q)) {
		float y[2 * B];
		int fin = 1;

		qk_nvfp4_dequantize(ctx, q.codes, q.scales, q.g, 1, 2 * B, 1,
				    QIR_FLOAT, y);
		for (int i = 0; i < 2 * B; i++)
			fin &= isfinite(y[i]);
		tap_ok(q.scales[0] == 0x01 && fin && y[B] == 1e30f,
		       "scale rounding to 0 gets 0x01; output finite");
		q_free(&q);
	}
	q_alloc(&q, 2 * B);
	tap_ok(qk_nvfp4_quantize(ctx, QIR_FLOAT, zero, 1, 2 * B, 1, q.codes,
				 q.scales, &q.g) == 0 && q.g == 1.0f &&
	       q.scales[0] == 0x38 && q.scales[1] == 0x38 && q.codes[0] == 0,
	       "all-zero tensor: g = 1, scales 0x38");
	zero[3] = 1e-40f; /* g would be subnormal */
	tap_ok(qk_nvfp4_quantize(ctx, QIR_FLOAT, zero, 1, 2 * B, 1, q.codes,
				 q.scales, &q.g) == 0 && q.g == FLT_MIN,
	       "tiny amax: g held at FLT_MIN");
	zero[3] = NAN;
	zero[4] = 2.0f;
	tap_ok(qk_nvfp4_quantize(ctx, QIR_FLOAT, zero, 1, 2 * B, 1, q.codes,
				 q.scales, &q.g) == 0 &&
	       q.g == 2.0f / 2688.0f && q.codes[1] >> 4 == 0x7,
	       "NaN ignored by amax, encoded 0x7 (ONNX's E2M1 cast)");
	zero[3] = INFINITY;
	tap_ok(qk_nvfp4_quantize(ctx, QIR_FLOAT, zero, 1, 2 * B, 1, q.codes,
				 q.scales, &q.g) == QOPT_EINVALID_NONFINITE,
	       "inf in the weights: QOPT_EINVALID_NONFINITE");
	q_free(&q);
}

static void shapes_and_errors(qk_ctx *ctx)
{
	size_t n = 3 * 16 * 1023;
	float *w = gen(n, 1);
	struct q q;

	check_ref(ctx, w, 1, 16, 1, "K = 16", NULL);
	check_ref(ctx, w, 7, 16, 3, "K = 16", NULL);
	check_ref(ctx, w, 3, 16 * 1023, 1, "K = 16*1023", NULL);
	check_ref(ctx, w, 1, 16 * 1023, 3, "K = 16*1023", NULL);
	q_alloc(&q, n);
	tap_ok(qk_nvfp4_quantize(ctx, QIR_FLOAT, w, 1, 15, 1, q.codes, q.scales,
				 &q.g) == QK_EBLOCK &&
	       qk_nvfp4_quantize(ctx, QIR_FLOAT, w, 2, 17, 3, q.codes, q.scales,
				 &q.g) == QK_EBLOCK &&
	       qk_nvfp4_quantize(ctx, QIR_FLOAT, w, 1, 24, 1, q.codes, q.scales,
				 &q.g) == QK_EBLOCK &&
	       qk_nvfp4_dequantize(ctx, q.codes, q.scales, 1, 1, 24, 1,
				   QIR_FLOAT, w) == QK_EBLOCK,
	       "K not a multiple of 16: QK_EBLOCK");
	tap_ok(qk_nvfp4_quantize(ctx, QIR_INT8, w, 1, 16, 1, q.codes, q.scales,
				 &q.g) == QK_EDTYPE &&
	       qk_nvfp4_quantize(ctx, QIR_FLOAT, w, 1, 16, 1, q.codes, q.scales,
				 NULL) == QK_EINVAL &&
	       qk_nvfp4_quantize(ctx, QIR_FLOAT, NULL, 1, 16, 1, q.codes,
				 q.scales, &q.g) == QK_EINVAL,
	       "bad dtype or NULL buffers refused");
	q_free(&q);
	free(w);
}

/* FLOAT16 / BFLOAT16 weights of shape [o, k, in] quantize like their
 * FLOAT values: K not last with an inner axis over one column chunk
 * (256) and a short last one, even and odd (rows then start on either
 * nibble), with NaNs (quiet and signaling), subnormals and zeros,
 * which the FLOAT16 fast path (F16C) must read like qk_f16_to_f32. */
static void other_dtypes_wide(qk_ctx *ctx)
{
	static const size_t shapes[][3] = { { 2, 32, 300 }, { 1, 32, 515 },
					    { 3, 16, 256 } };
	static const uint16_t special[2][6] = {
		{ 0x7e00, 0x7c01, 0xfd55, 0x0001, 0x83ff, 0x8000 },
		{ 0x7fc0, 0x7f81, 0xffa0, 0x0001, 0x807f, 0x8000 },
	};
	int dts[2] = { QIR_FLOAT16, QIR_BFLOAT16 };

	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		size_t o = shapes[s][0], k = shapes[s][1], in = shapes[s][2];
		size_t n = o * k * in;
		float *w = gen(n, 1), *wf = malloc(n * 4);
		uint16_t *h = malloc(n * 2);

		for (int d = 0; d < 2; d++) {
			struct q got, want;

			for (size_t i = 0; i < n; i++) {
				h[i] = d ? qk_f32_to_bf16(w[i]) : qk_f32_to_f16(w[i]);
				if (i % 97 < 6)
					h[i] = special[d][i % 97];
				wf[i] = d ? qk_bf16_to_f32(h[i]) : qk_f16_to_f32(h[i]);
			}
			q_alloc(&got, n);
			q_alloc(&want, n);
			ref_quant(wf, o, k, in, want.codes, want.scales, &want.g);
			tap_ok(qk_nvfp4_quantize(ctx, dts[d], h, o, k, in,
						 got.codes, got.scales,
						 &got.g) == 0 &&
			       q_same(&got, &want),
			       "%s [%zu,%zu,%zu] with NaN and subnormals = FLOAT reference",
			       d ? "BFLOAT16" : "FLOAT16", o, k, in);
			q_free(&got);
			q_free(&want);
		}
		free(w);
		free(wf);
		free(h);
	}
}

/* FLOAT16 / BFLOAT16 weights quantize like their FLOAT values; the
 * dequantizer writes every real type as the rounded FLOAT result. */
static void other_dtypes(qk_ctx *ctx)
{
	size_t n = 8 * 64 * 3;
	float *w = gen(n, 1), *wf = malloc(n * 4), *y = malloc(n * 4);
	uint16_t *h = malloc(n * 2), *yh = malloc(n * 2);
	int dts[2] = { QIR_FLOAT16, QIR_BFLOAT16 };

	for (int d = 0; d < 2; d++) {
		struct q got, want;
		int bad = 0;

		for (size_t i = 0; i < n; i++) {
			h[i] = d ? qk_f32_to_bf16(w[i]) : qk_f32_to_f16(w[i]);
			wf[i] = d ? qk_bf16_to_f32(h[i]) : qk_f16_to_f32(h[i]);
		}
		q_alloc(&got, n);
		q_alloc(&want, n);
		ref_quant(wf, 8, 64, 3, want.codes, want.scales, &want.g);
		tap_ok(qk_nvfp4_quantize(ctx, dts[d], h, 8, 64, 3, got.codes,
					 got.scales, &got.g) == 0 &&
		       q_same(&got, &want),
		       "%s weights = FLOAT reference", d ? "BFLOAT16" : "FLOAT16");
		qk_nvfp4_dequantize(ctx, got.codes, got.scales, got.g, 8, 64, 3,
				    QIR_FLOAT, y);
		qk_nvfp4_dequantize(ctx, got.codes, got.scales, got.g, 8, 64, 3,
				    dts[d], yh);
		for (size_t i = 0; i < n; i++) {
			uint16_t e = d ? qk_f32_to_bf16(y[i]) : qk_f32_to_f16(y[i]);
			size_t row = i / 3, t = i % 3;
			size_t s = (row / B) * 3 + t;
			float S = qk_e4m3_to_f32(got.scales[s]) * got.g;
			float c = qk_e2m1_to_f32((got.codes[i / 2] >> (i & 1 ? 4 : 0)) & 0xF);

			bad += yh[i] != e || !kt_same(y[i], c * S);
		}
		tap_ok(!bad, "dequantize to FLOAT and %s = code * (e4m3(s) * g)",
		       d ? "BFLOAT16" : "FLOAT16");
		q_free(&got);
		q_free(&want);
	}
	free(w);
	free(wf);
	free(y);
	free(h);
	free(yh);
}

/* Dequantization with inner > 1 runs over a tile's columns in runs of
 * QKI_CHUNK (256), whole bytes at a time when the run starts on an even
 * element: inner 300 (a second, short run), 2 (tiny even) and 257 (odd:
 * runs start on odd elements), each against code * (e4m3(s) * g). */
static void dequantize_inner(qk_ctx *ctx)
{
	static const size_t inners[] = { 300, 2, 257 };

	for (int v = 0; v < 3; v++) {
		size_t o = 3, k = 2 * B, in = inners[v], n = o * k * in;
		float *w = gen(n, 1), *y = malloc(n * 4);
		uint16_t *yh = malloc(n * 2);
		struct q q;
		int bad = 0;

		q_alloc(&q, n);
		bad += qk_nvfp4_quantize(ctx, QIR_FLOAT, w, o, k, in, q.codes,
					 q.scales, &q.g) != 0;
		bad += qk_nvfp4_dequantize(ctx, q.codes, q.scales, q.g, o, k,
					   in, QIR_FLOAT, y) != 0;
		bad += qk_nvfp4_dequantize(ctx, q.codes, q.scales, q.g, o, k,
					   in, QIR_FLOAT16, yh) != 0;
		for (size_t i = 0; i < n; i++) {
			size_t row = i / in, t = i % in;
			size_t s = (row / B) * in + t;
			float S = qk_e4m3_to_f32(q.scales[s]) * q.g;
			float c = qk_e2m1_to_f32((q.codes[i / 2] >>
						  (i & 1 ? 4 : 0)) & 0xF);

			bad += !kt_same(y[i], c * S) ||
			       yh[i] != qk_f32_to_f16(c * S);
		}
		tap_ok(!bad, "[%zu,%zu,%zu]: dequantize to FLOAT and FLOAT16 = "
		       "code * (e4m3(s) * g)", o, k, in);
		q_free(&q);
		free(w);
		free(y);
		free(yh);
	}
}

static void threads(void)
{
	static const size_t shapes[][3] = { { 512, 2048, 1 }, { 4, 1024, 250 } };

	for (int s = 0; s < 2; s++) {
		size_t o = shapes[s][0], k = shapes[s][1], in = shapes[s][2];
		size_t n = o * k * in;
		float *w = gen(n, 1), *y1 = malloc(n * 4), *y2 = malloc(n * 4);
		struct q base;
		int same = 1;

		q_alloc(&base, n);
		{
			qk_ctx *c1 = qk_ctx_new(QK_DEVICE_CPU, 1);

			qk_nvfp4_quantize(c1, QIR_FLOAT, w, o, k, in, base.codes,
					  base.scales, &base.g);
			qk_nvfp4_dequantize(c1, base.codes, base.scales, base.g,
					    o, k, in, QIR_FLOAT, y1);
			qk_ctx_free(c1);
		}
		for (int t = 2; t <= 8; t = t * 2 - 1) { /* 2, 3, 5 */
			qk_ctx *c = qk_ctx_new(QK_DEVICE_CPU, t);
			struct q q;

			q_alloc(&q, n);
			qk_nvfp4_quantize(c, QIR_FLOAT, w, o, k, in, q.codes,
					  q.scales, &q.g);
			qk_nvfp4_dequantize(c, q.codes, q.scales, q.g, o, k, in,
					    QIR_FLOAT, y2);
			same &= q_same(&q, &base) && !memcmp(y1, y2, n * 4);
			q_free(&q);
			qk_ctx_free(c);
		}
		tap_ok(same, "[%zu,%zu,%zu]: same bytes with 1, 2, 3, 5 threads",
		       o, k, in);
		q_free(&base);
		free(w);
		free(y1);
		free(y2);
	}
}

/* qk_nvfp4_quantize_gscale: with the weight's own global scale it is
 * qk_nvfp4_quantize (both layouts); with a smaller one, blocks over
 * 2688 g saturate (scale 448, codes +-6); a global scale that is not a
 * positive normal finite float is refused. */
static void given_gscale(qk_ctx *ctx)
{
	size_t n = 4 * 64 * 3;
	float *w = gen(n, 3), g, amax = 0;
	struct q a, b;
	size_t i;
	int same = 1, sat = 1;

	q_alloc(&a, n);
	q_alloc(&b, n);
	for (i = 0; i < n; i++)
		amax = fabsf(w[i]) > amax ? fabsf(w[i]) : amax;
	g = qk_nvfp4_gscale(amax);
	same &= !qk_nvfp4_quantize(ctx, QIR_FLOAT, w, 4, 64, 3, a.codes,
				   a.scales, &a.g) &&
		!qk_nvfp4_quantize_gscale(ctx, QIR_FLOAT, w, 4, 64, 3, g,
					  b.codes, b.scales) &&
		a.g == g && !memcmp(a.codes, b.codes, n / 2) &&
		!memcmp(a.scales, b.scales, n / 16);
	same &= !qk_nvfp4_quantize(ctx, QIR_FLOAT, w, 12, 64, 1, a.codes,
				   a.scales, &a.g) &&
		!qk_nvfp4_quantize_gscale(ctx, QIR_FLOAT, w, 12, 64, 1, g,
					  b.codes, b.scales) &&
		!memcmp(a.codes, b.codes, n / 2) &&
		!memcmp(a.scales, b.scales, n / 16);
	tap_ok(same, "given gscale = the weight's own: qk_nvfp4_quantize's bytes");
	/* g far below the weight's: every block over 2688 g saturates */
	sat &= !qk_nvfp4_quantize_gscale(ctx, QIR_FLOAT, w, 12, 64, 1,
					 g / 1e4f, b.codes, b.scales);
	for (i = 0; i < n / 16; i++) {
		float m = 0;
		size_t j;

		for (j = 0; j < 16; j++)
			m = fabsf(w[i * 16 + j]) > m ? fabsf(w[i * 16 + j]) : m;
		if (m > 2688 * (g / 1e4f))
			sat &= b.scales[i] == 0x7e;
	}
	tap_ok(sat, "blocks over 2688 g: scale 448 (0x7e)");
	tap_ok(qk_nvfp4_quantize_gscale(ctx, QIR_FLOAT, w, 12, 64, 1, 0.0f,
					b.codes, b.scales) == QK_EINVAL &&
	       qk_nvfp4_quantize_gscale(ctx, QIR_FLOAT, w, 12, 64, 1, -1.0f,
					b.codes, b.scales) == QK_EINVAL &&
	       qk_nvfp4_quantize_gscale(ctx, QIR_FLOAT, w, 12, 64, 1, NAN,
					b.codes, b.scales) == QK_EINVAL &&
	       qk_nvfp4_quantize_gscale(ctx, QIR_FLOAT, w, 12, 64, 1, INFINITY,
					b.codes, b.scales) == QK_EINVAL &&
	       qk_nvfp4_quantize_gscale(ctx, QIR_FLOAT, w, 12, 64, 1, 1e-39f,
					b.codes, b.scales) == QK_EINVAL &&
	       qk_nvfp4_gscale(0) == 1.0f && qk_nvfp4_gscale(2688) == 1.0f,
	       "gscale 0, negative, NaN, inf, subnormal: QK_EINVAL; "
	       "qk_nvfp4_gscale(0) = 1");
	q_free(&a);
	q_free(&b);
	free(w);
}

int main(void)
{
	qk_ctx *ctx;

	unsetenv("QOPT_DEVICE"); /* these test the CPU kernels */
	ctx = qk_ctx_new(QK_DEVICE_CPU, 0);

	kt_seed(4);
	random_weights(ctx);
	special_blocks(ctx);
	shapes_and_errors(ctx);
	given_gscale(ctx);
	other_dtypes(ctx);
	other_dtypes_wide(ctx);
	dequantize_inner(ctx);
	threads();
	qk_ctx_free(ctx);
	return tap_done();
}

/*
 * tests/kernels/fp8.c - FP8 QuantizeLinear / DequantizeLinear arrays:
 * per-tensor, per-axis and blocked scales on [outer, axis, inner]
 * against an element-wise reference (q = fp8(x / s), y = fp8 * s), both
 * FP8 formats, both saturation modes, FLOAT16/BFLOAT16 on either side,
 * argument errors and thread-count independence.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qopt/dtype.h"
#include "qopt/kernels.h"
#include "../lib/tap.h"
#include "util.h"

static const char *mode_name[] = { "tensor", "axis", "block" };

static size_t nscales(const qk_qlayout *l)
{
	size_t nb = l->mode == QK_SCALE_BLOCK ? (l->axis + l->block - 1) / l->block : 0;

	return l->mode == QK_SCALE_TENSOR ? 1 :
	       l->mode == QK_SCALE_AXIS ? l->axis : l->outer * nb * l->inner;
}

static float scale_of(const qk_qlayout *l, const float *s, size_t i)
{
	size_t t = i % l->inner, row = i / l->inner, a = row % l->axis;
	size_t o = row / l->axis, nb = l->mode == QK_SCALE_BLOCK ?
		(l->axis + l->block - 1) / l->block : 0;

	if (l->mode == QK_SCALE_TENSOR)
		return s[0];
	if (l->mode == QK_SCALE_AXIS)
		return s[a];
	return s[(o * nb + a / l->block) * l->inner + t];
}

static uint8_t ref_q(int fmt, float x, int sat)
{
	return fmt == QIR_FLOAT8E4M3FN ? qk_f32_to_e4m3(x, sat) :
					 qk_f32_to_e5m2(x, sat);
}

static float ref_v(int fmt, uint8_t c)
{
	return fmt == QIR_FLOAT8E4M3FN ? qk_e4m3_to_f32(c) : qk_e5m2_to_f32(c);
}

/* Arithmetic NaN results are the canonical quiet NaN (kernels.h). */
static float canon(float y)
{
	return isnan(y) ? kt_float(0x7fc00000u) : y;
}

static void one(qk_ctx *ctx, int fmt, qk_qlayout l, int sat)
{
	size_t n = l.outer * l.axis * l.inner, ns = nscales(&l);
	float *x = malloc(n * 4), *s = malloc(ns * 4), *y = malloc(n * 4);
	uint16_t *h = malloc(n * 2), *yh = malloc(n * 2);
	uint8_t *q = malloc(n), *qh = malloc(n);
	int okq = 1, okd = 1, okh = 1;
	float range = fmt == QIR_FLOAT8E4M3FN ? 448 : 57344;

	for (size_t i = 0; i < ns; i++)
		s[i] = (float)(fabs(kt_normal()) + 0.01) * (i % 7 + 1);
	for (size_t i = 0; i < n; i++)
		x[i] = (float)(kt_student(2) * range / 8); /* some overflow */
	if (n > 3) {
		x[0] = NAN;
		x[1] = -INFINITY;
		x[2] = -0.0f;
	}
	int rq = qk_fp8_quantize(ctx, fmt, q, QIR_FLOAT, x, s, &l, sat);
	int rd = qk_fp8_dequantize(ctx, QIR_FLOAT, y, fmt, q, s, &l);

	for (size_t i = 0; i < n; i++) {
		float sc = scale_of(&l, s, i);
		uint8_t want = ref_q(fmt, x[i] / sc, sat);

		okq &= q[i] == want;
		okd &= kt_bits(y[i]) == kt_bits(canon(ref_v(fmt, q[i]) * sc));
	}
	tap_ok(!rq && okq, "%s %s scales [%zu,%zu,%zu]%s sat=%d: quantize = "
	       "fp8(x / s)", fmt == QIR_FLOAT8E4M3FN ? "E4M3" : "E5M2",
	       mode_name[l.mode], l.outer, l.axis, l.inner,
	       l.mode == QK_SCALE_BLOCK ? " (block)" : "", sat);
	tap_ok(!rd && okd, "... dequantize = fp8 * s (NaN canonical)");
	/* FLOAT16 in, FLOAT16 out: the same through the FLOAT16 values */
	for (size_t i = 0; i < n; i++)
		h[i] = qk_f32_to_f16(x[i]);
	qk_fp8_quantize(ctx, fmt, qh, QIR_FLOAT16, h, s, &l, sat);
	qk_fp8_dequantize(ctx, QIR_FLOAT16, yh, fmt, qh, s, &l);
	for (size_t i = 0; i < n; i++) {
		float sc = scale_of(&l, s, i);

		okh &= qh[i] == ref_q(fmt, qk_f16_to_f32(h[i]) / sc, sat) &&
		       yh[i] == qk_f32_to_f16(canon(ref_v(fmt, qh[i]) * sc));
	}
	tap_ok(okh, "... FLOAT16 source and destination");
	free(x);
	free(s);
	free(y);
	free(h);
	free(yh);
	free(q);
	free(qh);
}

static void errors(qk_ctx *ctx)
{
	float x[4] = { 1, 2, 3, 4 }, s = 1;
	uint8_t q[4];
	qk_qlayout l = { 1, 4, 1, QK_SCALE_BLOCK, 0 };

	tap_ok(qk_fp8_quantize(ctx, QIR_FLOAT8E4M3FN, q, QIR_FLOAT, x, &s, &l, 1) ==
		       QK_EINVAL,
	       "blocked layout with block 0: QK_EINVAL");
	l.mode = QK_SCALE_TENSOR;
	tap_ok(qk_fp8_quantize(ctx, QIR_FLOAT8E4M3FNUZ, q, QIR_FLOAT, x, &s, &l,
			       1) == QK_EDTYPE &&
	       qk_fp8_quantize(ctx, QIR_FLOAT8E4M3FN, q, QIR_INT8, x, &s, &l,
			       1) == QK_EDTYPE &&
	       qk_fp8_dequantize(ctx, QIR_DOUBLE, x, QIR_FLOAT8E5M2, q, &s, &l) ==
		       QK_EDTYPE,
	       "FNUZ formats and non-float sides: QK_EDTYPE");
	tap_ok(qk_fp8_quantize(ctx, QIR_FLOAT8E4M3FN, q, QIR_FLOAT, x, NULL, &l,
			       1) == QK_EINVAL &&
	       qk_fp8_quantize(ctx, QIR_FLOAT8E4M3FN, q, QIR_FLOAT, x, &s, NULL,
			       1) == QK_EINVAL,
	       "NULL scales or layout: QK_EINVAL");
	l.mode = (qk_scale_mode)7;
	tap_ok(qk_fp8_quantize(ctx, QIR_FLOAT8E4M3FN, q, QIR_FLOAT, x, &s, &l,
			       1) == QK_EINVAL, "unknown scale mode: QK_EINVAL");
}

/* NaN from arithmetic is defined, not left to the hardware: a NaN input
 * keeps its sign, a NaN made by the division is positive, dequantized
 * NaN is the canonical quiet NaN. */
static void nan_rules(qk_ctx *ctx)
{
	float x[4] = { -NAN, 0.0f, INFINITY, 1.0f }, s[4] = { 1, 0, INFINITY, NAN };
	float y[4];
	uint8_t q[4], c[2] = { 0xFF, 0x7F };
	qk_qlayout l = { 1, 4, 1, QK_SCALE_AXIS, 0 };
	qk_qlayout l2 = { 1, 2, 1, QK_SCALE_TENSOR, 0 };

	qk_fp8_quantize(ctx, QIR_FLOAT8E4M3FN, q, QIR_FLOAT, x, s, &l, 1);
	tap_ok(q[0] == 0xFF && q[1] == 0x7F && q[2] == 0x7F && q[3] == 0x7F,
	       "quantize: -NaN -> 0xFF; 0/0, inf/inf, x/NaN -> 0x7F");
	qk_fp8_quantize(ctx, QIR_FLOAT8E5M2, q, QIR_FLOAT, x, s, &l, 0);
	tap_ok(q[0] == 0xFF && q[1] == 0x7F && q[2] == 0x7F && q[3] == 0x7F,
	       "E5M2 likewise");
	qk_fp8_dequantize(ctx, QIR_FLOAT, y, QIR_FLOAT8E4M3FN, c, s, &l2);
	tap_ok(kt_bits(y[0]) == 0x7fc00000u && kt_bits(y[1]) == 0x7fc00000u,
	       "dequantize: NaN codes give the canonical NaN 0x7fc00000");
}

static void threads(void)
{
	qk_qlayout l = { 64, 96, 1000, QK_SCALE_BLOCK, 32 };
	size_t n = 64 * 96 * 1000, ns = nscales(&l);
	float *x = malloc(n * 4), *s = malloc(ns * 4);
	uint8_t *q1 = malloc(n), *q2 = malloc(n);
	float *y1 = malloc(n * 4), *y2 = malloc(n * 4);
	qk_ctx *c1 = qk_ctx_new(QK_DEVICE_CPU, 1);
	int same = 1;

	for (size_t i = 0; i < n; i++)
		x[i] = (float)kt_normal();
	for (size_t i = 0; i < ns; i++)
		s[i] = 0.001f * (float)(i % 13 + 1);
	qk_fp8_quantize(c1, QIR_FLOAT8E4M3FN, q1, QIR_FLOAT, x, s, &l, 1);
	qk_fp8_dequantize(c1, QIR_FLOAT, y1, QIR_FLOAT8E4M3FN, q1, s, &l);
	for (int t = 2; t <= 5; t += 3) {
		qk_ctx *c = qk_ctx_new(QK_DEVICE_CPU, t);

		qk_fp8_quantize(c, QIR_FLOAT8E4M3FN, q2, QIR_FLOAT, x, s, &l, 1);
		qk_fp8_dequantize(c, QIR_FLOAT, y2, QIR_FLOAT8E4M3FN, q2, s, &l);
		same &= !memcmp(q1, q2, n) && !memcmp(y1, y2, n * 4);
		qk_ctx_free(c);
	}
	tap_ok(same, "blocked FP8: same bytes with 1, 2 and 5 threads");
	qk_ctx_free(c1);
	free(x);
	free(s);
	free(q1);
	free(q2);
	free(y1);
	free(y2);
}

int main(void)
{
	static const int fmts[] = { QIR_FLOAT8E4M3FN, QIR_FLOAT8E5M2 };
	qk_ctx *ctx;

	unsetenv("QOPT_DEVICE"); /* these test the CPU kernels */
	ctx = qk_ctx_new(QK_DEVICE_CPU, 0);

	kt_seed(3);
	for (int f = 0; f < 2; f++)
		for (int sat = 1; sat >= 0; sat--) {
			one(ctx, fmts[f], (qk_qlayout){ 1, 100003, 1, QK_SCALE_TENSOR, 0 }, sat);
			one(ctx, fmts[f], (qk_qlayout){ 3, 77, 1, QK_SCALE_AXIS, 0 }, sat);
			one(ctx, fmts[f], (qk_qlayout){ 5, 64, 33, QK_SCALE_AXIS, 0 }, sat);
			one(ctx, fmts[f], (qk_qlayout){ 4, 100, 1, QK_SCALE_BLOCK, 32 }, sat);
			one(ctx, fmts[f], (qk_qlayout){ 2, 45, 19, QK_SCALE_BLOCK, 16 }, sat);
		}
	one(ctx, QIR_FLOAT8E4M3FN, (qk_qlayout){ 300, 1024, 1, QK_SCALE_AXIS, 0 }, 1);
	errors(ctx);
	nan_rules(ctx);
	threads();
	qk_ctx_free(ctx);
	return tap_done();
}

/*
 * tests/kernels/int8.c - qk_int8_quantize / qk_int8_dequantize against
 * a reference written here from the definition (docs/int8.md): x / s in
 * FP32, rounded half to even (rintf in the default rounding mode),
 * clamped to [-127, 127], NaN -> 0; y = q * s. Ties, saturation, NaN
 * and inf, FLOAT16 and BFLOAT16 inputs, every scale layout, several
 * threads, bad arguments.
 */
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qopt/qopt.h>
#include "../lib/tap.h"
#include "util.h"

static int8_t ref_q(float x, float s)
{
	float v = x / s;

	if (isnan(v))
		return 0;
	v = rintf(v);
	return (int8_t)(v > 127 ? 127 : v < -127 ? -127 : v);
}

/* The scale of element i under lay (per tensor, axis or block). */
static float ref_scale(const qk_qlayout *l, const float *s, size_t i)
{
	size_t row = i / l->inner, t = i % l->inner, a = row % l->axis;
	size_t o = row / l->axis, nb;

	if (l->mode == QK_SCALE_TENSOR)
		return s[0];
	if (l->mode == QK_SCALE_AXIS)
		return s[a];
	nb = (l->axis + l->block - 1) / l->block;
	return s[(o * nb + a / l->block) * l->inner + t];
}

static int scalars(qk_ctx *c)
{
	static const float x[] = { 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f,
		126.5f, 127.49f, 127.5f, 1000.f, -127.5f, -128.f, -1e30f,
		NAN, -NAN, INFINITY, -INFINITY, -0.0f, 0.49999997f };
	static const int8_t want[] = { 0, 2, 2, 0, -2, -2, 126, 127, 127,
		127, -127, -127, -127, 0, 0, 127, -127, 0, 0 };
	size_t n = sizeof(x) / sizeof(x[0]), i;
	int8_t q[sizeof(x) / sizeof(x[0])];
	const float one = 1.0f;
	qk_qlayout lay = { 1, n, 1, QK_SCALE_TENSOR, 0 };
	int bad = 0;

	if (qk_int8_quantize(c, q, QIR_FLOAT, x, &one, &lay))
		return -1;
	for (i = 0; i < n; i++)
		if (q[i] != want[i]) {
			tap_diag("x = %g: code %d, want %d", x[i], q[i], want[i]);
			bad++;
		}
	return bad;
}

/* Random inputs of dtype dt, scales of layout l: codes and values equal
 * the reference's. */
static int random_case(qk_ctx *c, int dt, qk_qlayout *l, size_t nscales)
{
	size_t n = l->outer * l->axis * l->inner, i, bad = 0;
	float *x = malloc(n * sizeof(float)), *s = malloc(nscales * 4);
	float *y = malloc(n * sizeof(float));
	uint16_t *h = malloc(n * 2);
	int8_t *q = malloc(n);
	const void *src = x;

	if (!x || !s || !y || !h || !q)
		return -1;
	for (i = 0; i < nscales; i++)
		s[i] = (float)(kt_unif() * 0.1 + 1e-3);
	for (i = 0; i < n; i++) {
		/* about a third land on an exact tie, some saturate */
		double v = kt_normal() * 60;

		x[i] = (float)(i % 3 ? v : floor(v) + 0.5) *
		       ref_scale(l, s, i);
		if (dt == QIR_FLOAT16)
			x[i] = qk_f16_to_f32(h[i] = qk_f32_to_f16(x[i]));
		else if (dt == QIR_BFLOAT16)
			x[i] = qk_bf16_to_f32(h[i] = qk_f32_to_bf16(x[i]));
	}
	if (dt != QIR_FLOAT)
		src = h;
	if (qk_int8_quantize(c, q, dt, src, s, l) ||
	    qk_int8_dequantize(c, QIR_FLOAT, y, q, s, l))
		bad = n;
	for (i = 0; !bad && i < n; i++) {
		float sc = ref_scale(l, s, i);

		if (q[i] != ref_q(x[i], sc) || !kt_same(y[i], q[i] * sc))
			bad++;
	}
	free(x);
	free(s);
	free(y);
	free(h);
	free(q);
	return (int)bad;
}

int main(void)
{
	qk_ctx *c = qk_ctx_new(QK_DEVICE_CPU, 1), *c4 = qk_ctx_new(QK_DEVICE_CPU, 4);
	qk_qlayout axis0 = { 1, 16, 300, QK_SCALE_AXIS, 0 };
	qk_qlayout axis1 = { 300, 16, 1, QK_SCALE_AXIS, 0 };
	qk_qlayout tensor = { 1, 70001, 1, QK_SCALE_TENSOR, 0 };
	qk_qlayout block = { 3, 100, 5, QK_SCALE_BLOCK, 32 };
	qk_qlayout big = { 1, 64, 20000, QK_SCALE_AXIS, 0 };
	const int dts[] = { QIR_FLOAT, QIR_FLOAT16, QIR_BFLOAT16 };
	const float one = 1.0f;
	float x = 1, y = 0;
	int8_t q = 0;
	int k, bad = 0;

	fesetround(FE_TONEAREST);
	kt_seed(8);
	tap_ok(scalars(c) == 0, "ties to even, saturation to +-127 (never -128), "
	       "NaN -> 0, inf saturated");
	for (k = 0; k < 3; k++)
		bad += random_case(c, dts[k], &axis0, 16) +
		       random_case(c, dts[k], &axis1, 16);
	tap_ok(bad == 0, "per axis (outer and inner runs), FLOAT, FLOAT16 and "
	       "BFLOAT16: codes and values equal the reference's (%d differ)",
	       bad);
	tap_ok(random_case(c, QIR_FLOAT, &tensor, 1) == 0 &&
	       random_case(c, QIR_FLOAT, &block, 3 * 4 * 5) == 0,
	       "per tensor and blocked scales");
	tap_ok(random_case(c4, QIR_FLOAT, &big, 64) == 0,
	       "on 4 threads: the same codes");
	tensor.axis = 1;
	tap_ok(qk_int8_quantize(c, &q, QIR_INT8, &x, &one, &tensor) ==
		       QK_EDTYPE &&
	       qk_int8_dequantize(c, QIR_INT8, &y, &q, &one, &tensor) ==
		       QK_EDTYPE,
	       "a non-float real side is QK_EDTYPE");
	tap_ok(qk_int8_quantize(c, NULL, QIR_FLOAT, &x, &one, &tensor) ==
		       QK_EINVAL &&
	       qk_int8_quantize(c, &q, QIR_FLOAT, &x, &one, NULL) == QK_EINVAL,
	       "a NULL buffer or layout is QK_EINVAL");
	block.block = 0;
	tap_ok(qk_int8_quantize(c, &q, QIR_FLOAT, &x, &one, &block) ==
	       QK_EINVAL, "a block layout of block 0 is QK_EINVAL");
	qk_ctx_free(c);
	qk_ctx_free(c4);
	return tap_done();
}

/*
 * tests/kernels/cuda.c - CUDA against CPU, bit for bit, for every array
 * kernel and the layouts that take different GPU code paths. Skipped
 * (TAP "1..0 # SKIP") when no usable CUDA device is there; the reason
 * comes from the library.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qopt/dtype.h"
#include "qopt/kernels.h"
#include "../lib/tap.h"
#include "util.h"

static qk_ctx *cpu, *gpu;

static size_t dt_size(int dt)
{
	return dt == QIR_FLOAT ? 4 : dt == QIR_FLOAT16 || dt == QIR_BFLOAT16 ? 2 : 1;
}

/* Random bytes: every bit pattern, NaN and inf included. */
static void *rand_bytes(size_t n)
{
	uint8_t *p = malloc(n + 8);

	for (size_t i = 0; i < n; i += 4) {
		uint32_t u = kt_u32();

		memcpy(p + i, &u, 4);
	}
	return p;
}

/* FLOAT16 +-inf (Cauchy values past 65504) to +-65504: NVFP4 refuses
 * inf, and the comparison must not be of two QOPT_EINVALID_NONFINITE. */
static void *finite16(int dt, void *p, size_t n)
{
	uint16_t *h = p;

	for (size_t i = 0; dt == QIR_FLOAT16 && i < n; i++)
		if ((h[i] & 0x7fffu) == 0x7c00u)
			h[i] = (uint16_t)(h[i] - 1);
	return p;
}

/* Random weights of a real dtype: heavy-tailed, a few NaN. */
static void *rand_real(int dt, size_t n)
{
	void *p = malloc(n * dt_size(dt) + 8);

	for (size_t i = 0; i < n; i++) {
		float v = (float)kt_cauchy();

		if (i % 9973 == 5)
			v = NAN;
		if (dt == QIR_FLOAT)
			((float *)p)[i] = v;
		else
			((uint16_t *)p)[i] = dt == QIR_FLOAT16 ? qk_f32_to_f16(v) :
								qk_f32_to_bf16(v);
	}
	return p;
}

static int calls_ok(void)
{
	return qk_ctx_stats(gpu)->cuda_calls > 0 &&
	       qk_ctx_stats(gpu)->cuda_fallbacks == 0;
}

static void convert(void)
{
	static const int dts[] = { QIR_FLOAT, QIR_FLOAT16, QIR_BFLOAT16,
				   QIR_FLOAT8E4M3FN, QIR_FLOAT8E5M2 };
	size_t n = (1u << 20) + 3;
	int bad = 0, runs = 0;

	for (int a = 0; a < 5; a++)
		for (int b = 0; b < 5; b++) {
			void *src, *y1, *y2;

			if (a >= 3 && b >= 3)
				continue;
			src = rand_bytes(n * 4);
			y1 = calloc(n, 4);
			y2 = calloc(n, 4);
			runs++;
			/* a == b included: random FLOAT16/BFLOAT16 bits hold
			 * signaling NaNs, which a copy must keep (a decode and
			 * re-encode would quiet them) */
			if (qk_convert(cpu, dts[b], y1, dts[a], src, n) ||
			    qk_convert(gpu, dts[b], y2, dts[a], src, n) ||
			    memcmp(y1, y2, n * dt_size(dts[b]))) {
				tap_diag("convert %d -> %d differs", dts[a], dts[b]);
				bad++;
			}
			free(src);
			free(y1);
			free(y2);
		}
	tap_ok(!bad && calls_ok(), "convert: %d type pairs, all bit patterns", runs);
}

static void amax(void)
{
	size_t n = 5000011;
	float *x = rand_real(QIR_FLOAT, n), a1, a2, *o1, *o2;
	int ok;

	ok = !qk_amax(cpu, QIR_FLOAT, x, n, &a1) &&
	     !qk_amax(gpu, QIR_FLOAT, x, n, &a2) && kt_bits(a1) == kt_bits(a2);
	tap_ok(ok, "amax (%g)", a1);
	o1 = malloc(n * 4);
	o2 = malloc(n * 4);
	ok = !qk_amax_blocks(cpu, QIR_FLOAT, x, 7, 1000, 713, 16, o1) &&
	     !qk_amax_blocks(gpu, QIR_FLOAT, x, 7, 1000, 713, 16, o2) &&
	     !memcmp(o1, o2, 7 * 63 * 713 * 4);
	ok &= !qk_amax_blocks(cpu, QIR_FLOAT16, x, 3000, 200, 1, 32, o1) &&
	      !qk_amax_blocks(gpu, QIR_FLOAT16, x, 3000, 200, 1, 32, o2) &&
	      !memcmp(o1, o2, 3000 * 7 * 4);
	tap_ok(ok, "amax_blocks (partial blocks, inner 713 and 1)");
	free(x);
	free(o1);
	free(o2);
}

static void fp8(void)
{
	static const qk_qlayout lays[] = {
		{ 1, 3000017, 1, QK_SCALE_TENSOR, 0 },
		{ 300, 1001, 7, QK_SCALE_AXIS, 0 },
		{ 64, 1000, 33, QK_SCALE_BLOCK, 32 },
		{ 1000, 999, 1, QK_SCALE_BLOCK, 128 },
	};
	int bad = 0;

	for (size_t l = 0; l < 4; l++) {
		const qk_qlayout *L = &lays[l];
		size_t n = L->outer * L->axis * L->inner, ns = n;
		float *s = malloc(ns * 4);
		void *x = rand_real(l & 1 ? QIR_BFLOAT16 : QIR_FLOAT, n);
		uint8_t *q1 = malloc(n), *q2 = malloc(n);
		float *y1 = malloc(n * 4), *y2 = malloc(n * 4);
		int rt = l & 1 ? QIR_BFLOAT16 : QIR_FLOAT;

		for (size_t i = 0; i < ns; i++)
			s[i] = (float)fabs(kt_normal()) * 0.01f;
		s[0] = 0; /* x / 0 */
		for (int f = 0; f < 2; f++)
			for (int sat = 0; sat < 2; sat++) {
				int fmt = f ? QIR_FLOAT8E5M2 : QIR_FLOAT8E4M3FN;

				bad += qk_fp8_quantize(cpu, fmt, q1, rt, x, s, L, sat) ||
				       qk_fp8_quantize(gpu, fmt, q2, rt, x, s, L, sat) ||
				       memcmp(q1, q2, n);
				bad += qk_fp8_dequantize(cpu, QIR_FLOAT16, y1, fmt, q1, s, L) ||
				       qk_fp8_dequantize(gpu, QIR_FLOAT16, y2, fmt, q1, s, L) ||
				       memcmp(y1, y2, n * 2);
			}
		free(s);
		free(x);
		free(q1);
		free(q2);
		free(y1);
		free(y2);
	}
	tap_ok(!bad && calls_ok(), "FP8 quantize/dequantize: tensor, axis, "
	       "block scales; both formats and saturation modes");
}

/* INT8: the same codes and values on both (NaN, x / 0 and saturation
 * among the inputs). */
static void int8(void)
{
	static const qk_qlayout lays[] = {
		{ 1, 3000017, 1, QK_SCALE_TENSOR, 0 },
		{ 300, 1001, 7, QK_SCALE_AXIS, 0 },
		{ 1000, 999, 1, QK_SCALE_BLOCK, 128 },
	};
	static const int rts[] = { QIR_FLOAT, QIR_FLOAT16, QIR_BFLOAT16 };
	int bad = 0;

	for (size_t l = 0; l < 3; l++) {
		const qk_qlayout *L = &lays[l];
		size_t n = L->outer * L->axis * L->inner;
		float *s = malloc(n * 4), *y1 = malloc(n * 4), *y2 = malloc(n * 4);
		void *x = rand_real(rts[l], n);
		int8_t *q1 = malloc(n), *q2 = malloc(n);

		for (size_t i = 0; i < n; i++)
			s[i] = (float)fabs(kt_normal()) * 0.01f;
		s[0] = 0;
		bad += qk_int8_quantize(cpu, q1, rts[l], x, s, L) ||
		       qk_int8_quantize(gpu, q2, rts[l], x, s, L) ||
		       memcmp(q1, q2, n);
		bad += qk_int8_dequantize(cpu, rts[l], y1, q1, s, L) ||
		       qk_int8_dequantize(gpu, rts[l], y2, q1, s, L) ||
		       memcmp(y1, y2, n * dt_size(rts[l]));
		free(s);
		free(x);
		free(q1);
		free(q2);
		free(y1);
		free(y2);
	}
	tap_ok(!bad && calls_ok(), "INT8 quantize/dequantize: tensor, axis, "
	       "block scales, FLOAT, FLOAT16, BFLOAT16: CPU = CUDA");
}

static void nvfp4(void)
{
	static const size_t shapes[][3] = { { 4096, 4096, 1 }, { 1, 16 * 1023, 1 },
					    { 3, 1024, 999 }, { 2, 512, 4097 } };
	int bad = 0;

	for (int s = 0; s < 4; s++)
		for (int dt = 0; dt < 3; dt++) {
			static const int dts[] = { QIR_FLOAT, QIR_FLOAT16, QIR_BFLOAT16 };
			size_t o = shapes[s][0], k = shapes[s][1], in = shapes[s][2];
			size_t n = o * k * in;
			void *w = finite16(dts[dt], rand_real(dts[dt], n), n);
			uint8_t *c1 = malloc(n / 2), *c2 = malloc(n / 2);
			uint8_t *s1 = malloc(n / 16), *s2 = malloc(n / 16);
			float g1, g2, *y1 = malloc(n * 4), *y2 = malloc(n * 4);
			int was = bad;

			bad += qk_nvfp4_quantize(cpu, dts[dt], w, o, k, in, c1, s1, &g1) ||
			       qk_nvfp4_quantize(gpu, dts[dt], w, o, k, in, c2, s2, &g2) ||
			       kt_bits(g1) != kt_bits(g2) || memcmp(c1, c2, n / 2) ||
			       memcmp(s1, s2, n / 16);
			bad += qk_nvfp4_dequantize(cpu, c1, s1, g1, o, k, in, dts[dt], y1) ||
			       qk_nvfp4_dequantize(gpu, c1, s1, g1, o, k, in, dts[dt], y2) ||
			       memcmp(y1, y2, n * dt_size(dts[dt]));
			if (bad != was)
				tap_diag("shape %d dtype %d: mismatch", s, dts[dt]);
			free(w);
			free(c1);
			free(c2);
			free(s1);
			free(s2);
			free(y1);
			free(y2);
		}
	tap_ok(!bad && calls_ok(), "NVFP4 quantize/dequantize: K last and K "
	       "strided, FLOAT/FLOAT16/BFLOAT16, heavy tails and NaN");
	{
		float w[32] = { 0 };
		uint8_t c[16], sc[2];
		float g;

		w[3] = INFINITY;
		tap_ok(qk_nvfp4_quantize(gpu, QIR_FLOAT, w, 1, 32, 1, c, sc, &g) ==
			       QOPT_EINVALID_NONFINITE,
		       "NVFP4 on CUDA refuses inf like the CPU");
	}
}

/* Each case {outer, n, inner, block, dtype}: the same random input
 * through the CPU and CUDA transforms must give the same bytes. Returns
 * the number of cases that differ (or fail). */
static int hadamard_cases(const size_t (*cases)[5], int count)
{
	int bad = 0;

	for (int c = 0; c < count; c++) {
		size_t o = cases[c][0], n = cases[c][1], in = cases[c][2];
		size_t b = cases[c][3], tot = o * n * in;
		int dt = (int)cases[c][4];
		void *x1 = rand_real(dt, tot), *x2 = malloc(tot * 4);

		memcpy(x2, x1, tot * dt_size(dt));
		if (qk_hadamard(cpu, dt, x1, o, n, in, b) ||
		    qk_hadamard(gpu, dt, x2, o, n, in, b) ||
		    memcmp(x1, x2, tot * dt_size(dt))) {
			tap_diag("Hadamard case [%zu, %zu, %zu] b %zu: mismatch",
				 o, n, in, b);
			bad++;
		}
		free(x1);
		free(x2);
	}
	return bad;
}

static void hadamard(void)
{
	/* shared-memory path (inner 1, b <= 4096), staged path (b 8192,
	 * inner > 1), FLOAT16 */
	static const size_t cases[][5] = { { 512, 4096, 1, 4096, QIR_FLOAT },
					   { 4096, 256, 1, 128, QIR_FLOAT16 },
					   { 64, 8192, 1, 8192, QIR_FLOAT },
					   { 16, 1024, 100, 512, QIR_BFLOAT16 },
					   { 3, 96, 7, 32, QIR_FLOAT } };
	int bad = hadamard_cases(cases, 5);

	tap_ok(!bad && calls_ok(), "Hadamard: shared-memory and staged paths, "
	       "FLOAT16/BFLOAT16, NaN");
}

/* Empty tensors (NULL buffers allowed) and the NaN/-0/inf rules of
 * amax, on small inputs (QK_DEVICE_CUDA takes calls of any size). */
static void edges(void)
{
	uint64_t fb = qk_ctx_stats(gpu)->cuda_fallbacks;
	qk_qlayout lay = { 0, 5, 3, QK_SCALE_BLOCK, 2 };
	float one = 1, a = -1, g = 0, x[40];
	int ok;

	ok = !qk_convert(gpu, QIR_FLOAT16, NULL, QIR_FLOAT, NULL, 0) &&
	     !qk_amax(gpu, QIR_FLOAT, NULL, 0, &a) && kt_bits(a) == 0 &&
	     !qk_amax_blocks(gpu, QIR_FLOAT, NULL, 0, 5, 3, 2, NULL) &&
	     !qk_fp8_quantize(gpu, QIR_FLOAT8E4M3FN, NULL, QIR_FLOAT, NULL,
			      &one, &lay, 1) &&
	     !qk_nvfp4_quantize(gpu, QIR_FLOAT, NULL, 0, 32, 1, NULL, NULL,
				&g) && g == 1 &&
	     !qk_nvfp4_dequantize(gpu, NULL, NULL, 1, 3, 32, 0, QIR_FLOAT,
				  NULL) &&
	     !qk_hadamard(gpu, QIR_FLOAT, NULL, 0, 8, 1, 0);
	tap_ok(ok && qk_ctx_stats(gpu)->cuda_fallbacks == fb,
	       "empty tensors with NULL buffers run on CUDA, no fallback");

	for (int i = 0; i < 40; i++)
		x[i] = i % 2 ? NAN : -0.0f;
	ok = !qk_amax(gpu, QIR_FLOAT, x, 40, &a) && kt_bits(a) == 0;
	x[37] = -INFINITY;
	ok &= !qk_amax(gpu, QIR_FLOAT, x, 40, &a) && kt_bits(a) == 0x7f800000u;
	tap_ok(ok && qk_ctx_stats(gpu)->cuda_fallbacks == fb,
	       "amax on CUDA: NaN ignored, -0 gives +0, -inf gives +inf");
}

/* Layouts taking the less common branches of the index math: block
 * larger than the axis (one partial block), block 1, axis 1, odd
 * inner, outputs of every real type. */
static void layouts(void)
{
	static const size_t ab[][4] = { { 3, 5, 7, 8 }, { 2, 9, 1, 1 },
					{ 11, 1, 5, 4 }, { 4, 33, 2, 16 } };
	static const qk_qlayout lays[] = {
		{ 3, 5, 7, QK_SCALE_BLOCK, 8 },
		{ 2, 9, 1, QK_SCALE_BLOCK, 1 },
		{ 70001, 3, 1, QK_SCALE_AXIS, 0 },
		{ 7, 33, 5, QK_SCALE_BLOCK, 16 },
	};
	static const int rts[] = { QIR_FLOAT, QIR_FLOAT16, QIR_BFLOAT16 };
	int bad = 0;

	for (int l = 0; l < 4; l++) {
		size_t o = ab[l][0], ax = ab[l][1], in = ab[l][2], b = ab[l][3];
		size_t n = o * ax * in;
		void *x = rand_real(QIR_FLOAT16, n);
		float *o1 = malloc(n * 4 + 4), *o2 = malloc(n * 4 + 4);

		bad += qk_amax_blocks(cpu, QIR_FLOAT16, x, o, ax, in, b, o1) ||
		       qk_amax_blocks(gpu, QIR_FLOAT16, x, o, ax, in, b, o2) ||
		       memcmp(o1, o2, o * ((ax + b - 1) / b) * in * 4);
		free(x);
		free(o1);
		free(o2);
	}
	for (int l = 0; l < 4; l++) {
		const qk_qlayout *L = &lays[l];
		size_t n = L->outer * L->axis * L->inner;
		float *s = malloc(n * 4);
		uint8_t *q1 = malloc(n), *q2 = malloc(n);
		void *y1 = malloc(n * 4), *y2 = malloc(n * 4);
		void *x = rand_real(rts[l % 3], n);

		for (size_t i = 0; i < n; i++)
			s[i] = (float)fabs(kt_normal()) + 1e-3f;
		bad += qk_fp8_quantize(cpu, QIR_FLOAT8E4M3FN, q1, rts[l % 3], x,
				       s, L, 1) ||
		       qk_fp8_quantize(gpu, QIR_FLOAT8E4M3FN, q2, rts[l % 3], x,
				       s, L, 1) ||
		       memcmp(q1, q2, n);
		for (int r = 0; r < 3; r++)
			bad += qk_fp8_dequantize(cpu, rts[r], y1, QIR_FLOAT8E5M2,
						 q1, s, L) ||
			       qk_fp8_dequantize(gpu, rts[r], y2, QIR_FLOAT8E5M2,
						 q1, s, L) ||
			       memcmp(y1, y2, n * dt_size(rts[r]));
		free(s);
		free(q1);
		free(q2);
		free(y1);
		free(y2);
		free(x);
	}
	tap_ok(!bad && calls_ok(), "amax_blocks and FP8: block > axis, block 1, "
	       "axis 1, odd inner, every output type");
}

/* NVFP4: one block; more blocks of 16 than the grid-stride launch has
 * threads (> 8192 * 256); dequantization of arbitrary bytes (NaN and
 * negative scale codes). */
static void nvfp4_more(void)
{
	static const size_t shapes[][3] = { { 1, 16, 1 }, { 1, 16, 3 },
					    { 5, 16 * 440000, 1 } };
	int bad = 0;

	for (int s = 0; s < 3; s++) {
		size_t o = shapes[s][0], k = shapes[s][1], in = shapes[s][2];
		size_t n = o * k * in;
		void *w = rand_real(QIR_BFLOAT16, n);
		uint8_t *c1 = malloc(n / 2), *c2 = malloc(n / 2);
		uint8_t *s1 = malloc(n / 16), *s2 = malloc(n / 16);
		float g1, g2;
		uint16_t *y1 = malloc(n * 2), *y2 = malloc(n * 2);
		int was = bad;

		bad += qk_nvfp4_quantize(cpu, QIR_BFLOAT16, w, o, k, in, c1, s1,
					 &g1) ||
		       qk_nvfp4_quantize(gpu, QIR_BFLOAT16, w, o, k, in, c2, s2,
					 &g2) ||
		       kt_bits(g1) != kt_bits(g2) || memcmp(c1, c2, n / 2) ||
		       memcmp(s1, s2, n / 16);
		free(c1);
		free(s1);
		c1 = rand_bytes(n / 2);
		s1 = rand_bytes(n / 16);
		bad += qk_nvfp4_dequantize(cpu, c1, s1, 0.37f, o, k, in,
					   QIR_FLOAT16, y1) ||
		       qk_nvfp4_dequantize(gpu, c1, s1, 0.37f, o, k, in,
					   QIR_FLOAT16, y2) ||
		       memcmp(y1, y2, n * 2);
		if (bad != was)
			tap_diag("shape %d: mismatch", s);
		free(w);
		free(c1);
		free(c2);
		free(s1);
		free(s2);
		free(y1);
		free(y2);
	}
	tap_ok(!bad && calls_ok(), "NVFP4: single block, > 2M blocks, "
	       "dequantization of arbitrary codes and scales");
}

/* Hadamard: more row blocks than the shared-memory kernel's grid
 * (65535), blocks of 1 and 2 (one thread per block), the staged path
 * for FLOAT16 with inner == 1 (b > 4096: FP32 work copy). */
static void hadamard_more(void)
{
	static const size_t cases[][5] = { { 200001, 16, 1, 16, QIR_FLOAT16 },
					   { 1000, 6, 1, 2, QIR_FLOAT },
					   { 10, 5, 3, 1, QIR_BFLOAT16 },
					   { 7, 3, 1, 1, QIR_FLOAT16 },
					   { 3, 16384, 1, 8192, QIR_FLOAT16 },
					   { 5, 64, 33, 64, QIR_FLOAT } };
	int bad = hadamard_cases(cases, 6);

	tap_ok(!bad && calls_ok(), "Hadamard: > 65535 row blocks, b = 1 and 2, "
	       "staged FLOAT16 with inner 1");
}

/* Over 2^31 elements (64-bit indices): 4 GiB of BFLOAT16 on the host
 * and the device, so only with QOPT_TEST_HUGE=1. The maximum sits past
 * element 2^31, where a 32-bit index would never reach. */
static void huge(void)
{
	size_t n = (1ull << 31) + 48, nb = n / 16;
	uint16_t *x;
	float a1, a2, *o1, *o2;
	int ok;

	if (!getenv("QOPT_TEST_HUGE")) {
		tap_skip("set QOPT_TEST_HUGE=1 (needs ~12 GiB)",
			 "amax and amax_blocks over 2^31 + 48 elements");
		return;
	}
	x = calloc(n, 2);
	o1 = malloc(nb * 4);
	o2 = malloc(nb * 4);
	if (!x || !o1 || !o2) {
		tap_skip("out of memory", "amax over 2^31 + 48 elements");
		free(x);
		free(o1);
		free(o2);
		return;
	}
	for (size_t i = 0; i < n; i += 4099)
		x[i] = qk_f32_to_bf16((float)(i % 1000));
	x[n - 3] = qk_f32_to_bf16(-12345.0f);
	ok = !qk_amax(cpu, QIR_BFLOAT16, x, n, &a1) &&
	     !qk_amax(gpu, QIR_BFLOAT16, x, n, &a2) &&
	     kt_bits(a1) == kt_bits(a2) && a2 == 12352.0f;
	ok &= !qk_amax_blocks(cpu, QIR_BFLOAT16, x, 1, n, 1, 16, o1) &&
	      !qk_amax_blocks(gpu, QIR_BFLOAT16, x, 1, n, 1, 16, o2) &&
	      !memcmp(o1, o2, nb * 4);
	tap_ok(ok && calls_ok(), "amax and amax_blocks over 2^31 + 48 elements");
	free(x);
	free(o1);
	free(o2);
}

static void auto_device(void)
{
	size_t n = 8u << 20;
	float *x = rand_real(QIR_FLOAT, n), a;
	qk_ctx *c = qk_ctx_new(QK_DEVICE_AUTO, 0);

	qk_amax(c, QIR_FLOAT, x, 1000, &a);
	qk_amax(c, QIR_FLOAT, x, n, &a);
	tap_ok(qk_ctx_stats(c)->cpu_calls == 1 && qk_ctx_stats(c)->cuda_calls == 1,
	       "AUTO: small call on the CPU, 32 MiB call on CUDA");
	qk_ctx_free(c);
	free(x);
}

int main(void)
{
	unsetenv("QOPT_DEVICE");
	if (!qk_cuda_available()) {
		qk_ctx *c = qk_ctx_new(QK_DEVICE_CUDA, 1);
		float one = 1, a;
		int rc = qk_amax(c, QIR_FLOAT, &one, 1, &a);

		printf("1..0 # SKIP no usable CUDA (%s): %s\n",
		       rc == QK_EDEVICE ? "QK_EDEVICE" : "?",
		       qk_ctx_stats(c)->fallback_reason);
		qk_ctx_free(c);
		return 0;
	}
	cpu = qk_ctx_new(QK_DEVICE_CPU, 0);
	gpu = qk_ctx_new(QK_DEVICE_CUDA, 0);
	kt_seed(7);
	convert();
	amax();
	fp8();
	int8();
	nvfp4();
	hadamard();
	edges();
	layouts();
	nvfp4_more();
	hadamard_more();
	huge();
	auto_device();
	qk_ctx_free(cpu);
	qk_ctx_free(gpu);
	return tap_done();
}

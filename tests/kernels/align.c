/*
 * tests/kernels/align.c - every kernel that reads or writes tensor
 * bytes gives the same bits on element buffers at any address: tensor
 * bytes borrowed from a mapped model or external data file sit where
 * the file put them. Each case runs on an aligned buffer and on copies
 * at offsets 1..3 (and 1..7 for the 8-byte view), one and two threads;
 * under `make check-sanitize` a misaligned access aborts the test.
 */
#include <stdlib.h>
#include <string.h>
#include <qopt/kernels.h>
#include <qopt/dtype.h>
#include "util.h"
#include "../lib/tap.h"

#define N 4096		/* a multiple of 16 and of the vector width */
#define OFFS 4

/* A heap buffer of n bytes at offset off from an aligned address. */
struct buf {
	unsigned char *base, *p;
};

static void *at(struct buf *b, size_t n, size_t off)
{
	b->base = aligned_alloc(64, n + 64);
	b->p = b->base ? b->base + off : NULL;
	return b->p;
}

static int same(const void *a, const void *b, size_t n)
{
	return memcmp(a, b, n) == 0;
}

static void fill_f32(float *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		x[i] = (float)(kt_normal() * 3.0);
	x[7] = -40.5f;	/* a clear amax */
}

/* Runs one kernel on src at offset 0 and at each offset, the output
 * buffer at the same offset; compares output bytes. */
static void check_convert(qk_ctx *ctx, int sdt, int ddt, size_t ssz,
			  size_t dsz, const void *ref_src, const char *what)
{
	struct buf s0, d0;
	void *src0 = at(&s0, N * ssz, 0), *dst0 = at(&d0, N * dsz, 0);
	int ok = src0 && dst0;

	memcpy(src0, ref_src, N * ssz);
	ok = ok && qk_convert(ctx, ddt, dst0, sdt, src0, N) == 0;
	for (size_t off = 1; ok && off < OFFS; off++) {
		struct buf s, d;
		void *src = at(&s, N * ssz, off), *dst = at(&d, N * dsz, off);

		ok = src && dst;
		if (ok) {
			memcpy(src, ref_src, N * ssz);
			ok = qk_convert(ctx, ddt, dst, sdt, src, N) == 0 &&
			     same(dst, dst0, N * dsz);
		}
		free(s.base);
		free(d.base);
	}
	tap_ok(ok, "convert %s: same bits at offsets 0..%d", what, OFFS - 1);
	free(s0.base);
	free(d0.base);
}

static void check_amax(qk_ctx *ctx, int dt, size_t sz, const void *ref,
		       const char *what)
{
	float a0 = 0, m0[N / 16];
	int ok = qk_amax(ctx, dt, ref, N, &a0) == 0 &&
		 qk_amax_blocks(ctx, dt, ref, 1, N, 1, 16, m0) == 0;

	for (size_t off = 1; ok && off < OFFS; off++) {
		struct buf s;
		void *x = at(&s, N * sz, off);
		float a = -1, m[N / 4];	/* room for the strided call */

		ok = x != NULL;
		if (ok) {
			memcpy(x, ref, N * sz);
			ok = qk_amax(ctx, dt, x, N, &a) == 0 && a == a0 &&
			     qk_amax_blocks(ctx, dt, x, 1, N, 1, 16, m) == 0 &&
			     same(m, m0, sizeof(m0)) &&
			     qk_amax_blocks(ctx, dt, x, 4, N / 64, 16, 8, m) == 0;
		}
		free(s.base);
	}
	tap_ok(ok && a0 == 40.5f, "amax and block amax %s: same at offsets 0..%d",
	       what, OFFS - 1);
}

static void check_fp8(qk_ctx *ctx, int dt, size_t sz, const void *ref,
		      const char *what)
{
	qk_qlayout lay = { 4, N / 4, 1, QK_SCALE_AXIS, 0 };
	float sc[N / 4];
	uint8_t q0[N], q[N];
	unsigned char y0[N * 4];
	int ok;

	for (size_t i = 0; i < N / 4; i++)
		sc[i] = 0.01f + (float)i / 256.0f;
	ok = qk_fp8_quantize(ctx, QIR_FLOAT8E4M3FN, q0, dt, ref, sc, &lay, 1) == 0 &&
	     qk_fp8_dequantize(ctx, dt, y0, QIR_FLOAT8E4M3FN, q0, sc, &lay) == 0;
	for (size_t off = 1; ok && off < OFFS; off++) {
		struct buf s, ss, d;
		void *x = at(&s, N * sz, off);
		float *scm = at(&ss, sizeof(sc), off);
		void *y = at(&d, N * sz, off);

		ok = x && scm && y;
		if (ok) {
			memcpy(x, ref, N * sz);
			memcpy(scm, sc, sizeof(sc));
			ok = qk_fp8_quantize(ctx, QIR_FLOAT8E4M3FN, q, dt, x,
					     scm, &lay, 1) == 0 &&
			     same(q, q0, N) &&
			     qk_fp8_dequantize(ctx, dt, y, QIR_FLOAT8E4M3FN, q,
					       scm, &lay) == 0 &&
			     same(y, y0, N * sz);
		}
		free(s.base);
		free(ss.base);
		free(d.base);
	}
	tap_ok(ok, "FP8 quantize/dequantize %s (per-axis scales): same at offsets 0..%d",
	       what, OFFS - 1);
}

static void check_nvfp4(qk_ctx *ctx, int dt, size_t sz, const void *ref,
			const char *what)
{
	uint8_t c0[N / 2], s0[N / 16], c[N / 2], s[N / 16];
	unsigned char y0[N * 4];
	float g0 = 0, g = 0;
	int ok = qk_nvfp4_quantize(ctx, dt, ref, 1, N, 1, c0, s0, &g0) == 0 &&
		 qk_nvfp4_dequantize(ctx, c0, s0, g0, 1, N, 1, dt, y0) == 0;

	for (size_t off = 1; ok && off < OFFS; off++) {
		struct buf b, d;
		void *w = at(&b, N * sz, off), *y = at(&d, N * sz, off);

		ok = w && y;
		if (ok) {
			memcpy(w, ref, N * sz);
			ok = qk_nvfp4_quantize(ctx, dt, w, 1, N, 1, c, s, &g) == 0 &&
			     g == g0 && same(c, c0, sizeof(c)) &&
			     same(s, s0, sizeof(s)) &&
			     qk_nvfp4_dequantize(ctx, c, s, g, 1, N, 1, dt, y) == 0 &&
			     same(y, y0, N * sz) &&
			     /* inner > 1: the strided path */
			     qk_nvfp4_quantize(ctx, dt, w, 2, N / 32, 16, c, s, &g) == 0;
		}
		free(b.base);
		free(d.base);
	}
	tap_ok(ok, "NVFP4 quantize/dequantize %s: same at offsets 0..%d", what,
	       OFFS - 1);
}

int main(void)
{
	static float f32[N];
	static uint16_t f16[N], bf16[N];
	qk_ctx *ctx[2];

	kt_seed(9);
	fill_f32(f32, N);
	qk_convert(NULL, QIR_FLOAT16, f16, QIR_FLOAT, f32, N);
	qk_convert(NULL, QIR_BFLOAT16, bf16, QIR_FLOAT, f32, N);
	ctx[0] = qk_ctx_new(QK_DEVICE_CPU, 1);
	ctx[1] = qk_ctx_new(QK_DEVICE_CPU, 2);
	for (int t = 0; t < 2; t++) {
		tap_diag("%d thread(s)", t + 1);
		check_convert(ctx[t], QIR_FLOAT, QIR_FLOAT16, 4, 2, f32, "FLOAT->FLOAT16");
		check_convert(ctx[t], QIR_FLOAT, QIR_BFLOAT16, 4, 2, f32, "FLOAT->BFLOAT16");
		check_convert(ctx[t], QIR_FLOAT16, QIR_FLOAT, 2, 4, f16, "FLOAT16->FLOAT");
		check_convert(ctx[t], QIR_BFLOAT16, QIR_FLOAT, 2, 4, bf16, "BFLOAT16->FLOAT");
		check_convert(ctx[t], QIR_FLOAT, QIR_FLOAT8E4M3FN, 4, 1, f32, "FLOAT->E4M3FN");
		check_amax(ctx[t], QIR_FLOAT, 4, f32, "FLOAT");
		check_amax(ctx[t], QIR_FLOAT16, 2, f16, "FLOAT16");
		check_amax(ctx[t], QIR_BFLOAT16, 2, bf16, "BFLOAT16");
		check_fp8(ctx[t], QIR_FLOAT, 4, f32, "FLOAT");
		check_fp8(ctx[t], QIR_FLOAT16, 2, f16, "FLOAT16");
		check_nvfp4(ctx[t], QIR_FLOAT, 4, f32, "FLOAT");
		check_nvfp4(ctx[t], QIR_BFLOAT16, 2, bf16, "BFLOAT16");
	}
	qk_ctx_free(ctx[0]);
	qk_ctx_free(ctx[1]);
	return tap_done();
}

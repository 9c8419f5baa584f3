/*
 * tests/kernels/dump-fp8.c - writes the data for tests/kernels/ort-cast.sh:
 *   DIR/input.f32            n random floats (little endian)
 *   DIR/e4m3.u8, e5m2.u8     their FP8 codes (qk_convert, saturate = 1)
 *   DIR/e4m3.f32, e5m2.f32   those codes decoded back to FLOAT
 * The floats mix every bit pattern (NaN, inf, subnormals), the FP8
 * ranges, exact ties between neighbouring codes, and overflow.
 * Usage: kernels-dump-fp8 DIR N
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qopt/dtype.h"
#include "qopt/kernels.h"
#include "util.h"

static float pick(size_t i)
{
	switch (i % 5) {
	case 0: /* any bit pattern */
		return kt_float(kt_u32());
	case 1: { /* the FP8 exponent ranges, both signs */
		uint32_t u = kt_u32();
		int e = (int)(kt_u32() % 46) - 26;

		return kt_float((u & 0x807fffffu) | (uint32_t)(e + 127) << 23);
	}
	case 2: { /* midpoint between neighbouring E4M3 codes, or next to it */
		unsigned c = kt_u32() % 0x7e;
		float m = (qk_e4m3_to_f32((uint8_t)c) +
			   qk_e4m3_to_f32((uint8_t)(c + 1))) / 2;
		unsigned r = kt_u32() % 3;

		m = r == 0 ? m : r == 1 ? nextafterf(m, 0) : nextafterf(m, 1e9f);
		return kt_u32() & 1 ? -m : m;
	}
	case 3: { /* midpoint between neighbouring E5M2 codes */
		unsigned c = kt_u32() % 0x7b;
		float m = (qk_e5m2_to_f32((uint8_t)c) +
			   qk_e5m2_to_f32((uint8_t)(c + 1))) / 2;

		return kt_u32() & 1 ? -m : m;
	}
	default:
		return (float)(kt_normal() * 300);
	}
}

static int dump(const char *dir, const char *name, const void *p, size_t n)
{
	char path[4096];
	FILE *f;
	size_t w;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "kernels-dump-fp8: %s: %s\n", path, strerror(errno));
		return -1;
	}
	w = fwrite(p, 1, n, f);
	if (fclose(f) || w != n) {
		fprintf(stderr, "kernels-dump-fp8: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
	float *x, *d4, *d5;
	uint8_t *c4, *c5;
	qk_ctx *ctx;
	int rc = 0;

	if (argc != 3 || !n) {
		fprintf(stderr, "usage: kernels-dump-fp8 DIR N\n");
		return 2;
	}
	x = malloc(n * 4);
	d4 = malloc(n * 4);
	d5 = malloc(n * 4);
	c4 = malloc(n);
	c5 = malloc(n);
	ctx = qk_ctx_new(QK_DEVICE_CPU, 0);
	if (!x || !d4 || !d5 || !c4 || !c5 || !ctx)
		return 1;
	kt_seed(8);
	for (size_t i = 0; i < n; i++)
		x[i] = pick(i);
	rc |= qk_convert(ctx, QIR_FLOAT8E4M3FN, c4, QIR_FLOAT, x, n);
	rc |= qk_convert(ctx, QIR_FLOAT8E5M2, c5, QIR_FLOAT, x, n);
	rc |= qk_convert(ctx, QIR_FLOAT, d4, QIR_FLOAT8E4M3FN, c4, n);
	rc |= qk_convert(ctx, QIR_FLOAT, d5, QIR_FLOAT8E5M2, c5, n);
	if (rc) {
		fprintf(stderr, "kernels-dump-fp8: %s\n", qk_strerror(rc));
		return 1;
	}
	if (dump(argv[1], "input.f32", x, n * 4) ||
	    dump(argv[1], "e4m3.u8", c4, n) || dump(argv[1], "e5m2.u8", c5, n) ||
	    dump(argv[1], "e4m3.f32", d4, n * 4) ||
	    dump(argv[1], "e5m2.f32", d5, n * 4))
		return 1;
	qk_ctx_free(ctx);
	free(x);
	free(d4);
	free(d5);
	free(c4);
	free(c5);
	return 0;
}

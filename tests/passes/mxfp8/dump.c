/*
 * tests/passes/mxfp8/dump.c DIR N - inputs and the CPU kernel's MXFP8 result
 * for the ONNX Runtime comparison (tests/passes/mxfp8/ort.sh). For each input
 * type T (float, float16, bfloat16), about N values in rows of 256
 * (8 blocks of 32), random and adversarial by block:
 *   DIR/x_T.f32  the inputs, as FLOAT holding values exact in T;
 *   DIR/y_T.f32  qk_mxfp8_dequantize(qk_mxfp8_quantize(x)) written as
 *                T, then widened to FLOAT (exact).
 * Raw little-endian float32 files.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qopt/dtype.h"
#include "qopt/kernels.h"
#include "../../kernels/util.h"

#define K 256
#define B QK_MXFP8_BLOCK

/* d as float, held at +-FLT_MAX (a double beyond it has no float). */
static float tofloat(double d)
{
	if (fabs(d) > FLT_MAX)
		return d < 0 ? -FLT_MAX : FLT_MAX;
	return (float)d;
}

/* One E4M3 value times 2^e, or the midpoint of two neighbours (a tie
 * for the element rounding when the block's scale is 2^e). */
static float grid(int e, int tie)
{
	uint8_t c = (uint8_t)(kt_u32() % 0x7e);
	double v = qk_e4m3_to_f32(c);

	if (tie)
		v = (v + qk_e4m3_to_f32((uint8_t)(c + 1))) / 2;
	if (kt_u32() & 1)
		v = -v;
	return tofloat(ldexp(v, e));
}

static void block(float *x)
{
	int kind = (int)(kt_u32() % 12), e = (int)(kt_u32() % 248) - 127, i;
	float amax = tofloat(ldexp(448.0, e));

	for (i = 0; i < B; i++) {
		switch (kind) {
		case 0: /* a scale on its boundary, ties below it */
		case 1:
			x[i] = grid(e, 1);
			break;
		case 2: /* on-grid values */
			x[i] = grid(e, 0);
			break;
		case 3:
			x[i] = 0.0f;
			break;
		case 4: /* any bits: NaN, inf, subnormals */
			x[i] = kt_float(kt_u32());
			break;
		case 5: /* tiny: float subnormals and the smallest scales */
			x[i] = kt_float(kt_u32() & 0x80ffffffu);
			break;
		case 6: /* huge */
			x[i] = (float)(kt_normal() * 1e37);
			break;
		default:
			x[i] = (float)ldexp(kt_normal(), (int)(kt_u32() % 40) - 20);
		}
	}
	i = (int)(kt_u32() % B);
	if (kind == 0)
		x[i] = amax;	/* exactly 448 * 2^e: scale 2^e */
	else if (kind == 1)
		x[i] = nextafterf(amax, INFINITY); /* one more power */
	else if (kind == 7)
		x[i] = kt_u32() & 1 ? NAN : -INFINITY;
	else if (kind == 8)
		x[i] = (kt_u32() & 1 ? -1 : 1) * FLT_MAX;
	else if (kind == 3 && (kt_u32() & 1))
		x[i] = -0.0f;
}

static int narrow(int dt, float *x, size_t n, uint16_t *h)
{
	size_t i;

	for (i = 0; i < n && dt != QIR_FLOAT; i++) {
		h[i] = dt == QIR_FLOAT16 ? qk_f32_to_f16(x[i]) : qk_f32_to_bf16(x[i]);
		x[i] = dt == QIR_FLOAT16 ? qk_f16_to_f32(h[i]) : qk_bf16_to_f32(h[i]);
	}
	return 0;
}

static int write_file(const char *dir, const char *what, const char *tname,
		      const float *v, size_t n)
{
	char path[4096];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s_%s.f32", dir, what, tname);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	ok = fwrite(v, 4, n, f) == n;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static int one_type(const char *dir, int dt, const char *tname, size_t rows)
{
	size_t n = rows * K, i;
	float *x = malloc(n * 4), *y = malloc(n * 4);
	uint16_t *h = malloc(n * 2), *hy = malloc(n * 2);
	uint8_t *c = malloc(n), *s = malloc(n / B);
	int rc = -1;

	if (!x || !y || !h || !hy || !c || !s)
		goto out;
	for (i = 0; i < n; i += B)
		block(x + i);
	narrow(dt, x, n, h);
	if (qk_mxfp8_quantize(NULL, dt, dt == QIR_FLOAT ? (void *)x : (void *)h,
			      rows, K, 1, c, s) ||
	    qk_mxfp8_dequantize(NULL, c, s, rows, K, 1, dt,
				dt == QIR_FLOAT ? (void *)y : (void *)hy))
		goto out;
	for (i = 0; i < n && dt != QIR_FLOAT; i++)
		y[i] = dt == QIR_FLOAT16 ? qk_f16_to_f32(hy[i]) :
					   qk_bf16_to_f32(hy[i]);
	rc = write_file(dir, "x", tname, x, n) || write_file(dir, "y", tname, y, n);
out:
	free(x), free(y), free(h), free(hy), free(c), free(s);
	return rc;
}

int main(int argc, char **argv)
{
	size_t rows;

	if (argc != 3) {
		fprintf(stderr, "usage: mxfp8-dump DIR N\n");
		return 2;
	}
	rows = ((size_t)strtoull(argv[2], NULL, 10) + K - 1) / K;
	kt_seed(20261127);
	if (one_type(argv[1], QIR_FLOAT, "float", rows) ||
	    one_type(argv[1], QIR_FLOAT16, "float16", rows) ||
	    one_type(argv[1], QIR_BFLOAT16, "bfloat16", rows)) {
		fprintf(stderr, "mxfp8-dump: failed\n");
		return 1;
	}
	printf("%zu\n", rows);
	return 0;
}

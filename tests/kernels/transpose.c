/*
 * tests/kernels/transpose.c - qk_transpose against the definition
 * dst[j * stride + i] = src[i * cols + j]: every element size, shapes
 * with and without whole 16 x 16 blocks and 64-column bands, a wider
 * destination row, odd addresses, one and several threads, and the
 * errors.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qopt/kernels.h"
#include "../lib/tap.h"

/* 1 when dst holds src transposed and the padding of each destination
 * row (columns rows .. stride) still holds its fill byte. */
static int check(const unsigned char *src, const unsigned char *dst,
		 size_t es, size_t rows, size_t cols, size_t stride)
{
	for (size_t j = 0; j < cols; j++) {
		for (size_t i = 0; i < rows; i++)
			if (memcmp(dst + (j * stride + i) * es,
				   src + (i * cols + j) * es, es))
				return 0;
		for (size_t i = rows; i < stride; i++)
			for (size_t b = 0; b < es; b++)
				if (dst[(j * stride + i) * es + b] != 0xa5)
					return 0;
	}
	return 1;
}

static void shapes(qk_ctx *ctx, const char *what)
{
	static const size_t cases[][3] = {
		{ 1, 1, 1 }, { 16, 16, 16 }, { 64, 64, 64 }, { 17, 33, 17 },
		{ 130, 75, 130 }, { 192, 136, 200 }, { 1000, 300, 1000 },
		{ 3, 257, 8 }, { 2048, 96, 2048 },
	};
	static const size_t sizes[] = { 1, 2, 4, 8 };

	for (size_t e = 0; e < 4; e++) {
		int bad = 0;

		for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
			size_t es = sizes[e], r = cases[c][0];
			size_t n = cases[c][1], st = cases[c][2];
			/* one byte in: unaligned source and destination */
			unsigned char *sb = malloc(r * n * es + 1);
			unsigned char *db = malloc(n * st * es + 1);
			unsigned char *s = sb + 1, *d = db + 1;

			for (size_t i = 0; i < r * n * es; i++)
				s[i] = (unsigned char)rand();
			memset(d, 0xa5, n * st * es);
			bad += qk_transpose(ctx, es, s, r, n, d, st) != 0 ||
			       !check(s, d, es, r, n, st);
			free(sb);
			free(db);
		}
		tap_ok(!bad, "%s: %zu-byte elements, 9 shapes, exact", what,
		       sizes[e]);
	}
}

int main(void)
{
	qk_ctx *one, *many;
	unsigned char a[64], b[64];

	unsetenv("QOPT_DEVICE");
	one = qk_ctx_new(QK_DEVICE_CPU, 1);
	many = qk_ctx_new(QK_DEVICE_CPU, 6);
	tap_ok(one && many, "contexts");
	srand(7);
	shapes(one, "1 thread");
	shapes(many, "6 threads");
	memset(a, 1, sizeof(a));
	tap_ok(qk_transpose(one, 3, a, 2, 2, b, 2) == QK_EINVAL &&
	       qk_transpose(one, 1, a, 4, 2, b, 3) == QK_EINVAL &&
	       qk_transpose(one, 1, NULL, 2, 2, b, 2) == QK_EINVAL &&
	       qk_transpose(one, 1, a, 2, 2, NULL, 2) == QK_EINVAL &&
	       qk_transpose(one, 8, a, SIZE_MAX / 4, 4, b, SIZE_MAX / 4) ==
		       QK_EINVAL,
	       "errors: element size 3, stride below rows, NULL buffers, "
	       "size overflow");
	tap_ok(qk_transpose(one, 1, NULL, 0, 5, NULL, 0) == 0,
	       "an empty matrix is nothing to do");
	qk_ctx_free(one);
	qk_ctx_free(many);
	return tap_done();
}

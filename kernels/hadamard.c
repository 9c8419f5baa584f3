/*
 * kernels/hadamard.c - normalized Walsh-Hadamard transform along the
 * middle axis of [outer, n, inner], in blocks of b (Sylvester order).
 *
 * Work is gathered into b x cols float tiles (rows contiguous, one
 * column per independent transform), transformed there and written
 * back, so FP16 and BF16 are computed in FP32 and stored once, rounded
 * to nearest. Columns are inner columns, or for inner == 1 up to
 * QKI_HCOLS consecutive blocks.
 * Per column the operations are: for h = 1, 2, 4 .. b/2, for each pair
 * (j, j+h) with bit h of j clear: (u, v) -> (u + v, u - v); then one
 * multiplication by qki_hadamard_scale(b); a NaN result becomes the
 * canonical NaN. The CUDA kernel does exactly this, so both agree bit
 * for bit.
 */
#include <stdlib.h>

#include "internal.h"

#define QKI_HCOLS 16

size_t qk_hadamard_default_block(size_t n)
{
	return n & (~n + 1); /* n itself for a power of two, else n & -n */
}

/* (p, q) -> (p + q, p - q) over len floats. */
static inline __attribute__((always_inline)) void qki_bfly(float *restrict p,
							 float *restrict q,
							 size_t len)
{
	QKI_FOR_VEC(j, len, {
		float u = p[j];
		float v = q[j];

		p[j] = QK_FADD(u, v);
		q[j] = QK_FSUB(u, v);
	});
}

/* In place on a b x cols tile: rows i..i+h-1 are contiguous, so each
 * stage's butterflies run over spans of h * cols floats. */
QKI_HOT static void qki_fwht(float *t, size_t b, size_t cols, float scale)
{
	float *restrict x = t;
	size_t h, i, n = b * cols;

	for (h = 1; h < b; h <<= 1)
		for (i = 0; i < b; i += 2 * h)
			qki_bfly(t + i * cols, t + (i + h) * cols, h * cols);
	QKI_FOR_VEC(j, n, x[j] = qki_canon(QK_FMUL(x[j], scale)));
}

struct qki_had {
	int dtype;
	void *x;
	size_t n, inner, b, nblk, nchunk;
	size_t nrb;   /* inner == 1: row blocks, outer * nblk */
	float scale;
};

/* inner == 1: unit u is row blocks [u * QKI_HCOLS, ...), each b
 * contiguous elements; they become the columns of the tile (a
 * transpose on the way in and out), so that every stage, the first
 * ones too, runs over whole vectors. */
static void qki_had_rows(const struct qki_had *a, size_t u, float *t,
			 float *row)
{
	size_t rb = u * QKI_HCOLS, g, r, cols = a->nrb - rb;

	if (cols > QKI_HCOLS)
		cols = QKI_HCOLS;
	for (g = 0; g < cols; g++) {
		qki_load_f32(a->dtype, a->x, (rb + g) * a->b, a->b, row);
		for (r = 0; r < a->b; r++)
			t[r * cols + g] = row[r];
	}
	qki_fwht(t, a->b, cols, a->scale);
	for (g = 0; g < cols; g++) {
		for (r = 0; r < a->b; r++)
			row[r] = t[r * cols + g];
		qki_store_f32(a->dtype, a->x, (rb + g) * a->b, a->b, row);
	}
}

/* inner > 1: unit u is block bi of outer index o, restricted to a
 * chunk of at most QKI_HCOLS inner columns. */
static void qki_had_cols(const struct qki_had *a, size_t u, float *t)
{
	size_t cc = u % a->nchunk, rest = u / a->nchunk;
	size_t bi = rest % a->nblk, o = rest / a->nblk;
	size_t c0 = cc * QKI_HCOLS, cols = a->inner - c0, r;
	size_t base = (o * a->n + bi * a->b) * a->inner + c0;

	if (cols > QKI_HCOLS)
		cols = QKI_HCOLS;
	for (r = 0; r < a->b; r++)
		qki_load_f32(a->dtype, a->x, base + r * a->inner, cols,
			     t + r * cols);
	qki_fwht(t, a->b, cols, a->scale);
	for (r = 0; r < a->b; r++)
		qki_store_f32(a->dtype, a->x, base + r * a->inner, cols,
			      t + r * cols);
}

static int qki_had_range(void *arg, unsigned part, size_t lo, size_t hi)
{
	const struct qki_had *a = arg;
	float *t = malloc((QKI_HCOLS + 1) * a->b * sizeof(float));

	(void)part;
	if (!t)
		return QK_ENOMEM;
	for (; lo < hi; lo++) {
		if (a->inner == 1)
			qki_had_rows(a, lo, t, t + QKI_HCOLS * a->b);
		else
			qki_had_cols(a, lo, t);
	}
	free(t);
	return 0;
}

int qk_hadamard(qk_ctx *ctx, int dtype, void *x,
		size_t outer, size_t n, size_t inner, size_t block)
{
	struct qki_had a = { .dtype = dtype, .x = x, .n = n, .inner = inner };
	size_t total, units, sz = qki_dtype_size(dtype);
	const struct qki_cuda_ops *ops;
	int rc;

	if (!qki_is_real(dtype))
		return QK_EDTYPE;
	if (qki_mul3(outer, n, inner, &total) || total > SIZE_MAX / 8)
		return QK_EINVAL;
	if (total && !x)
		return QK_EINVAL;
	if (!block)
		block = qk_hadamard_default_block(n);
	if (!n)
		return 0;
	if (block & (block - 1))
		return QK_EINVAL;
	if (n % block)
		return QK_EBLOCK;
	rc = qki_route(ctx, total * sz, &ops);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		rc = ops->hadamard(dtype, x, outer, n, inner, block);
		rc = qki_cuda_result(ctx, ops, rc, total * sz);
		if (rc != QKI_CPU)
			return rc;
	}
	a.b = block;
	a.nblk = n / block;
	a.nchunk = (inner + QKI_HCOLS - 1) / QKI_HCOLS;
	a.nrb = outer * a.nblk;
	a.scale = qki_hadamard_scale(block);
	units = inner == 1 ? (a.nrb + QKI_HCOLS - 1) / QKI_HCOLS :
			     a.nrb * a.nchunk;
	if (total)
		rc = qki_parallel(ctx, units, total * sz, qki_had_range, &a,
				  NULL);
	if (rc)
		return rc;
	qki_account(ctx, 0, total * sz);
	return 0;
}

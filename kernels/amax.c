/*
 * kernels/amax.c - max |x| over a tensor and over blocks of an axis.
 *
 * The maximum is taken over the integer bits of |x| (NaN mapped to 0):
 * for non-negative floats integer order is float order, so the result
 * is exact, ignores NaN as documented, and vectorizes without fast-math.
 */
#include "internal.h"

/* max over qki_abs_bits(x[0..n)), 16 lanes wide. */
QKI_HOT static uint32_t qki_maxbits(const qki_f32u *restrict x, size_t n)
{
	uint32_t acc[QKI_VEC] = { 0 }, m = 0;
	size_t j = 0, k;

	for (; j + QKI_VEC <= n; j += QKI_VEC)
		for (k = 0; k < QKI_VEC; k++) {
			uint32_t v = qki_abs_bits(x[j + k]);

			acc[k] = v > acc[k] ? v : acc[k];
		}
	for (; j < n; j++) {
		uint32_t v = qki_abs_bits(x[j]);

		m = v > m ? v : m;
	}
	for (k = 0; k < QKI_VEC; k++)
		m = acc[k] > m ? acc[k] : m;
	return m;
}

/* m[0..16) = amax of the 16 blocks of 16 floats in x: |x| as
 * non-negative floats with NaN zeroed, so a float max is exact. */
QKI_HOT void qki_amax16(const qki_f32u *restrict x, float *restrict m)
{
	float ab[QKI_AMAX16 * 16];
	size_t b, j;

	for (j = 0; j < QKI_AMAX16 * 16; j++)
		ab[j] = qki_u2f(qki_abs_bits(x[j]));
	for (b = 0; b < QKI_AMAX16; b++) {
		float acc[4] = { 0 };

		for (j = 0; j < 16; j += 4)
			for (size_t l = 0; l < 4; l++) {
				float v = ab[b * 16 + j + l];

				acc[l] = v > acc[l] ? v : acc[l];
			}
		acc[0] = acc[1] > acc[0] ? acc[1] : acc[0];
		acc[2] = acc[3] > acc[2] ? acc[3] : acc[2];
		m[b] = acc[2] > acc[0] ? acc[2] : acc[0];
	}
}

/* max of h & 0x7fff over h[0..n), values above nan (NaN) counted as
 * 0. FLOAT16 and BFLOAT16 order their magnitudes like float does, and
 * the conversion to float is monotonic, so this is the amax's bits in
 * the source type: the tensor-wide amax of 16-bit weights needs no
 * conversion (it was half the time of an NVFP4 FLOAT16 quantization). */
QKI_HOT static uint16_t qki_maxbits16(const qki_u16u *restrict h, size_t n,
				      uint32_t nan)
{
	uint32_t acc[QKI_VEC] = { 0 }, m = 0, v;
	size_t j = 0, k;

	/* A mask, not "?:": GCC turns that one into a branch here. */
	for (; j + QKI_VEC <= n; j += QKI_VEC)
		for (k = 0; k < QKI_VEC; k++) {
			v = h[j + k] & 0x7fffu;
			v &= 0u - (uint32_t)(v <= nan);
			acc[k] = v > acc[k] ? v : acc[k];
		}
	for (; j < n; j++) {
		v = h[j] & 0x7fffu;
		v &= 0u - (uint32_t)(v <= nan);
		m = v > m ? v : m;
	}
	for (k = 0; k < QKI_VEC; k++)
		m = acc[k] > m ? acc[k] : m;
	return (uint16_t)m;
}

/* The same over elements [i, i+n) of a real dtype. */
static uint32_t qki_maxbits_at(int dtype, const void *x, size_t i, size_t n)
{
	const qki_u16u *h = (const qki_u16u *)x + i;

	switch (dtype) {
	case QK_T_FLOAT16:
		return qki_f2u(qki_dec_f16(qki_maxbits16(h, n, 0x7c00u)));
	case QK_T_BFLOAT16:
		return qki_f2u(qki_dec_bf16(qki_maxbits16(h, n, 0x7f80u)));
	default:
		return qki_maxbits((const qki_f32u *)x + i, n);
	}
}

struct qki_amax {
	int dtype;
	const void *x;
	uint32_t part[QKI_MAX_THREADS];
};

static int qki_amax_range(void *arg, unsigned part, size_t lo, size_t hi)
{
	struct qki_amax *a = arg;

	a->part[part] = qki_maxbits_at(a->dtype, a->x, lo, hi - lo);
	return 0;
}

uint32_t qki_amax_bits(const qk_ctx *ctx, int dtype, const void *x,
		       size_t n)
{
	struct qki_amax a = { .dtype = dtype, .x = x };
	unsigned parts, i;
	uint32_t m = 0;

	qki_parallel(ctx, n, n * qki_dtype_size(dtype), qki_amax_range, &a,
		     &parts);
	for (i = 0; i < parts; i++)
		m = a.part[i] > m ? a.part[i] : m;
	return m;
}

qopt_status qk_amax(qk_ctx *ctx, int dtype, const void *x, size_t n, float *amax)
{
	size_t sz = qki_dtype_size(dtype);
	const struct qki_cuda_ops *ops;
	int rc;

	if (!qki_is_real(dtype))
		return QK_EDTYPE;
	if (!amax || (n && !x) || n > SIZE_MAX / 4)
		return QK_EINVAL;
	rc = qki_route(ctx, n * sz, &ops);
	if (rc)
		return rc;
	if (ops) {
		rc = ops->amax(dtype, x, n, amax);
		rc = qki_cuda_result(ctx, ops, rc, n * sz);
		if (rc != QKI_CPU)
			return rc;
	}
	*amax = qki_u2f(qki_amax_bits(ctx, dtype, x, n));
	qki_account(ctx, 0, n * sz);
	return 0;
}

struct qki_amaxb {
	int dtype;
	const void *x;
	size_t axis, inner, block, nb;
	float *out;
};

/* One unit: block bi of outer index o, all inner columns. */
static void qki_amaxb_unit(const struct qki_amaxb *a, size_t u)
{
	size_t o = u / a->nb, bi = u % a->nb;
	size_t r0 = bi * a->block, r1 = r0 + a->block, r, t, c, k;
	size_t base = o * a->axis * a->inner;
	float *out = a->out + u * a->inner;
	uint32_t acc[QKI_CHUNK];
	float buf[QKI_CHUNK];

	if (r1 > a->axis)
		r1 = a->axis;
	if (a->inner == 1) {
		out[0] = qki_u2f(qki_maxbits_at(a->dtype, a->x, base + r0,
					       r1 - r0));
		return;
	}
	/* Columns in chunks: each chunk's max runs down the block's rows. */
	for (t = 0; t < a->inner; t += c) {
		c = a->inner - t < QKI_CHUNK ? a->inner - t : QKI_CHUNK;
		for (k = 0; k < c; k++)
			acc[k] = 0;
		for (r = r0; r < r1; r++) {
			qki_load_f32(a->dtype, a->x, base + r * a->inner + t, c,
				     buf);
			for (k = 0; k < c; k++) {
				uint32_t v = qki_abs_bits(buf[k]);

				acc[k] = v > acc[k] ? v : acc[k];
			}
		}
		for (k = 0; k < c; k++)
			out[t + k] = qki_u2f(acc[k]);
	}
}

/* inner == 1, block 16, axis a multiple of 16: units are consecutive
 * runs of 16 elements, taken QKI_AMAX16 at a time. */
static void qki_amaxb_16(const struct qki_amaxb *a, size_t lo, size_t hi)
{
	float buf[QKI_AMAX16 * 16], m[QKI_AMAX16];
	const qki_f32u *x;
	size_t n;

	for (; lo < hi; lo += n) {
		n = hi - lo < QKI_AMAX16 ? hi - lo : QKI_AMAX16;
		if (a->dtype == QK_T_FLOAT && n == QKI_AMAX16) {
			x = (const qki_f32u *)a->x + lo * 16;
		} else {
			for (size_t j = 0; j < QKI_AMAX16 * 16; j++)
				buf[j] = 0.0f;
			qki_load_f32(a->dtype, a->x, lo * 16, n * 16, buf);
			x = buf;
		}
		if (lo + 9 * QKI_AMAX16 <= hi)
			qki_prefetch((const char *)a->x + (lo + 8 * QKI_AMAX16) *
				     16 * qki_dtype_size(a->dtype),
				     QKI_AMAX16 * 16 * qki_dtype_size(a->dtype));
		qki_amax16(x, m);
		for (size_t j = 0; j < n; j++)
			a->out[lo + j] = m[j];
	}
}

static int qki_amaxb_range(void *arg, unsigned part, size_t lo, size_t hi)
{
	const struct qki_amaxb *a = arg;

	(void)part;
	if (a->inner == 1 && a->block == 16 && a->axis % 16 == 0) {
		qki_amaxb_16(a, lo, hi);
		return 0;
	}
	for (; lo < hi; lo++)
		qki_amaxb_unit(a, lo);
	return 0;
}

qopt_status qk_amax_blocks(qk_ctx *ctx, int dtype, const void *x,
		   size_t outer, size_t axis, size_t inner, size_t block,
		   float *out)
{
	struct qki_amaxb a = { dtype, x, axis, inner, block, 0, out };
	size_t sz = qki_dtype_size(dtype), n, units;
	const struct qki_cuda_ops *ops;
	int rc;

	if (!qki_is_real(dtype))
		return QK_EDTYPE;
	if (!block || qki_mul3(outer, axis, inner, &n) || n > SIZE_MAX / 4)
		return QK_EINVAL;
	if (n && (!x || !out))
		return QK_EINVAL;
	a.nb = axis / block + (axis % block != 0);
	units = outer * a.nb;
	rc = qki_route(ctx, n * sz, &ops);
	if (rc)
		return rc;
	if (ops) {
		rc = ops->amax_blocks(dtype, x, outer, axis, inner, block, out);
		rc = qki_cuda_result(ctx, ops, rc, n * sz);
		if (rc != QKI_CPU)
			return rc;
	}
	if (n)
		qki_parallel(ctx, units, n * sz, qki_amaxb_range, &a, NULL);
	qki_account(ctx, 0, n * sz);
	return 0;
}

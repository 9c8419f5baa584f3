/*
 * kernels/mxfp8.c - MXFP8 (microscaling FP8: E4M3 elements, one E8M0
 * power-of-two scale per 32 elements along k) and its inverse. The
 * exact arithmetic is documented at qk_mxfp8_quantize in
 * qopt/kernels.h; docs/mxfp8.md says where it comes from.
 *
 * Work is cut in tiles like kernels/nvfp4.c: tile (o, kb) is the
 * 32 x inner slab of rows kb*32 .. kb*32+31 of outer index o, contiguous
 * in x, in the codes and in the scales, so tiles are independent and
 * the result cannot depend on how they are spread over threads. The
 * scale is an exact power of two, so there is no rounding to share
 * with CUDA and no vector path yet: the kernel runs on the CPU under
 * every device.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define QKI_MXB QK_MXFP8_BLOCK
#define QKI_MX_NAN 255u
/* 448 = 1.75 * 2^8: the E4M3 maximum. */
#define QKI_MX_MANT_175 0x600000u

/* 2^p as float for p in [-149, 127] (subnormal below -126), exactly. */
static float qki_mx_pow2(int p)
{
	if (p >= -126)
		return qki_u2f((uint32_t)(p + 127) << 23);
	return qki_u2f(1u << (p + 149));
}

uint8_t qk_mxfp8_scale_code(float amax)
{
	uint32_t a = qki_f2u(amax) & 0x7fffffffu;
	int e;

	if (a > 0x7f800000u)
		return QKI_MX_NAN;
	if (a == 0x7f800000u)
		return 254;	/* e = 127: the largest scale */
	if (a < 0x00800000u)
		return 0;	/* zero or subnormal: far below 448 * 2^-127 */
	/* amax = M * 2^E, M in [1, 2): M <= 1.75 fits 448 * 2^(E - 8),
	 * above it needs one more power of two. */
	e = (int)(a >> 23) - 127 - 8 + ((a & 0x7fffffu) > QKI_MX_MANT_175);
	if (e < -127)
		e = -127;
	return (uint8_t)(e + 127);
}

struct qki_mx {
	int dtype;
	const void *x;
	void *out;
	size_t inner;
	uint8_t *codes, *scales;
	const uint8_t *ccodes, *cscales;
};

/* inner == 1 (K the last axis, a [N, K] weight): a tile is one block
 * of 32 contiguous elements, loaded in one call. */
static void qki_mx_q_rows(const struct qki_mx *a, size_t lo, size_t hi)
{
	float x[QKI_MXB], mul;
	size_t t, j;

	for (t = lo; t < hi; t++) {
		uint32_t m = 0;
		uint8_t c;

		qki_load_f32(a->dtype, a->x, t * QKI_MXB, QKI_MXB, x);
		for (j = 0; j < QKI_MXB; j++) {
			uint32_t v = qki_abs_bits(x[j]);

			m = v > m ? v : m;
		}
		c = qk_mxfp8_scale_code(qki_u2f(m));
		a->scales[t] = c;
		mul = qki_mx_pow2(127 - (int)c);
		for (j = 0; j < QKI_MXB; j++)
			a->codes[t * QKI_MXB + j] =
				(uint8_t)qki_enc_e4m3(QK_FMUL(x[j], mul), 1);
	}
}

/* Tiles [lo, hi): a column chunk of 32 rows at a time. */
static int qki_mx_q(void *arg, unsigned part, size_t lo, size_t hi)
{
	const struct qki_mx *a = arg;
	float buf[QKI_MXB][QKI_CHUNK];
	size_t t, col, cw, r, j;

	(void)part;
	if (a->inner == 1) {
		qki_mx_q_rows(a, lo, hi);
		return 0;
	}
	for (t = lo; t < hi; t++) {
		size_t base = t * QKI_MXB * a->inner;

		for (col = 0; col < a->inner; col += cw) {
			uint32_t m[QKI_CHUNK];
			float mul[QKI_CHUNK];

			cw = a->inner - col < QKI_CHUNK ? a->inner - col :
							   QKI_CHUNK;
			for (r = 0; r < QKI_MXB; r++)
				qki_load_f32(a->dtype, a->x,
					     base + r * a->inner + col, cw,
					     buf[r]);
			for (j = 0; j < cw; j++)
				m[j] = 0;
			for (r = 0; r < QKI_MXB; r++)
				for (j = 0; j < cw; j++) {
					uint32_t v = qki_abs_bits(buf[r][j]);

					m[j] = v > m[j] ? v : m[j];
				}
			for (j = 0; j < cw; j++) {
				uint8_t c = qk_mxfp8_scale_code(qki_u2f(m[j]));

				a->scales[t * a->inner + col + j] = c;
				mul[j] = qki_mx_pow2(127 - (int)c);
			}
			for (r = 0; r < QKI_MXB; r++)
				for (j = 0; j < cw; j++)
					a->codes[base + r * a->inner + col + j] =
						(uint8_t)qki_enc_e4m3(QK_FMUL(
							buf[r][j], mul[j]), 1);
		}
	}
	return 0;
}

/* Elements [lo, hi) of the dequantized tensor, in chunks. */
static int qki_mx_dq(void *arg, unsigned part, size_t lo, size_t hi)
{
	const struct qki_mx *a = arg;
	float y[QKI_CHUNK];
	size_t i, c, j;

	(void)part;
	for (i = lo; i < hi; i += c) {
		c = hi - i < QKI_CHUNK ? hi - i : QKI_CHUNK;
		for (j = 0; j < c; j++) {
			size_t e = i + j, row = e / a->inner;
			size_t s = (row / QKI_MXB) * a->inner + e % a->inner;
			uint8_t sc = a->cscales[s];
			float v = QK_FMUL(qki_dec_e4m3(a->ccodes[e]),
					  qki_mx_pow2((int)sc - 127));

			y[j] = sc == QKI_MX_NAN ? qki_u2f(QK_NAN_BITS) :
						  qki_canon(v);
		}
		qki_store_f32(a->dtype, a->out, i, c, y);
	}
	return 0;
}

static int qki_mx_check(int dtype, size_t outer, size_t k, size_t inner,
			size_t *n)
{
	if (!qki_is_real(dtype))
		return QK_EDTYPE;
	if (qki_mul3(outer, k, inner, n) || *n > SIZE_MAX / 4)
		return QK_EINVAL;
	if (k % QKI_MXB)
		return QK_EBLOCK;
	return 0;
}

qopt_status qk_mxfp8_quantize(qk_ctx *ctx, int src_dtype, const void *x,
		      size_t outer, size_t k, size_t inner,
		      uint8_t *codes, uint8_t *scales)
{
	struct qki_mx a = { .dtype = src_dtype, .x = x, .inner = inner,
			    .codes = codes, .scales = scales };
	size_t n, sz = qki_dtype_size(src_dtype);
	int rc = qki_mx_check(src_dtype, outer, k, inner, &n);

	if (rc)
		return rc;
	if (!n)
		return 0;
	if (!x || !codes || !scales)
		return QK_EINVAL;
	rc = qki_parallel(ctx, outer * (k / QKI_MXB), n * sz, qki_mx_q, &a,
			  NULL);
	if (!rc)
		qki_account(ctx, 0, n * sz);
	return rc;
}

qopt_status qk_mxfp8_dequantize(qk_ctx *ctx, const uint8_t *codes,
			const uint8_t *scales, size_t outer, size_t k,
			size_t inner, int dst_dtype, void *dst)
{
	struct qki_mx a = { .dtype = dst_dtype, .out = dst, .inner = inner,
			    .ccodes = codes, .cscales = scales };
	size_t n;
	int rc = qki_mx_check(dst_dtype, outer, k, inner, &n);

	if (rc)
		return rc;
	if (!n)
		return 0;
	if (!codes || !scales || !dst)
		return QK_EINVAL;
	rc = qki_parallel(ctx, n, n * (qki_dtype_size(dst_dtype) + 1),
			  qki_mx_dq, &a, NULL);
	if (!rc)
		qki_account(ctx, 0, n + n / QKI_MXB);
	return rc;
}

/*
 * kernels/int8.c - symmetric INT8 QuantizeLinear / DequantizeLinear
 * (zero point 0) on [outer, axis, inner] with per-tensor, per-axis or
 * blocked FP32 scales: the form TensorRT's explicit INT8 reads.
 *
 * q = clamp(rne(x / scale), -127, 127), NaN -> 0, and y = q * scale,
 * one float operation each (numerics.h: qki_quant_int8, shared with
 * the CUDA kernel, so both give the same bytes).
 */
#include "internal.h"

struct qki_int8 {
	int rt;            /* FLOAT/FLOAT16/BFLOAT16 side */
	int quant;
	const void *src;   /* real (quantize) or INT8 (dequantize) */
	void *dst;
	struct qki_scale_walk w;
};

QKI_HOT static void qki_int8_q(uint8_t *restrict q, const float *restrict x,
			       float s, const qki_f32u *restrict sv, size_t n)
{
	if (sv)
		QKI_FOR_VEC(j, n, q[j] = (uint8_t)qki_quant_int8(x[j], sv[j]));
	else
		QKI_FOR_VEC(j, n, q[j] = (uint8_t)qki_quant_int8(x[j], s));
}

QKI_HOT static void qki_int8_dq(float *restrict y, const uint8_t *restrict q,
				float s, const qki_f32u *restrict sv, size_t n)
{
	if (sv)
		QKI_FOR_VEC(j, n, y[j] = qki_dequant_int8(q[j], sv[j]));
	else
		QKI_FOR_VEC(j, n, y[j] = qki_dequant_int8(q[j], s));
}

static void qki_int8_chunk(const struct qki_int8 *f, size_t i, size_t n,
			   float s, const qki_f32u *sv)
{
	float buf[QKI_CHUNK];

	if (f->quant) {
		qki_load_f32(f->rt, f->src, i, n, buf);
		qki_int8_q((uint8_t *)f->dst + i, buf, s, sv, n);
		return;
	}
	qki_int8_dq(buf, (const uint8_t *)f->src + i, s, sv, n);
	qki_store_f32(f->rt, f->dst, i, n, buf);
}

static int qki_int8_range(void *arg, unsigned part, size_t lo, size_t hi)
{
	const struct qki_int8 *f = arg;
	const qki_f32u *sv;
	size_t len, c, j;
	float s = 0.0f;

	(void)part;
	for (; lo < hi; lo += len) {
		len = qki_scale_run(&f->w, lo, hi, &s, &sv);
		for (j = 0; j < len; j += c) {
			c = len - j < QKI_CHUNK ? len - j : QKI_CHUNK;
			qki_int8_chunk(f, lo + j, c, s, sv ? sv + j : NULL);
		}
	}
	return 0;
}

/* On CUDA when routed there (the CPU redoes a failed call), else here. */
static int qki_int8_start(qk_ctx *ctx, struct qki_int8 *f,
			  const qk_qlayout *lay)
{
	size_t n, nscales, rsz = qki_dtype_size(f->rt);
	size_t in_sz = f->quant ? rsz : 1;
	const struct qki_cuda_ops *ops;
	int rc;

	if (!qki_is_real(f->rt))
		return QK_EDTYPE;
	rc = qki_scale_walk_init(&f->w, lay, &n, &nscales);
	if (rc)
		return rc;
	if (n && (!f->dst || !f->src || !f->w.scales))
		return QK_EINVAL;
	rc = qki_route(ctx, n * in_sz, &ops);
	if (rc)
		return rc;
	if (ops) {
		if (f->quant)
			rc = ops->int8_quantize(f->dst, f->rt, f->src,
						f->w.scales, nscales, lay->outer,
						lay->axis, lay->inner,
						lay->mode, lay->block);
		else
			rc = ops->int8_dequantize(f->rt, f->dst, f->src,
						  f->w.scales, nscales,
						  lay->outer, lay->axis,
						  lay->inner, lay->mode,
						  lay->block);
		rc = qki_cuda_result(ctx, ops, rc, n * in_sz);
		if (rc != QKI_CPU)
			return rc;
	}
	if (n)
		qki_parallel(ctx, n, n * (rsz + 1), qki_int8_range, f, NULL);
	qki_account(ctx, 0, n * in_sz);
	return 0;
}

qopt_status qk_int8_quantize(qk_ctx *ctx, int8_t *dst, int src_dtype,
			     const void *src, const float *scales,
			     const qk_qlayout *lay)
{
	struct qki_int8 f = { .rt = src_dtype, .quant = 1, .src = src,
			      .dst = dst, .w.scales = scales };

	return qki_int8_start(ctx, &f, lay);
}

qopt_status qk_int8_dequantize(qk_ctx *ctx, int dst_dtype, void *dst,
			       const int8_t *src, const float *scales,
			       const qk_qlayout *lay)
{
	struct qki_int8 f = { .rt = dst_dtype, .quant = 0, .src = src,
			      .dst = dst, .w.scales = scales };

	return qki_int8_start(ctx, &f, lay);
}

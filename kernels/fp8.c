/*
 * kernels/fp8.c - FP8 QuantizeLinear / DequantizeLinear on [outer, axis,
 * inner] with per-tensor, per-axis or blocked FP32 scales.
 *
 * q = fp8(x / scale) and y = value(q) * scale, one float operation each
 * (as ONNX defines them and ONNX Runtime computes them), with NaN made
 * explicit (numerics.h: qki_quant_e4m3, qki_canon).
 */
#include "internal.h"

struct qki_fp8 {
	int fmt, rt;       /* FP8 dtype; FLOAT/FLOAT16/BFLOAT16 dtype */
	int quant, sat;
	const void *src;   /* real (quantize) or FP8 (dequantize) */
	void *dst;
	struct qki_scale_walk w;	/* the caller's scales, at any address */
	size_t ssz;        /* bytes per source element */
};

/* One loop per format, saturation and scale shape, each a straight
 * body for the vectorizer (restrict parameters: GCC ignores restrict
 * on block-scope pointers and would want a run-time alias check). */
#define QKI_FP8_Q(enc, sat)                                               \
	do {                                                              \
		if (sv)                                                   \
			QKI_FOR_VEC(j, n, q[j] = (uint8_t)enc(x[j], sv[j], sat)); \
		else                                                      \
			QKI_FOR_VEC(j, n, q[j] = (uint8_t)enc(x[j], s, sat));     \
	} while (0)

QKI_HOT static void qki_fp8_q(int fmt, int sat, uint8_t *restrict q,
			      const float *restrict x, float s,
			      const qki_f32u *restrict sv, size_t n)
{
	if (fmt == QK_T_E4M3FN && sat)
		QKI_FP8_Q(qki_quant_e4m3, 1);
	else if (fmt == QK_T_E4M3FN)
		QKI_FP8_Q(qki_quant_e4m3, 0);
	else if (sat)
		QKI_FP8_Q(qki_quant_e5m2, 1);
	else
		QKI_FP8_Q(qki_quant_e5m2, 0);
}

QKI_HOT static void qki_fp8_dq(float *restrict y, float s,
			       const qki_f32u *restrict sv, size_t n)
{
	if (sv)
		QKI_FOR_VEC(j, n, y[j] = qki_canon(QK_FMUL(y[j], sv[j])));
	else
		QKI_FOR_VEC(j, n, y[j] = qki_canon(QK_FMUL(y[j], s)));
}

static void qki_fp8_chunk(const struct qki_fp8 *f, size_t i, size_t n,
				  float s, const qki_f32u *sv)
{
	float buf[QKI_CHUNK];

	if (f->quant) {
		qki_load_f32(f->rt, f->src, i, n, buf);
		qki_fp8_q(f->fmt, f->sat, (uint8_t *)f->dst + i, buf, s, sv, n);
		return;
	}
	qki_dec_fp8(f->fmt, buf, (const uint8_t *)f->src + i, n);
	qki_fp8_dq(buf, s, sv, n);
	qki_store_f32(f->rt, f->dst, i, n, buf);
}

static int qki_fp8_range(void *arg, unsigned part, size_t lo, size_t hi)
{
	const struct qki_fp8 *f = arg;
	const qki_f32u *sv;
	size_t len, c, j;
	float s = 0.0f;

	(void)part;
	while (lo < hi) {
		len = qki_scale_run(&f->w, lo, hi, &s, &sv);
#if QKI_HAVE_F16C
		/* The whole run in registers (kernels/fp8-avx512.c). */
		if (f->quant && qki_have_avx512()) {
			qki_fp8_q_avx512(f->fmt, f->sat, f->rt, f->src, lo,
					 (uint8_t *)f->dst + lo, s, sv, len);
			lo += len;
			continue;
		}
#endif
		for (j = 0; j < len; j += c) {
			c = len - j < QKI_CHUNK ? len - j : QKI_CHUNK;
			if (lo + j + QKI_PF_AHEAD + c <= hi)
				qki_prefetch((const char *)f->src +
						     (lo + j + QKI_PF_AHEAD) * f->ssz,
					     c * f->ssz);
			qki_fp8_chunk(f, lo + j, c, s, sv ? sv + j : NULL);
		}
		lo += len;
	}
	return 0;
}

static int qki_fp8_run_all(qk_ctx *ctx, struct qki_fp8 *f,
			   const qk_qlayout *lay, size_t n, size_t nscales)
{
	size_t in_sz = f->quant ? qki_dtype_size(f->rt) : 1;
	size_t out_sz = f->quant ? 1 : qki_dtype_size(f->rt);
	const struct qki_cuda_ops *ops;
	int rc = qki_route(ctx, n * in_sz, &ops);

	if (rc)
		return rc;
	if (ops) {
		if (f->quant)
			rc = ops->fp8_quantize(f->fmt, f->dst, f->rt, f->src,
					       f->w.scales, nscales, lay->outer,
					       lay->axis, lay->inner, lay->mode,
					       lay->block, f->sat);
		else
			rc = ops->fp8_dequantize(f->rt, f->dst, f->fmt, f->src,
						 f->w.scales, nscales, lay->outer,
						 lay->axis, lay->inner,
						 lay->mode, lay->block);
		rc = qki_cuda_result(ctx, ops, rc, n * in_sz);
		if (rc != QKI_CPU)
			return rc;
	}
	if (n)
		qki_parallel(ctx, n, n * (in_sz + out_sz), qki_fp8_range, f,
			     NULL);
	qki_account(ctx, 0, n * in_sz);
	return 0;
}

/* Checks shared by quantize and dequantize (f->rt is the real-valued
 * side's type), then runs. */
static int fp8_start(qk_ctx *ctx, struct qki_fp8 *f, const qk_qlayout *lay)
{
	size_t n, nscales;
	int rc;

	if ((f->fmt != QK_T_E4M3FN && f->fmt != QK_T_E5M2) ||
	    !qki_is_real(f->rt))
		return QK_EDTYPE;
	rc = qki_scale_walk_init(&f->w, lay, &n, &nscales);
	if (rc)
		return rc;
	if (n && (!f->dst || !f->src || !f->w.scales))
		return QK_EINVAL;
	return qki_fp8_run_all(ctx, f, lay, n, nscales);
}

qopt_status qk_fp8_quantize(qk_ctx *ctx, int fp8_dtype, uint8_t *dst,
		    int src_dtype, const void *src, const float *scales,
		    const qk_qlayout *lay, int saturate)
{
	struct qki_fp8 f = { .fmt = fp8_dtype, .rt = src_dtype, .quant = 1,
			     .sat = saturate != 0, .src = src, .dst = dst,
			     .w.scales = scales };

	f.ssz = qki_dtype_size(src_dtype);
	return fp8_start(ctx, &f, lay);
}

qopt_status qk_fp8_dequantize(qk_ctx *ctx, int dst_dtype, void *dst,
		      int fp8_dtype, const uint8_t *src, const float *scales,
		      const qk_qlayout *lay)
{
	struct qki_fp8 f = { .fmt = fp8_dtype, .rt = dst_dtype, .quant = 0,
			     .src = src, .dst = dst, .w.scales = scales };

	f.ssz = 1;
	return fp8_start(ctx, &f, lay);
}

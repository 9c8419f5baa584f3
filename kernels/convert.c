/*
 * kernels/convert.c - scalar conversions and qk_convert.
 *
 * The arithmetic lives in numerics.h (shared with the CUDA module);
 * this file wraps it for the public API and runs array conversions.
 */
#include <string.h>

#include "internal.h"

uint16_t qk_f32_to_f16(float x)
{
	return (uint16_t)qki_enc_f16(x);
}

float qk_f16_to_f32(uint16_t h)
{
	return qki_dec_f16(h);
}

uint16_t qk_f32_to_bf16(float x)
{
	return (uint16_t)qki_enc_bf16(x);
}

float qk_bf16_to_f32(uint16_t h)
{
	return qki_dec_bf16(h);
}

uint8_t qk_f32_to_e4m3(float x, int saturate)
{
	return (uint8_t)qki_enc_e4m3(x, saturate != 0);
}

float qk_e4m3_to_f32(uint8_t code)
{
	return qki_dec_e4m3(code);
}

uint8_t qk_f32_to_e5m2(float x, int saturate)
{
	return (uint8_t)qki_enc_e5m2(x, saturate != 0);
}

float qk_e5m2_to_f32(uint8_t code)
{
	return qki_dec_e5m2(code);
}

uint8_t qk_f32_to_e2m1(float x)
{
	return (uint8_t)qki_enc_e2m1(x);
}

float qk_e2m1_to_f32(uint8_t code)
{
	return qki_dec_e2m1(code);
}

void qk_e2m1_pack(const float *x, size_t n, uint8_t *dst)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		dst[i / 2] = (uint8_t)(qki_enc_e2m1(x[i]) |
				       qki_enc_e2m1(x[i + 1]) << 4);
	if (n & 1)
		dst[n / 2] = (uint8_t)qki_enc_e2m1(x[n - 1]);
}

void qk_e2m1_unpack(const uint8_t *src, size_t n, float *dst)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = qki_dec_e2m1((uint8_t)(src[i / 2] >> (i & 1 ? 4 : 0)));
}

struct qki_conv {
	int dt, st;
	void *dst;
	const void *src;
	size_t ssz;
};

static int qki_conv_range(void *arg, unsigned part, size_t lo, size_t hi)
{
	const struct qki_conv *c = arg;
	float buf[QKI_CHUNK];
	size_t i, n;

	(void)part;
	for (i = lo; i < hi; i += n) {
		n = hi - i < QKI_CHUNK ? hi - i : QKI_CHUNK;
		if (i + QKI_PF_AHEAD + n <= hi)
			qki_prefetch((const char *)c->src +
					     (i + QKI_PF_AHEAD) * c->ssz,
				     n * c->ssz);
		if (qki_is_real(c->st))
			qki_load_f32(c->st, c->src, i, n, buf);
		else
			qki_dec_fp8(c->st, buf, (const uint8_t *)c->src + i, n);
		if (qki_is_real(c->dt))
			qki_store_f32(c->dt, c->dst, i, n, buf);
		else /* Cast's default: saturate = 1 */
			qki_enc_fp8(c->dt, (uint8_t *)c->dst + i, buf, n, 1);
	}
	return 0;
}

qopt_status qk_convert(qk_ctx *ctx, int dst_dtype, void *dst,
	       int src_dtype, const void *src, size_t n)
{
	size_t ssz = qki_dtype_size(src_dtype), dsz = qki_dtype_size(dst_dtype);
	struct qki_conv c = { dst_dtype, src_dtype, dst, src, ssz };
	const struct qki_cuda_ops *ops;
	int rc;

	/* FP8 <-> FP8 is not a conversion ONNX defines directly. */
	if (!ssz || !dsz || (!qki_is_real(src_dtype) && !qki_is_real(dst_dtype)))
		return QK_EDTYPE;
	if (n && (!dst || !src))
		return QK_EINVAL;
	if (n > SIZE_MAX / 4)
		return QK_EINVAL;
	rc = qki_route(ctx, n * ssz, &ops);
	if (rc)
		return rc;
	if (ops) {
		rc = ops->convert(dst_dtype, dst, src_dtype, src, n);
		rc = qki_cuda_result(ctx, ops, rc, n * ssz);
		if (rc != QKI_CPU)
			return rc;
	}
	if (src_dtype == dst_dtype)
		memcpy(dst, src, n * ssz);
	else
		qki_parallel(ctx, n, n * (ssz + dsz), qki_conv_range, &c, NULL);
	qki_account(ctx, 0, n * ssz);
	return 0;
}

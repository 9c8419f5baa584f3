/*
 * kernels/cuda-fp8.cu - FP8 quantize/dequantize on the GPU: one thread
 * per element, q = fp8(x / scale) and y = value(q) * scale, the single
 * float operation of kernels/fp8.c, rounded to nearest, NaN as defined
 * in numerics.h.
 */
#include "cuda-internal.cuh"

struct qkc_fp8_args {
	int quant, fmt, rt, sat;
	const void *src;
	void *dst;
	size_t n;
	qkc_scales sc;
};

__global__ void qkc_fp8_k(qkc_fp8_args a)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t step = (size_t)gridDim.x * blockDim.x;

	for (; i < a.n; i += step) {
		float s = qkc_scale_at(a.sc, i);

		if (a.quant) {
			float x = qkc_load(a.rt, a.src, i);
			uint8_t *d = (uint8_t *)a.dst;

			d[i] = (uint8_t)(a.fmt == QK_T_E4M3FN ?
					 qki_quant_e4m3(x, s, a.sat) :
					 qki_quant_e5m2(x, s, a.sat));
		} else {
			float v = qkc_load(a.fmt, a.src, i);

			qkc_store(a.rt, a.dst, i, qki_canon(QK_FMUL(v, s)));
		}
	}
}

qopt_status qkc_fp8_dev(int quant, int fmt, int rt, const void *src, void *dst,
		const float *scales, size_t outer, size_t axis, size_t inner,
		int mode, size_t block, int sat)
{
	qkc_fp8_args a;

	a.quant = quant;
	a.fmt = fmt;
	a.rt = rt;
	a.sat = sat;
	a.src = src;
	a.dst = dst;
	a.n = outer * axis * inner;
	a.sc = qkc_scales_of(scales, axis, inner, mode, block);
	if (a.n)
		qkc_fp8_k<<<qkc_blocks(a.n), QKC_THREADS>>>(a);
	return 0;
}

static qopt_status qkc_fp8(int quant, int fmt, int rt, const void *src, void *dst,
		   const void *scales, size_t nscales, size_t outer,
		   size_t axis, size_t inner, int mode, size_t block, int sat)
{
	size_t n = outer * axis * inner;
	size_t ib = n * (quant ? qkc_dtype_size(rt) : 1);
	size_t ob = n * (quant ? 1 : qkc_dtype_size(rt));
	qkc_buf din, dout, ds;

	if (din.from_host(src, ib) || dout.alloc(ob) ||
	    ds.from_host(scales, nscales * sizeof(float)))
		return QOPT_EDEVICE_CALL;
	qkc_fp8_dev(quant, fmt, rt, din.p, dout.p, (const float *)ds.p, outer,
		    axis, inner, mode, block, sat);
	if (qkc_sync(quant ? "fp8 quantize" : "fp8 dequantize"))
		return QOPT_EDEVICE_CALL;
	return dout.to_host(dst, ob);
}

qopt_status qkc_fp8_quantize(int fp8_dtype, uint8_t *dst, int src_dtype,
		     const void *src, const void *scales, size_t nscales,
		     size_t outer, size_t axis, size_t inner, int mode,
		     size_t block, int saturate)
{
	return qkc_fp8(1, fp8_dtype, src_dtype, src, dst, scales, nscales,
		       outer, axis, inner, mode, block, saturate);
}

qopt_status qkc_fp8_dequantize(int dst_dtype, void *dst, int fp8_dtype,
		       const uint8_t *src, const void *scales, size_t nscales,
		       size_t outer, size_t axis, size_t inner, int mode,
		       size_t block)
{
	return qkc_fp8(0, fp8_dtype, dst_dtype, src, dst, scales, nscales,
		       outer, axis, inner, mode, block, 1);
}

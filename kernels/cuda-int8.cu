/*
 * kernels/cuda-int8.cu - symmetric INT8 quantize/dequantize on the GPU:
 * one thread per element, the operations of kernels/int8.c
 * (numerics.h: qki_quant_int8, qki_dequant_int8), so the codes are the
 * CPU's bit for bit.
 */
#include "cuda-internal.cuh"

struct qkc_int8_args {
	int quant, rt;
	const void *src;
	void *dst;
	size_t n;
	qkc_scales sc;
};

__global__ void qkc_int8_k(qkc_int8_args a)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t step = (size_t)gridDim.x * blockDim.x;

	for (; i < a.n; i += step) {
		float s = qkc_scale_at(a.sc, i);

		if (a.quant)
			((uint8_t *)a.dst)[i] = (uint8_t)qki_quant_int8(
				qkc_load(a.rt, a.src, i), s);
		else
			qkc_store(a.rt, a.dst, i, qki_dequant_int8(
				((const uint8_t *)a.src)[i], s));
	}
}

static qopt_status qkc_int8(int quant, int rt, const void *src, void *dst,
			    const void *scales, size_t nscales, size_t outer,
			    size_t axis, size_t inner, int mode, size_t block)
{
	size_t n = outer * axis * inner;
	size_t ib = n * (quant ? qkc_dtype_size(rt) : 1);
	size_t ob = n * (quant ? 1 : qkc_dtype_size(rt));
	qkc_buf din, dout, ds;
	qkc_int8_args a;

	if (din.from_host(src, ib) || dout.alloc(ob) ||
	    ds.from_host(scales, nscales * sizeof(float)))
		return QOPT_EDEVICE_CALL;
	a.quant = quant;
	a.rt = rt;
	a.src = din.p;
	a.dst = dout.p;
	a.n = n;
	a.sc = qkc_scales_of((const float *)ds.p, axis, inner, mode, block);
	if (n)
		qkc_int8_k<<<qkc_blocks(n), QKC_THREADS>>>(a);
	if (qkc_sync(quant ? "int8 quantize" : "int8 dequantize"))
		return QOPT_EDEVICE_CALL;
	return dout.to_host(dst, ob);
}

qopt_status qkc_int8_quantize(int8_t *dst, int src_dtype, const void *src,
		      const void *scales, size_t nscales, size_t outer,
		      size_t axis, size_t inner, int mode, size_t block)
{
	return qkc_int8(1, src_dtype, src, dst, scales, nscales, outer, axis,
			inner, mode, block);
}

qopt_status qkc_int8_dequantize(int dst_dtype, void *dst, const int8_t *src,
			const void *scales, size_t nscales, size_t outer,
			size_t axis, size_t inner, int mode, size_t block)
{
	return qkc_int8(0, dst_dtype, src, dst, scales, nscales, outer, axis,
			inner, mode, block);
}

/*
 * kernels/cuda-convert.cu - qk_convert, qk_amax and qk_amax_blocks on
 * the GPU (same element functions as kernels/convert.c and amax.c).
 */
#include "cuda-internal.cuh"

__global__ void qkc_convert_k(int dt, void *dst, int st, const void *src,
			      size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t step = (size_t)gridDim.x * blockDim.x;

	for (; i < n; i += step)
		qkc_store(dt, dst, i, qkc_load(st, src, i));
}

qopt_status qkc_convert_dev(int dt, void *dst, int st, const void *src, size_t n)
{
	/* Same type: a byte copy, as the CPU's memcpy. Decoding and
	 * re-encoding would quiet a signaling FLOAT16/BFLOAT16 NaN
	 * (0x7c01 -> 0x7e01), which the CPU keeps as it is. */
	if (dt == st && n) {
		cudaError_t e = cudaMemcpyAsync(dst, src, n * qkc_dtype_size(dt),
						cudaMemcpyDeviceToDevice);

		return e == cudaSuccess ? 0 : qkc_fail("copy on device", e);
	}
	if (n)
		qkc_convert_k<<<qkc_blocks(n), QKC_THREADS>>>(dt, dst, st, src,
							       n);
	return 0;
}

qopt_status qkc_convert(int dst_dtype, void *dst, int src_dtype, const void *src,
		size_t n)
{
	size_t ib = n * qkc_dtype_size(src_dtype);
	size_t ob = n * qkc_dtype_size(dst_dtype);
	qkc_buf din, dout;

	if (din.from_host(src, ib) || dout.alloc(ob) ||
	    qkc_convert_dev(dst_dtype, dout.p, src_dtype, din.p, n) ||
	    qkc_sync("convert"))
		return QOPT_EDEVICE_CALL;
	return dout.to_host(dst, ob);
}

/* Max is exact and order-free, so warp shuffles and atomics give the
 * CPU's result whatever the schedule. */
__global__ void qkc_amax_k(int dtype, const void *x, size_t n, unsigned *out)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t step = (size_t)gridDim.x * blockDim.x;
	unsigned m = 0, o;

	for (; i < n; i += step) {
		unsigned v = qki_abs_bits(qkc_load(dtype, x, i));

		m = v > m ? v : m;
	}
	for (int d = 16; d > 0; d >>= 1) {
		o = __shfl_xor_sync(0xffffffffu, m, d);
		m = o > m ? o : m;
	}
	if ((threadIdx.x & 31) == 0 && m)
		atomicMax(out, m);
}

qopt_status qkc_amax_dev(int dtype, const void *x, size_t n, unsigned *amax_bits)
{
	cudaError_t e = cudaMemset(amax_bits, 0, sizeof(unsigned));

	if (e != cudaSuccess)
		return qkc_fail("cudaMemset", e);
	if (n)
		qkc_amax_k<<<qkc_blocks(n), QKC_THREADS>>>(dtype, x, n,
							    amax_bits);
	return 0;
}

qopt_status qkc_amax(int dtype, const void *x, size_t n, float *amax)
{
	qkc_buf din, dm;
	unsigned bits;

	if (din.from_host(x, n * qkc_dtype_size(dtype)) ||
	    dm.alloc(sizeof(unsigned)))
		return QOPT_EDEVICE_CALL;
	if (qkc_amax_dev(dtype, din.p, n, (unsigned *)dm.p) ||
	    qkc_sync("amax") || dm.to_host(&bits, sizeof(bits)))
		return QOPT_EDEVICE_CALL;
	*amax = qki_u2f(bits);
	return 0;
}

/* One thread per output element (o, block, t). */
__global__ void qkc_amaxb_k(int dtype, const void *x, size_t outer,
			    size_t axis, size_t inner, size_t block,
			    size_t nb, float *out)
{
	size_t u = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t step = (size_t)gridDim.x * blockDim.x;
	size_t total = outer * nb * inner;

	for (; u < total; u += step) {
		size_t t = u % inner, rest = u / inner;
		size_t bi = rest % nb, o = rest / nb;
		size_t r0 = bi * block, r1 = r0 + block, r;
		unsigned m = 0;

		if (r1 > axis)
			r1 = axis;
		for (r = r0; r < r1; r++) {
			unsigned v = qki_abs_bits(qkc_load(dtype, x,
					(o * axis + r) * inner + t));

			m = v > m ? v : m;
		}
		out[u] = qki_u2f(m);
	}
}

qopt_status qkc_amax_blocks_dev(int dtype, const void *x, size_t outer,
			size_t axis, size_t inner, size_t block, float *out)
{
	size_t nb = axis / block + (axis % block != 0);
	size_t total = outer * nb * inner;

	if (total)
		qkc_amaxb_k<<<qkc_blocks(total), QKC_THREADS>>>(
			dtype, x, outer, axis, inner, block, nb, out);
	return 0;
}

qopt_status qkc_amax_blocks(int dtype, const void *x, size_t outer, size_t axis,
		    size_t inner, size_t block, float *out)
{
	size_t nb = axis / block + (axis % block != 0);
	size_t n = outer * axis * inner, no = outer * nb * inner;
	qkc_buf din, dout;

	if (din.from_host(x, n * qkc_dtype_size(dtype)) ||
	    dout.alloc(no * sizeof(float)))
		return QOPT_EDEVICE_CALL;
	qkc_amax_blocks_dev(dtype, din.p, outer, axis, inner, block,
			    (float *)dout.p);
	if (qkc_sync("amax_blocks"))
		return QOPT_EDEVICE_CALL;
	return dout.to_host(out, no * sizeof(float));
}

/*
 * kernels/cuda-nvfp4.cu - NVFP4 on the GPU, the arithmetic of
 * kernels/nvfp4.c (numerics.h's qk_nvfp4_*): amax on the device, g on
 * the host from it, then one thread per block of 16.
 */
#include "cuda-internal.cuh"

/* inner == 1: thread per block of 16 contiguous elements; its codes are
 * 8 whole bytes, written at once. */
__global__ void qkc_nvq_rows_k(int dtype, const void *w, size_t nblocks,
			       float g, uint8_t *codes, uint8_t *scales)
{
	size_t b = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t step = (size_t)gridDim.x * blockDim.x;

	for (; b < nblocks; b += step) {
		float x[QK_NVFP4_BLOCK], div;
		unsigned m = 0;
		uint64_t packed = 0;
		uint8_t s;

		for (int j = 0; j < QK_NVFP4_BLOCK; j++) {
			unsigned v;

			x[j] = qkc_load(dtype, w, b * QK_NVFP4_BLOCK + j);
			v = qki_abs_bits(x[j]);
			m = v > m ? v : m;
		}
		s = (uint8_t)qki_nvfp4_scale_code(qki_u2f(m), g);
		div = qki_nvfp4_block_div(s, g);
		for (int j = 0; j < QK_NVFP4_BLOCK; j++)
			packed |= (uint64_t)qki_enc_e2m1(QK_FDIV(x[j], div))
				  << (4 * j);
		scales[b] = s;
		((uint64_t *)codes)[b] = packed; /* little endian: low nibble first */
	}
}

/* inner > 1: thread per (tile, column); codes one byte per element into
 * tmp, packed by qkc_pack_k (neighbouring nibbles belong to other
 * threads). */
__global__ void qkc_nvq_cols_k(int dtype, const void *w, size_t tiles,
			       size_t inner, float g, uint8_t *tmp,
			       uint8_t *scales)
{
	size_t u = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t step = (size_t)gridDim.x * blockDim.x;

	for (; u < tiles * inner; u += step) {
		size_t tile = u / inner, t = u % inner;
		size_t base = tile * QK_NVFP4_BLOCK * inner + t;
		unsigned m = 0;
		uint8_t s;
		float div;

		for (int r = 0; r < QK_NVFP4_BLOCK; r++) {
			unsigned v = qki_abs_bits(qkc_load(dtype, w,
							  base + r * inner));

			m = v > m ? v : m;
		}
		s = (uint8_t)qki_nvfp4_scale_code(qki_u2f(m), g);
		div = qki_nvfp4_block_div(s, g);
		scales[u] = s;
		for (int r = 0; r < QK_NVFP4_BLOCK; r++)
			tmp[base + r * inner] = (uint8_t)qki_enc_e2m1(QK_FDIV(
				qkc_load(dtype, w, base + r * inner), div));
	}
}

__global__ void qkc_pack_k(const uint8_t *tmp, size_t nbytes, uint8_t *codes)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t step = (size_t)gridDim.x * blockDim.x;

	for (; i < nbytes; i += step)
		codes[i] = (uint8_t)(tmp[2 * i] | tmp[2 * i + 1] << 4);
}

qopt_status qkc_nvfp4_q_dev(int dtype, const void *w, size_t outer, size_t k,
		    size_t inner, uint8_t *codes, uint8_t *scales,
		    uint8_t *tmp, unsigned *amax_bits, float *g)
{
	size_t n = outer * k * inner, tiles = outer * (k / QK_NVFP4_BLOCK);
	unsigned bits;
	cudaError_t e;

	if (qkc_amax_dev(dtype, w, n, amax_bits) || qkc_sync("nvfp4 amax"))
		return QOPT_EDEVICE_CALL;
	e = cudaMemcpy(&bits, amax_bits, sizeof(bits), cudaMemcpyDeviceToHost);
	if (e != cudaSuccess)
		return qkc_fail("copy amax to host", e);
	if (bits == 0x7f800000u)
		return QOPT_EINVALID_NONFINITE;
	*g = qki_nvfp4_gscale(qki_u2f(bits)); /* host, as on the CPU path */
	if (!n)
		return 0;
	if (inner == 1) {
		qkc_nvq_rows_k<<<qkc_blocks(tiles), QKC_THREADS>>>(
			dtype, w, tiles, *g, codes, scales);
		return 0;
	}
	qkc_nvq_cols_k<<<qkc_blocks(tiles * inner), QKC_THREADS>>>(
		dtype, w, tiles, inner, *g, tmp, scales);
	qkc_pack_k<<<qkc_blocks(n / 2), QKC_THREADS>>>(tmp, n / 2, codes);
	return 0;
}

qopt_status qkc_nvfp4_quantize(int src_dtype, const void *w, size_t outer, size_t k,
		       size_t inner, uint8_t *codes, uint8_t *scales,
		       float *gscale)
{
	size_t n = outer * k * inner, ns = n / QK_NVFP4_BLOCK;
	qkc_buf dw, dc, ds, dt, dm;
	float g;
	qopt_status rc;

	if (dw.from_host(w, n * qkc_dtype_size(src_dtype)) ||
	    dc.alloc(n / 2) || ds.alloc(ns) || dm.alloc(sizeof(unsigned)) ||
	    (inner > 1 && dt.alloc(n)))
		return QOPT_EDEVICE_CALL;
	rc = qkc_nvfp4_q_dev(src_dtype, dw.p, outer, k, inner,
			     (uint8_t *)dc.p, (uint8_t *)ds.p,
			     (uint8_t *)dt.p, (unsigned *)dm.p, &g);
	if (rc || qkc_sync("nvfp4 quantize"))
		return rc ? rc : QOPT_EDEVICE_CALL;
	if (dc.to_host(codes, n / 2) || ds.to_host(scales, ns))
		return QOPT_EDEVICE_CALL;
	*gscale = g;
	return 0;
}

/* One thread per element: e2m1(code) * (e4m3(s) * g). */
__global__ void qkc_nvdq_k(const uint8_t *codes, const uint8_t *scales,
			   float g, size_t n, size_t inner, int dt, void *dst)
{
	size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t step = (size_t)gridDim.x * blockDim.x;

	for (; e < n; e += step) {
		size_t row = e / inner, t = e % inner;
		size_t s = (row / QK_NVFP4_BLOCK) * inner + t;
		uint8_t c = (codes[e / 2] >> (e & 1 ? 4 : 0)) & 0xfu;

		qkc_store(dt, dst, e, qki_canon(QK_FMUL(qki_dec_e2m1(c),
				qki_nvfp4_block_div(scales[s], g))));
	}
}

qopt_status qkc_nvfp4_dq_dev(const uint8_t *codes, const uint8_t *scales, float g,
		     size_t outer, size_t k, size_t inner, int dt, void *dst)
{
	size_t n = outer * k * inner;

	if (n)
		qkc_nvdq_k<<<qkc_blocks(n), QKC_THREADS>>>(codes, scales, g, n,
							    inner, dt, dst);
	return 0;
}

qopt_status qkc_nvfp4_dequantize(const uint8_t *codes, const uint8_t *scales,
			 float gscale, size_t outer, size_t k, size_t inner,
			 int dst_dtype, void *dst)
{
	size_t n = outer * k * inner, ob = n * qkc_dtype_size(dst_dtype);
	qkc_buf dc, ds, dout;

	if (dc.from_host(codes, n / 2) ||
	    ds.from_host(scales, n / QK_NVFP4_BLOCK) || dout.alloc(ob))
		return QOPT_EDEVICE_CALL;
	qkc_nvfp4_dq_dev((const uint8_t *)dc.p, (const uint8_t *)ds.p, gscale,
			 outer, k, inner, dst_dtype, dout.p);
	if (qkc_sync("nvfp4 dequantize"))
		return QOPT_EDEVICE_CALL;
	return dout.to_host(dst, ob);
}

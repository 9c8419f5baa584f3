/*
 * kernels/cuda-hadamard.cu - the Walsh-Hadamard transform of
 * kernels/hadamard.c on the GPU. Per column the same operations in the
 * same order: stages h = 1, 2, .. b/2 of (u, v) -> (u + v, u - v), then
 * one multiplication by qki_hadamard_scale(b).
 *
 * inner == 1 with b <= QKC_HAD_SMEM: one thread block per row block,
 * all stages in shared memory. Otherwise: one launch per stage over
 * global memory (in place for FLOAT, in an FP32 work copy for FLOAT16
 * and BFLOAT16), then a scaling launch.
 */
#include "cuda-internal.cuh"

#define QKC_HAD_SMEM 4096 /* floats: 16 KiB of shared memory */

__global__ void qkc_had_smem_k(int dtype, void *x, size_t rows, size_t b,
			       float scale)
{
	extern __shared__ float s[];

	for (size_t r = blockIdx.x; r < rows; r += gridDim.x) {
		size_t base = r * b;

		for (size_t i = threadIdx.x; i < b; i += blockDim.x)
			s[i] = qkc_load(dtype, x, base + i);
		__syncthreads();
		for (size_t h = 1; h < b; h <<= 1) {
			for (size_t p = threadIdx.x; p < b / 2; p += blockDim.x) {
				size_t i = (p / h) * 2 * h + p % h;
				float u = s[i], v = s[i + h];

				s[i] = QK_FADD(u, v);
				s[i + h] = QK_FSUB(u, v);
			}
			__syncthreads();
		}
		for (size_t i = threadIdx.x; i < b; i += blockDim.x)
			qkc_store(dtype, x, base + i,
				  qki_canon(QK_FMUL(s[i], scale)));
		__syncthreads();
	}
}

/* One stage h over every pair of the tensor, in FP32 memory f. */
__global__ void qkc_had_stage_k(float *f, size_t outer, size_t n,
				size_t inner, size_t b, size_t h)
{
	size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t step = (size_t)gridDim.x * blockDim.x;
	size_t half = n / 2, total = outer * half * inner;

	for (; p < total; p += step) {
		size_t t = p % inner, q = p / inner;
		size_t pr = q % half, o = q / half;
		size_t bi = pr / (b / 2), pp = pr % (b / 2);
		size_t i = bi * b + (pp / h) * 2 * h + pp % h;
		size_t e0 = (o * n + i) * inner + t, e1 = e0 + h * inner;
		float u = f[e0], v = f[e1];

		f[e0] = QK_FADD(u, v);
		f[e1] = QK_FSUB(u, v);
	}
}

__global__ void qkc_had_scale_k(const float *f, size_t total, float scale,
				int dtype, void *x)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t step = (size_t)gridDim.x * blockDim.x;

	for (; i < total; i += step)
		qkc_store(dtype, x, i, qki_canon(QK_FMUL(f[i], scale)));
}

static int qkc_had_smem(size_t inner, size_t block)
{
	return inner == 1 && block <= QKC_HAD_SMEM;
}

size_t qkc_hadamard_work(int dtype, size_t outer, size_t n, size_t inner,
			 size_t block)
{
	if (qkc_had_smem(inner, block) || dtype == QK_T_FLOAT)
		return 0;
	return outer * n * inner;
}

qopt_status qkc_hadamard_dev(int dtype, void *x, size_t outer, size_t n,
		     size_t inner, size_t block, float *work)
{
	size_t total = outer * n * inner;
	float scale = qki_hadamard_scale(block);
	float *f = dtype == QK_T_FLOAT ? (float *)x : work;

	if (!total)
		return 0;
	if (qkc_had_smem(inner, block)) {
		size_t rows = outer * (n / block);
		unsigned grid = rows > 65535u ? 65535u : (unsigned)rows;
		unsigned thr = block / 2 < QKC_THREADS ?
				       (unsigned)(block / 2 ? block / 2 : 1) :
				       QKC_THREADS;

		qkc_had_smem_k<<<grid, thr, block * sizeof(float)>>>(
			dtype, x, rows, block, scale);
		return 0;
	}
	if (f != x)
		qkc_convert_dev(QK_T_FLOAT, f, dtype, x, total);
	for (size_t h = 1; h < block; h <<= 1)
		qkc_had_stage_k<<<qkc_blocks(total / 2), QKC_THREADS>>>(
			f, outer, n, inner, block, h);
	qkc_had_scale_k<<<qkc_blocks(total), QKC_THREADS>>>(f, total, scale,
							     dtype, x);
	return 0;
}

qopt_status qkc_hadamard(int dtype, void *x, size_t outer, size_t n, size_t inner,
		 size_t block)
{
	size_t total = outer * n * inner, bytes = total * qkc_dtype_size(dtype);
	size_t nw = qkc_hadamard_work(dtype, outer, n, inner, block);
	qkc_buf dx, dw;

	if (dx.from_host(x, bytes) || (nw && dw.alloc(nw * sizeof(float))))
		return QOPT_EDEVICE_CALL;
	qkc_hadamard_dev(dtype, dx.p, outer, n, inner, block, (float *)dw.p);
	if (qkc_sync("hadamard"))
		return QOPT_EDEVICE_CALL;
	/* In place: a failed copy back may have written part of x. */
	return dx.to_host(x, bytes) ? QKI_CUDA_ECLOBBERED : QOPT_OK;
}

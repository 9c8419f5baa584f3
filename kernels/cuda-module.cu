/*
 * kernels/cuda-module.cu - libqopt-cuda.so: device discovery, errors,
 * the versioned function table libqopt dlopens (cuda-abi.h) and the
 * on-device benchmark.
 *
 * Built with hidden visibility: the entry point is the only export.
 */
#include <stdio.h>

#include "cuda-internal.cuh"

static thread_local char qkc_err[160];
static char qkc_dev_name[300];

qopt_status qkc_fail(const char *what, cudaError_t e)
{
	snprintf(qkc_err, sizeof(qkc_err), "%s: %s", what,
		 cudaGetErrorString(e));
	/* A failed runtime call also stays recorded as this thread's
	 * "last error" until read: clear it, or the next call's
	 * qkc_sync (cudaGetLastError) would report it again and fail a
	 * call that went fine (a needless CPU fallback). */
	(void)cudaGetLastError();
	return QOPT_EDEVICE_CALL;
}

qopt_status qkc_sync(const char *what)
{
	cudaError_t e = cudaGetLastError();

	if (e == cudaSuccess)
		e = cudaDeviceSynchronize();
	return e == cudaSuccess ? 0 : qkc_fail(what, e);
}

static const char *qkc_last_error(void)
{
	return qkc_err;
}

static const char *qkc_device_name(void)
{
	return qkc_dev_name;
}

__global__ void qkc_probe_k(uint8_t *out)
{
	*out = qki_enc_e4m3(1.0f, 1);
}

/* A device must exist and run this module's code: a GPU older than
 * the module's PTX target fails the probe launch ("no kernel image"). */
static qopt_status qkc_init(char *why, size_t len)
{
	cudaDeviceProp prop;
	int count = 0, dev = 0;
	uint8_t got = 0;
	cudaError_t e = cudaGetDeviceCount(&count);
	qkc_buf b;

	/* The runtime is linked statically, so a missing libcuda.so.1
	 * also reads "driver version is insufficient": say both, and
	 * which runtime (a CUDA 13 build needs a driver of r580 on). */
	if (e == cudaErrorInsufficientDriver) {
		snprintf(why, len, "CUDA unusable: no NVIDIA driver, or one "
			 "older than this module's CUDA %d.%d",
			 CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
		return QOPT_EDEVICE_UNAVAILABLE;
	}
	if (e != cudaSuccess) {
		snprintf(why, len, "CUDA unusable: %s", cudaGetErrorString(e));
		return QOPT_EDEVICE_UNAVAILABLE;
	}
	if (count == 0) {
		snprintf(why, len, "no CUDA device");
		return QOPT_EDEVICE_UNAVAILABLE;
	}
	e = cudaGetDevice(&dev);
	if (e == cudaSuccess)
		e = cudaGetDeviceProperties(&prop, dev);
	if (e != cudaSuccess) {
		snprintf(why, len, "CUDA device query: %s",
			 cudaGetErrorString(e));
		return QOPT_EDEVICE_UNAVAILABLE;
	}
	snprintf(qkc_dev_name, sizeof(qkc_dev_name), "%.200s (sm_%d%d)",
		 prop.name, prop.major, prop.minor);
	if (b.alloc(1)) {
		snprintf(why, len, "CUDA %s", qkc_err);
		return QOPT_EDEVICE_UNAVAILABLE;
	}
	qkc_probe_k<<<1, 1>>>((uint8_t *)b.p);
	if (qkc_sync("probe kernel") || b.to_host(&got, 1) || got != 0x38) {
		snprintf(why, len, "CUDA module cannot run on %s: %s",
			 qkc_dev_name, got ? "wrong result" : qkc_err);
		return QOPT_EDEVICE_UNAVAILABLE;
	}
	return 0;
}

__global__ void qkc_fill_k(float *x, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t step = (size_t)gridDim.x * blockDim.x;

	for (; i < n; i += step) {
		/* a cheap hash spread over a few decades, signs mixed */
		uint32_t h = (uint32_t)i * 2654435761u;

		h ^= h >> 15;
		x[i] = (float)(int)(h & 0xffffu) * (1.0f / 4096.0f) - 8.0f;
	}
}

/* One run of kernel `kind` on device buffers. */
static qopt_status qkc_bench_once(int kind, size_t n, float *in, void *out,
			  uint8_t *aux, unsigned *am)
{
	float g;

	switch (kind) {
	case QK_CB_MEMCPY: {
		cudaError_t e = cudaMemcpy(out, in, n * sizeof(float),
					   cudaMemcpyDeviceToDevice);

		return e == cudaSuccess ? 0 : qkc_fail("cudaMemcpy", e);
	}
	case QK_CB_AMAX:
		return qkc_amax_dev(QK_T_FLOAT, in, n, am);
	case QK_CB_CONVERT:
		return qkc_convert_dev(QK_T_FLOAT16, out, QK_T_FLOAT, in, n);
	case QK_CB_FP8_Q:
		return qkc_fp8_dev(1, QK_T_E4M3FN, QK_T_FLOAT, in, out, in, 1,
				   n, 1, QK_SCALE_TENSOR, 0, 1);
	case QK_CB_FP8_DQ:
		return qkc_fp8_dev(0, QK_T_E4M3FN, QK_T_FLOAT, aux, out, in, 1,
				   n, 1, QK_SCALE_TENSOR, 0, 1);
	case QK_CB_NVFP4_Q:
		return qkc_nvfp4_q_dev(QK_T_FLOAT, in, n / 4096, 4096, 1,
				       (uint8_t *)out, aux, NULL, am, &g);
	case QK_CB_NVFP4_DQ:
		return qkc_nvfp4_dq_dev(aux, aux, 1.0f, n / 4096, 4096, 1,
					QK_T_FLOAT, out);
	case QK_CB_HADAMARD:
		return qkc_hadamard_dev(QK_T_FLOAT, in, n / 128, 128, 1, 128,
					NULL);
	}
	return QOPT_EINVALID_ARG;
}

/* Bytes of the FLOAT tensor one run reads or writes, as the CPU
 * benchmark counts them (memcpy: bytes copied). */
static double qkc_bench_bytes(int kind, size_t n)
{
	(void)kind;
	return 4.0 * n;
}

static qopt_status qkc_bench(int kind, size_t n, double *gbps)
{
	qkc_buf in, out, aux, am;
	cudaEvent_t t0, t1;
	float ms = 0;
	int reps = 20;
	qopt_status rc = QOPT_OK;

	n -= n % 4096;
	if (kind < 0 || kind >= QK_CB_COUNT || !n)
		return QOPT_EINVALID_ARG;
	if (in.alloc(n * sizeof(float)) || out.alloc(n * sizeof(float)) ||
	    aux.alloc(n) || am.alloc(sizeof(unsigned)))
		return QOPT_EDEVICE_CALL;
	qkc_fill_k<<<qkc_blocks(n), QKC_THREADS>>>((float *)in.p, n);
	/* valid FP8 / FP4 inputs for the dequantizers */
	qkc_convert_dev(QK_T_E4M3FN, aux.p, QK_T_FLOAT, in.p, n);
	if (qkc_sync("bench setup") || cudaEventCreate(&t0) != cudaSuccess)
		return QOPT_EDEVICE_CALL;
	if (cudaEventCreate(&t1) != cudaSuccess) {
		cudaEventDestroy(t0);
		return QOPT_EDEVICE_CALL;
	}
	rc = qkc_bench_once(kind, n, (float *)in.p, out.p, (uint8_t *)aux.p,
			    (unsigned *)am.p);
	if (!rc)
		rc = qkc_sync("bench warm-up");
	cudaEventRecord(t0);
	for (int r = 0; r < reps && !rc; r++)
		rc = qkc_bench_once(kind, n, (float *)in.p, out.p,
				    (uint8_t *)aux.p, (unsigned *)am.p);
	cudaEventRecord(t1);
	if (!rc)
		rc = qkc_sync("bench");
	if (!rc && cudaEventElapsedTime(&ms, t0, t1) == cudaSuccess && ms > 0)
		*gbps = qkc_bench_bytes(kind, n) * reps / (ms * 1e-3) / 1e9;
	else
		rc = QOPT_EDEVICE_CALL;
	cudaEventDestroy(t0);
	cudaEventDestroy(t1);
	return rc;
}

static const struct qki_cuda_ops qkc_ops = {
	QK_CUDA_ABI,
	sizeof(struct qki_cuda_ops),
	qkc_init,
	qkc_last_error,
	qkc_convert,
	qkc_amax,
	qkc_amax_blocks,
	qkc_fp8_quantize,
	qkc_fp8_dequantize,
	qkc_nvfp4_quantize,
	qkc_nvfp4_dequantize,
	qkc_hadamard,
	qkc_int8_quantize,
	qkc_int8_dequantize,
	qkc_bench,
	qkc_device_name,
};

extern "C" __attribute__((visibility("default")))
const struct qki_cuda_ops *qki_cuda_module_entry(void)
{
	return &qkc_ops;
}

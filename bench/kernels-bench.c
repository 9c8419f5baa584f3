/*
 * bench/kernels-bench.c - throughput of the numeric kernels (`make bench`).
 *
 * GB/s = bytes of the FLOAT tensor (4 per element; read by quantizers,
 * written by dequantizers) / best wall time of several runs (1 GB = 1e9
 * bytes); memcpy is bytes copied / time, measured in the same run on
 * the same buffers, single thread and all threads. The NumPy baseline
 * (bench/nvfp4_numpy.py, run through $QOPT_BENCH_PYTHON) quantizes the
 * same weights; its output is checked against ours byte for byte. With
 * a usable CUDA module, device throughput (data resident on the GPU)
 * is printed beside a device-to-device cudaMemcpy.
 *
 * Usage: kernels-bench [N K]   (NVFP4 weight [N, K]; default 4096 8192)
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "qopt/dtype.h"
#include "qopt/kernels.h"
#include "kernels/cuda-abi.h"

#define RUNS 5

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* ---- parallel memcpy: each thread copies its slice ---- */
struct mc {
	char *dst;
	const char *src;
	size_t n;
};

static void *mc_main(void *p)
{
	struct mc *m = p;

	memcpy(m->dst, m->src, m->n);
	return NULL;
}

static void pmemcpy(void *dst, const void *src, size_t n, int threads)
{
	pthread_t tid[256];
	struct mc m[256];
	int t;

	if (threads < 1)
		threads = 1;
	if (threads > 256)
		threads = 256;
	for (t = 0; t < threads; t++) {
		size_t lo = n / threads * t, hi = t == threads - 1 ? n : n / threads * (t + 1);

		m[t] = (struct mc){ (char *)dst + lo, (const char *)src + lo, hi - lo };
		if (t && pthread_create(&tid[t], NULL, mc_main, &m[t]))
			mc_main(&m[t]), tid[t] = 0;
	}
	mc_main(&m[0]);
	for (t = 1; t < threads; t++)
		if (tid[t])
			pthread_join(tid[t], NULL);
}

/* ---- the kernels, as one callable each ---- */
struct data {
	size_t n, rows, k;
	float *w, *y;
	uint16_t *h;
	uint8_t *q, *codes, *scales;
	uint16_t *h16;		/* w as FLOAT16, for the tile rows */
	float g, *bmax;
};

enum kind { K_AMAX, K_AMAXB, K_CVT16, K_CVTBF, K_FP8Q, K_FP8DQ, K_NVQ,
	    K_NVDQ, K_NVQT, K_NVDQT, K_HAD128, K_HADK, K_COUNT };

static const char *kname[K_COUNT] = {
	"amax (FLOAT)", "amax_blocks (16)", "convert FLOAT->FLOAT16",
	"convert FLOAT->BFLOAT16", "FP8 E4M3 quantize", "FP8 E4M3 dequantize",
	"NVFP4 quantize", "NVFP4 dequantize",
	"NVFP4 quantize, FLOAT16 [K, N] tiles (GB/s of FLOAT16)",
	"NVFP4 dequantize, FLOAT16 [K, N] tiles (GB/s of FLOAT16)",
	"Hadamard b=128",
	"Hadamard b=K",
};

/* Bytes of the FLOAT tensor one run reads or writes (4 per element),
 * so that quantizers and dequantizers compare on the same footing. */
static double kbytes(enum kind k, const struct data *d)
{
	/* the tile rows: a FLOAT16 weight, as fake mode's MatMul weights */
	return (k == K_NVQT || k == K_NVDQT ? 2.0 : 4.0) * d->n;
}

static int krun(enum kind k, qk_ctx *c, struct data *d)
{
	qk_qlayout lay = { 1, d->n, 1, QK_SCALE_TENSOR, 0 };
	float s = 0.01f, a;

	switch (k) {
	case K_AMAX:
		return qk_amax(c, QIR_FLOAT, d->w, d->n, &a);
	case K_AMAXB:
		return qk_amax_blocks(c, QIR_FLOAT, d->w, d->rows, d->k, 1, 16,
				      d->bmax);
	case K_CVT16:
		return qk_convert(c, QIR_FLOAT16, d->h, QIR_FLOAT, d->w, d->n);
	case K_CVTBF:
		return qk_convert(c, QIR_BFLOAT16, d->h, QIR_FLOAT, d->w, d->n);
	case K_FP8Q:
		return qk_fp8_quantize(c, QIR_FLOAT8E4M3FN, d->q, QIR_FLOAT, d->w,
				       &s, &lay, 1);
	case K_FP8DQ:
		return qk_fp8_dequantize(c, QIR_FLOAT, d->y, QIR_FLOAT8E4M3FN,
					 d->q, &s, &lay);
	case K_NVQ:
		return qk_nvfp4_quantize(c, QIR_FLOAT, d->w, d->rows, d->k, 1,
					 d->codes, d->scales, &d->g);
	case K_NVDQ:
		return qk_nvfp4_dequantize(c, d->codes, d->scales, d->g, d->rows,
					   d->k, 1, QIR_FLOAT, d->y);
	/* W [K, N] = [rows, k]: blocks of 16 down the rows, inner = k */
	case K_NVQT:
		return qk_nvfp4_quantize(c, QIR_FLOAT16, d->h16, 1, d->rows,
					 d->k, d->codes, d->scales, &d->g);
	case K_NVDQT:
		return qk_nvfp4_dequantize(c, d->codes, d->scales, d->g, 1,
					   d->rows, d->k, QIR_FLOAT16, d->y);
	case K_HAD128:
		return qk_hadamard(c, QIR_FLOAT, d->y, d->rows, d->k, 1, 128);
	case K_HADK:
		return qk_hadamard(c, QIR_FLOAT, d->y, d->rows, d->k, 1, 0);
	default:
		return -1;
	}
}

static double best_time(enum kind k, qk_ctx *c, struct data *d)
{
	double best = 1e30;

	for (int r = 0; r < RUNS; r++) {
		double t0 = now();

		if (krun(k, c, d))
			return -1;
		t0 = now() - t0;
		best = t0 < best ? t0 : best;
	}
	return best;
}

static double best_memcpy(struct data *d, int threads)
{
	double best = 1e30;

	for (int r = 0; r < RUNS; r++) {
		double t0 = now();

		pmemcpy(d->y, d->w, d->n * 4, threads);
		t0 = now() - t0;
		best = t0 < best ? t0 : best;
	}
	return d->n * 4 / best / 1e9;
}

/* ---- NumPy baseline ---- */
static int file_eq(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "rb");
	char *b = malloc(n + 1);
	int eq = f && b && fread(b, 1, n + 1, f) == n && !memcmp(b, p, n);

	if (f)
		fclose(f);
	free(b);
	return eq;
}

static void numpy_row(struct data *d, double ours)
{
	const char *py = getenv("QOPT_BENCH_PYTHON");
	const char *script = getenv("QOPT_BENCH_NUMPY");
	char dir[] = "/tmp/qopt-bench.XXXXXX", cmd[8192], path[4200];
	double secs = -1;
	FILE *f, *p;
	int same;

	if (!py || !*py || !script || !mkdtemp(dir)) {
		printf("| NVFP4 quantize, NumPy | n/a (no python3 with numpy) | | | |\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/w.f32", dir);
	f = fopen(path, "wb");
	if (!f || fwrite(d->w, 4, d->n, f) != d->n || fclose(f)) {
		printf("| NVFP4 quantize, NumPy | n/a (cannot write %s) | | | |\n", path);
		return;
	}
	snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' %zu %zu '%s'", py, script,
		 path, d->rows, d->k, dir);
	p = popen(cmd, "r");
	if (p) {
		if (fscanf(p, "seconds %lf", &secs) != 1)
			secs = -1;
		pclose(p);
	}
	snprintf(path, sizeof(path), "%s/np_codes.u8", dir);
	same = secs > 0 && file_eq(path, d->codes, d->n / 2);
	snprintf(path, sizeof(path), "%s/np_scales.u8", dir);
	same = same && file_eq(path, d->scales, d->n / 16);
	snprintf(path, sizeof(path), "%s/np_g.f32", dir);
	same = same && file_eq(path, &d->g, 4);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd)) {
		/* a leftover temporary folder is harmless */
	}
	if (secs <= 0) {
		printf("| NVFP4 quantize, NumPy | n/a (python failed) | | | |\n");
		return;
	}
	printf("| NVFP4 quantize, NumPy (1 thread) | %.3f | | | output %s qopt's; "
	       "qopt 1 thread is %.0fx faster |\n", 4.0 * d->n / secs / 1e9,
	       same ? "identical to" : "DIFFERS from", secs / ours);
}

/* ---- CUDA, through the module's bench entry ---- */
static const struct qki_cuda_ops *cuda_ops(char *why, size_t len)
{
	const char *env = getenv("QOPT_CUDA_MODULE");
#ifdef QOPT_BUILDDIR
	const char *path = env && *env ? env : QOPT_BUILDDIR "/kernels/libqopt-cuda.so";
#else
	const char *path = env && *env ? env : "kernels/libqopt-cuda.so";
#endif
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	const struct qki_cuda_ops *ops;
	qki_cuda_entry_fn entry;

	if (!h) {
		snprintf(why, len, "%s", dlerror());
		return NULL;
	}
	*(void **)&entry = dlsym(h, QK_CUDA_ENTRY_NAME);
	ops = entry ? entry() : NULL;
	if (!ops || ops->abi != QK_CUDA_ABI || ops->size != sizeof(*ops)) {
		snprintf(why, len, "module ABI mismatch");
		return NULL;
	}
	return ops->init(why, len) ? NULL : ops;
}

static void cuda_table(size_t n)
{
	static const char *names[QK_CB_COUNT] = {
		"cudaMemcpy device to device", "amax (FLOAT)",
		"convert FLOAT->FLOAT16", "FP8 E4M3 quantize",
		"FP8 E4M3 dequantize", "NVFP4 quantize", "NVFP4 dequantize",
		"Hadamard b=128",
	};
	char why[256] = "";
	const struct qki_cuda_ops *ops = cuda_ops(why, sizeof(why));

	if (!ops) {
		printf("\nCUDA: not measured (%s)\n", why);
		return;
	}
	printf("\nCUDA on %s, %zu floats resident on the device:\n\n", ops->device_name(), n);
	printf("| kernel | GB/s |\n|---|---|\n");
	for (int k = 0; k < QK_CB_COUNT; k++) {
		double gbps = 0;

		if (ops->bench(k, n, &gbps))
			printf("| %s | failed: %s |\n", names[k], ops->last_error());
		else
			printf("| %s | %.1f |\n", names[k], gbps);
	}
}

int main(int argc, char **argv)
{
	struct data d = { 0 };
	qk_ctx *c1, *ca;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double mc1, mca, t;

	unsetenv("QOPT_DEVICE");
	d.rows = argc > 2 ? strtoul(argv[1], NULL, 10) : 4096;
	d.k = argc > 2 ? strtoul(argv[2], NULL, 10) : 8192;
	d.n = d.rows * d.k;
	if (!d.n || d.k % 4096) {
		fprintf(stderr, "kernels-bench: K must be a multiple of 4096\n");
		return 2;
	}
	d.w = malloc(d.n * 4);
	d.y = malloc(d.n * 4);
	d.h = malloc(d.n * 2);
	d.h16 = malloc(d.n * 2);
	d.q = malloc(d.n);
	d.codes = malloc(d.n / 2);
	d.scales = malloc(d.n / 16);
	d.bmax = malloc(d.n / 16 * 4);
	c1 = qk_ctx_new(QK_DEVICE_CPU, 1);
	ca = qk_ctx_new(QK_DEVICE_CPU, 0);
	if (!d.w || !d.y || !d.h || !d.h16 || !d.q || !d.codes || !d.scales || !d.bmax ||
	    !c1 || !ca) {
		fprintf(stderr, "kernels-bench: out of memory\n");
		return 1;
	}
	/* Student-t(3)-like weights; every buffer touched before timing */
	srand(1);
	for (size_t i = 0; i < d.n; i++) {
		double u = (rand() + 0.5) / ((double)RAND_MAX + 1), v = u - 0.5;

		d.w[i] = (float)(0.02 * v / (0.25 - v * v + 0.01));
	}
	memset(d.y, 0, d.n * 4);
	memset(d.h, 0, d.n * 2);
	if (qk_convert(c1, QIR_FLOAT16, d.h16, QIR_FLOAT, d.w, d.n)) {
		fprintf(stderr, "kernels-bench: FLOAT16 conversion failed\n");
		return 1;
	}
	memset(d.q, 0, d.n);
	memset(d.codes, 0, d.n / 2);
	memset(d.scales, 0, d.n / 16);
	memset(d.bmax, 0, d.n / 16 * 4);

	mc1 = best_memcpy(&d, 1);
	mca = best_memcpy(&d, (int)ncpu);
	printf("qopt kernels, CPU: %ld online CPUs, tensor [%zu, %zu] FLOAT "
	       "(%.0f MiB); GB/s of the FLOAT tensor, best of %d runs\n\n",
	       ncpu, d.rows, d.k, d.n * 4 / 1048576.0, RUNS);
	/* per core: what a small machine gets from each of its cores
	 * when all of them work (the writer runs one worker per CPU) */
	printf("| kernel | 1 thread GB/s | %ld threads GB/s | per core, %ld threads | 1 thread vs memcpy |\n",
	       ncpu, ncpu);
	printf("|---|---|---|---|---|\n");
	printf("| memcpy (bytes copied) | %.2f | %.2f | %.2f | 1.00 |\n", mc1,
	       mca, mca / (double)ncpu);
	for (int k = 0; k < K_COUNT; k++) {
		double t1 = best_time((enum kind)k, c1, &d);
		double ta = best_time((enum kind)k, ca, &d);

		if (t1 <= 0 || ta <= 0) {
			printf("| %s | failed | | | |\n", kname[k]);
			continue;
		}
		printf("| %s | %.2f | %.2f | %.2f | %.2f |\n", kname[k],
		       kbytes(k, &d) / t1 / 1e9, kbytes(k, &d) / ta / 1e9,
		       kbytes(k, &d) / ta / 1e9 / (double)ncpu,
		       kbytes(k, &d) / t1 / 1e9 / mc1);
	}
	t = best_time(K_NVQ, c1, &d); /* leaves our codes in d for NumPy */
	numpy_row(&d, t);
	cuda_table((size_t)64 << 20);
	qk_ctx_free(c1);
	qk_ctx_free(ca);
	return 0;
}

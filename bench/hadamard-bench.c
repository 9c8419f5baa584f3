/*
 * bench/hadamard-bench.c - single-thread throughput of qk_hadamard
 * along the last axis (inner = 1) for b = 16 .. 32768, FLOAT, FLOAT16
 * and BFLOAT16 in and out, against single-thread memcpy of the same
 * bytes (`make bench`). GB/s = bytes of the tensor in its own type /
 * best wall time of several runs; the ratio is what issue 13 asks to
 * stay at or above 0.5. Each type's tensor holds values of N(0, 1/12)
 * scale, converted from FLOAT.
 *
 * Usage: hadamard-bench [MiB [THREADS]]   (tensor size in FLOAT, default
 * 128; kernel threads, default 1, 0 = all cores: memcpy stays single
 * thread, the reference the issue names)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qopt/dtype.h"
#include "qopt/kernels.h"

#define RUNS 5

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static double best_memcpy(void *dst, const void *src, size_t bytes)
{
	double best = 1e30;

	for (int r = 0; r < RUNS; r++) {
		double t0 = now();

		memcpy(dst, src, bytes);
		t0 = now() - t0;
		best = t0 < best ? t0 : best;
	}
	return bytes / best / 1e9;
}

static double best_had(qk_ctx *c, int dt, void *x, size_t n, size_t b)
{
	double best = 1e30;

	for (int r = 0; r < RUNS; r++) {
		double t0 = now();

		if (qk_hadamard(c, dt, x, n / b, b, 1, b))
			return -1;
		t0 = now() - t0;
		best = t0 < best ? t0 : best;
	}
	return best;
}

int main(int argc, char **argv)
{
	static const int dts[3] = { QIR_FLOAT, QIR_FLOAT16, QIR_BFLOAT16 };
	static const char *dtn[3] = { "FLOAT", "FLOAT16", "BFLOAT16" };
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 128;
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	size_t n = mib << 18, worst_b = 0;
	qk_ctx *c = qk_ctx_new(QK_DEVICE_CPU, threads);
	float *x = malloc(n * 4), *y = malloc(n * 4), *z = malloc(n * 4);
	double mc[3], worst = 1e30;

	if (!mib || !c || !x || !y || !z) {
		fprintf(stderr, "hadamard-bench: out of memory\n");
		return 1;
	}
	srand(1);
	for (size_t i = 0; i < n; i++)
		x[i] = (float)rand() / RAND_MAX - 0.5f;
	memcpy(y, x, n * 4);
	memset(z, 0, n * 4);
	for (int d = 0; d < 3; d++)
		mc[d] = best_memcpy(z, x, d ? n * 2 : n * 4);
	printf("qk_hadamard, %s, inner = 1, %zu MiB of FLOAT (%zu MiB "
	       "of FLOAT16/BFLOAT16); GB/s of the tensor in its own type, "
	       "best of %d runs; single-thread memcpy of the same bytes: "
	       "%.2f GB/s (FLOAT), %.2f GB/s (16-bit)\n\n",
	       threads == 1 ? "1 thread" : "all threads", mib, mib / 2, RUNS,
	       mc[0], mc[1]);
	printf("| b | FLOAT GB/s | vs memcpy | FLOAT16 GB/s | vs memcpy | "
	       "BFLOAT16 GB/s | vs memcpy |\n|---|---|---|---|---|---|---|\n");
	for (size_t b = 16; b <= 32768; b *= 2) {
		printf("| %zu |", b);
		for (int d = 0; d < 3; d++) {
			size_t bytes = d ? n * 2 : n * 4;
			double t, r;

			/* valid values of the type (no subnormals, whose
			 * arithmetic is slow): y converted; the transform
			 * is its own inverse, so they stay in range */
			if (qk_convert(c, dts[d], x, QIR_FLOAT, y, n))
				return 1;
			t = best_had(c, dts[d], x, n, b);
			/* memcpy again beside each figure: on a shared
			 * machine the bandwidth drifts */
			mc[d] = best_memcpy(z, x, bytes);

			if (t <= 0) {
				printf(" failed (%s) | |", dtn[d]);
				continue;
			}
			r = bytes / t / 1e9 / mc[d];
			if (r < worst)
				worst = r, worst_b = b;
			printf(" %.2f | %.2f |", bytes / t / 1e9, r);
		}
		printf("\n");
	}
	printf("\nworst ratio to memcpy: %.2f (b = %zu); memcpy measured "
	       "beside each figure\n", worst, worst_b);
	qk_ctx_free(c);
	free(x);
	free(y);
	free(z);
	return 0;
}

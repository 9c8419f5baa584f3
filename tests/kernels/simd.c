/*
 * tests/kernels/simd.c - the run-time chosen SIMD paths (F16C loads;
 * AVX2 and AVX-512 NVFP4 tiles both ways, AVX-512 FP8 quantization and
 * byte transpose) write the same bytes as the portable code, which
 * QK_NO_SIMD=1 selects.
 *
 * QK_NO_SIMD is read once per process, so the portable results come
 * from a child started before this process calls a kernel: it sets the
 * variable, runs every case and sends the bytes back through a pipe; a
 * second child does the same with QK_NO_SIMD=avx512 (AVX2 where the
 * CPU has AVX-512 too); the parent runs the same cases with SIMD on
 * and compares case by case. Inputs: all 65,536 FLOAT16 bit patterns (NaN, Inf, subnormals
 * included), random bits of FLOAT and BFLOAT16, odd shapes, buffers at
 * odd addresses. The Inf/NaN scan (target_clones, no switch) is
 * checked against a plain loop over arrays long enough for its
 * stretches, with the special value before, on and after their edges.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <qopt/kernels.h>
#include "../lib/tap.h"
#include "util.h"

enum { T_FLOAT = 1, T_FLOAT16 = 10, T_BFLOAT16 = 16, T_E4M3 = 17,
       T_E5M2 = 19, NCASE = 64 };

struct out {
	unsigned char *p;
	size_t len[NCASE], off[NCASE], used;
	const char *name[NCASE];
	int n;
};

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(99);
	}
	return p;
}

/* Appends one case's result: the status and the bytes. */
static void put(struct out *o, const char *name, int rc, const void *b,
		size_t n)
{
	o->p = realloc(o->p, o->used + sizeof(rc) + n);
	if (!o->p)
		exit(99);
	o->name[o->n] = name;
	o->off[o->n] = o->used;
	o->len[o->n] = sizeof(rc) + n;
	memcpy(o->p + o->used, &rc, sizeof(rc));
	memcpy(o->p + o->used + sizeof(rc), b, n);
	o->used += sizeof(rc) + n;
	o->n++;
}

/* The 65,536 FLOAT16 patterns, in order or shuffled (seeded); with
 * shuffled 2, Inf and NaN replaced by +-0 (all finite). */
static uint16_t *all_f16(int shuffled)
{
	uint16_t *h = xmalloc(65536 * 2);

	for (size_t i = 0; i < 65536; i++)
		h[i] = (uint16_t)i;
	for (size_t i = 0; shuffled == 2 && i < 65536; i++)
		if ((h[i] & 0x7c00u) == 0x7c00u)
			h[i] &= 0x8000u;
	kt_seed(7);
	for (size_t i = 65535; shuffled && i > 0; i--) {
		size_t j = kt_u32() % (i + 1);
		uint16_t t = h[i];

		h[i] = h[j];
		h[j] = t;
	}
	return h;
}

/* n random elements of dt (raw bits: every class) at an odd address
 * inside *base (free *base). */
static unsigned char *random_at_odd(int dt, size_t n, uint64_t seed,
				    int finite, unsigned char **base)
{
	size_t es = dt == T_FLOAT ? 4 : 2;
	unsigned char *p;

	*base = xmalloc(n * es + 1);
	p = *base + 1;
	kt_seed(seed);
	for (size_t i = 0; i < n; i++) {
		uint32_t v = kt_u32();

		/* Mostly ordinary magnitudes (raw bits alone would make
		 * nearly every block's scale saturate); one in four raw
		 * bits: NaN, Inf, subnormals. */
		if (finite)
			v |= 1; /* never raw */
		if (v % 4 && dt == T_FLOAT)
			v = (v & 0x807fffffu) | (uint32_t)(110 + v % 30) << 23;
		else if (v % 4 && dt == T_FLOAT16)
			v = (v & 0x83ffu) | (uint32_t)(5 + v % 20) << 10;
		else if (v % 4)
			v = (v & 0x807fu) | (uint32_t)(110 + v % 30) << 7;
		memcpy(p + i * es, &v, es);
	}
	return p;
}

/* NVFP4 of w [outer, k, inner] with a given amax (no Inf refusal:
 * the exhaustive inputs hold Inf) or, amax < 0, the kernel's own. */
static void nvfp4_case(struct out *o, const char *name, qk_ctx *c, int dt,
		       const void *w, size_t outer, size_t k, size_t inner,
		       float amax)
{
	size_t n = outer * k * inner, nc = (n + 1) / 2, ns = n / 16;
	unsigned char *r = xmalloc(nc + ns + 4);
	float g = 0.0f;
	int rc;

	memset(r, 0xa5, nc + ns + 4);
	rc = amax >= 0 ? qk_nvfp4_quantize_amax(c, dt, w, outer, k, inner,
						amax, r, r + nc, &g) :
			 qk_nvfp4_quantize(c, dt, w, outer, k, inner, r,
					   r + nc, &g);
	memcpy(r + nc + ns, &g, 4);
	put(o, name, rc, r, nc + ns + 4);
	free(r);
}

/* NVFP4 dequantization of random code and scale bytes (every scale
 * code: negative, subnormal, the NaN codes 0x7f and 0xff) to dt at an
 * odd address, [outer, k, inner] with g. */
static void nvfp4_dq_case(struct out *o, const char *name, qk_ctx *c,
			  int dt, size_t outer, size_t k, size_t inner,
			  float g)
{
	size_t n = outer * k * inner, es = dt == T_FLOAT ? 4 : 2;
	uint8_t *codes = xmalloc(n / 2), *scales = xmalloc(n / 16);
	unsigned char *y = xmalloc(n * es + 1);
	int rc;

	kt_seed((unsigned)(n + es));
	for (size_t i = 0; i < n / 2; i++)
		codes[i] = (uint8_t)kt_u32();
	for (size_t i = 0; i < n / 16; i++)
		scales[i] = (uint8_t)(i < 256 ? i : kt_u32());
	memset(y, 0x5a, n * es + 1);
	rc = qk_nvfp4_dequantize(c, codes, scales, g, outer, k, inner, dt,
				 y + 1);
	put(o, name, rc, y + 1, n * es);
	free(codes);
	free(scales);
	free(y);
}

static void fp8_case(struct out *o, const char *name, qk_ctx *c, int fmt,
		     int dt, const void *x, size_t n, float s, int sat)
{
	qk_qlayout lay = { 1, n, 1, QK_SCALE_TENSOR, 0 };
	uint8_t *q = xmalloc(n);
	int rc = qk_fp8_quantize(c, fmt, q, dt, x, &s, &lay, sat);

	put(o, name, rc, q, n);
	free(q);
}

/* Per-axis scales along the last axis ([64, 1024] of shuffled
 * FLOAT16): the scale varies lane by lane, NaN and 0 scales included. */
static void fp8_axis_case(struct out *o, qk_ctx *c, const uint16_t *h)
{
	qk_qlayout lay = { 64, 1023, 1, QK_SCALE_AXIS, 0 };
	float *s = xmalloc(1023 * sizeof(float));
	uint8_t *q = xmalloc(64 * 1023);
	int rc;

	kt_seed(9);
	for (size_t i = 0; i < 1023; i++)
		s[i] = (float)(kt_unif() * 4.0);
	s[5] = 0.0f;
	s[77] = nanf("");
	s[300] = -2.0f;
	rc = qk_fp8_quantize(c, T_E4M3, q, T_FLOAT16, h, s, &lay, 1);
	put(o, "E4M3 of FLOAT16 [64,1023] per-axis scales (0, NaN, < 0 among)",
	    rc, q, 64 * 1023);
	free(q);
	free(s);
}

/* Bytes [rows, cols] at an odd address to [cols, ds] (64-column bands
 * and the rows and columns past them). */
static void transpose_case(struct out *o, qk_ctx *c, size_t rows,
			   size_t cols, size_t ds)
{
	unsigned char *src = xmalloc(rows * cols + 1), *dst;
	int rc;

	/* 64-byte aligned, as a page of the output mapping is: whole
	 * destination lines are then stored non-temporally */
	dst = aligned_alloc(64, (cols * ds + 63) / 64 * 64);
	if (!dst)
		exit(99);

	kt_seed(rows);
	for (size_t i = 0; i < rows * cols + 1; i++)
		src[i] = (unsigned char)kt_u32();
	memset(dst, 0, cols * ds);
	rc = qk_transpose(c, 1, src + 1, rows, cols, dst, ds);
	put(o, rows == 1000 ? "transpose of bytes [1000,300] at an odd address" :
	    rows == 200 ? "transpose of bytes [200,130] to rows of 256, aligned" :
			  "transpose of bytes [130,64]", rc, dst, cols * ds);
	free(src);
	free(dst);
}

static void convert_case(struct out *o, const char *name, qk_ctx *c,
			 int dt, const void *x, size_t n)
{
	float *y = xmalloc(n * 4);
	int rc = qk_convert(c, T_FLOAT, y, dt, x, n);

	put(o, name, rc, y, n * 4);
	free(y);
}

static void run_cases(struct out *o)
{
	qk_ctx *c = qk_ctx_new(QK_DEVICE_CPU, 2);
	uint16_t *h = all_f16(0), *hs = all_f16(1), *hf = all_f16(2);
	unsigned char *base, *x;

	convert_case(o, "FLOAT16 -> FLOAT, all 65536", c, T_FLOAT16, h, 65536);
	convert_case(o, "FLOAT16 -> FLOAT, 1001 at an odd address", c,
		     T_FLOAT16, (x = random_at_odd(T_FLOAT16, 1001, 1, 0, &base)),
		     1001);
	free(base);
	/* [1, 16, 4096]: a block is 16 patterns 4096 apart */
	nvfp4_case(o, "NVFP4 all FLOAT16 [1,16,4096], amax 65504", c,
		   T_FLOAT16, h, 1, 16, 4096, 65504.0f);
	nvfp4_case(o, "NVFP4 all FLOAT16 [1,16,4096], amax 1 (scales saturate)",
		   c, T_FLOAT16, h, 1, 16, 4096, 1.0f);
	nvfp4_case(o, "NVFP4 all FLOAT16 shuffled [4,32,512], amax 65504", c,
		   T_FLOAT16, hs, 4, 32, 512, 65504.0f);
	nvfp4_case(o, "NVFP4 all FLOAT16 shuffled [1,4096,16], amax 2", c,
		   T_FLOAT16, hs, 1, 4096, 16, 2.0f);
	nvfp4_case(o, "NVFP4 all FLOAT16 shuffled [1,1024,64], amax 2", c,
		   T_FLOAT16, hs, 1, 1024, 64, 2.0f);
	nvfp4_case(o, "NVFP4 4096 shuffled FLOAT16 [32,16,8], amax 65504", c,
		   T_FLOAT16, hs, 32, 16, 8, 65504.0f);
	nvfp4_case(o, "NVFP4 all FLOAT16 [256,16,16] (Inf: refused alike)", c,
		   T_FLOAT16, h, 256, 16, 16, -1.0f);
	nvfp4_case(o, "NVFP4 all finite FLOAT16 shuffled [8,32,256], own amax",
		   c, T_FLOAT16, hf, 8, 32, 256, -1.0f);
	nvfp4_case(o, "NVFP4 all finite FLOAT16 shuffled [16,4096,1]", c,
		   T_FLOAT16, hf, 16, 4096, 1, 65504.0f);
	for (int dt = 0; dt < 3; dt++) {
		static const int dts[] = { T_FLOAT16, T_BFLOAT16, T_FLOAT };
		static const char *const nm[][4] = {
			{ "NVFP4 random FLOAT16 [3,48,80] odd address",
			  "NVFP4 random FLOAT16 [2,32,40] (inner % 16 != 0)",
			  "NVFP4 random FLOAT16 [5,16,1008], own amax",
			  "NVFP4 random FLOAT16 [3,4112,1] odd address" },
			{ "NVFP4 random BFLOAT16 [3,48,80] odd address",
			  "NVFP4 random BFLOAT16 [2,32,40] (inner % 16 != 0)",
			  "NVFP4 random BFLOAT16 [5,16,1008], own amax",
			  "NVFP4 random BFLOAT16 [3,4112,1] odd address" },
			{ "NVFP4 random FLOAT [3,48,80] odd address",
			  "NVFP4 random FLOAT [2,32,40] (inner % 16 != 0)",
			  "NVFP4 random FLOAT [5,16,1008], own amax",
			  "NVFP4 random FLOAT [3,4112,1] odd address" },
		};
		unsigned char *b2, *b3, *b4;
		unsigned char *x4 = random_at_odd(dts[dt], 3 * 4096 + 48, 8, 1,
						  &b4);
		unsigned char *x2 = random_at_odd(dts[dt], 2 * 32 * 40, 3, 0, &b2);
		unsigned char *x3 = random_at_odd(dts[dt], 5 * 16 * 1008, 4, 1, &b3);

		x = random_at_odd(dts[dt], 3 * 48 * 80, 2, 0, &base);
		nvfp4_case(o, nm[dt][0], c, dts[dt], x, 3, 48, 80, 3.0e38f);
		nvfp4_case(o, nm[dt][1], c, dts[dt], x2, 2, 32, 40, 3.0e38f);
		/* finite: the kernel's own amax */
		nvfp4_case(o, nm[dt][2], c, dts[dt], x3, 5, 16, 1008, -1.0f);
		/* inner 1: 16-block steps and a short last one */
		nvfp4_case(o, nm[dt][3], c, dts[dt], x4, 3, 4112, 1, -1.0f);
		free(base);
		free(b2);
		free(b3);
		free(b4);
	}
	nvfp4_dq_case(o, "NVFP4 dequantize to FLOAT16 [3,32,48], g 0.37", c,
		      T_FLOAT16, 3, 32, 48, 0.37f);
	nvfp4_dq_case(o, "NVFP4 dequantize to FLOAT16 [2,16,1008], g 2^-20 "
		      "(subnormal halves)", c, T_FLOAT16, 2, 16, 1008,
		      9.5367431640625e-07f);
	nvfp4_dq_case(o, "NVFP4 dequantize to FLOAT16 [1,16,4096], g 300 "
		      "(overflow to Inf)", c, T_FLOAT16, 1, 16, 4096, 300.0f);
	nvfp4_dq_case(o, "NVFP4 dequantize to BFLOAT16 [3,32,48], g 0.37", c,
		      T_BFLOAT16, 3, 32, 48, 0.37f);
	/* g = 1 + 2^-7 + 2^-8 puts products on BFLOAT16 ties, odd and
	 * even: rounding to even */
	nvfp4_dq_case(o, "NVFP4 dequantize to BFLOAT16 [4,16,256], g 1 + 2^-7 "
		      "+ 2^-8 (ties)", c, T_BFLOAT16, 4, 16, 256, 1.01171875f);
	nvfp4_dq_case(o, "NVFP4 dequantize to BFLOAT16 [2,16,1008], g 1e-38",
		      c, T_BFLOAT16, 2, 16, 1008, 1e-38f);
	nvfp4_dq_case(o, "NVFP4 dequantize to FLOAT [3,32,48], g 0.37", c,
		      T_FLOAT, 3, 32, 48, 0.37f);
	nvfp4_dq_case(o, "NVFP4 dequantize to FLOAT [2,16,1008], g 3e38", c,
		      T_FLOAT, 2, 16, 1008, 3e38f);
	nvfp4_dq_case(o, "NVFP4 dequantize to FLOAT16 [2,32,40] (inner % 16 "
		      "!= 0)", c, T_FLOAT16, 2, 32, 40, 0.37f);
	/* inner % 8 == 0, % 16 != 0: 8-column steps only (AVX2) */
	nvfp4_dq_case(o, "NVFP4 dequantize to BFLOAT16 [4,16,24], g 1 + 2^-7 "
		      "+ 2^-8 (ties)", c, T_BFLOAT16, 4, 16, 24, 1.01171875f);
	nvfp4_dq_case(o, "NVFP4 dequantize to FLOAT [3,32,8], g 3e38", c,
		      T_FLOAT, 3, 32, 8, 3e38f);
	nvfp4_dq_case(o, "NVFP4 dequantize to FLOAT16 [5,16,8], g 2^-20", c,
		      T_FLOAT16, 5, 16, 8, 9.5367431640625e-07f);
	/* inner 1: steps of 8 blocks (AVX2), then the rest */
	nvfp4_dq_case(o, "NVFP4 dequantize to FLOAT16 [3,4112,1], g 0.37", c,
		      T_FLOAT16, 3, 4112, 1, 0.37f);
	nvfp4_dq_case(o, "NVFP4 dequantize to BFLOAT16 [2,1040,1], g 1 + 2^-7 "
		      "+ 2^-8 (ties)", c, T_BFLOAT16, 2, 1040, 1, 1.01171875f);
	nvfp4_dq_case(o, "NVFP4 dequantize to FLOAT [1,4096,1], g 3e38", c,
		      T_FLOAT, 1, 4096, 1, 3e38f);
	fp8_case(o, "E4M3 saturating of all FLOAT16, scale 0.75", c, T_E4M3,
		 T_FLOAT16, h, 65536, 0.75f, 1);
	fp8_case(o, "E4M3 of all FLOAT16, scale 3", c, T_E4M3, T_FLOAT16, h,
		 65536, 3.0f, 0);
	fp8_case(o, "E5M2 saturating of all FLOAT16, scale 1", c, T_E5M2,
		 T_FLOAT16, h, 65536, 1.0f, 1);
	x = random_at_odd(T_FLOAT16, 4099, 5, 0, &base);
	fp8_case(o, "E4M3 of 4099 FLOAT16 at an odd address", c, T_E4M3,
		 T_FLOAT16, x, 4099, 0.01f, 1);
	free(base);
	x = random_at_odd(T_BFLOAT16, 4099, 6, 0, &base);
	fp8_case(o, "E4M3 of 4099 BFLOAT16 at an odd address", c, T_E4M3,
		 T_BFLOAT16, x, 4099, 1e-6f, 1);
	fp8_case(o, "E5M2 of 4099 BFLOAT16, not saturating", c, T_E5M2,
		 T_BFLOAT16, x, 4099, 1e-3f, 0);
	free(base);
	x = random_at_odd(T_FLOAT, 4099, 7, 0, &base);
	fp8_case(o, "E4M3 of 4099 FLOAT at an odd address", c, T_E4M3,
		 T_FLOAT, x, 4099, 1e-30f, 1);
	free(base);
	fp8_axis_case(o, c, hs);
	transpose_case(o, c, 1000, 300, 1003);
	transpose_case(o, c, 130, 64, 130);
	transpose_case(o, c, 200, 130, 256);
	free(h);
	free(hs);
	free(hf);
	qk_ctx_free(c);
}

/* The scan against a plain loop: where the first Inf/NaN is, and the
 * amax when there is none. */
static void scan_checks(void)
{
	static const size_t at[] = { 0, 63, 1023, 1024, 1025, 5000, 70000,
				     131071, (size_t)-1 };
	static const int dts[] = { T_FLOAT16, T_BFLOAT16, T_FLOAT };
	const size_t n = 131072 + 37;
	qk_ctx *c = qk_ctx_new(QK_DEVICE_CPU, 2);

	for (int d = 0; d < 3; d++)
		for (size_t a = 0; a < sizeof(at) / sizeof(at[0]); a++) {
			size_t es = dts[d] == T_FLOAT ? 4 : 2, got = 0;
			size_t want = at[a] < n ? at[a] : n;
			unsigned char *b = xmalloc(n * es + 1), *x = b + 1;
			float amax = 0, ref = 0;
			int rc;

			kt_seed(11 + a);
			for (size_t i = 0; i < n; i++) {
				float v = (float)kt_normal();

				if (i == 77777)
					v = -1000.0f; /* the amax, negative */
				if (dts[d] == T_FLOAT) {
					memcpy(x + 4 * i, &v, 4);
				} else {
					uint16_t h = dts[d] == T_FLOAT16 ?
						     qk_f32_to_f16(v) :
						     qk_f32_to_bf16(v);
					v = dts[d] == T_FLOAT16 ?
					    qk_f16_to_f32(h) : qk_bf16_to_f32(h);
					memcpy(x + 2 * i, &h, 2);
				}
				ref = fabsf(v) > ref ? fabsf(v) : ref;
			}
			if (want < n) /* an Inf, then a NaN after it */
				for (size_t i = want; i < n; i += 40000) {
					uint32_t f = i == want ? 0xff800000u :
								 0x7fc00001u;
					uint16_t h = dts[d] == T_FLOAT16 ?
						     (i == want ? 0xfc00u : 0x7e01u) :
						     (uint16_t)(f >> 16);

					if (dts[d] == T_FLOAT)
						memcpy(x + 4 * i, &f, 4);
					else
						memcpy(x + 2 * i, &h, 2);
				}
			rc = qk_find_nonfinite(c, dts[d], x, n, &got, &amax);
			tap_ok(rc == 0 && got == want &&
				       (want < n ? amax == -1.0f : amax == ref),
			       "scan dtype %d, %zu elements, special at %ld: "
			       "found at %zu, amax %g (want %g)", dts[d], n,
			       want < n ? (long)want : -1L, got,
			       amax, want < n ? -1.0 : (double)ref);
			free(b);
		}
	qk_ctx_free(c);
}

static void read_all(int fd, struct out *o)
{
	size_t cap = 1 << 20;
	ssize_t r;

	o->p = xmalloc(cap);
	while ((r = read(fd, o->p + o->used, cap - o->used)) > 0) {
		o->used += (size_t)r;
		if (o->used == cap && !(o->p = realloc(o->p, cap *= 2)))
			exit(99);
	}
}

/* The cases run in a child with QK_NO_SIMD set to value, their bytes
 * read back into o; 0 when it finished. */
static int child_cases(const char *value, struct out *o)
{
	int fd[2], st;
	pid_t pid;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		size_t off = 0;

		close(fd[0]);
		setenv("QK_NO_SIMD", value, 1);
		run_cases(o);
		while (off < o->used) {
			ssize_t w = write(fd[1], o->p + off, o->used - off);

			if (w <= 0)
				_exit(1);
			off += (size_t)w;
		}
		_exit(0);
	}
	close(fd[1]);
	read_all(fd[0], o);
	close(fd[0]);
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* Case by case (the cases as lay, this process's run, lists them:
 * a child sends bytes only), the bytes of got against the portable
 * ones. */
static void compare(const char *what, const struct out *got,
		    const struct out *lay, const struct out *ref)
{
	tap_ok(ref->used == got->used && got->used == lay->used,
	       "%s: both runs wrote %zu bytes (%zu)", what, got->used,
	       ref->used);
	for (int i = 0; i < lay->n; i++) {
		const unsigned char *a = got->p + lay->off[i];
		const unsigned char *b = ref->p + lay->off[i];
		size_t len = lay->len[i], bad = 0;
		int rc = -1;

		if (lay->off[i] + len > ref->used ||
		    lay->off[i] + len > got->used)
			bad = 1;
		else
			while (bad < len && a[bad] == b[bad])
				bad++;
		if (lay->off[i] + sizeof(rc) <= got->used)
			memcpy(&rc, a, sizeof(rc));
		tap_ok(bad == len, "%s: %s = portable (status %d%s)",
		       lay->name[i], what, rc, bad == len ? "" : ", differs");
	}
}

int main(void)
{
	struct out simd = { 0 }, ref = { 0 }, avx2 = { 0 };

	/* Portable, then without AVX-512 only (the AVX2 paths, which an
	 * AVX-512 CPU would otherwise never run), both before this
	 * process reads QK_NO_SIMD. */
	if (child_cases("1", &ref))
		return tap_ok(0, "portable run (QK_NO_SIMD=1) finished"), 1;
	if (child_cases("avx512", &avx2))
		return tap_ok(0, "run without AVX-512 (QK_NO_SIMD=avx512) "
			      "finished"), 1;
	unsetenv("QK_NO_SIMD");
#if defined(__x86_64__) && defined(__GNUC__)
	__builtin_cpu_init();
	printf("# this CPU: AVX2 %d, AVX-512F %d, AVX-512BW %d\n",
	       __builtin_cpu_supports("avx2") != 0,
	       __builtin_cpu_supports("avx512f") != 0,
	       __builtin_cpu_supports("avx512bw") != 0);
#endif
	run_cases(&simd);
	compare("SIMD", &simd, &simd, &ref);
	compare("without AVX-512", &avx2, &simd, &ref);
	scan_checks();
	free(simd.p);
	free(ref.p);
	free(avx2.p);
	return tap_done();
}

/*
 * tests/kernels/nvfp4-amax.c - qk_nvfp4_quantize_amax: given the
 * weight's amax (from qk_find_nonfinite's scan) it must write exactly
 * what qk_nvfp4_quantize writes, for every source type and layout
 * (inner 1, even, odd), and must really use the amax it is given.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/kernels.h>
#include "../lib/tap.h"

enum { OUTER = 3, K = 64, T_FLOAT = 1, T_FLOAT16 = 10, T_BFLOAT16 = 16 };

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

/* Weights of varied magnitude (some blocks tiny, some large). */
static void *weights(int dt, size_t n, uint32_t seed)
{
	size_t es = dt == T_FLOAT ? 4 : 2;
	unsigned char *w = malloc(n * es);

	for (size_t i = 0; w && i < n; i++) {
		float v = ((float)(lcg(&seed) % 20001) - 10000.0f) *
			  ldexpf(1.0f, (int)(lcg(&seed) % 20) - 24);
		uint16_t h;

		if (dt == T_FLOAT) {
			memcpy(w + 4 * i, &v, 4);
			continue;
		}
		h = dt == T_FLOAT16 ? qk_f32_to_f16(v) : qk_f32_to_bf16(v);
		memcpy(w + 2 * i, &h, 2);
	}
	return w;
}

static void same(int dt, const char *name, size_t inner)
{
	size_t n = OUTER * K * inner, ns = OUTER * (K / 16) * inner;
	void *w = weights(dt, n, (uint32_t)(dt * 31 + inner));
	uint8_t *c1 = malloc(n / 2 + 1), *c2 = malloc(n / 2 + 1);
	uint8_t *s1 = malloc(ns), *s2 = malloc(ns);
	float amax = -1, g1 = 0, g2 = 0;
	int r1, r2;

	if (!w || !c1 || !c2 || !s1 || !s2) {
		tap_ok(0, "%s inner %zu: memory", name, inner);
		goto out;
	}
	qk_amax(NULL, dt, w, n, &amax);
	r1 = qk_nvfp4_quantize(NULL, dt, w, OUTER, K, inner, c1, s1, &g1);
	r2 = qk_nvfp4_quantize_amax(NULL, dt, w, OUTER, K, inner, amax, c2, s2,
				    &g2);
	tap_ok(r1 == 0 && r2 == 0 && g1 == g2 && !memcmp(c1, c2, n / 2) &&
	       !memcmp(s1, s2, ns),
	       "%s [%d, %d, %zu]: with amax %g given, the same codes, scales "
	       "and global scale", name, OUTER, K, inner, amax);
	if (inner > 1) {
		r2 = qk_nvfp4_quantize_amax(NULL, dt, w, OUTER, K, inner,
					    amax * 4, c2, s2, &g2);
		tap_ok(r2 == 0 && g2 != g1,
		       "%s inner %zu: another amax gives another global scale "
		       "(it is used)", name, inner);
	}
out:
	free(w);
	free(c1);
	free(c2);
	free(s1);
	free(s2);
}

int main(void)
{
	static const struct { int dt; const char *name; } types[] = {
		{ T_FLOAT, "FLOAT" }, { T_FLOAT16, "FLOAT16" },
		{ T_BFLOAT16, "BFLOAT16" },
	};
	static const size_t inners[] = { 1, 8, 5 };
	float w[16] = { 1 }, g;
	uint8_t c[8], s[1];

	for (size_t d = 0; d < 3; d++)
		for (size_t i = 0; i < 3; i++)
			same(types[d].dt, types[d].name, inners[i]);
	tap_ok(qk_nvfp4_quantize_amax(NULL, T_FLOAT, w, 1, 16, 1, -1.0f, c, s,
				      &g) == QK_EINVAL &&
	       qk_nvfp4_quantize_amax(NULL, T_FLOAT, w, 1, 16, 1, INFINITY, c,
				      s, &g) == QK_EINVAL &&
	       qk_nvfp4_quantize_amax(NULL, T_FLOAT, w, 1, 16, 1, NAN, c, s,
				      &g) == QK_EINVAL,
	       "a negative, infinite or NaN amax is refused");
	return tap_done();
}

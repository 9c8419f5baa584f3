/*
 * tests/passes/support/finite.c - ps_nonfinite (passes/support/finite.c), the
 * Inf/NaN check nvfp4-weights and hadamard-rotate run on every weight,
 * and the kernel under it, qk_find_nonfinite (kernels/finite.c): it
 * scans in fixed steps, split over threads, and looks element by
 * element only inside a step that holds a special value, so the first
 * one must be found wherever it sits (first, last, at a step's edges,
 * in the tail past the last whole step, in another thread's range),
 * for each float type, on one thread and on three, at an odd address.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "passes/support/support.h"
#include "../../lib/tap.h"

#define N 1000 /* three whole steps of 256 and a tail of 232 */

/* The element-by-element definition: exponent all ones. */
static int ref_first(int dt, const unsigned char *p, size_t n, int *nan)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t f;
		uint16_t h;

		if (dt == QIR_FLOAT) {
			memcpy(&f, p + 4 * i, 4);
			if ((f & 0x7f800000u) == 0x7f800000u) {
				*nan = (f & 0x7fffffu) != 0;
				return (int)i;
			}
			continue;
		}
		memcpy(&h, p + 2 * i, 2);
		if (dt == QIR_FLOAT16 ? (h & 0x7c00u) == 0x7c00u :
		    (h & 0x7f80u) == 0x7f80u) {
			*nan = dt == QIR_FLOAT16 ? (h & 0x3ffu) != 0 :
			       (h & 0x7fu) != 0;
			return (int)i;
		}
	}
	return -1;
}

/* Puts Inf (nan = 0) or a NaN at element i of a dt array. */
static void plant(int dt, unsigned char *p, size_t i, int nan)
{
	uint32_t f = nan ? 0x7fc00001u : 0xff800000u; /* NaN, -Inf */
	uint16_t h = dt == QIR_FLOAT16 ? (nan ? 0x7e01u : 0x7c00u) :
		     (nan ? 0xffc1u : 0x7f80u);

	if (dt == QIR_FLOAT)
		memcpy(p + 4 * i, &f, 4);
	else
		memcpy(p + 2 * i, &h, 2);
}

/* Finite values with large exponents, so a test that looked at fewer
 * exponent bits would fire. */
static void fill(int dt, unsigned char *p)
{
	for (size_t i = 0; i < N; i++) {
		uint32_t f = 0x7f7fffffu - (uint32_t)i;		/* FLT_MAX down */
		uint16_t h = (uint16_t)((dt == QIR_FLOAT16 ? 0x7bffu : 0x7f7fu) -
					(i & 7) - (i & 0x100 ? 0x8000 : 0));

		if (dt == QIR_FLOAT)
			memcpy(p + 4 * i, &f, 4);
		else
			memcpy(p + 2 * i, &h, 2);
	}
}

static qk_ctx *threads3;

static void one(int dt, const char *name, const size_t *at, size_t nat,
		int nan)
{
	int64_t dims[1] = { N };
	qir_error err = { 0 };
	qir_tensor *t = qir_tensor_new("W", dt, 1, dims, &err);
	unsigned char *p = t ? qir_tensor_mutable_data(t, &err) : NULL;
	const char *what = NULL;
	uint64_t got = 0;
	int rc, want, wnan = 0;

	if (!p) {
		tap_ok(0, "%s: tensor made", name);
		return;
	}
	fill(dt, p);
	for (size_t k = 0; k < nat; k++)
		plant(dt, p, at[k], nan);
	want = ref_first(dt, p, N, &wnan);
	for (int th = 0; th < 2; th++) {
		float am = 7, ref = -1;

		if (want < 0)
			qk_amax(NULL, dt, p, N, &ref);
		rc = ps_nonfinite(th ? threads3 : NULL, t, &got, &what, &am,
				  &err);
		tap_ok(am == ref, "%s: amax with the answer: %g (expected %g)",
		       name, am, ref);
		tap_ok(want < 0 ? rc == 0 :
		       rc == 1 && got == (uint64_t)want &&
		       !strcmp(what, wnan ? "NaN" : "Inf"),
		       "%s, %s at %zu%s, %d thread(s): found %s at %llu "
		       "(expected %d)", name, nan ? "NaN" : "Inf",
		       nat ? at[0] : 0, nat > 1 ? " and more" : "",
		       th ? 3 : 1, rc == 1 ? what : "none",
		       (unsigned long long)got, want);
	}
	{
		/* The kernel on the same bytes one byte off alignment. */
		size_t es = dt == QIR_FLOAT ? 4 : 2, k = 7;
		unsigned char *odd = malloc(N * es + 1);

		memcpy(odd + 1, p, N * es);
		rc = odd ? qk_find_nonfinite(threads3, dt, odd + 1, N, &k,
					     NULL) : -1;
		tap_ok(rc == 0 && k == (want < 0 ? N : (size_t)want),
		       "%s: qk_find_nonfinite at an odd address: %zu", name, k);
		free(odd);
	}
	qir_tensor_free(t);
}

/* A tensor big enough for three threads (over 3 x 256 KiB): ranges
 * start at 349525 and 699050 elements. A hit only in a later thread's
 * range, and hits in two ranges (the earlier wins). */
static void big(int dt, const char *name)
{
	enum { NB = 1 << 20 };
	static const size_t sets[][2] = { { 699050, 0 }, { 699049, 0 },
					  { 1048575, 0 }, { 900000, 349530 },
					  { 349524, 0 } };
	int64_t dims[1] = { NB };
	qir_error err = { 0 };

	for (size_t s = 0; s < sizeof(sets) / sizeof(*sets); s++) {
		qir_tensor *t = qir_tensor_new("B", dt, 1, dims, &err);
		unsigned char *p = t ? qir_tensor_mutable_data(t, &err) : NULL;
		const char *what = NULL;
		uint64_t got = 0;
		int want, wnan = 0, rc;

		if (!p) {
			tap_ok(0, "%s: big tensor made", name);
			qir_tensor_free(t);
			return;
		}
		plant(dt, p, sets[s][0], 0);
		if (sets[s][1])
			plant(dt, p, sets[s][1], 1);
		want = ref_first(dt, p, NB, &wnan);
		rc = ps_nonfinite(threads3, t, &got, &what, NULL, &err);
		tap_ok(rc == 1 && got == (uint64_t)want &&
		       !strcmp(what, wnan ? "NaN" : "Inf"),
		       "%s, %zu elements on 3 threads, hit at %zu%s: found at "
		       "%llu (expected %d)", name, (size_t)NB, sets[s][0],
		       sets[s][1] ? " and earlier" : "",
		       (unsigned long long)got, want);
		qir_tensor_free(t);
	}
}

int main(void)
{
	static const struct { int dt; const char *name; } types[] = {
		{ QIR_FLOAT, "FLOAT" }, { QIR_FLOAT16, "FLOAT16" },
		{ QIR_BFLOAT16, "BFLOAT16" },
	};
	static const size_t places[] = { 0, 1, 63, 64, 255, 256, 257, 333,
					 334, 511, 666, 767, 768, 999 };
	size_t k = 5;

	threads3 = qk_ctx_new(QK_DEVICE_CPU, 3);
	tap_ok(threads3 != NULL, "a CPU kernel context of 3 threads");
	tap_ok(qk_find_nonfinite(NULL, QIR_INT8, "", 1, &k, NULL) == QK_EDTYPE &&
	       k == 1, "qk_find_nonfinite refuses an integer type");

	for (size_t d = 0; d < 3; d++) {
		one(types[d].dt, types[d].name, NULL, 0, 0);
		for (size_t k = 0; k < sizeof(places) / sizeof(*places); k++)
			for (int nan = 0; nan < 2; nan++)
				one(types[d].dt, types[d].name, &places[k], 1,
				    nan);
		{
			/* Two in one step and one before: the earliest. */
			const size_t two[] = { 300, 290, 600 };

			one(types[d].dt, types[d].name, two, 3, 1);
		}
		big(types[d].dt, types[d].name);
	}
	qk_ctx_free(threads3);
	return tap_done();
}

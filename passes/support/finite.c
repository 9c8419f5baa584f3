/*
 * passes/support/finite.c - does a float weight hold Inf or NaN? The
 * weight passes skip such a weight (with a warning) rather than spread
 * the value through a rotation or fail deep in a quantizer kernel.
 */
#include <string.h>

#include "support.h"

/* Exponent all ones: Inf or NaN; the mantissa tells which. */
static int special(int dt, const unsigned char *p, int *nan)
{
	uint32_t f;
	uint16_t h;

	if (dt == QIR_FLOAT) {
		memcpy(&f, p, 4);
		*nan = (f & 0x007fffffu) != 0;
		return (f & 0x7f800000u) == 0x7f800000u;
	}
	memcpy(&h, p, 2);
	if (dt == QIR_FLOAT16) {
		*nan = (h & 0x03ffu) != 0;
		return (h & 0x7c00u) == 0x7c00u;
	}
	*nan = (h & 0x007fu) != 0;
	return (h & 0x7f80u) == 0x7f80u;
}

/* Elements per step of the scan: a fixed trip count, so the compiler
 * vectorizes the test (an element at a time, with its dtype branch
 * and memcpy, the scan took half of nvfp4-weights' CPU time on 1 GiB
 * of weights). Only a step that holds a special value is looked at
 * element by element, which finds the first one as before. */
#define SCAN_STEP 256

/* 1 when one of the SCAN_STEP elements at p has an all-ones exponent. */
static int step_special(int dt, const unsigned char *p)
{
	uint32_t f[SCAN_STEP], any = 0;
	uint16_t h[SCAN_STEP], mask = dt == QIR_FLOAT16 ? 0x7c00u : 0x7f80u;
	size_t i;

	if (dt == QIR_FLOAT) {
		memcpy(f, p, sizeof(f));
		for (i = 0; i < SCAN_STEP; i++)
			any |= (f[i] & 0x7f800000u) == 0x7f800000u;
		return any != 0;
	}
	memcpy(h, p, sizeof(h));
	for (i = 0; i < SCAN_STEP; i++)
		any |= (uint16_t)(h[i] & mask) == mask;
	return any != 0;
}

int ps_nonfinite(qir_tensor *t, uint64_t *at, const char **what,
		 qir_error *err)
{
	size_t es = t->dtype == QIR_FLOAT ? 4 : 2;
	uint64_t n = qir_tensor_numel(t), i = 0;
	const unsigned char *p;
	int nan;

	if (t->dtype != QIR_FLOAT && t->dtype != QIR_FLOAT16 &&
	    t->dtype != QIR_BFLOAT16)
		return 0;
	if (!n)
		return 0;
	p = qir_tensor_data(t, err);
	if (!p)
		return -1;
	while (i + SCAN_STEP <= n && !step_special(t->dtype, p + i * es))
		i += SCAN_STEP;
	for (; i < n; i++)
		if (special(t->dtype, p + i * es, &nan)) {
			*at = i;
			*what = nan ? "NaN" : "Inf";
			return 1;
		}
	return 0;
}

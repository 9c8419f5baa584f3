/*
 * passes/support/finite.c - does a float weight hold Inf or NaN? The
 * weight passes skip such a weight (with a warning) rather than spread
 * the value through a rotation or fail deep in a quantizer kernel.
 */
#include <string.h>

#include "finite.h"

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

int ps_nonfinite(qir_tensor *t, uint64_t *at, const char **what,
		 qir_error *err)
{
	size_t es = t->dtype == QIR_FLOAT ? 4 : 2;
	uint64_t n = qir_tensor_numel(t);
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
	for (uint64_t i = 0; i < n; i++)
		if (special(t->dtype, p + i * es, &nan)) {
			*at = i;
			*what = nan ? "NaN" : "Inf";
			return 1;
		}
	return 0;
}

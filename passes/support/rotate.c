/*
 * passes/support/rotate.c - rotate_back: W' = R fq(R W) (rotate.h).
 */
#include <stdlib.h>

#include "rotate.h"

int ps_rotate_back(qk_ctx *qk, int dtype, const void *src, void *dst,
		   size_t outer, size_t k, size_t inner, size_t block,
		   ps_fake_quant_fn fq, void *arg, const char **step)
{
	size_t n = outer * k * inner;
	float *x = malloc(n * sizeof(float) + 1);
	int rc = QK_ENOMEM;

	*step = "out of memory";
	if (!x)
		goto out;
	*step = "conversion to FP32";
	rc = qk_convert(qk, QIR_FLOAT, x, dtype, src, n);
	if (rc)
		goto out;
	*step = "Hadamard rotation";
	rc = qk_hadamard(qk, QIR_FLOAT, x, outer, k, inner, block);
	if (rc)
		goto out;
	rc = fq(arg, qk, x, outer, k, inner, step);
	if (rc)
		goto out;
	*step = "inverse Hadamard rotation";
	rc = qk_hadamard(qk, QIR_FLOAT, x, outer, k, inner, block);
	if (rc)
		goto out;
	*step = "conversion to the weight's type";
	rc = qk_convert(qk, dtype, dst, QIR_FLOAT, x, n);
out:
	free(x);
	return rc;
}

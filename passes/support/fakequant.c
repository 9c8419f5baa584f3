/*
 * passes/support/fakequant.c - NVFP4 fake quantization (fakequant.h).
 */
#include <stdint.h>
#include <stdlib.h>

#include "fakequant.h"

int ps_fake_nvfp4(qk_ctx *qk, int dtype, const void *src, void *dst,
		  size_t outer, size_t k, size_t inner, const char **step)
{
	size_t n = outer * k * inner;
	uint8_t *codes = malloc(n / 2 + 1);
	uint8_t *scales = malloc(n / QK_NVFP4_BLOCK + 1);
	float g = 0.0f;
	int rc = QK_ENOMEM;

	*step = "out of memory";
	if (!codes || !scales)
		goto out;
	*step = "NVFP4 quantization";
	rc = qk_nvfp4_quantize(qk, dtype, src, outer, k, inner, codes, scales,
			       &g);
	if (rc)
		goto out;
	*step = "NVFP4 dequantization";
	rc = qk_nvfp4_dequantize(qk, codes, scales, g, outer, k, inner, dtype,
				 dst);
out:
	free(codes);
	free(scales);
	return rc;
}

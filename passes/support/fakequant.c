/*
 * passes/support/fakequant.c - NVFP4 fake quantization (fakequant.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static const char *meta(const qir_model *m)
{
	for (size_t i = 0; i < m->nmetadata; i++)
		if (!strcmp(m->metadata[i].key, PS_FAKE_META))
			return m->metadata[i].value;
	return NULL;
}

const char *ps_fake_recorded(const qir_model *m, const char *weight,
			     char *fmt, size_t n)
{
	const char *p = meta(m);
	size_t len = strlen(weight);

	while (p && (p = strstr(p, "weight=")) != NULL) {
		p += 7;
		if (!strncmp(p, weight, len) && !strncmp(p + len, " format=", 8)) {
			const char *f = p + len + 8;
			size_t k = strcspn(f, ";");

			snprintf(fmt, n, "%.*s", (int)k, f);
			return fmt;
		}
	}
	return NULL;
}

int ps_fake_record(qir_model *m, const char *weight, const char *format)
{
	const char *prior = meta(m);
	size_t lp = prior ? strlen(prior) : 0;
	size_t add = strlen(weight) + strlen(format) + 17;
	char *all = malloc(lp + add);
	int rc;

	if (!all)
		return -1;
	memcpy(all, prior ? prior : "", lp);
	snprintf(all + lp, add, "weight=%s format=%s;", weight, format);
	rc = qir_model_set_metadata(m, PS_FAKE_META, all);
	free(all);
	return rc;
}

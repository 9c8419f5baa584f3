/*
 * passes/autocast/weights.c - FLOAT weights and the low type: what a
 * conversion would lose (range, underflow), and the conversion itself
 * as a deferred recipe, run by the writer straight into the output
 * through the kernels (round to nearest, ties to even; CPU and CUDA
 * give the same bytes), so a 2+ GiB model is never copied in memory.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "autocast.h"
#include "../support/recipe.h"

/* Elements per step when a buffer of the low type is needed. */
#define AUTOCAST_CHUNK 16384

/* What one read of a weight found: kept, as a weight is read by one
 * rule, then by the underflow count, and a model may be gigabytes. */
struct autocast_scan {
	float amax;
	uint64_t zero, sub;
};

/* Elements per block: copied to an aligned buffer the loop can
 * vectorize over, whatever the mapping's alignment. */
#define AUTOCAST_SCAN_BLOCK 4096

static int scan(struct autocast_cfg *cfg, qir_tensor *t, struct autocast_scan *r,
		qir_error *err)
{
	/* Round to nearest even: at most half the smallest subnormal goes
	 * to zero, below the smallest normal less that half stays
	 * subnormal. */
	const double min_sub = cfg->low == QIR_FLOAT16 ? ldexp(1, -24) :
			       ldexp(1, -133);
	const double min_norm = cfg->low == QIR_FLOAT16 ? ldexp(1, -14) :
				ldexp(1, -126);
	const float to_zero = (float)(min_sub / 2);
	const float to_sub = (float)(min_norm - min_sub / 2);
	uint64_t n = qir_tensor_numel(t), i, zero = 0, sub = 0;
	const unsigned char *p;
	float m = 0, buf[AUTOCAST_SCAN_BLOCK];

	memset(r, 0, sizeof(*r));
	if (!n)
		return 0;
	p = qir_tensor_data(t, err);
	if (!p)
		return -1;
	for (i = 0; i < n; i += AUTOCAST_SCAN_BLOCK) {
		size_t k = n - i < AUTOCAST_SCAN_BLOCK ? (size_t)(n - i) :
			   AUTOCAST_SCAN_BLOCK, j;

		memcpy(buf, p + 4 * i, 4 * k);
		for (j = 0; j < k; j++) {
			float x = fabsf(buf[j]);
			/* Inf is Inf in every float type and NaN NaN: only
			 * finite values can leave the low range */
			int fin = x <= 3.40282347e38f;

			m = fin && x > m ? x : m;
			zero += fin && x != 0 && x <= to_zero;
			sub += fin && x > to_zero && x < to_sub;
		}
	}
	r->amax = m;
	r->zero = zero;
	r->sub = sub;
	/* the writer reads it again when it converts: no need to keep the
	 * pages in the meantime */
	(void)qir_tensor_advise(t, QIR_ADVISE_DONE, err);
	err->code = 0;
	err->msg[0] = 0;
	return 0;
}

int autocast_weight_scan(struct autocast_cfg *cfg, qir_tensor *t, float *amax,
		   uint64_t *zero, uint64_t *sub, qir_error *err)
{
	struct autocast_scan *r = autocast_memo_get(&cfg->scans, t);

	if (!r) {
		r = malloc(sizeof(*r));
		if (!r || scan(cfg, t, r, err) < 0 ||
		    autocast_memo_put(&cfg->scans, t, r)) {
			if (r && !err->code)
				qir_fail(err, QIR_ENOMEM, "out of memory");
			free(r);
			return -1;
		}
	}
	*amax = r->amax;
	*zero = r->zero;
	*sub = r->sub;
	return 0;
}

void autocast_scans_free(struct autocast_cfg *cfg)
{
	size_t i;

	for (i = 0; i < cfg->scans.cap; i++)
		free(cfg->scans.vals[i]);
	autocast_memo_fini(&cfg->scans);
}

struct conv_recipe {
	struct ps_recipe base;	/* the weight's name, the device */
	int low;
	int fake;
	int clamp;
};

void autocast_saturate(int low, uint16_t *codes, const void *src, size_t n)
{
	const uint16_t inf = low == QIR_FLOAT16 ? 0x7c00 : 0x7f80;
	const uint16_t max = low == QIR_FLOAT16 ? 0x7bff : 0x7f7f;
	size_t i;

	for (i = 0; i < n; i++) {
		float x;

		if ((codes[i] & 0x7fff) != inf)
			continue;
		memcpy(&x, (const char *)src + 4 * i, 4);
		if (isfinite(x))
			codes[i] = (uint16_t)((codes[i] & 0x8000) | max);
	}
}

uint64_t autocast_weight_beyond(struct autocast_cfg *cfg, qir_tensor *t)
{
	const float max = cfg->low == QIR_FLOAT16 ? 65504.0f :
			  3.38953139e38f;
	uint64_t n = qir_tensor_numel(t), i, k = 0;
	qir_error err = { 0 };
	const unsigned char *p = n ? qir_tensor_data(t, &err) : NULL;

	for (i = 0; p && i < n; i++) {
		float x;

		memcpy(&x, p + 4 * i, 4);
		k += isfinite(x) && fabsf(x) > max;
	}
	return k;
}

static int conv_run(struct ps_recipe *base, qk_ctx *kc, const qir_tensor *in,
		    const void *src, void *const *dst, const char **step,
		    qir_error *err)
{
	struct conv_recipe *r = (struct conv_recipe *)base;
	uint64_t n = qir_tensor_numel(in), i;
	uint16_t *tmp;
	int rc = 0;

	(void)err;
	*step = r->fake ? "rounding through the low type" :
		"conversion to the low type";
	if (!r->fake) {
		rc = qk_convert(kc, r->low, dst[0], QIR_FLOAT, src, n);
		if (!rc && r->clamp)
			autocast_saturate(r->low, dst[0], src, (size_t)n);
		return rc;
	}
	tmp = malloc(AUTOCAST_CHUNK * sizeof(*tmp));
	if (!tmp)
		return QOPT_ENOMEM;
	for (i = 0; i < n && !rc; i += AUTOCAST_CHUNK) {
		size_t k = n - i < AUTOCAST_CHUNK ? (size_t)(n - i) : AUTOCAST_CHUNK;

		rc = qk_convert(kc, r->low, tmp, QIR_FLOAT,
				(const char *)src + 4 * i, k);
		if (!rc && r->clamp)
			autocast_saturate(r->low, tmp, (const char *)src + 4 * i, k);
		if (!rc)
			rc = qk_convert(kc, QIR_FLOAT, (char *)dst[0] + 4 * i,
					r->low, tmp, k);
	}
	free(tmp);
	return rc;
}

qir_tensor *autocast_weight_convert(struct autocast_cfg *cfg, qir_tensor *t,
			      const char *name, int fake)
{
	struct conv_recipe *r = ps_recipe_new(cfg->ctx, sizeof(*r), name,
					      conv_run, NULL);
	const qir_tensor_spec spec = { name, fake ? QIR_FLOAT : cfg->low,
				       t->rank, t->dims };
	qir_error err = { 0 };
	qir_tensor *out = NULL;

	if (!r) {
		qopt_error(cfg->ctx, "weight '%s': out of memory", name);
		return NULL;
	}
	r->low = cfg->low;
	r->fake = fake;
	r->clamp = cfg->clamp;
	if (ps_recipe_defer(cfg->m, &r->base, t, 0, &spec, 1, &out, &err)) {
		qopt_error(cfg->ctx, "weight '%s': %s", name,
			   err.msg[0] ? err.msg : "out of memory");
		return NULL;
	}
	qir_tensor_keep_fields(out, t);
	return out;
}

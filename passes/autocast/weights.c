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

/* Lanes of the scan's loop: independent accumulators the compiler
 * keeps in vector registers. */
#define SCAN_LANES 16

/* |x|'s bits of the FLOAT at p (any alignment). */
static inline uint32_t abs_bits(const unsigned char *p)
{
	uint32_t u;

	memcpy(&u, p, sizeof(u));
	return u & 0x7fffffffu;
}

static uint32_t float_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

/* Over |x|'s bits, where integer order is float order (NaN above
 * every finite value): the largest finite, how many are in [1, zb]
 * (round to zero) and in (zb, sb) (round to a subnormal). One read, at
 * memory speed: the loop is branch-free over SCAN_LANES lanes, which
 * the compiler vectorizes; the old loop copied each block to a float
 * buffer and compared floats, a third of an autocast run's time. */
struct scan_acc {
	uint32_t m;
	uint64_t zero, sub;
};

static void scan_bits(const unsigned char *p, uint64_t n, uint32_t zb,
		      uint32_t sb, struct scan_acc *a)
{
	uint32_t m[SCAN_LANES] = { 0 }, z[SCAN_LANES], sc[SCAN_LANES];
	uint64_t i = 0, end;
	size_t k;

	while (i < n) {
		/* per-lane counters stay below 2^32 over a block */
		end = n - i > ((uint64_t)1 << 24) ? i + ((uint64_t)1 << 24) : n;
		memset(z, 0, sizeof(z));
		memset(sc, 0, sizeof(sc));
		for (; i + SCAN_LANES <= end; i += SCAN_LANES)
			for (k = 0; k < SCAN_LANES; k++) {
				uint32_t u = abs_bits(p + 4 * (i + k));
				uint32_t v = u & (0u - (uint32_t)(u <= 0x7f7fffffu));

				m[k] = v > m[k] ? v : m[k];
				z[k] += u - 1 < zb;
				sc[k] += u - zb - 1 < sb - zb - 1;
			}
		for (; i < end; i++) {
			uint32_t u = abs_bits(p + 4 * i);

			if (u <= 0x7f7fffffu && u > a->m)
				a->m = u;
			a->zero += u - 1 < zb;
			a->sub += u - zb - 1 < sb - zb - 1;
		}
		for (k = 0; k < SCAN_LANES; k++) {
			a->zero += z[k];
			a->sub += sc[k];
		}
	}
	for (k = 0; k < SCAN_LANES; k++)
		a->m = m[k] > a->m ? m[k] : a->m;
}

static int scan(struct autocast_cfg *cfg, qir_tensor *t, struct autocast_scan *r,
		qir_error *err)
{
	/* Round to nearest even: at most half the smallest subnormal goes
	 * to zero, below the smallest normal less that half stays
	 * subnormal. Inf is Inf in every float type and NaN NaN: only
	 * finite values can leave the low range. */
	const double min_sub = cfg->low == QIR_FLOAT16 ? ldexp(1, -24) :
			       ldexp(1, -133);
	const double min_norm = cfg->low == QIR_FLOAT16 ? ldexp(1, -14) :
				ldexp(1, -126);
	const uint32_t zb = float_bits((float)(min_sub / 2));
	const uint32_t sb = float_bits((float)(min_norm - min_sub / 2));
	struct scan_acc a = { 0 };
	uint64_t n = qir_tensor_numel(t);
	const unsigned char *p;

	memset(r, 0, sizeof(*r));
	if (!n)
		return 0;
	p = qir_tensor_data(t, err);
	if (!p)
		return -1;
	scan_bits(p, n, zb, sb, &a);
	memcpy(&r->amax, &a.m, sizeof(r->amax));
	r->zero = a.zero;
	r->sub = a.sub;
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

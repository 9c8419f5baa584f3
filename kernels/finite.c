/*
 * kernels/finite.c - where is the first Inf or NaN of a float tensor?
 * The weight passes ask before quantizing or rotating a weight (a
 * non-finite weight is skipped), so every weight is read once more
 * than the quantizer reads it: the scan must run at memory speed.
 *
 * A step of QKI_VEC elements is tested with a fixed-count loop the
 * compiler vectorizes (an all-ones exponent: Inf or NaN); only a step
 * that holds one is looked at element by element. Threads take
 * contiguous ranges and each reports its first hit, so the result is
 * the first element whatever the split. The same loop keeps the
 * largest |x| (as integer bits, exact), so a finite weight's amax
 * comes with the answer and the NVFP4 quantizer need not read the
 * weight a second time for it (qk_nvfp4_quantize_amax).
 */
#include "internal.h"

/* 1 when x's bits (of dtype) have an all-ones exponent. */
static int qki_special_at(int dtype, const void *x, size_t i)
{
	if (dtype == QK_T_FLOAT)
		return (qki_f2u(((const qki_f32u *)x)[i]) & 0x7f800000u) ==
		       0x7f800000u;
	if (dtype == QK_T_FLOAT16)
		return (((const qki_u16u *)x)[i] & 0x7c00u) == 0x7c00u;
	return (((const qki_u16u *)x)[i] & 0x7f80u) == 0x7f80u;
}

/* 1 when one of QKI_VEC elements at x is special; *m grows to the
 * largest |x| bits seen (meaningful while nothing is special). */
QKI_HOT static int qki_step32(const qki_f32u *restrict x, uint32_t *m)
{
	uint32_t any = 0, top = *m;
	size_t k;

	for (k = 0; k < QKI_VEC; k++) {
		uint32_t v = qki_f2u(x[k]) & 0x7fffffffu;

		any |= v >= 0x7f800000u;
		top = v > top ? v : top;
	}
	*m = top;
	return any != 0;
}

QKI_HOT static int qki_step16(const qki_u16u *restrict h, uint16_t inf,
			      uint32_t *m)
{
	uint16_t any = 0, top = (uint16_t)*m;
	size_t k;

	for (k = 0; k < QKI_VEC; k++) {
		uint16_t v = h[k] & 0x7fffu;

		any |= v >= inf;
		top = v > top ? v : top;
	}
	*m = top;
	return any != 0;
}

/* Long stretches: QKI_SCAN steps between looks at the answer. A
 * special value is the largest |x| bits there are (its exponent is all
 * ones), so the running max alone says whether one was met: no
 * per-step test, and the max is folded across lanes once a stretch
 * (the per-step folding and the call per step through the clones'
 * dispatch were most of the scan's time). Returns how many elements
 * from the start hold no special value, in whole stretches; *m grows as
 * qki_step's does. */
#define QKI_SCAN 16
QKI_HOT static size_t qki_scan32(const qki_f32u *restrict x, size_t n,
				 uint32_t *m)
{
	uint32_t acc[QKI_VEC], top = *m;
	size_t i = 0, s, k;

	for (k = 0; k < QKI_VEC; k++)
		acc[k] = top;
	for (; i + QKI_SCAN * QKI_VEC <= n; i += QKI_SCAN * QKI_VEC) {
		for (s = 0; s < QKI_SCAN; s++)
			for (k = 0; k < QKI_VEC; k++) {
				uint32_t v = qki_f2u(x[i + s * QKI_VEC + k]) &
					     0x7fffffffu;

				acc[k] = v > acc[k] ? v : acc[k];
			}
		for (k = 0; k < QKI_VEC; k++)
			top = acc[k] > top ? acc[k] : top;
		if (top >= 0x7f800000u)
			break;
	}
	*m = top;
	return i;
}

QKI_HOT static size_t qki_scan16(const qki_u16u *restrict h, size_t n,
				 uint16_t inf, uint32_t *m)
{
	uint16_t acc[QKI_VEC], top = (uint16_t)*m;
	size_t i = 0, s, k;

	for (k = 0; k < QKI_VEC; k++)
		acc[k] = top;
	for (; i + QKI_SCAN * QKI_VEC <= n; i += QKI_SCAN * QKI_VEC) {
		for (s = 0; s < QKI_SCAN; s++)
			for (k = 0; k < QKI_VEC; k++) {
				uint16_t v = h[i + s * QKI_VEC + k] & 0x7fffu;

				acc[k] = v > acc[k] ? v : acc[k];
			}
		for (k = 0; k < QKI_VEC; k++)
			top = acc[k] > top ? acc[k] : top;
		if (top >= inf)
			break;
	}
	*m = top;
	return i;
}

static size_t qki_scan(int dtype, const void *x, size_t i, size_t n,
		       uint32_t *m)
{
	if (dtype == QK_T_FLOAT)
		return qki_scan32((const qki_f32u *)x + i, n, m);
	return qki_scan16((const qki_u16u *)x + i, n,
			  dtype == QK_T_FLOAT16 ? 0x7c00u : 0x7f80u, m);
}

static int qki_step(int dtype, const void *x, size_t i, uint32_t *m)
{
	if (dtype == QK_T_FLOAT)
		return qki_step32((const qki_f32u *)x + i, m);
	return qki_step16((const qki_u16u *)x + i,
			  dtype == QK_T_FLOAT16 ? 0x7c00u : 0x7f80u, m);
}

/* |x[i]|'s bits in its own type. */
static uint32_t qki_abs_at(int dtype, const void *x, size_t i)
{
	if (dtype == QK_T_FLOAT)
		return qki_f2u(((const qki_f32u *)x)[i]) & 0x7fffffffu;
	return ((const qki_u16u *)x)[i] & 0x7fffu;
}

struct qki_finite {
	int dtype;
	const void *x;
	size_t first[QKI_MAX_THREADS];	/* per part: its first hit, or SIZE_MAX */
	uint32_t max[QKI_MAX_THREADS];	/* per part: largest |x| bits */
};

static int qki_finite_range(void *arg, unsigned part, size_t lo, size_t hi)
{
	struct qki_finite *a = arg;
	uint32_t m = 0, v;
	size_t i = lo;

	a->first[part] = SIZE_MAX;
	i += qki_scan(a->dtype, a->x, lo, hi - lo, &m);
	while (i + QKI_VEC <= hi && !qki_step(a->dtype, a->x, i, &m))
		i += QKI_VEC;
	for (; i < hi; i++) {
		if (qki_special_at(a->dtype, a->x, i)) {
			a->first[part] = i;
			break;
		}
		v = qki_abs_at(a->dtype, a->x, i);
		m = v > m ? v : m;
	}
	a->max[part] = m;
	return 0;
}

/* The largest |x| bits of dtype as a float (exact: every FLOAT16 and
 * BFLOAT16 value is a float). */
static float qki_bits_value(int dtype, uint32_t m)
{
	if (dtype == QK_T_FLOAT16)
		return qki_dec_f16((uint16_t)m);
	if (dtype == QK_T_BFLOAT16)
		return qki_dec_bf16((uint16_t)m);
	return qki_u2f(m);
}

qopt_status qk_find_nonfinite(qk_ctx *ctx, int dtype, const void *x, size_t n,
		      size_t *at, float *amax)
{
	struct qki_finite a = { .dtype = dtype, .x = x };
	unsigned parts, i;
	size_t first = n;
	uint32_t m = 0;

	if (!at)
		return QK_EINVAL;
	*at = n;
	if (amax)
		*amax = -1.0f;
	if (!qki_is_real(dtype))
		return QK_EDTYPE;
	if (!n) {
		if (amax)
			*amax = 0.0f;
		return 0;
	}
	if (!x)
		return QK_EINVAL;
	qki_parallel(ctx, n, n * qki_dtype_size(dtype), qki_finite_range, &a,
		     &parts);
	for (i = 0; i < parts; i++) {
		first = a.first[i] < first ? a.first[i] : first;
		m = a.max[i] > m ? a.max[i] : m;
	}
	*at = first;
	if (amax && first == n)
		*amax = qki_bits_value(dtype, m);
	qki_account(ctx, 0, n * qki_dtype_size(dtype));
	return 0;
}

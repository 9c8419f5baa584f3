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
 * the first element whatever the split.
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

/* 1 when one of QKI_VEC elements at x[i] is special. */
QKI_HOT static int qki_step32(const qki_f32u *restrict x)
{
	uint32_t any = 0;
	size_t k;

	for (k = 0; k < QKI_VEC; k++)
		any |= (qki_f2u(x[k]) & 0x7f800000u) == 0x7f800000u;
	return any != 0;
}

QKI_HOT static int qki_step16(const qki_u16u *restrict h, uint16_t mask)
{
	uint16_t any = 0;
	size_t k;

	for (k = 0; k < QKI_VEC; k++)
		any |= (uint16_t)(h[k] & mask) == mask;
	return any != 0;
}

static int qki_step(int dtype, const void *x, size_t i)
{
	if (dtype == QK_T_FLOAT)
		return qki_step32((const qki_f32u *)x + i);
	return qki_step16((const qki_u16u *)x + i,
			  dtype == QK_T_FLOAT16 ? 0x7c00u : 0x7f80u);
}

struct qki_finite {
	int dtype;
	const void *x;
	size_t first[QKI_MAX_THREADS];	/* per part: its first hit, or SIZE_MAX */
};

static int qki_finite_range(void *arg, unsigned part, size_t lo, size_t hi)
{
	struct qki_finite *a = arg;
	size_t i = lo;

	a->first[part] = SIZE_MAX;
	while (i + QKI_VEC <= hi && !qki_step(a->dtype, a->x, i))
		i += QKI_VEC;
	for (; i < hi; i++)
		if (qki_special_at(a->dtype, a->x, i)) {
			a->first[part] = i;
			break;
		}
	return 0;
}

int qk_find_nonfinite(qk_ctx *ctx, int dtype, const void *x, size_t n,
		      size_t *at)
{
	struct qki_finite a = { .dtype = dtype, .x = x };
	unsigned parts, i;
	size_t first = n;

	if (!at)
		return QK_EINVAL;
	*at = n;
	if (!qki_is_real(dtype))
		return QK_EDTYPE;
	if (!n)
		return 0;
	if (!x)
		return QK_EINVAL;
	qki_parallel(ctx, n, n * qki_dtype_size(dtype), qki_finite_range, &a,
		     &parts);
	for (i = 0; i < parts; i++)
		first = a.first[i] < first ? a.first[i] : first;
	*at = first;
	qki_account(ctx, 0, n * qki_dtype_size(dtype));
	return 0;
}

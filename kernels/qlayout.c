/*
 * kernels/qlayout.c - how a quantizer's scales map onto [outer, axis,
 * inner] (qk_qlayout): checked once per call, then walked in runs over
 * which the scale is one value or steps along the axis. Shared by the
 * FP8 and INT8 kernels, which differ only in the element code.
 */
#include "internal.h"

static size_t qki_min(size_t a, size_t b)
{
	return a < b ? a : b;
}

int qki_scale_walk_init(struct qki_scale_walk *w, const qk_qlayout *lay,
			size_t *n, size_t *nscales)
{
	if (!lay || qki_mul3(lay->outer, lay->axis, lay->inner, n) ||
	    *n > SIZE_MAX / 4)
		return QK_EINVAL;
	w->nb = 1;
	w->mode = lay->mode;
	w->axis = lay->axis;
	w->inner = lay->inner;
	w->block = lay->block;
	switch (lay->mode) {
	case QK_SCALE_TENSOR:
		*nscales = 1;
		return 0;
	case QK_SCALE_AXIS:
		*nscales = lay->axis;
		return 0;
	case QK_SCALE_BLOCK:
		if (!lay->block)
			return QK_EINVAL;
		w->nb = lay->axis / lay->block + (lay->axis % lay->block != 0);
		return qki_mul3(lay->outer, w->nb, lay->inner, nscales) ?
			       QK_EINVAL : 0;
	}
	return QK_EINVAL;
}

size_t qki_scale_run(const struct qki_scale_walk *w, size_t i, size_t hi,
		     float *s, const qki_f32u **sv)
{
	size_t len = hi - i, row, t, a, o;

	*sv = NULL;
	if (w->mode == QK_SCALE_TENSOR) {
		*s = w->scales[0];
		return len;
	}
	row = i / w->inner;
	t = i % w->inner;
	a = row % w->axis;
	o = row / w->axis;
	if (w->inner == 1 && w->mode == QK_SCALE_AXIS) {
		*sv = w->scales + a;
		return qki_min(len, w->axis - a);
	}
	if (w->inner == 1) {
		*s = w->scales[o * w->nb + a / w->block];
		len = qki_min(len, w->block - a % w->block);
		return qki_min(len, w->axis - a);
	}
	len = qki_min(len, w->inner - t);
	if (w->mode == QK_SCALE_AXIS)
		*s = w->scales[a];
	else
		*sv = w->scales + (o * w->nb + a / w->block) * w->inner + t;
	return len;
}

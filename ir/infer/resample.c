/*
 * ir/infer/resample.c - Pad (the pads attribute before opset 11, the
 * pads and axes inputs after), Resize (scales or sizes, axes,
 * keep_aspect_ratio_policy) and Upsample: the rank is kept, a dim is
 * known when the arguments that size it are constants.
 */
#include <float.h>
#include <math.h>
#include <string.h>
#include "infer/infer.h"

/* in + pb + pe, where pads may be negative (Pad crops with them): -1
 * when in is unknown, the sum overflows or is negative. */
static int64_t padded(int64_t in, int64_t pb, int64_t pe)
{
	int64_t r;

	if (in < 0 || __builtin_add_overflow(in, pb, &r) ||
	    __builtin_add_overflow(r, pe, &r) || r < 0)
		return -1;
	return r;
}

/* Spreads v (begins then ends for the na axes ax) over pads[0..2r-1],
 * zero elsewhere: 0 when an axis is out of range or repeated. */
static int spread_pads(const int64_t *v, const int64_t *ax, size_t na, int r,
		       int64_t *pads)
{
	char seen[IRI_MAXRANK] = { 0 };

	memset(pads, 0, 2 * r * sizeof(*pads));
	for (size_t k = 0; k < na; k++) {
		int a = iri_axis(ax[k], r);

		if (a < 0 || seen[a]++)
			return 0;
		pads[a] = v[k];
		pads[r + a] = v[na + k];
	}
	return 1;
}

/* Pad's amounts for rank r into pads (begins, then ends): 1 when
 * constant and well formed. Opset 11 moved them from the attribute
 * (named paddings in opset 1) to input 1; opset 18 added input 3,
 * the axes they apply to. */
static int pad_amounts(struct iri_ctx *c, const qir_node *n, int r,
		       int64_t *pads)
{
	int64_t v[2 * IRI_MAXRANK], ax[IRI_MAXRANK];
	int64_t opset = iri_opset(n);
	size_t len, na = (size_t)r;
	int present;

	if (opset ? opset < 11 : n->ninputs < 2) {
		len = iri_attr_ints(n, "pads", v, 2 * IRI_MAXRANK, &present);
		if (!present && !qir_node_attr(n, "pads"))
			len = iri_attr_ints(n, "paddings", v, 2 * IRI_MAXRANK,
					    &present);
		if (!present || len != 2 * na)
			return 0;
		memcpy(pads, v, len * sizeof(*v));
		return 1;
	}
	if (!iri_const_ints(c, n, 1, v, 2 * IRI_MAXRANK, &len))
		return 0;
	if (n->ninputs > 3 && n->inputs[3]) {
		if (!iri_const_ints(c, n, 3, ax, IRI_MAXRANK, &na))
			return 0;
	} else {
		for (int k = 0; k < r; k++)
			ax[k] = k;
	}
	return len == 2 * na && spread_pads(v, ax, na, r, pads);
}

int iri_pad(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	    size_t nout)
{
	int64_t pads[2 * IRI_MAXRANK];
	iri_shape in;
	int r;

	(void)nout;
	iri_input(n, 0, &in);
	out[0].dtype = in.dtype;
	r = in.rank;
	if (r < 0)
		return 0;
	iri_rank_only(&out[0], r);
	if (!pad_amounts(c, n, r, pads))
		return 0;
	for (int k = 0; k < r; k++) {
		out[0].d[k] = padded(in.d[k], pads[k], pads[r + k]);
		/* an unknown dim padded by nothing is still that dim */
		if (in.d[k] < 0 && !pads[k] && !pads[r + k])
			out[0].p[k] = in.p[k];
	}
	return 0;
}

/* floor(in * s) in float, as the spec's reference and onnx compute
 * it: -1 when in is unknown or above 2^24 (not exact in a float, so
 * runtimes may round it differently), s not a positive finite number
 * or the product out of int64's range. */
static int64_t scaled(int64_t in, float s)
{
	float p;

	if (in < 0 || in > (1 << 24) || !(s > 0) || !isfinite(s))
		return -1;
	p = floorf((float)in * s);
	return p < 0x1p62f ? (int64_t)p : -1;
}

/* The operator's scales for rank r: input i (FLOAT), or Upsample-7's
 * scales attribute; 1 when constant with r entries. */
static int scale_list(const qir_node *n, size_t i, float *s, size_t cap,
		      size_t *len)
{
	qir_attr *a = qir_node_attr(n, "scales");

	if (qir_node_is(n, "Upsample") && a) {
		if (a->type != QIR_ATTR_FLOATS || a->n > cap)
			return 0;
		memcpy(s, a->floats, a->n * sizeof(*s));
		*len = a->n;
		return 1;
	}
	return iri_const_floats(n, i, s, cap, len);
}

/* Resize-10 and Upsample: every dim floor(in * scale). */
static void resize_scales_only(const qir_node *n, const iri_shape *in,
			       iri_shape *out)
{
	float s[IRI_MAXRANK];
	size_t len;

	if (!scale_list(n, 1, s, IRI_MAXRANK, &len) || (int)len != in->rank)
		return;
	for (int k = 0; k < in->rank; k++) {
		out->d[k] = scaled(in->d[k], s[k]);
		if (in->d[k] < 0 && s[k] == 1.0f)
			out->p[k] = in->p[k];
	}
}

/* An optional input that is there and not the empty tensor exporters
 * write in place of an omitted one (Resize-11's scales beside sizes). */
static int given(const qir_node *n, size_t i)
{
	iri_shape s;

	if (i >= n->ninputs || !n->inputs[i])
		return 0;
	iri_input(n, i, &s);
	return !(s.rank == 1 && s.d[0] == 0);
}

/* Resize's axes (opset 18 attribute, else every dim) into ax: their
 * count, or -1 when out of range or repeated. */
static int resize_axes(const qir_node *n, int r, int *ax)
{
	int64_t v[IRI_MAXRANK];
	char seen[IRI_MAXRANK] = { 0 };
	size_t len;
	int present;

	if (!qir_node_attr(n, "axes")) {
		for (int k = 0; k < r; k++)
			ax[k] = k;
		return r;
	}
	len = iri_attr_ints(n, "axes", v, IRI_MAXRANK, &present);
	if (!present)
		return -1;
	for (size_t k = 0; k < len; k++) {
		ax[k] = iri_axis(v[k], r);
		if (ax[k] < 0 || seen[ax[k]]++)
			return -1;
	}
	return (int)len;
}

/* keep_aspect_ratio_policy not_larger (larger = 0) / not_smaller: one
 * scale for every axis, the min (max) of sizes[i] / in[axis], then
 * each axis round(scale * in), in float as the spec's reference. 0
 * when a dim is unknown or not exact in a float. */
static int keep_aspect(const iri_shape *in, const int *ax, int na,
		       int64_t *sz, int larger)
{
	float scale = larger ? 0.0f : FLT_MAX;

	for (int k = 0; k < na; k++) {
		int64_t d = in->d[ax[k]];
		float s;

		if (d < 1 || d > (1 << 24) || sz[k] > (1 << 24))
			return 0;
		s = (float)sz[k] / (float)d;
		scale = larger ? fmaxf(scale, s) : fminf(scale, s);
	}
	for (int k = 0; k < na; k++)
		sz[k] = (int64_t)roundf(scale * (float)in->d[ax[k]]);
	return 1;
}

/* Resize-11+ with constant sizes on the axes ax. */
static void resize_sizes(struct iri_ctx *c, const qir_node *n,
			 const iri_shape *in, const int *ax, int na,
			 iri_shape *out)
{
	const char *pol = qir_node_attr_string(n, "keep_aspect_ratio_policy",
					       "stretch");
	int64_t sz[IRI_MAXRANK];
	size_t len;

	if (!iri_const_ints(c, n, 3, sz, IRI_MAXRANK, &len) ||
	    (int)len != na)
		return;
	for (int k = 0; k < na; k++)
		if (sz[k] < 1)
			return;
	if (!strcmp(pol, "not_larger") || !strcmp(pol, "not_smaller")) {
		if (!keep_aspect(in, ax, na, sz,
				 !strcmp(pol, "not_smaller")))
			return;
	} else if (strcmp(pol, "stretch")) {
		return;
	}
	for (int k = 0; k < na; k++) {
		out->d[ax[k]] = sz[k];
		out->p[ax[k]] = NULL;
	}
}

/* Resize-11+ with constant scales on the axes ax. tf_crop_and_resize
 * scales the roi's extent, not the input's: left unknown. */
static void resize_scales(const qir_node *n, const iri_shape *in,
			  const int *ax, int na, iri_shape *out)
{
	const char *ctm = qir_node_attr_string(n,
					       "coordinate_transformation_mode",
					       "half_pixel");
	float s[IRI_MAXRANK];
	size_t len;

	if (!strcmp(ctm, "tf_crop_and_resize") ||
	    !iri_const_floats(n, 2, s, IRI_MAXRANK, &len) || (int)len != na)
		return;
	for (int k = 0; k < na; k++) {
		int a = ax[k];

		out->d[a] = scaled(in->d[a], s[k]);
		out->p[a] = in->d[a] < 0 && s[k] == 1.0f ? in->p[a] : NULL;
	}
}

/* Resize (Upsample: its opset-9 form, or the scales attribute of
 * opset 7). Before opset 11 scales is input 1; then roi, scales and
 * sizes are inputs 1..3, exactly one of scales and sizes given. Dims
 * off the axes keep the input's. */
int iri_resize(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	       size_t nout)
{
	int64_t opset = iri_opset(n);
	int ax[IRI_MAXRANK], na;
	iri_shape in;

	(void)nout;
	iri_input(n, 0, &in);
	out[0].dtype = in.dtype;
	if (in.rank < 0)
		return 0;
	iri_rank_only(&out[0], in.rank);
	if (qir_node_is(n, "Upsample") ||
	    (opset ? opset < 11 : n->ninputs == 2)) {
		resize_scales_only(n, &in, &out[0]);
		return 0;
	}
	na = resize_axes(n, in.rank, ax);
	if (na < 0 || given(n, 2) == given(n, 3))
		return 0;
	iri_copy_shape(&out[0], &in);
	for (int k = 0; k < na; k++) {
		out[0].d[ax[k]] = -1;
		out[0].p[ax[k]] = NULL;
	}
	if (given(n, 3))
		resize_sizes(c, n, &in, ax, na, &out[0]);
	else
		resize_scales(n, &in, ax, na, &out[0]);
	return 0;
}

/* GridSample: X [N, C, D_1 .. D_r] sampled at grid [N, O_1 .. O_r, r]
 * gives [N, C, O_1 .. O_r]. */
int iri_grid_sample(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		    size_t nout)
{
	iri_shape x, g;

	(void)c;
	(void)nout;
	iri_input(n, 0, &x);
	iri_input(n, 1, &g);
	out[0].dtype = x.dtype;
	if (x.rank < 3 || g.rank != x.rank ||
	    (g.d[g.rank - 1] >= 0 && g.d[g.rank - 1] != x.rank - 2))
		return 0;
	iri_rank_only(&out[0], x.rank);
	out[0].d[0] = x.d[0] >= 0 ? x.d[0] : g.d[0];
	out[0].p[0] = out[0].d[0] >= 0 ? NULL : x.p[0];
	out[0].d[1] = x.d[1];
	out[0].p[1] = x.p[1];
	for (int k = 2; k < x.rank; k++) {
		out[0].d[k] = g.d[k - 1];
		out[0].p[k] = g.p[k - 1];
	}
	return 0;
}

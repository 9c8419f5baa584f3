/*
 * ir/infer/conv.c - Conv, ConvInteger, ConvTranspose, the pools
 * (AveragePool, MaxPool with its indices, LpPool) and the global
 * pools: batch, channels,
 * then one spatial dim per kernel dim from pads, strides, dilations
 * and auto_pad, as the ONNX operator definitions give them.
 */
#include <string.h>
#include "infer/infer.h"

static int64_t out_dim(const qir_node *n, int64_t in, int64_t k, int64_t s,
		       int64_t dil, int64_t pb, int64_t pe, int ceil_mode)
{
	const char *ap = qir_node_attr_string(n, "auto_pad", "NOTSET");
	int64_t ek, num;

	if (in < 0 || k < 1 || s <= 0 || dil < 1 || pb < 0 || pe < 0)
		return -1;
	ek = iri_add(iri_mul(k - 1, dil), 1);
	if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER"))
		return in / s + (in % s != 0);
	if (!strcmp(ap, "VALID"))
		pb = pe = 0;
	num = iri_add(iri_add(in, pb), pe);
	if (num < 0 || ek < 0 || num < ek)
		return -1;
	num -= ek;
	if (ceil_mode) {
		int64_t o = num / s + (num % s != 0) + 1;

		/* the last window must start inside the input or its
		 * left padding */
		if (iri_mul(o - 1, s) >= iri_add(in, pb) && iri_add(in, pb) >= 0)
			o--;
		return o;
	}
	return num / s + 1;
}

/* Spatial dims of in (from dim 2) into out, kernel from ks. */
static void spatial(const qir_node *n, const iri_shape *in, const int64_t *ks,
		    int nk, iri_shape *out)
{
	int64_t st[IRI_MAXRANK], dl[IRI_MAXRANK], pd[2 * IRI_MAXRANK];
	size_t ls, ld, lp;
	int present, ceil_mode = qir_node_attr_int(n, "ceil_mode", 0) != 0;

	ls = iri_attr_ints(n, "strides", st, IRI_MAXRANK, &present);
	ld = iri_attr_ints(n, "dilations", dl, IRI_MAXRANK, &present);
	lp = iri_attr_ints(n, "pads", pd, 2 * IRI_MAXRANK, &present);
	for (int k = 0; k < nk; k++) {
		out->d[2 + k] = out_dim(n, in->d[2 + k], ks[k],
					(int)ls == nk ? st[k] : 1,
					(int)ld == nk ? dl[k] : 1,
					(int)lp == 2 * nk ? pd[k] : 0,
					(int)lp == 2 * nk ? pd[nk + k] : 0,
					ceil_mode);
		out->p[2 + k] = NULL;
	}
}

int iri_conv(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	     size_t nout)
{
	int64_t ks[IRI_MAXRANK];
	iri_shape in, w;
	size_t lk;
	int present;

	(void)c;
	(void)nout;
	iri_input(n, 0, &in);
	iri_input(n, 1, &w);
	out[0].dtype = qir_node_is(n, "ConvInteger") ? QIR_INT32 : in.dtype;
	if (in.rank < 3 || w.rank != in.rank)
		return 0;
	iri_rank_only(&out[0], in.rank);
	out[0].d[0] = in.d[0];
	out[0].p[0] = in.p[0];
	out[0].d[1] = w.d[0];
	lk = iri_attr_ints(n, "kernel_shape", ks, IRI_MAXRANK, &present);
	if (!present) {
		lk = (size_t)in.rank - 2;
		memcpy(ks, w.d + 2, lk * sizeof(*ks));
	}
	if ((int)lk != in.rank - 2)
		return 0;
	spatial(n, &in, ks, (int)lk, &out[0]);
	return 0;
}

int iri_pool(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	     size_t nout)
{
	int64_t ks[IRI_MAXRANK];
	iri_shape in;
	size_t lk;
	int present;

	(void)c;
	iri_input(n, 0, &in);
	out[0].dtype = in.dtype;
	if (nout > 1)
		out[1].dtype = QIR_INT64;
	lk = iri_attr_ints(n, "kernel_shape", ks, IRI_MAXRANK, &present);
	if (in.rank < 3 || (int)lk != in.rank - 2)
		return 0;
	iri_rank_only(&out[0], in.rank);
	for (int k = 0; k < 2; k++) {
		out[0].d[k] = in.d[k];
		out[0].p[k] = in.p[k];
	}
	spatial(n, &in, ks, (int)lk, &out[0]);
	if (nout > 1)
		iri_copy_shape(&out[1], &out[0]);
	return 0;
}

int iri_global_pool(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		    size_t nout)
{
	iri_shape in;

	(void)c;
	(void)nout;
	iri_input(n, 0, &in);
	out[0].dtype = in.dtype;
	if (in.rank < 2)
		return 0;
	iri_copy_shape(&out[0], &in);
	for (int k = 2; k < in.rank; k++) {
		out[0].d[k] = 1;
		out[0].p[k] = NULL;
	}
	return 0;
}

/* One ConvTranspose spatial dim: stride * (in - 1) + output_padding +
 * ((k - 1) * dilation + 1) - pads; SAME_* gives in * stride, but only
 * where the spec's formula and onnx's own inference agree on it (no
 * output_padding, effective kernel >= stride): elsewhere they differ,
 * so the dim is left unknown rather than guessed. */
static int64_t tr_dim(const char *ap, int64_t in, int64_t k, int64_t s,
		      int64_t dil, int64_t op, int64_t pb, int64_t pe)
{
	int64_t ek, sum, pad;

	if (in < 1 || k < 1 || s < 1 || dil < 1 || op < 0 || pb < 0 || pe < 0)
		return -1;
	ek = iri_add(iri_mul(k - 1, dil), 1);
	if (ek < 0)
		return -1;
	if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER"))
		return op == 0 && ek >= s ? iri_mul(in, s) : -1;
	sum = iri_add(iri_add(iri_mul(s, in - 1), op), ek);
	pad = iri_add(pb, pe);
	return sum < 0 || pad < 0 || pad > sum ? -1 : sum - pad;
}

/* An INTS attribute of nk entries into v (2 * IRI_MAXRANK of room),
 * or def everywhere when absent; 0 when present with another length
 * or type (the dims are then unknown, not defaulted). */
static int nk_ints(const qir_node *n, const char *name, int64_t *v, int nk,
		   int64_t def)
{
	size_t len;
	int present;

	if (!qir_node_attr(n, name)) {
		for (int k = 0; k < nk; k++)
			v[k] = def;
		return 1;
	}
	len = iri_attr_ints(n, name, v, 2 * IRI_MAXRANK, &present);
	return present && (int)len == nk;
}

/* Spatial dims of a ConvTranspose (kernel ks, nk of them) into out. */
static void tr_spatial(const qir_node *n, const iri_shape *in,
		       const int64_t *ks, int nk, iri_shape *out)
{
	int64_t st[2 * IRI_MAXRANK], dl[2 * IRI_MAXRANK], op[2 * IRI_MAXRANK];
	int64_t pd[2 * IRI_MAXRANK];
	const char *ap = qir_node_attr_string(n, "auto_pad", "NOTSET");
	int same = !strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER");

	/* the spec forbids pads beside auto_pad; an unknown auto_pad
	 * has no formula */
	if ((same && qir_node_attr(n, "pads")) || (!same && strcmp(ap, "NOTSET") &&
				  strcmp(ap, "VALID")))
		return;
	if (!nk_ints(n, "strides", st, nk, 1) ||
	    !nk_ints(n, "dilations", dl, nk, 1) ||
	    !nk_ints(n, "output_padding", op, nk, 0) ||
	    !nk_ints(n, "pads", pd, 2 * nk, 0))
		return;
	if (!strcmp(ap, "VALID"))
		memset(pd, 0, 2 * nk * sizeof(*pd));
	for (int k = 0; k < nk; k++)
		out->d[2 + k] = tr_dim(ap, in->d[2 + k], ks[k], st[k], dl[k],
				       op[k], pd[k], pd[nk + k]);
}

/* ConvTranspose: batch from X, W.shape[1] * group channels, then the
 * output_shape attribute's spatial dims when given, else tr_spatial. */
int iri_conv_transpose(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		       size_t nout)
{
	int64_t ks[2 * IRI_MAXRANK], os[2 * IRI_MAXRANK];
	int64_t group = qir_node_attr_int(n, "group", 1);
	iri_shape in, w;
	int nk;

	(void)c;
	(void)nout;
	iri_input(n, 0, &in);
	iri_input(n, 1, &w);
	out[0].dtype = in.dtype;
	if (in.rank < 3 || w.rank != in.rank)
		return 0;
	nk = in.rank - 2;
	iri_rank_only(&out[0], in.rank);
	out[0].d[0] = in.d[0];
	out[0].p[0] = in.p[0];
	out[0].d[1] = group >= 1 ? iri_mul(w.d[1], group) : -1;
	if (group == 1)
		out[0].p[1] = w.p[1];
	if (qir_node_attr(n, "output_shape")) {
		if (nk_ints(n, "output_shape", os, nk, -1))
			for (int k = 0; k < nk; k++)
				out[0].d[2 + k] = os[k] >= 0 ? os[k] : -1;
		return 0;
	}
	if (!qir_node_attr(n, "kernel_shape"))
		memcpy(ks, w.d + 2, nk * sizeof(*ks));
	else if (!nk_ints(n, "kernel_shape", ks, nk, 1))
		return 0;
	tr_spatial(n, &in, ks, nk, &out[0]);
	return 0;
}

/* RoiAlign: X [N, C, H, W], rois [R, 4] give [R, C, output_height,
 * output_width] (both 1 unless set). */
int iri_roi_align(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		  size_t nout)
{
	int64_t oh = qir_node_attr_int(n, "output_height", 1);
	int64_t ow = qir_node_attr_int(n, "output_width", 1);
	iri_shape x, rois;

	(void)c;
	(void)nout;
	iri_input(n, 0, &x);
	iri_input(n, 1, &rois);
	out[0].dtype = x.dtype;
	if (x.rank != 4 || oh < 1 || ow < 1)
		return 0;
	iri_rank_only(&out[0], 4);
	if (rois.rank == 2) {
		out[0].d[0] = rois.d[0];
		out[0].p[0] = rois.p[0];
	}
	out[0].d[1] = x.d[1];
	out[0].p[1] = x.p[1];
	out[0].d[2] = oh;
	out[0].d[3] = ow;
	return 0;
}

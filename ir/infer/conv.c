/*
 * ir/infer/conv.c - Conv, ConvInteger, the pools (AveragePool, MaxPool
 * with its indices, LpPool) and the global pools: batch, channels,
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

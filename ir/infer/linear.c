/*
 * ir/infer/linear.c - MatMul (numpy matmul: 1-D operands promoted and
 * dropped, batch dims broadcast) and Gemm (transA/transB).
 */
#include <string.h>
#include "infer/infer.h"

/* One broadcast batch dim (a model that cannot broadcast fails at run
 * time; the known side is kept). */
static void dim_pick(int64_t a, const char *pa, int64_t b, const char *pb,
		     int64_t *d, const char **p)
{
	*d = -1;
	*p = NULL;
	if (a == 1) {
		*d = b;
		*p = pb;
	} else if (b == 1 || a >= 0) {
		*d = a;
		*p = pa;
	} else if (b >= 0) {
		*d = b;
	} else if (pa && pb && !strcmp(pa, pb)) {
		*p = pa;
	}
}

int iri_matmul(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	       size_t nout)
{
	iri_shape a, b;
	int ra, rb, r, bat;

	(void)c;
	(void)nout;
	iri_input(n, 0, &a);
	iri_input(n, 1, &b);
	out[0].dtype = qir_node_is(n, "MatMulInteger") ? QIR_INT32 : a.dtype;
	if (a.rank < 1 || b.rank < 1)
		return 0;
	ra = a.rank < 2 ? 2 : a.rank;
	rb = b.rank < 2 ? 2 : b.rank;
	bat = (ra > rb ? ra : rb) - 2;
	r = bat + (a.rank > 1) + (b.rank > 1);
	if (r > IRI_MAXRANK)
		return 0;
	for (int k = 0; k < bat; k++) {
		int ia = k - (bat - (ra - 2)), ib = k - (bat - (rb - 2));
		int64_t da = ia >= 0 ? a.d[ia] : 1, db = ib >= 0 ? b.d[ib] : 1;
		const char *pa = ia >= 0 ? a.p[ia] : NULL;
		const char *pb = ib >= 0 ? b.p[ib] : NULL;

		dim_pick(da, pa, db, pb, &out[0].d[k], &out[0].p[k]);
	}
	r = bat;
	if (a.rank > 1) {
		out[0].d[r] = a.d[a.rank - 2];
		out[0].p[r++] = a.p[a.rank - 2];
	}
	if (b.rank > 1) {
		out[0].d[r] = b.d[b.rank - 1];
		out[0].p[r++] = b.p[b.rank - 1];
	}
	out[0].rank = r;
	return 0;
}

int iri_gemm(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	     size_t nout)
{
	iri_shape a, b;
	int ta = qir_node_attr_int(n, "transA", 0) != 0;
	int tb = qir_node_attr_int(n, "transB", 0) != 0;

	(void)c;
	(void)nout;
	iri_input(n, 0, &a);
	iri_input(n, 1, &b);
	out[0].dtype = a.dtype;
	if (a.rank != 2 || b.rank != 2)
		return 0;
	iri_rank_only(&out[0], 2);
	out[0].d[0] = a.d[ta];
	out[0].p[0] = a.p[ta];
	out[0].d[1] = b.d[1 - tb];
	out[0].p[1] = b.p[1 - tb];
	return 0;
}

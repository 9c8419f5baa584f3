/*
 * ir/infer/slicing.c - operators that cut or join along an axis:
 * Concat, Split, Slice, Gather, GatherElements. On 1-D shape vectors
 * they also fold their values (Gather of a Shape, Concat of dims).
 */
#include <string.h>
#include "infer/infer.h"

static int fold_concat(struct iri_ctx *c, const qir_node *n)
{
	int64_t v[IRI_MAXFOLD];
	const char *names[IRI_MAXFOLD];
	size_t len = 0, l;

	for (size_t i = 0; i < n->ninputs; i++) {
		if (!iri_shape_ints_named(c, n, i, v + len, names + len,
					  IRI_MAXFOLD - len, &l))
			return 0;
		len += l;
	}
	return iri_fold_set_named(c, n->outputs[0], v, names, len);
}

int iri_concat(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	       size_t nout)
{
	iri_shape s;
	int axis = -1;

	(void)nout;
	iri_unknown(&out[0]);
	for (size_t i = 0; i < n->ninputs; i++) {
		iri_input(n, i, &s);
		if (!out[0].dtype)
			out[0].dtype = s.dtype;
		if (s.rank < 0) {
			out[0].rank = -1;
			break;
		}
		if (i == 0) {
			axis = iri_axis(qir_node_attr_int(n, "axis", 0), s.rank);
			if (axis < 0)
				break;
			iri_copy_shape(&out[0], &s);
			continue;
		}
		if (s.rank != out[0].rank) {
			out[0].rank = -1;
			break;
		}
		out[0].d[axis] = iri_add(out[0].d[axis], s.d[axis]);
		out[0].p[axis] = NULL;
		for (int k = 0; k < s.rank; k++)
			if (k != axis && out[0].d[k] < 0 && s.d[k] >= 0) {
				out[0].d[k] = s.d[k];
				out[0].p[k] = NULL;
			}
	}
	if (out[0].rank == 1 && n->noutputs)
		return fold_concat(c, n);
	return 0;
}

int iri_split(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	      size_t nout)
{
	int64_t sp[IRI_MAXRANK];
	iri_shape in;
	size_t len = 0;
	int axis, present, have;

	iri_input(n, 0, &in);
	for (size_t i = 0; i < nout; i++)
		out[i].dtype = in.dtype;
	if (in.rank < 0)
		return 0;
	axis = iri_axis(qir_node_attr_int(n, "axis", 0), in.rank);
	if (axis < 0)
		return 0;
	if (n->ninputs > 1 && n->inputs[1])
		have = iri_const_ints(c, n, 1, sp, IRI_MAXRANK, &len);
	else {
		len = iri_attr_ints(n, "split", sp, IRI_MAXRANK, &present);
		have = 1;
	}
	for (size_t i = 0; i < nout; i++) {
		iri_copy_shape(&out[i], &in);
		out[i].d[axis] = -1;
		out[i].p[axis] = NULL;
	}
	if (!have)
		return 0;
	if (len == nout) {
		for (size_t i = 0; i < nout; i++)
			out[i].d[axis] = sp[i];
	} else if (len == 0 && in.d[axis] >= 0 && nout) {
		/* equal parts; the last smaller (num_outputs, opset 18) */
		int64_t whole = in.d[axis], parts = (int64_t)nout;
		int64_t part = whole / parts + (whole % parts != 0);

		for (size_t i = 0; i < nout; i++) {
			int64_t used = iri_mul(part, (int64_t)i);
			int64_t left = used < 0 || used > whole ? 0 : whole - used;

			out[i].d[axis] = left < part ? left : part;
		}
	}
	return 0;
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Where a slice starts on a dim of size d >= 0 (its first element,
 * when it has one). ONNX clamps a start into [0, d] for a positive
 * step, into [0, d - 1] for a negative one; an end into [0, d] and
 * [-1, d - 1]. */
static int64_t slice_first(int64_t d, int64_t start, int64_t step)
{
	start = start < 0 ? start + d : start;
	return step > 0 ? clamp(start, 0, d) : clamp(start, 0, d - 1);
}

/* Elements of [start, end) by step on a dim of size d >= 0; -1 when
 * the runtimes disagree: ONNX Runtime reads an end of INT32_MAX or
 * INT64_MAX with a negative step as "past the front" (-1), where the
 * spec (and onnx) clamp it to d - 1. */
static int64_t slice_len(int64_t d, int64_t start, int64_t end, int64_t step)
{
	if (d == 0)
		return 0;	/* [0, d - 1] is empty: nothing to take */
	if (step < 0 && (end == INT64_MAX || end == INT32_MAX))
		return -1;
	start = slice_first(d, start, step);
	end = end < 0 ? end + d : end;
	if (step > 0) {
		end = clamp(end, 0, d);
		return end > start ? (end - start - 1) / step + 1 : 0;
	}
	end = clamp(end, -1, d - 1);
	if (step == INT64_MIN)	/* -step overflows; one element at most */
		return start > end ? 1 : 0;
	return start > end ? (start - end - 1) / -step + 1 : 0;
}

/* Per input axis: the first element taken and the step (1 and 0 on
 * the axes not sliced). */
struct slice_pick {
	int64_t first[IRI_MAXRANK], step[IRI_MAXRANK];
};

static int64_t slice_src(const void *arg, const iri_shape *in,
			 const iri_shape *out, const int64_t *idx)
{
	const struct slice_pick *p = arg;
	int64_t at[IRI_MAXRANK];

	(void)out;
	for (int k = 0; k < in->rank; k++) {
		/* INT64_MIN steps take one element: no product to form */
		at[k] = idx[k] ? p->first[k] + idx[k] * p->step[k] :
				 p->first[k];
		if (at[k] < 0 || at[k] >= in->d[k])
			return -1;
	}
	return iri_flat(in, at);
}

int iri_slice(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	      size_t nout)
{
	int64_t st[IRI_MAXRANK], en[IRI_MAXRANK], ax[IRI_MAXRANK],
		sp[IRI_MAXRANK];
	struct slice_pick pick;
	size_t ls, le, la, lp;
	iri_shape in;
	int present;

	(void)nout;
	iri_input(n, 0, &in);
	out[0].dtype = in.dtype;
	if (in.rank < 0)
		return 0;
	iri_copy_shape(&out[0], &in);
	if (n->ninputs == 1) {	/* opset < 10: attributes */
		ls = iri_attr_ints(n, "starts", st, IRI_MAXRANK, &present);
		le = iri_attr_ints(n, "ends", en, IRI_MAXRANK, &present);
		la = iri_attr_ints(n, "axes", ax, IRI_MAXRANK, &present);
		if (!present)
			la = 0;
		lp = 0;
	} else if (!iri_bound_ints(c, n, 1, st, IRI_MAXRANK, &ls) ||
		   !iri_bound_ints(c, n, 2, en, IRI_MAXRANK, &le) ||
		   (n->ninputs > 3 && n->inputs[3] &&
		    !iri_const_ints(c, n, 3, ax, IRI_MAXRANK, &la)) ||
		   (n->ninputs > 4 && n->inputs[4] &&
		    !iri_bound_ints(c, n, 4, sp, IRI_MAXRANK, &lp))) {
		/* unknown bounds: the sliced axes, when known, are of
		 * unknown size; the others keep theirs */
		if (n->ninputs > 3 && n->inputs[3] &&
		    iri_const_ints(c, n, 3, ax, IRI_MAXRANK, &la)) {
			for (size_t k = 0; k < la; k++) {
				int a = iri_axis(ax[k], in.rank);

				if (a < 0) {
					out[0].rank = -1;
					return 0;
				}
				out[0].d[a] = -1;
				out[0].p[a] = NULL;
			}
			return 0;
		}
		iri_rank_only(&out[0], in.rank);
		return 0;
	} else {
		if (n->ninputs <= 3 || !n->inputs[3])
			la = 0;
		if (n->ninputs <= 4 || !n->inputs[4])
			lp = 0;
	}
	if (le != ls || (la && la != ls) || (lp && lp != ls)) {
		out[0].rank = -1;
		return 0;
	}
	for (int k = 0; k < in.rank; k++) {
		pick.first[k] = 0;
		pick.step[k] = 1;
	}
	for (size_t k = 0; k < ls; k++) {
		int a = iri_axis(la ? ax[k] : (int64_t)k, in.rank);
		int64_t step = lp ? sp[k] : 1;

		if (a < 0 || step == 0) {
			out[0].rank = -1;
			return 0;
		}
		out[0].p[a] = NULL;
		out[0].d[a] = in.d[a] >= 0 ?
			      slice_len(in.d[a], st[k], en[k], step) : -1;
		/* an unknown dim folds nothing: its start is not needed */
		pick.first[a] = in.d[a] >= 0 ?
				slice_first(in.d[a], st[k], step) : 0;
		pick.step[a] = step;
	}
	return iri_fold_move(c, n, &in, &out[0], slice_src, &pick);
}

static int fold_gather(struct iri_ctx *c, const qir_node *n, int axis)
{
	int64_t data[IRI_MAXFOLD], idx[IRI_MAXFOLD], v[IRI_MAXFOLD];
	const char *dn[IRI_MAXFOLD], *names[IRI_MAXFOLD];
	size_t ld, li;

	if (axis != 0 ||
	    !iri_shape_ints_named(c, n, 0, data, dn, IRI_MAXFOLD, &ld) ||
	    !iri_const_ints(c, n, 1, idx, IRI_MAXFOLD, &li))
		return 0;
	for (size_t k = 0; k < li; k++) {
		int64_t i = idx[k] < 0 ? idx[k] + (int64_t)ld : idx[k];

		if (i < 0 || i >= (int64_t)ld)
			return 0;
		v[k] = data[i];
		names[k] = dn[i];
	}
	return iri_fold_set_named(c, n->outputs[0], v, names, li);
}

/* Gather: data dims before axis, the indices' dims, data dims after. */
int iri_gather(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	       size_t nout)
{
	iri_shape in, ix;
	int axis, r = 0;

	(void)nout;
	iri_input(n, 0, &in);
	iri_input(n, 1, &ix);
	out[0].dtype = in.dtype;
	if (in.rank < 0 || ix.rank < 0 || in.rank + ix.rank - 1 > IRI_MAXRANK)
		return 0;
	axis = iri_axis(qir_node_attr_int(n, "axis", 0), in.rank);
	if (axis < 0)
		return 0;
	for (int k = 0; k < axis; k++) {
		out[0].d[r] = in.d[k];
		out[0].p[r++] = in.p[k];
	}
	for (int k = 0; k < ix.rank; k++) {
		out[0].d[r] = ix.d[k];
		out[0].p[r++] = ix.p[k];
	}
	for (int k = axis + 1; k < in.rank; k++) {
		out[0].d[r] = in.d[k];
		out[0].p[r++] = in.p[k];
	}
	out[0].rank = r;
	if (in.rank == 1 && ix.rank <= 1 && n->noutputs)
		return fold_gather(c, n, axis);
	return 0;
}

/* GatherElements, GatherND-free forms: the indices' shape. */
int iri_gather_elements(struct iri_ctx *c, const qir_node *n, iri_shape *out,
			size_t nout)
{
	iri_shape ix;

	(void)c;
	(void)nout;
	iri_input(n, 1, &ix);
	out[0].dtype = iri_input_dtype(n, 0);
	iri_copy_shape(&out[0], &ix);
	return 0;
}

/* GatherND: indices [i_0 .. i_{q-2}, k] pick k-long index tuples into
 * data after its first batch_dims dims: out = indices' dims but the last,
 * then data's dims from batch_dims + k. k must be known. */
int iri_gather_nd(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		  size_t nout)
{
	int64_t b = qir_node_attr_int(n, "batch_dims", 0), k;
	iri_shape data, idx;
	int r;

	(void)c;
	(void)nout;
	iri_input(n, 0, &data);
	iri_input(n, 1, &idx);
	out[0].dtype = data.dtype;
	if (data.rank < 1 || idx.rank < 1 || b < 0)
		return 0;
	k = idx.d[idx.rank - 1];
	if (k < 1 || b >= idx.rank || b + k > data.rank)
		return 0;
	r = idx.rank - 1 + data.rank - (int)(b + k);
	if (r > IRI_MAXRANK)
		return 0;
	iri_rank_only(&out[0], r);
	for (int i = 0; i < idx.rank - 1; i++) {
		out[0].d[i] = idx.d[i];
		out[0].p[i] = idx.p[i];
	}
	for (int i = (int)(b + k); i < data.rank; i++) {
		out[0].d[idx.rank - 1 + i - (int)(b + k)] = data.d[i];
		out[0].p[idx.rank - 1 + i - (int)(b + k)] = data.p[i];
	}
	return 0;
}

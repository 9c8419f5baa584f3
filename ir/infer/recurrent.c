/*
 * ir/infer/recurrent.c - RNN, GRU and LSTM: Y holds every step's hidden
 * state per direction, Y_h (and LSTM's Y_c) the last one. With layout 0
 * (the default) sequence comes first: Y [seq, dirs, batch, hidden],
 * Y_h [dirs, batch, hidden]; layout 1 (opset 14) puts batch first:
 * Y [batch, seq, dirs, hidden], Y_h [batch, dirs, hidden].
 */
#include <string.h>
#include "infer/infer.h"

/* Directions: from the attribute, else W's first dim; -1 unknown. */
static int64_t directions(const qir_node *n, const iri_shape *w)
{
	const char *dir = qir_node_attr_string(n, "direction", NULL);

	if (!dir)
		return w->rank == 3 && w->d[0] >= 0 ? w->d[0] : 1;
	if (!strcmp(dir, "bidirectional"))
		return 2;
	if (!strcmp(dir, "forward") || !strcmp(dir, "reverse"))
		return 1;
	return -1;
}

/* Hidden size: the attribute, else R's last dim ([dirs, k h, h]). */
static int64_t hidden(const qir_node *n)
{
	int64_t h = qir_node_attr_int(n, "hidden_size", -1);
	iri_shape r;

	if (h > 0)
		return h;
	iri_input(n, 2, &r);
	return r.rank == 3 ? r.d[2] : -1;
}

/* dims[] of a state or sequence output, from its parts (-1 unknown;
 * seq < -1: no sequence dim). */
static void fill(iri_shape *o, int layout, int64_t seq, const char *seqp,
		 int64_t dirs, int64_t batch, const char *batchp, int64_t h)
{
	int64_t d[4];
	const char *p[4] = { NULL, NULL, NULL, NULL };
	int r = 0;

	if (layout) {
		p[r] = batchp;
		d[r++] = batch;
	}
	if (seq >= -1) {
		p[r] = seqp;
		d[r++] = seq;
	}
	d[r++] = dirs;
	if (!layout) {
		p[r] = batchp;
		d[r++] = batch;
	}
	d[r++] = h;
	iri_rank_only(o, r);
	for (int k = 0; k < r; k++) {
		o->d[k] = d[k];
		o->p[k] = d[k] < 0 ? p[k] : NULL;
	}
}

int iri_recurrent(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		  size_t nout)
{
	int64_t layout = qir_node_attr_int(n, "layout", 0), dirs, h;
	iri_shape x, w;
	int s, b;

	(void)c;
	iri_input(n, 0, &x);
	iri_input(n, 1, &w);
	for (size_t i = 0; i < nout; i++)
		out[i].dtype = x.dtype;
	if (x.rank != 3 || (layout != 0 && layout != 1))
		return 0;
	dirs = directions(n, &w);
	h = hidden(n);
	s = layout ? 1 : 0;	/* where X keeps the sequence */
	b = layout ? 0 : 1;	/* and the batch */
	fill(&out[0], (int)layout, x.d[s], x.p[s], dirs, x.d[b], x.p[b], h);
	for (size_t i = 1; i < nout; i++)
		fill(&out[i], (int)layout, -2, NULL, dirs, x.d[b], x.p[b], h);
	return 0;
}

/*
 * passes/fp8/weight_match.c - what the weight rewrites (weights.c,
 * fake.c, rotate.c, pretranspose.c) share: the layout of a Q/DQ's
 * scales over a weight, its zero point, a Transpose's perm, where new
 * weight bytes go (spill policy), and the one walk over the weight DQs.
 * It calls none of them (fp8.h: the layering).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp8.h"

#define FP8_SPILL_MIN (64u << 10)

struct ps_results fp8_results(struct fp8_cfg *cfg)
{
	struct ps_results r = { cfg->ctx, cfg->m, FP8_SPILL_MIN,
				"FP8 weights", &cfg->spill_failed };

	return r;
}

int fp8_zero_point_is_zero(qir_node *q)
{
	qir_tensor *t;
	const uint8_t *p;
	uint64_t i;

	if (q->ninputs < 3 || !q->inputs[2])
		return 1;
	t = qir_value_const(q->inputs[2]);
	if (!t)
		return 0;
	p = t->nbytes ? qir_tensor_data(t, NULL) : NULL;
	if (t->nbytes && !p)
		return 0;
	/* +0 only: -0 (0x80) would still dequantize to 0, but a zero point
	 * other than 0x00 is not what the exporters write. */
	for (i = 0; i < t->nbytes; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Layout of the scales over the weight, returning the per-axis axis
 * (0 for a per-tensor scale); -1 with why when unusable. */
int fp8_scale_layout(qir_node *q, const qir_tensor *w, uint64_t nscales,
			qk_qlayout *lay, const char **why)
{
	int64_t axis;
	int i;

	memset(lay, 0, sizeof(*lay));
	lay->outer = 1;
	lay->axis = (size_t)qir_tensor_numel(w);
	lay->inner = 1;
	if (nscales == 1) {
		lay->mode = QK_SCALE_TENSOR;
		return 0;
	}
	axis = qir_node_attr_int(q, "axis", 1);
	if (axis < 0)
		axis += w->rank;
	if (axis < 0 || axis >= w->rank || w->dims[axis] != (int64_t)nscales) {
		*why = "per-axis scale does not match the weight's axis";
		return -1;
	}
	lay->mode = QK_SCALE_AXIS;
	lay->outer = lay->inner = 1;
	for (i = 0; i < w->rank; i++) {
		if (i < axis)
			lay->outer *= (size_t)w->dims[i];
		else if (i > axis)
			lay->inner *= (size_t)w->dims[i];
	}
	lay->axis = (size_t)w->dims[axis];
	return (int)axis;
}

int fp8_transpose_perm(const qir_node *tr, int rank, int64_t *perm)
{
	const qir_attr *a = qir_node_attr(tr, "perm");
	int i, j;

	if (!a) {
		for (i = 0; i < rank; i++)
			perm[i] = rank - 1 - i;
		return 0;
	}
	if (a->type != QIR_ATTR_INTS || (int)a->n != rank)
		return -1;
	for (i = 0; i < rank; i++) {
		perm[i] = a->ints[i] < 0 ? a->ints[i] + rank : a->ints[i];
		if (perm[i] < 0 || perm[i] >= rank)
			return -1;
		for (j = 0; j < i; j++)
			if (perm[j] == perm[i])
				return -1;
	}
	return 0;
}

/* Tells the kernel to read the next weight's bytes while this one is
 * quantized. */
static void read_ahead(qir_node *dq)
{
	qir_node *q = dq->inputs[0] ? dq->inputs[0]->producer : NULL;
	qir_tensor *t = fp8_is_q(q) ? qir_value_const(q->inputs[0]) : NULL;

	if (t)
		(void)qir_tensor_advise(t, QIR_ADVISE_WILLNEED, NULL);
}

int fp8_each_weight_dq(struct fp8_cfg *cfg, fp8_dq_visit visit,
			  void *arg, const char *progress, int *changed)
{
	qir_node **dqs;
	size_t i, count;
	qir_error err = { 0 };
	int rc = 0;

	if (qir_graph_nodes(cfg->m->graph, "", "DequantizeLinear", 1, &dqs,
			    &count, &err))
		return fp8_fail(cfg, NULL, &err);
	for (i = 0; i < count && rc >= 0; i++) {
		if (!fp8_is_dq(dqs[i]))
			continue;
		if (i + 1 < count && fp8_is_dq(dqs[i + 1]))
			read_ahead(dqs[i + 1]);
		/* dqs[i] may be gone when visit returns */
		if ((rc = visit(cfg, dqs[i], arg)) > 0)
			*changed = 1;
		if (progress)
			qopt_progress(cfg->ctx, i + 1, count, progress);
	}
	free(dqs);
	return rc < 0 ? -1 : 0;
}

/*
 * passes/fp8/attn.c - finding an attention block around a Softmax:
 * BMM1 = MatMul -> any mix of Mul|Div by a one-element value, Add mask,
 * Where mask (either value branch) and Cast -> Softmax -> BMM2 = MatMul
 * (Softmax output as its first input), with Reshape, Transpose, Cast,
 * Identity, Squeeze, Unsqueeze allowed on the way; and its head size.
 * One finder for the rewrites and the report, so they judge the same
 * blocks.
 */
#include <stdlib.h>

#include "fp8.h"

int fp8_attn_is_layout(const qir_node *n)
{
	static const char *const ops[] = { "Reshape", "Transpose", "Cast",
		"Identity", "Squeeze", "Unsqueeze", NULL };
	int i;

	for (i = 0; ops[i]; i++)
		if (fp8_is_op(n, ops[i]))
			return n->ninputs >= 1 && n->inputs[0];
	return 0;
}

static qir_node *back_to_bmm1(qir_value *v, int depth)
{
	qir_node *p = v ? v->producer : NULL;
	qir_node *r;

	if (!p || depth <= 0)
		return NULL;
	if (fp8_is_op(p, "MatMul"))
		return p;
	if (fp8_attn_is_layout(p))
		return back_to_bmm1(p->inputs[0], depth - 1);
	/* The scale: a constant, or one computed from shapes (torch's
	 * scores / Pow(Cast(Shape(k)[-1]), 0.5)). */
	if ((fp8_is_op(p, "Mul") || fp8_is_op(p, "Div")) &&
	    p->ninputs == 2) {
		if (fp8_one_element(p->inputs[1]))
			return back_to_bmm1(p->inputs[0], depth - 1);
		if (fp8_is_op(p, "Mul") && fp8_one_element(p->inputs[0]))
			return back_to_bmm1(p->inputs[1], depth - 1);
		return NULL;
	}
	if (fp8_is_op(p, "Add") && p->ninputs == 2) {
		r = back_to_bmm1(p->inputs[0], depth - 1);
		return r ? r : back_to_bmm1(p->inputs[1], depth - 1);
	}
	/* Where(mask, scores, fill) or Where(mask, fill, scores): the
	 * condition is the mask, either value branch the scores. */
	if (fp8_is_op(p, "Where") && p->ninputs == 3) {
		r = back_to_bmm1(p->inputs[1], depth - 1);
		return r ? r : back_to_bmm1(p->inputs[2], depth - 1);
	}
	return NULL;
}

static qir_node *forward_to_bmm2(qir_value *v, int depth)
{
	size_t i;

	if (depth <= 0)
		return NULL;
	for (i = 0; i < v->nuses; i++)
		if (fp8_is_op(v->uses[i].node, "MatMul") &&
		    v->uses[i].index == 0)
			return v->uses[i].node;
	for (i = 0; i < v->nuses; i++) {
		qir_node *u = v->uses[i].node;

		if ((fp8_is_q(u) || fp8_is_dq(u) || fp8_attn_is_layout(u)) &&
		    u->noutputs >= 1 && u->outputs[0])
			return forward_to_bmm2(u->outputs[0], depth - 1);
	}
	return NULL;
}

qir_node *fp8_attn_bmm1(qir_node *softmax)
{
	return softmax->ninputs ? back_to_bmm1(softmax->inputs[0],
					       FP8_MAX_HOPS) : NULL;
}

qir_node *fp8_attn_bmm2(qir_node *softmax)
{
	return softmax->noutputs && softmax->outputs[0] ?
		forward_to_bmm2(softmax->outputs[0], FP8_MAX_HOPS) : NULL;
}

int64_t fp8_attn_head_size(const qir_node *bmm1)
{
	qir_value *q = bmm1->inputs[0];

	if (!q || q->rank < 1)
		return -1;
	return q->dims[q->rank - 1].value;
}

int fp8_head_fusible(int64_t head)
{
	return head >= FP8_HEAD_MIN && head <= FP8_HEAD_MAX;
}

static int fp8_qdq(const qir_node *n)
{
	int t;

	if (fp8_custom_kind(n) != FP8_NOT_CUSTOM)
		return 1;
	if (fp8_is_q(n))
		return fp8_q_fp8_type(n) != 0;
	if (!fp8_is_dq(n) || !n->ninputs || !n->inputs[0])
		return 0;
	t = qir_value_elem_type(n->inputs[0]);
	return t == QIR_FLOAT8E4M3FN || t == QIR_FLOAT8E5M2;
}

int fp8_survey(struct fp8_cfg *cfg, int *fp8, size_t *blocks)
{
	qir_node **nodes;
	size_t i, count;
	qir_error err = { 0 };

	*fp8 = 0;
	*blocks = 0;
	if (qir_graph_nodes(cfg->m->graph, NULL, NULL, 1, &nodes, &count,
			    &err))
		return fp8_fail(cfg, NULL, &err);
	for (i = 0; i < count; i++) {
		*fp8 |= fp8_qdq(nodes[i]);
		if (fp8_is_op(nodes[i], "Softmax") &&
		    fp8_attn_bmm1(nodes[i]) && fp8_attn_bmm2(nodes[i]))
			++*blocks;
	}
	free(nodes);
	return 0;
}

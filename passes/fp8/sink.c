/*
 * passes/fp8/sink.c - rewrite 3b: the layout ops between an
 * attention input's Q/DQ and its BMM go above the Q, so the BMM reads a
 * DQ (what TensorRT's fused FP8 attention needs):
 *
 *   x -> Q -> DQ -> Unsqueeze -> Expand -> Reshape -> Transpose -> BMM
 *   x -> Unsqueeze -> Expand -> Reshape -> Transpose -> Q -> DQ -> BMM
 *
 * (repeat_kv of grouped-query attention). A per-tensor Q/DQ is the same
 * function of each element wherever the element sits, and the layout
 * ops (Reshape, Transpose, Expand, Squeeze, Unsqueeze, Identity, Slice,
 * Gather of data, one output of Split, and a Concat of tensors whose
 * Q/DQ are alike: a KV cache) only move, repeat or drop elements:
 * DQ(Q(L(x))) = L(DQ(Q(x))) bit for bit. The path is rebuilt
 * for the BMM's input alone (new layout nodes reading x, a new Q and
 * DQ with the old ones' scales, zero points and attributes); every
 * other consumer of the old DQ or of a value on the old path keeps
 * reading what it read, and the old nodes go once nothing reads them
 * (a Shape of the old DQ reads x instead: the same shape). A per-axis
 * Q/DQ does not commute with a layout op (the axis moves or the
 * elements of a slice change scale): skipped with the reason. A scale
 * Mul between the last layout op and the BMM stays there for rewrite
 * 3's scale motion.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp8.h"

#define SINK_MAX 16	/* layout ops and Concats looked through */

static int is_layout(const qir_node *n)
{
	static const char *const ops[] = { "Reshape", "Transpose", "Expand",
		"Squeeze", "Unsqueeze", "Identity", "Slice", "Gather", "Split",
		NULL };
	int i;

	for (i = 0; ops[i]; i++)
		if (fp8_is_op(n, ops[i]))
			return n->ninputs >= 1 && n->inputs[0];
	return 0;
}

static int is_concat(const qir_node *n)
{
	size_t i;

	if (!fp8_is_op(n, "Concat") || !n->ninputs)
		return 0;
	for (i = 0; i < n->ninputs; i++)
		if (!n->inputs[i])
			return 0;
	return 1;
}

/* What a BMM input is computed from: layout ops and Concats (nodes[],
 * nearest the BMM first) over FP8 Q -> DQ leaves (dqs[]). */
struct path {
	qir_node *nodes[SINK_MAX];
	int n;
	qir_node *dqs[SINK_MAX];
	int ndq;
	qir_node *dq, *q;	/* the first leaf: its Q/DQ is copied */
	qir_value *target;	/* what the BMM (or its scale Mul) reads */
	qir_node *reader;	/* that node */
	int slot;		/* its input slot */
	char why[256];		/* why the leaves cannot move, or "" */
};

static int per_tensor(const qir_node *qdq)
{
	qir_tensor *s = qir_value_const(qdq->inputs[1]);

	if (s)
		return qir_tensor_numel(s) == 1;
	return fp8_one_element(qdq->inputs[1]);
}

static int same_value(qir_value *a, qir_value *b)
{
	double x, y;

	if (a == b)
		return 1;
	if (!a || !b)
		return 0;
	return !fp8_scalar(a, &x) && !fp8_scalar(b, &y) && x == y;
}

/* Two leaves of a Concat compute the same function of each element:
 * the same scales, FP8 type, zero point (0) and saturation. */
static int same_qdq(const struct path *p, qir_node *dq, qir_node *q)
{
	return same_value(p->q->inputs[1], q->inputs[1]) &&
	       same_value(p->dq->inputs[1], dq->inputs[1]) &&
	       fp8_q_fp8_type(p->q) == fp8_q_fp8_type(q) &&
	       fp8_zero_point_is_zero(p->q) && fp8_zero_point_is_zero(q) &&
	       fp8_zero_point_is_zero(p->dq) &&
	       fp8_zero_point_is_zero(dq) &&
	       qir_node_attr_int(p->q, "saturate", 1) ==
	       qir_node_attr_int(q, "saturate", 1);
}

/* A leaf: an FP8 Q -> DQ. 1 taken, 0 not a leaf, -1 not movable. */
static int leaf(struct path *p, qir_node *dq)
{
	qir_node *q = fp8_is_dq(dq) ? dq->inputs[0]->producer : NULL;
	char label[160];

	if (!q || !fp8_is_q(q) || !fp8_q_fp8_type(q) ||
	    p->ndq == SINK_MAX)
		return 0;
	if (!per_tensor(q) || !per_tensor(dq)) {
		snprintf(p->why, sizeof(p->why), "per-axis Q/DQ %s does not "
			 "commute with layout ops",
			 qir_node_label(dq, label, sizeof(label)));
		return -1;
	}
	if (!p->dq) {
		p->dq = dq;
		p->q = q;
	} else if (!same_qdq(p, dq, q)) {
		snprintf(p->why, sizeof(p->why), "Concat of tensors with "
			 "different Q/DQ (%s, %s)", p->dq->name,
			 qir_node_label(dq, label, sizeof(label)));
		return -1;
	}
	p->dqs[p->ndq++] = dq;
	return 1;
}

/* v from leaves through layout ops and Concats: 1, 0 (not this form)
 * or -1 (the form, but p->why says why it cannot move). */
static int walk(struct path *p, qir_value *v)
{
	qir_node *n = v ? v->producer : NULL;
	size_t i;
	int rc;

	if (!n)
		return 0;
	if (fp8_is_dq(n))
		return leaf(p, n);
	if ((!is_layout(n) && !is_concat(n)) || p->n == SINK_MAX)
		return 0;
	p->nodes[p->n++] = n;
	for (i = 0; i < (is_concat(n) ? n->ninputs : 1); i++)
		if ((rc = walk(p, n->inputs[i])) <= 0)
			return rc;
	return 1;
}

/* Walks back from input slot of bmm: 1 with *p filled when FP8 Q/DQ
 * reach it through layout ops, -1 when they do but cannot move (why),
 * else 0. */
static int find_path(qir_node *bmm, int slot, struct path *p)
{
	qir_node *reader = bmm, *n;
	qir_value *v = bmm->inputs[slot];
	int rc;

	memset(p, 0, sizeof(*p));
	/* A scale Mul right before the BMM: rewrite 3 moves it later. */
	n = v ? v->producer : NULL;
	if (fp8_is_op(n, "Mul") && n->ninputs == 2 && n->inputs[0] &&
	    n->inputs[1] && fp8_sole_user(n->outputs[0]) == bmm) {
		int k = fp8_one_element(n->inputs[1]) ? 0 :
			fp8_one_element(n->inputs[0]) ? 1 : -1;

		if (k >= 0) {
			reader = n;
			slot = k;
			v = n->inputs[k];
		}
	}
	p->reader = reader;
	p->slot = slot;
	p->target = v;
	n = v ? v->producer : NULL;
	if (!is_layout(n) && !is_concat(n))
		return 0;	/* a DQ at the BMM already, or not this form */
	rc = walk(p, v);
	return rc < 0 && p->why[0] ? -1 : rc > 0;
}

/* A copy of n reading ins[i] where ins[i] is set (else n's input):
 * the output that stands for n's output `from`. */
static qir_value *clone_node(struct fp8_cfg *cfg, qir_node *n,
			     qir_value **ins, qir_value *from)
{
	qir_node *c = qir_node_new(n->graph, n->op_type, n->domain, n->name);
	qir_value *out = NULL;
	qir_error err = { 0 };
	size_t i;

	if (!c)
		return NULL;
	for (i = 0; i < n->ninputs; i++)
		if (qir_node_add_input(c, ins[i] ? ins[i] : n->inputs[i]))
			return NULL;
	for (i = 0; i < n->nattrs; i++)
		if (qir_node_copy_attr(c, &n->attrs[i], &err)) {
			fp8_fail(cfg, n, &err);
			return NULL;
		}
	for (i = 0; i < n->noutputs; i++) {
		qir_value *o;

		if (!n->outputs[i])
			continue;	/* an absent optional output */
		o = qir_node_add_output(c, NULL, n->outputs[i]->name);
		if (!o)
			return NULL;
		if (n->outputs[i] == from)
			out = o;
	}
	qir_node_move_after(c, n);
	return out;
}

/* The float twin of v: the leaves' Q inputs through copies of the
 * layout ops and Concats. NULL on failure (reported). */
static qir_value *rebuild(struct fp8_cfg *cfg, qir_value *v)
{
	qir_node *n = v->producer;
	qir_value *ins[64] = { 0 }, *out;
	size_t i, k;

	if (fp8_is_dq(n))
		return n->inputs[0]->producer->inputs[0];
	k = is_concat(n) ? n->ninputs : 1;
	if (k > 64) {
		fp8_fail(cfg, n, NULL);
		return NULL;
	}
	for (i = 0; i < k; i++)
		if (!(ins[i] = rebuild(cfg, n->inputs[i])))
			return NULL;
	out = clone_node(cfg, n, ins, v);
	if (!out)
		fp8_fail(cfg, n, NULL);
	return out;
}

static qir_node *clone_qdq(qir_node *n, qir_value *x, int dtype,
			   const qir_value *shape)
{
	qir_node *c = qir_node_new(n->graph, n->op_type, NULL, n->name);
	qir_error err = { 0 };
	qir_value *o;
	size_t i;

	if (!c || qir_node_add_input(c, x))
		return NULL;
	for (i = 1; i < n->ninputs; i++)
		if (qir_node_add_input(c, n->inputs[i]))
			return NULL;
	for (i = 0; i < n->nattrs; i++)
		if (qir_node_copy_attr(c, &n->attrs[i], &err))
			return NULL;
	o = qir_node_add_output(c, NULL, n->outputs[0]->name);
	if (!o || (dtype && qir_value_copy_shape(o, shape, dtype, &err)))
		return NULL;
	return c;
}

/* Erases the old node behind v once nothing reads it, then what only
 * it kept alive: layout ops, Concats, the leaves' DQ and Q. */
static void erase_old(struct fp8_cfg *cfg, qir_value *v)
{
	qir_node *n = v ? v->producer : NULL;
	qir_error err = { 0 };
	qir_value *in[64];
	size_t i, k;

	if (!n || !(is_layout(n) || is_concat(n) || fp8_is_dq(n) ||
		    fp8_is_q(n)))
		return;
	for (i = 0; i < n->noutputs; i++)
		if (n->outputs[i] && (n->outputs[i]->nuses ||
				      n->outputs[i]->is_output))
			return;
	k = n->ninputs < 64 ? n->ninputs : 64;
	for (i = 0; i < k; i++)
		in[i] = n->inputs[i];
	if (fp8_is_q(n))
		k = 0;	/* x feeds the new path; scales the new Q/DQ */
	if (qir_node_erase(n, &err))
		return;
	for (i = 0; i < k; i++) {
		size_t j;

		for (j = 0; j < i; j++)	/* an input listed twice: once */
			if (in[j] == in[i])
				break;
		if (j < i)
			continue;
		if (in[i] && in[i]->producer && (is_layout(in[i]->producer) ||
		    is_concat(in[i]->producer) ||
		    fp8_is_dq(in[i]->producer) ||
		    fp8_is_q(in[i]->producer)))
			erase_old(cfg, in[i]);
		else
			fp8_erase_unused(cfg, in[i]);
	}
}

/* Shape(DQ output) reads x: the same shape, and the old Q/DQ can go. */
static int shapes_to_input(qir_node *dq, qir_value *x)
{
	qir_value *o = dq->outputs[0];
	size_t i = 0;

	while (i < o->nuses) {
		qir_use u = o->uses[i];

		if (!fp8_is_op(u.node, "Shape")) {
			i++;
			continue;
		}
		if (qir_value_replace_use(o, u, x))
			return -1;
	}
	return 0;
}

static int sink(struct fp8_cfg *cfg, const struct fp8_switch *o,
		struct path *p, const char *what)
{
	qir_value *cur;
	qir_node *nq, *ndq;
	int i, qtype = fp8_q_fp8_type(p->q);
	int dtype = qir_value_elem_type(p->dq->outputs[0]);

	if (!o->on) {
		fp8_skip(cfg, p->nodes[0], "Q/DQ not moved below "
			    "layout ops", "move_layout = no");
		return 0;
	}
	if (!FP8_MAY(cfg, p->nodes[0], "Q/DQ not moved below layout "
			"ops: fp8-move-layout not run, move_layout = no, or "
			"bisect", "Q/DQ '%s' below %d layout op%s to %s",
			p->dq->name, p->n, p->n == 1 ? "" : "s", what))
		return 0;
	cur = rebuild(cfg, p->target);
	if (!cur)
		return -1;
	nq = clone_qdq(p->q, cur, qtype, p->target);
	ndq = nq ? clone_qdq(p->dq, nq->outputs[0], dtype, p->target) : NULL;
	if (!ndq)
		return fp8_fail(cfg, p->dq, NULL);
	qir_node_move_after(nq, cur->producer);
	qir_node_move_after(ndq, nq);
	if (qir_value_replace_use(p->target, (qir_use){ p->reader, p->slot },
				  ndq->outputs[0]))
		return fp8_fail(cfg, p->reader, NULL);
	for (i = 0; i < p->ndq; i++)
		if (shapes_to_input(p->dqs[i], p->dqs[i]->inputs[0]->producer->
				    inputs[0]))
			return fp8_fail(cfg, p->reader, NULL);
	erase_old(cfg, p->target);
	qopt_stat_add(cfg->ctx, "Q/DQ moved below layout ops", 1);
	return 1;
}

static int block_inputs(struct fp8_cfg *cfg, const struct fp8_switch *o,
			qir_node *sm, int *changed)
{
	static const char *const what[] = { "BMM1 input A (query)",
		"BMM1 input B (key)", "BMM2 input B (value)" };
	qir_node *b1 = fp8_attn_bmm1(sm), *b2 = fp8_attn_bmm2(sm);
	qir_node *bmm[3];
	int slot[3] = { 0, 1, 1 }, k, rc;
	struct path p;

	if (!b1 || !b2 || b1->ninputs != 2 || b2->ninputs != 2)
		return 0;
	bmm[0] = bmm[1] = b1;
	bmm[2] = b2;
	for (k = 0; k < 3; k++) {
		rc = find_path(bmm[k], slot[k], &p);
		if (!rc)
			continue;
		if (rc < 0) {
			fp8_skip(cfg, p.nodes[p.n - 1], "Q/DQ not moved below "
				    "layout ops", "%s: %s", what[k], p.why);
			continue;
		}
		rc = sink(cfg, o, &p, what[k]);
		if (rc < 0)
			return -1;
		if (rc)
			*changed = 1;
	}
	return 0;
}

int fp8_sink_layout(struct fp8_cfg *cfg, const struct fp8_switch *o,
		       int *changed)
{
	qir_node **sms;
	size_t i, count;
	qir_error err = { 0 };
	int rc = 0;

	if (qir_graph_nodes(cfg->m->graph, "", "Softmax", 1, &sms, &count,
			    &err))
		return fp8_fail(cfg, NULL, &err);
	for (i = 0; i < count && !rc; i++)
		rc = block_inputs(cfg, o, sms[i], changed);
	free(sms);
	return rc;
}

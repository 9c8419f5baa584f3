/*
 * passes/fp8_mha/sink.c - rewrite 3b: the layout ops between an
 * attention input's Q/DQ and its BMM go above the Q, so the BMM reads a
 * DQ (what TensorRT's fused FP8 attention needs):
 *
 *   x -> Q -> DQ -> Unsqueeze -> Expand -> Reshape -> Transpose -> BMM
 *   x -> Unsqueeze -> Expand -> Reshape -> Transpose -> Q -> DQ -> BMM
 *
 * (repeat_kv of grouped-query attention). A per-tensor Q/DQ is the same
 * function of each element wherever the element sits, and the layout
 * ops (Reshape, Transpose, Expand, Squeeze, Unsqueeze, Identity, Slice,
 * Gather of data, one output of Split) only move, repeat or drop
 * elements: DQ(Q(L(x))) = L(DQ(Q(x))) bit for bit. The path is rebuilt
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

#include "fp8mha.h"

#define SINK_MAX FP8MHA_MAX_HOPS

static int is_layout(const qir_node *n)
{
	static const char *const ops[] = { "Reshape", "Transpose", "Expand",
		"Squeeze", "Unsqueeze", "Identity", "Slice", "Gather", "Split",
		NULL };
	int i;

	for (i = 0; ops[i]; i++)
		if (fp8mha_is_op(n, ops[i]))
			return n->ninputs >= 1 && n->inputs[0];
	return 0;
}

/* The path from a BMM input back to its DQ: chain[0] is the layout
 * node nearest the BMM. */
struct path {
	qir_node *chain[SINK_MAX];
	int n;
	qir_node *dq, *q;
	qir_value *target;	/* what the BMM (or its scale Mul) reads */
	qir_node *reader;	/* that node */
	int slot;		/* its input slot */
};

static int per_tensor(const qir_node *qdq)
{
	qir_tensor *s = qir_value_const(qdq->inputs[1]);

	if (s)
		return qir_tensor_numel(s) == 1;
	return fp8mha_one_element(qdq->inputs[1]);
}

/* Walks back from input slot of bmm; 1 with *p filled when a Q/DQ
 * with layout ops before the BMM is found, else 0. */
static int find_path(qir_node *bmm, int slot, struct path *p)
{
	qir_node *reader = bmm, *n;
	qir_value *v = bmm->inputs[slot];

	memset(p, 0, sizeof(*p));
	/* A scale Mul right before the BMM: rewrite 3 moves it later. */
	n = v ? v->producer : NULL;
	if (fp8mha_is_op(n, "Mul") && n->ninputs == 2 && n->inputs[0] &&
	    n->inputs[1] && fp8mha_sole_user(n->outputs[0]) == bmm) {
		int k = fp8mha_one_element(n->inputs[1]) ? 0 :
			fp8mha_one_element(n->inputs[0]) ? 1 : -1;

		if (k >= 0) {
			reader = n;
			slot = k;
			v = n->inputs[k];
		}
	}
	p->reader = reader;
	p->slot = slot;
	p->target = v;
	for (n = v ? v->producer : NULL; n && is_layout(n) && p->n < SINK_MAX;
	     n = n->inputs[0]->producer)
		p->chain[p->n++] = n;
	if (!p->n || !fp8mha_is_dq(n))
		return 0;
	p->dq = n;
	p->q = n->inputs[0]->producer;
	return fp8mha_is_q(p->q) && fp8mha_q_fp8_type(p->q) != 0;
}

/* A copy of n reading x as its data input: the output that stands
 * for n's output `from`. */
static qir_value *clone_layout(struct fp8mha_cfg *cfg, qir_node *n,
			       qir_value *x, qir_value *from)
{
	qir_node *c = qir_node_new(n->graph, n->op_type, n->domain, n->name);
	qir_value *out = NULL;
	qir_error err = { 0 };
	size_t i;

	if (!c || qir_node_add_input(c, x))
		return NULL;
	for (i = 1; i < n->ninputs; i++)
		if (qir_node_add_input(c, n->inputs[i]))
			return NULL;
	for (i = 0; i < n->nattrs; i++)
		if (qir_node_copy_attr(c, &n->attrs[i], &err)) {
			fp8mha_fail(cfg, n, &err);
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

/* Erases n when nothing reads its outputs; 1 when erased. */
static int erase_dead(qir_node *n)
{
	qir_error err = { 0 };
	qir_value *in[8];
	size_t i, k;

	for (i = 0; i < n->noutputs; i++)
		if (n->outputs[i] && (n->outputs[i]->nuses ||
				      n->outputs[i]->is_output))
			return 0;
	k = n->ninputs < 8 ? n->ninputs : 8;
	for (i = 0; i < k; i++)
		in[i] = n->inputs[i];
	if (qir_node_erase(n, &err))
		return 0;
	/* Shape constants only the old node read (never x: it has the
	 * new path). */
	for (i = 1; i < k; i++)
		fp8mha_erase_unused(in[i]);
	return 1;
}

/* Shape(DQ output) reads x: the same shape, and the old Q/DQ can go. */
static int shapes_to_input(qir_node *dq, qir_value *x)
{
	qir_value *o = dq->outputs[0];
	size_t i = 0;

	while (i < o->nuses) {
		qir_use u = o->uses[i];

		if (!fp8mha_is_op(u.node, "Shape")) {
			i++;
			continue;
		}
		if (qir_value_replace_use(o, u, x))
			return -1;
	}
	return 0;
}

static int sink(struct fp8mha_cfg *cfg, struct path *p, const char *what)
{
	qir_value *x = p->q->inputs[0], *cur = x, *from;
	qir_node *nq, *ndq;
	int i, qtype = fp8mha_q_fp8_type(p->q);
	int dtype = qir_value_elem_type(p->dq->outputs[0]);
	char label[160];

	if (!per_tensor(p->q) || !per_tensor(p->dq)) {
		fp8mha_skip(cfg, p->chain[p->n - 1], "Q/DQ not moved below "
			    "layout ops", "%s: per-axis Q/DQ %s does not "
			    "commute with layout ops", what,
			    qir_node_label(p->dq, label, sizeof(label)));
		return 0;
	}
	if (!cfg->move_layout) {
		fp8mha_skip(cfg, p->chain[p->n - 1], "Q/DQ not moved below "
			    "layout ops", "move_layout = no");
		return 0;
	}
	if (!qopt_may_rewrite(cfg->ctx, "Q/DQ '%s' below %d layout op%s to "
			      "%s", p->dq->name, p->n, p->n == 1 ? "" : "s",
			      what))
		return 0;
	/* The layout ops in data order, each reading the new path. */
	for (i = p->n - 1; i >= 0; i--) {
		/* the output on the path (Split: one of several) */
		from = i ? p->chain[i - 1]->inputs[0] : p->target;
		cur = clone_layout(cfg, p->chain[i], cur, from);
		if (!cur)
			return fp8mha_fail(cfg, p->chain[i], NULL);
	}
	nq = clone_qdq(p->q, cur, qtype, p->target);
	ndq = nq ? clone_qdq(p->dq, nq->outputs[0], dtype, p->target) : NULL;
	if (!ndq)
		return fp8mha_fail(cfg, p->dq, NULL);
	qir_node_move_after(nq, cur->producer);
	qir_node_move_after(ndq, nq);
	if (qir_value_replace_use(p->target, (qir_use){ p->reader, p->slot },
				  ndq->outputs[0]) ||
	    shapes_to_input(p->dq, x))
		return fp8mha_fail(cfg, p->reader, NULL);
	for (i = 0; i < p->n; i++)
		if (!erase_dead(p->chain[i]))
			break;
	if (i == p->n && erase_dead(p->dq))
		(void)erase_dead(p->q);
	qopt_stat_add(cfg->ctx, "Q/DQ moved below layout ops", 1);
	return 1;
}

static int block_inputs(struct fp8mha_cfg *cfg, qir_node *sm, int *changed)
{
	static const char *const what[] = { "BMM1 input A (query)",
		"BMM1 input B (key)", "BMM2 input B (value)" };
	qir_node *b1 = fp8mha_attn_bmm1(sm), *b2 = fp8mha_attn_bmm2(sm);
	qir_node *bmm[3];
	int slot[3] = { 0, 1, 1 }, k, rc;
	struct path p;

	if (!b1 || !b2 || b1->ninputs != 2 || b2->ninputs != 2)
		return 0;
	bmm[0] = bmm[1] = b1;
	bmm[2] = b2;
	for (k = 0; k < 3; k++) {
		if (!find_path(bmm[k], slot[k], &p))
			continue;
		cfg->found = 1;
		rc = sink(cfg, &p, what[k]);
		if (rc < 0)
			return -1;
		if (rc)
			*changed = 1;
	}
	return 0;
}

int fp8mha_sink_layout(struct fp8mha_cfg *cfg, int *changed)
{
	qir_node **sms;
	size_t i, count;
	qir_error err = { 0 };
	int rc = 0;

	if (qir_graph_nodes(cfg->m->graph, "", "Softmax", 1, &sms, &count,
			    &err))
		return fp8mha_fail(cfg, NULL, &err);
	for (i = 0; i < count && !rc; i++)
		rc = block_inputs(cfg, sms[i], changed);
	free(sms);
	return rc;
}

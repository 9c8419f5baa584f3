/*
 * passes/fp8/motion.c - rewrite 3: the Transpose and the scale Mul
 * that exporters put between an activation's DequantizeLinear and its
 * MatMul (the K path of scaled dot-product attention:
 * Q -> DQ -> Transpose -> Mul(c) -> MatMul) move above the Q, so the DQ
 * feeds the MatMul directly:  Transpose -> Mul(c) -> Q -> DQ -> MatMul.
 *
 * A Transpose commutes with an element-wise Q/DQ (per-axis `axis` moves
 * with its dimension): exact. A Mul by c before Q changes what Q sees
 * by c; the Q and DQ scales are multiplied by |c| (c's sign stays in
 * the Mul) so Q computes the same codes, x*c / (s*|c|) = +-x/s, up to
 * float rounding, and DQ gives c times what it gave before.
 * Every hop must have its one consumer on the path and the path must
 * end in MatMul consumers only.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp8.h"

/* Q -> DQ feeding n through input v: the DQ, or NULL (with why). */
static qir_node *qdq_above(qir_value *v, qir_node *n, char *why, size_t len)
{
	qir_node *dq = v->producer, *q;
	char label[160];

	if (!fp8_is_dq(dq))
		return NULL;
	q = dq->inputs[0]->producer;
	if (!fp8_is_q(q) || !fp8_q_fp8_type(q))
		return NULL;
	if (fp8_sole_user(q->outputs[0]) != dq) {
		snprintf(why, len, "Q output '%s' has another consumer",
			 q->outputs[0]->name);
		return dq;
	}
	if (fp8_sole_user(dq->outputs[0]) == NULL) {
		size_t i;

		for (i = 0; i < dq->outputs[0]->nuses; i++)
			if (dq->outputs[0]->uses[i].node != n)
				break;
		snprintf(why, len, "DQ output '%s' is also read by %s",
			 dq->outputs[0]->name,
			 i < dq->outputs[0]->nuses ?
			 qir_node_label(dq->outputs[0]->uses[i].node, label,
					sizeof(label)) : dq->outputs[0]->is_output ?
			 "a graph output" : "another input of the same node");
		return dq;
	}
	why[0] = 0;
	return dq;
}

static int perm_of(const qir_node *tr, int rank, int64_t *perm)
{
	const qir_attr *a = qir_node_attr(tr, "perm");
	int i;

	if (rank < 0 || rank > 8)
		return -1;
	for (i = 0; i < rank; i++)
		perm[i] = a ? (a->n == (size_t)rank && a->type == QIR_ATTR_INTS ?
			       a->ints[i] : -1) : rank - 1 - i;
	for (i = 0; i < rank; i++)
		if (perm[i] < 0 || perm[i] >= rank)
			return -1;
	return 0;
}

/* Per-axis Q and DQ: their axis moves where perm puts it. */
static int remap_axes(qir_node *q, qir_node *dq, int rank, const int64_t *perm)
{
	qir_node *nodes[2] = { q, dq };
	int k, i;

	for (k = 0; k < 2; k++) {
		qir_tensor *s = qir_value_const(nodes[k]->inputs[1]);
		int64_t axis;

		if (s && qir_tensor_numel(s) == 1)
			continue;
		axis = qir_node_attr_int(nodes[k], "axis", 1);
		if (axis < 0)
			axis += rank;
		for (i = 0; i < rank; i++)
			if (perm[i] == axis)
				break;
		if (i == rank || qir_node_set_attr_int(nodes[k], "axis", i))
			return -1;
	}
	return 0;
}

/* The consumers after the Transpose: all MatMul, or one Mul by a
 * scalar constant whose consumers are all MatMul. */
static int path_ok(qir_value *v, char *why, size_t len)
{
	qir_node *m = fp8_sole_user(v);
	double c;
	int slot;

	if (m && fp8_is_op(m, "Mul") && m->ninputs == 2) {
		slot = m->inputs[0] == v ? 1 : 0;
		if (!fp8_scalar(m->inputs[slot], &c))
			return fp8_all_users_are(m->outputs[0], "MatMul",
						    why, len);
	}
	return fp8_all_users_are(v, "MatMul", why, len);
}

static int move_transpose(struct fp8_cfg *cfg,
			  const struct fp8_switch *o, qir_node *tr)
{
	qir_node *dq, *q;
	qir_value *x, *tout, *dout;
	int64_t perm[8];
	char why[256] = "";
	qir_error err = { 0 };
	int rank;

	if (tr->ninputs != 1 || !tr->inputs[0])
		return 0;
	dq = qdq_above(tr->inputs[0], tr, why, sizeof(why));
	if (!dq)
		return 0;
	if (!why[0])
		path_ok(tr->outputs[0], why, sizeof(why));
	if (why[0]) {
		fp8_skip(cfg, tr, "Transposes not moved (consumer off the "
			    "path)", "%s", why);
		return 0;
	}
	if (!o->on) {
		fp8_skip(cfg, tr, "Transposes not moved", "move_transpose = no");
		return 0;
	}
	q = dq->inputs[0]->producer;
	x = q->inputs[0];
	rank = x->rank >= 0 ? x->rank : tr->outputs[0]->rank;
	/* Exported custom ops leave shapes unknown: perm says the rank. */
	if (rank < 0 && qir_node_attr(tr, "perm"))
		rank = (int)qir_node_attr(tr, "perm")->n;
	if (perm_of(tr, rank, perm)) {
		fp8_skip(cfg, tr, "Transposes not moved", "rank unknown");
		return 0;
	}
	if (!FP8_MAY(cfg, tr, "Transposes not moved: fp8-move-transpose "
			"not run, move_transpose = no, or bisect",
			"move Transpose '%s' above Q '%s'", tr->name, q->name))
		return 0;
	tout = tr->outputs[0];
	dout = dq->outputs[0];
	if (qir_value_replace_all_uses(tout, dout) ||
	    qir_node_set_input(tr, 0, x) || qir_node_set_input(q, 0, tout))
		return fp8_fail(cfg, tr, NULL);
	qir_node_move_before(tr, q);
	if (remap_axes(q, dq, rank, perm) ||
	    qir_value_copy_shape(q->outputs[0], tout, q->outputs[0]->dtype,
				 &err) ||
	    qir_value_copy_shape(dout, tout, dout->dtype, &err))
		return fp8_fail(cfg, tr, &err);
	qopt_stat_add(cfg->ctx, "Transposes moved above Q", 1);
	return 1;
}

int fp8_move_transposes(struct fp8_cfg *cfg,
			   const struct fp8_switch *o, int *changed)
{
	qir_node **nodes;
	size_t i, count;
	qir_error err = { 0 };
	int rc = 0;

	if (qir_graph_nodes(cfg->m->graph, "", "Transpose", 1, &nodes, &count,
			    &err))
		return fp8_fail(cfg, NULL, &err);
	for (i = 0; i < count && rc >= 0; i++)
		if ((rc = move_transpose(cfg, o, nodes[i])) > 0)
			*changed = 1;
	free(nodes);
	return rc < 0 ? -1 : 0;
}

/* ---- scale Mul ---- */

/* A copy of scale s (a float constant) times k, in its own type; NULL
 * (with why) when a value would overflow or underflow to 0. */
static qir_value *scaled(qir_graph *g, qir_value *s, double k,
			 const char **why)
{
	int owned;
	qir_tensor *t = fp8_const(s, &owned), *nt;
	char name[512];
	uint64_t i, n;
	void *p;

	if (!t || !fp8_is_float(t->dtype)) {
		*why = "scale is not a float constant";
		goto fail;
	}
	snprintf(name, sizeof(name), "%s_scaled", s->name);
	nt = qir_tensor_new(name, t->dtype, t->rank, t->dims, NULL);
	p = nt ? qir_tensor_mutable_data(nt, NULL) : NULL;
	if (!p) {
		qir_tensor_free(nt);
		*why = "out of memory";
		goto fail;
	}
	n = qir_tensor_numel(t);
	for (i = 0; i < n; i++) {
		double d;
		float f, back;

		qir_tensor_get_f64(t, i, &d, NULL);
		f = (float)(d * k);
		if (t->dtype == QIR_FLOAT16) {
			((uint16_t *)p)[i] = qk_f32_to_f16(f);
			back = qk_f16_to_f32(((uint16_t *)p)[i]);
		} else if (t->dtype == QIR_BFLOAT16) {
			((uint16_t *)p)[i] = qk_f32_to_bf16(f);
			back = qk_bf16_to_f32(((uint16_t *)p)[i]);
		} else {
			((float *)p)[i] = f;
			back = f;
		}
		if (!isfinite(back) || back == 0.0f) {
			qir_tensor_free(nt);
			*why = "scaled Q/DQ scale overflows or underflows";
			goto fail;
		}
	}
	if (owned)
		qir_tensor_free(t);
	return ps_add_initializer(g, nt);
fail:
	if (owned)
		qir_tensor_free(t);
	return NULL;
}

struct mulpat {
	qir_node *mul, *dq, *q;
	int slot;		/* the Mul input the DQ feeds */
	double c;
};

static int mul_match(struct fp8_cfg *cfg, const struct fp8_switch *o,
		     qir_node *m, struct mulpat *p)
{
	char why[256] = "";
	qir_tensor *ct;
	int k;

	if (m->ninputs != 2 || !m->inputs[0] || !m->inputs[1])
		return 0;
	for (k = 0; k < 2; k++) {
		why[0] = 0;
		p->dq = qdq_above(m->inputs[k], m, why, sizeof(why));
		if (p->dq && !fp8_scalar(m->inputs[1 - k], &p->c))
			break;
	}
	if (k == 2)
		return 0;
	p->mul = m;
	p->slot = k;
	p->q = p->dq->inputs[0]->producer;
	ct = qir_value_const(m->inputs[1 - k]);
	if (!why[0])
		fp8_all_users_are(m->outputs[0], "MatMul", why, sizeof(why));
	if (why[0]) {
		fp8_skip(cfg, m, "scale Muls not moved (consumer off the "
			    "path)", "%s", why);
		return 0;
	}
	if (!isfinite(p->c) || p->c == 0.0)
		snprintf(why, sizeof(why), "scale %g is 0 or not finite", p->c);
	else if (ct && ct->rank > 1 && ct->rank > m->inputs[k]->rank)
		snprintf(why, sizeof(why), "scale of rank %d would broadcast",
			 ct->rank);
	else if (!o->on)
		snprintf(why, sizeof(why), "move_scale = no");
	if (why[0]) {
		fp8_skip(cfg, m, "scale Muls not moved", "%s", why);
		return 0;
	}
	return 1;
}

static int move_mul(struct fp8_cfg *cfg, struct mulpat *p)
{
	qir_value *x = p->q->inputs[0], *mout = p->mul->outputs[0];
	qir_value *dout = p->dq->outputs[0];
	qir_value *qs = p->q->inputs[1], *ds = p->dq->inputs[1];
	qir_value *nqs, *nds;
	const char *why = NULL;
	double k = fabs(p->c);

	if (!FP8_MAY(cfg, p->mul, "scale Muls not moved: fp8-move-scale "
			"not run, move_scale = no, or bisect",
			"move Mul '%s' (x %g) above Q '%s', Q/DQ scales x %g",
			p->mul->name, p->c, p->q->name, k))
		return 0;
	nqs = scaled(p->q->graph, qs, k, &why);
	nds = !nqs ? NULL : ds == qs ? nqs : scaled(p->q->graph, ds, k, &why);
	if (!nqs || !nds) {
		if (nqs)
			fp8_erase_unused(cfg, nqs);
		fp8_skip(cfg, p->mul, "scale Muls not moved", "%s",
			    why ? why : "out of memory");
		return 0;
	}
	if (qir_value_replace_all_uses(mout, dout) ||
	    qir_node_set_input(p->mul, (size_t)p->slot, x) ||
	    qir_node_set_input(p->q, 0, mout) ||
	    qir_node_set_input(p->q, 1, nqs) ||
	    qir_node_set_input(p->dq, 1, nds))
		return fp8_fail(cfg, p->mul, NULL);
	qir_node_move_before(p->mul, p->q);
	fp8_erase_unused(cfg, qs);
	if (ds != qs)	/* else freed just now */
		fp8_erase_unused(cfg, ds);
	/* mout keeps its type: Mul by a scalar keeps x's shape, and x has
	 * the DQ output's type (Q's input and scale share one). */
	qopt_stat_add(cfg->ctx, "scale Muls moved above Q", 1);
	return 1;
}

int fp8_move_scales(struct fp8_cfg *cfg, const struct fp8_switch *o,
		       int *changed)
{
	qir_node **nodes;
	size_t i, count;
	qir_error err = { 0 };
	int rc = 0;

	if (qir_graph_nodes(cfg->m->graph, "", "Mul", 1, &nodes, &count, &err))
		return fp8_fail(cfg, NULL, &err);
	for (i = 0; i < count && rc >= 0; i++) {
		struct mulpat p;

		memset(&p, 0, sizeof(p));
		if (mul_match(cfg, o, nodes[i], &p) <= 0)
			continue;
		if ((rc = move_mul(cfg, &p)) > 0)
			*changed = 1;
	}
	free(nodes);
	return rc < 0 ? -1 : 0;
}

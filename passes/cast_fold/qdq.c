/*
 * qdq.c - folding Casts into Q/DQ scales (opset >= 19, where Q/DQ take
 * FLOAT16/BFLOAT16 scales and DQ outputs the scale's type):
 *   DequantizeLinear(fp32 scale) -> Cast(fp16)  =>  DequantizeLinear(fp16)
 *   Cast(fp16 -> fp32) -> QuantizeLinear(fp32)   =>  QuantizeLinear(fp16)
 * Converted scales are new tensors: a scale other nodes share is never
 * changed under them, and only the edges of the pattern are rewired.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cast_fold.h"
#include "../support/fail.h"

static int opset_gate(struct cast_fold_state *s, const qir_node *cast,
		      const char *pattern)
{
	if (s->opset >= 19)
		return 1;
	if (!s->report)
		return 0;
	/* Said once, as a warning, after the report round (plugin.c):
	 * the manager decides what --strict makes of it. */
	qopt_stat_add(s->ctx, "skipped (opset < 19)", 1);
	s->opset_skips++;
	qopt_debug(s->ctx, "%s: %s left alone: opset %d < 19",
		   QIR_NODE_LABEL(cast), pattern, s->opset);
	return 0;
}

static int decode_f32(qir_tensor *t, uint64_t i, const uint8_t *raw,
		      float *out)
{
	double d;

	switch (t->dtype) {
	case QIR_FLOAT8E4M3FN:
		*out = qk_e4m3_to_f32(raw[i]);
		return 0;
	case QIR_FLOAT8E5M2:
		*out = qk_e5m2_to_f32(raw[i]);
		return 0;
	default:
		if (qir_tensor_get_f64(t, i, &d, NULL) < 0)
			return -1;
		*out = (float)d;
		return 0;
	}
}

/* The first-level DQ of the NVFP4 chain: every block scale it
 * produces, e4m3(s) * g, must stay finite and non-zero in the new type
 * (a zero code stays zero). */
static int chain_values_ok(struct cast_fold_state *s, qir_node *dq1, float g,
			   int dtype)
{
	qir_tensor *x = qir_value_const(dq1->inputs[0]);
	const uint8_t *raw = x ? qir_tensor_data(x, NULL) : NULL;
	uint64_t i, n = x ? qir_tensor_numel(x) : 0;

	if (!x || (!raw && n))
		return 0;
	for (i = 0; i < n; i++) {
		float v, c;

		if (decode_f32(x, i, raw, &v) < 0)
			return 0;
		v *= g;
		if (v == 0.0f)
			continue;
		c = dtype == QIR_FLOAT16 ? qk_f16_to_f32(qk_f32_to_f16(v)) :
		    qk_bf16_to_f32(qk_f32_to_bf16(v));
		if (!isfinite(c) || c == 0.0f) {
			if (s->report)
				qopt_warn(s->ctx, "block scale %llu of '%s' (%g) is %s "
				  "in %s; not folded", (unsigned long long)i,
				  dq1->outputs[0]->name, (double)v,
				  c == 0.0f ? "zero" : "not finite",
				  qir_dtype_name(dtype));
			return 0;
		}
	}
	return 1;
}

/* Finds the fp32 scale of dq: a constant, or (NVFP4) the output of a
 * DequantizeLinear of constants with a constant single fp32 scale. */
static int dq_scale(qir_node *dq, qir_tensor **t, qir_node **dq1,
		    qir_tensor **g)
{
	qir_value *sc = dq->ninputs > 1 ? dq->inputs[1] : NULL;
	qir_node *p;

	*t = NULL;
	*dq1 = NULL;
	*g = NULL;
	if (!sc || qir_node_attr(dq, "output_dtype"))
		return 0;
	if ((*t = cast_fold_const_f32(sc)))
		return 1;
	p = sc->producer;
	if (!qir_node_is(p, "DequantizeLinear") || sc->producer_index != 0 ||
	    p->ninputs < 2 || qir_node_attr(p, "output_dtype"))
		return 0;
	if (!p->inputs[0] || !qir_value_const(p->inputs[0]))
		return 0;
	if (p->ninputs > 2 && p->inputs[2])
		return 0;	/* NVFP4 block scales have no zero point */
	*g = cast_fold_const_f32(p->inputs[1]);
	if (!*g || qir_tensor_numel(*g) != 1)
		return 0;
	*dq1 = p;
	return 1;
}

static const char *suffix(int dtype)
{
	return dtype == QIR_FLOAT16 ? "fp16" : "bf16";
}

int cast_fold_fold_dq_cast(struct cast_fold_state *s, qir_node *cast)
{
	int to = qir_node_attr_dtype(cast, "to");
	qir_value *in = cast->ninputs ? cast->inputs[0] : NULL;
	qir_value *out = cast->outputs[0], *sv;
	qir_node *dq = in ? in->producer : NULL, *dq1, *dqc, *dq1c = NULL;
	qir_tensor *t, *g, *conv;
	const char *scale_name;
	char name[512];
	int gate;

	if ((to != QIR_FLOAT16 && to != QIR_BFLOAT16) || !out ||
	    !qir_node_is(dq, "DequantizeLinear") || in->producer_index != 0)
		return 0;
	if (!dq_scale(dq, &t, &dq1, &g))
		return 0;
	/* The copies go next to the Cast: keep the pattern in one graph. */
	if (dq->graph != cast->graph || (dq1 && dq1->graph != cast->graph))
		return 0;
	gate = opset_gate(s, cast, "DequantizeLinear -> Cast");
	if (gate <= 0)
		return gate;
	scale_name = dq1 ? dq1->inputs[1]->name : dq->inputs[1]->name;
	snprintf(name, sizeof(name), "%s_%s", scale_name, suffix(to));
	conv = cast_fold_convert_scale(s, dq1 ? g : t, scale_name, name, to);
	if (conv && dq1) {
		/* Tensor bytes may sit at any address (ir.h). */
		const void *gv = qir_tensor_data(g, NULL);
		float g0 = 0.0f;

		if (gv)
			memcpy(&g0, gv, sizeof(g0));
		if (!gv || !chain_values_ok(s, dq1, g0, to)) {
			qir_tensor_free(conv);
			conv = NULL;
		}
	}
	if (!conv) {
		if (s->report)
			qopt_stat_add(s->ctx,
				      "skipped (scale not representable)", 1);
		return 0;
	}
	if (s->report) {
		qir_tensor_free(conv);
		return 0;
	}
	if (!qopt_may_rewrite(s->ctx, "fold %s into DequantizeLinear '%s' "
			      "(scale '%s' -> %s)", QIR_NODE_LABEL(cast),
			      dq->name, scale_name, qir_dtype_name(to))) {
		qir_tensor_free(conv);
		return CAST_FOLD_DECLINED;
	}
	sv = qir_graph_add_initializer(dq1 ? dq1->graph : dq->graph, conv);
	if (!sv)
		goto oom;
	if (dq1) {
		dq1c = cast_fold_clone_node(dq1, cast);
		if (!dq1c)
			goto oom;
		if (qir_node_set_input(dq1c, 1, sv) < 0 ||
		    cast_fold_set_type_like(dq1c->outputs[0], to, dq1->outputs[0]) < 0)
			goto oom;
		sv = dq1c->outputs[0];
		ps_sweep_mark(&s->sweep, dq1);
	}
	dqc = cast_fold_clone_node(dq, cast);
	if (!dqc)
		goto oom;
	if (qir_node_set_input(dqc, 1, sv) < 0 ||
	    cast_fold_set_type_like(dqc->outputs[0], to, out->rank >= 0 ? out :
			     dq->outputs[0]) < 0)
		goto oom;
	ps_sweep_mark(&s->sweep, dq);
	if (cast_fold_take_over(s, cast, out, dqc->outputs[0]) < 0)
		return -1;
	qopt_stat_add(s->ctx, "casts folded (DequantizeLinear -> Cast)", 1);
	qopt_stat_add(s->ctx, "scales converted", 1);
	qopt_debug(s->ctx, "DequantizeLinear '%s' now outputs %s%s",
		   dqc->name, qir_dtype_name(to),
		   dq1 ? " (two-level scale chain retyped)" : "");
	return 1;
oom:
	ps_fail(s->ctx, QOPT_ENOMEM, "%s: out of memory", QIR_NODE_LABEL(cast));
	return -1;
}

/* Every consumer of the Cast must be the input of a QuantizeLinear
 * with a constant fp32 scale. */
static int all_uses_q(qir_value *out)
{
	size_t i;

	if (out->is_output || !out->nuses)
		return 0;
	for (i = 0; i < out->nuses; i++) {
		qir_node *q = out->uses[i].node;

		if (!qir_node_is(q, "QuantizeLinear") || out->uses[i].index != 0 ||
		    q->ninputs < 2 || !cast_fold_const_f32(q->inputs[1]) ||
		    qir_node_attr(q, "precision"))
			return 0;
	}
	return 1;
}

int cast_fold_fold_cast_q(struct cast_fold_state *s, qir_node *cast)
{
	int to = qir_node_attr_dtype(cast, "to");
	qir_value *x = cast->ninputs ? cast->inputs[0] : NULL;
	qir_value *out = cast->outputs[0];
	int xdt = qir_value_elem_type(x), gate, ret = 0;
	size_t i, j, n;
	qir_use *uses = NULL;
	qir_tensor **conv = NULL;
	qir_value **newv = NULL, **olds = NULL;
	char name[512];

	if (to != QIR_FLOAT || (xdt != QIR_FLOAT16 && xdt != QIR_BFLOAT16) ||
	    !out || !all_uses_q(out))
		return 0;
	gate = opset_gate(s, cast, "Cast -> QuantizeLinear");
	if (gate <= 0)
		return gate;
	n = out->nuses;
	uses = malloc(n * sizeof(*uses));
	conv = calloc(n, sizeof(*conv));
	newv = calloc(n, sizeof(*newv));
	olds = calloc(n, sizeof(*olds));
	if (!uses || !conv || !newv || !olds) {
		ps_fail(s->ctx, QOPT_ENOMEM, "%s: out of memory", QIR_NODE_LABEL(cast));
		ret = -1;
		goto out;
	}
	memcpy(uses, out->uses, n * sizeof(*uses));
	for (i = 0; i < n; i++)
		olds[i] = uses[i].node->inputs[1];
	for (i = 0; i < n; i++) {
		qir_value *sc = olds[i];

		for (j = 0; j < i; j++)
			if (olds[j] == sc)
				break;
		if (j < i)
			continue;	/* converted once, shared below */
		snprintf(name, sizeof(name), "%s_%s", sc->name, suffix(xdt));
		conv[i] = cast_fold_convert_scale(s, cast_fold_const_f32(sc), sc->name, name,
					   xdt);
		if (!conv[i]) {
			if (s->report)
				qopt_stat_add(s->ctx, "skipped (scale not "
					      "representable)", 1);
			goto out;
		}
	}
	if (s->report)
		goto out;
	if (!qopt_may_rewrite(s->ctx, "fold %s into %zu QuantizeLinear "
			      "node(s) (scales -> %s)", QIR_NODE_LABEL(cast), n,
			      qir_dtype_name(xdt))) {
		ret = CAST_FOLD_DECLINED;
		goto out;
	}
	for (i = 0; i < n; i++) {
		qir_node *q = uses[i].node;
		qir_value *old = olds[i];

		if (conv[i]) {
			newv[i] = qir_graph_add_initializer(q->graph, conv[i]);
			conv[i] = NULL;
			qopt_stat_add(s->ctx, "scales converted", 1);
		} else {
			for (j = 0; j < i; j++)
				if (olds[j] == old)
					break;
			newv[i] = j < i ? newv[j] : NULL;
		}
		if (!newv[i]) {
			qopt_error(s->ctx, "%s: cannot add the converted scale",
				   QIR_NODE_LABEL(q));
			ret = -1;
			goto out;
		}
		if (qir_node_set_input(q, 0, x) < 0 ||
		    qir_node_set_input(q, 1, newv[i]) < 0) {
			ps_fail(s->ctx, QOPT_ENOMEM, "%s: out of memory", QIR_NODE_LABEL(q));
			ret = -1;
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++)
			if (olds[j] == olds[i])
				break;
		if (j == i)
			cast_fold_drop_if_unused(olds[i]);
	}
	if (qir_node_erase(cast, NULL) < 0) {
		qopt_error(s->ctx, "%s: still used after folding",
			   QIR_NODE_LABEL(cast));
		ret = -1;
		goto out;
	}
	qopt_stat_add(s->ctx, "casts folded (Cast -> QuantizeLinear)", 1);
	ret = 1;
out:
	for (i = 0; conv && i < n; i++)
		qir_tensor_free(conv[i]);
	free(conv);
	free(newv);
	free(olds);
	free(uses);
	return ret;
}

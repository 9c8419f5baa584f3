/*
 * passes/fp8/softmax.c - rewrite 4: Q/DQ after each Softmax whose
 * consumers are all MatMul (BMM2 of attention). The Softmax output lies
 * in [0, 1], so a fixed scale of 1/448 maps 1.0 onto E4M3FN's largest
 * value: no calibration. The zero point is FLOAT8E4M3FN 0, saturate = 1.
 * torch's softmax(..., dtype=float32) writes Softmax -> Cast [-> Cast]
 * -> MatMul: the Q/DQ goes after the last Cast, so the DQ feeds BMM2
 * directly, with its scale in that Cast's type (BMM2's); a float Cast
 * keeps [0, 1] and 1.0, so the scale is the same. This rewrite adds
 * quantization (it is the only one that changes what the model
 * computes beyond float rounding).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp8.h"

#define SOFTMAX_SCALE (1.0 / 448.0)

static int already_quantized(qir_value *v)
{
	size_t i;

	if (!v->nuses || v->is_output)
		return 0;
	for (i = 0; i < v->nuses; i++)
		if (!fp8_is_q(v->uses[i].node))
			return 0;
	return 1;
}

/* Where the Q/DQ goes: the Softmax output, or the output of the float
 * Casts that alone follow it (each the one consumer of the value
 * before); *at is the node it goes after. */
static qir_value *after_casts(qir_node *sm, qir_node **at)
{
	qir_value *v = sm->outputs[0];
	qir_node *c;
	int hops;

	*at = sm;
	for (hops = 0; hops < FP8_MAX_HOPS; hops++) {
		c = fp8_sole_user(v);
		if (!c || !fp8_is_op(c, "Cast") || c->noutputs != 1 ||
		    !c->outputs[0] ||
		    !fp8_is_float((int)qir_node_attr_int(c, "to", 0)))
			break;
		*at = c;
		v = c->outputs[0];
	}
	return v;
}

static int insert(struct fp8_cfg *cfg, qir_node *sm, qir_node *at,
		  qir_value *out, int dtype)
{
	qir_value *s, *zp;
	qir_graph *g = sm->graph;
	qir_node *q, *dq;
	const struct ps_qdq_attrs attrs = { .saturate = 1 };
	qir_use *uses;
	qir_error err = { 0 };
	char hint[512];
	const char *base = sm->name[0] ? sm->name : out->name;
	size_t i, n = out->nuses;
	int rc;

	rc = fp8_prepare_opset(cfg);
	if (rc)
		return rc < 0 ? -1 : 0;
	uses = malloc(n * sizeof(*uses));
	if (!uses)
		return fp8_fail(cfg, sm, NULL);
	memcpy(uses, out->uses, n * sizeof(*uses));
	snprintf(hint, sizeof(hint), "%s_fp8_scale", base);
	s = ps_add_initializer(g, ps_filled_tensor(hint, dtype, SOFTMAX_SCALE,
						    0, NULL));
	snprintf(hint, sizeof(hint), "%s_fp8_zero_point", base);
	zp = ps_add_initializer(g, ps_zero_point(hint, QIR_FLOAT8E4M3FN, 0,
						  NULL));
	if (!s || !zp || ps_qdq_pair(g, base, out, s, zp, QIR_FLOAT8E4M3FN,
				     dtype, &attrs, &q, &dq, &err)) {
		free(uses);
		return fp8_fail(cfg, sm, &err);
	}
	qir_node_move_after(q, at);
	qir_node_move_after(dq, q);
	for (i = 0; i < n; i++)
		if (qir_value_replace_use(out, uses[i], dq->outputs[0])) {
			free(uses);
			return fp8_fail(cfg, sm, NULL);
		}
	free(uses);
	qopt_stat_add(cfg->ctx, "Softmax Q/DQ inserted", 1);
	return 1;
}

static int any_matmul(const qir_value *v)
{
	size_t i;

	for (i = 0; i < v->nuses; i++)
		if (fp8_is_op(v->uses[i].node, "MatMul"))
			return 1;
	return 0;
}

/* An FP8 DequantizeLinear feeds v, through the layout, Cast, scale
 * (Mul/Div by a scalar) and data-moving nodes the later rewrites look
 * through. */
static int fp8_fed(qir_value *v)
{
	qir_node *p = v ? v->producer : NULL;
	double c;
	int hops;

	for (hops = 0; p && hops < FP8_MAX_HOPS; hops++) {
		int t = fp8_is_dq(p) ? qir_value_elem_type(p->inputs[0]) : 0;
		int k = 0;

		if (t == QIR_FLOAT8E4M3FN || t == QIR_FLOAT8E5M2)
			return 1;
		if ((fp8_is_op(p, "Mul") || fp8_is_op(p, "Div")) &&
		    p->ninputs == 2 && !fp8_scalar(p->inputs[0], &c))
			k = 1;
		if (!(fp8_attn_is_layout(p) || fp8_is_op(p, "Cast") ||
		      fp8_is_op(p, "Mul") || fp8_is_op(p, "Div") ||
		      fp8_is_op(p, "Expand") || fp8_is_op(p, "Slice") ||
		      fp8_is_op(p, "Gather") || fp8_is_op(p, "Split") ||
		      fp8_is_op(p, "Concat")) ||
		    p->ninputs <= (size_t)k || !p->inputs[k])
			return 0;
		p = p->inputs[k]->producer;
	}
	return 0;
}

/* In a model that carries FP8 quantization, a block whose Q, K or V has
 * no FP8 quantizer cannot become fusible: its Softmax Q/DQ would only
 * cost accuracy. NULL when the block's inputs are all quantized (or it
 * is not a block), else which one is not. A model with no FP8 at all is
 * left to the rule of fp8-mha's pipeline (refused without calibration);
 * fp8-softmax-qdq run alone on it still measures the Softmax alone. */
static const char *unquantized_input(int fp8_anywhere, qir_node *sm)
{
	qir_node *b1 = fp8_attn_bmm1(sm), *b2 = fp8_attn_bmm2(sm);

	if (!fp8_anywhere || !b1 || !b2 || b1->ninputs < 2 ||
	    b2->ninputs < 2)
		return NULL;
	if (!fp8_fed(b1->inputs[0]))
		return "BMM1 input A (query)";
	if (!fp8_fed(b1->inputs[1]))
		return "BMM1 input B (key)";
	if (!fp8_fed(b2->inputs[1]))
		return "BMM2 input B (value)";
	return NULL;
}

/* The calibrated placement leaves an attention block whose head size
 * TensorRT does not fuse in float (its MatMuls and its Softmax). */
static int left_in_float(qir_node *sm)
{
	qir_node *b1 = fp8_attn_bmm1(sm), *b2 = fp8_attn_bmm2(sm);
	int64_t head = b1 && b2 ? fp8_attn_head_size(b1) : -1;

	return head >= 0 && !fp8_head_fusible(head);
}

static int one(struct fp8_cfg *cfg, const struct fp8_softmax_opts *o,
	       qir_node *sm, int fp8_anywhere)
{
	qir_value *out;
	qir_node *at;
	const char *what;
	char why[256];
	int dtype, rc;

	if (sm->ninputs < 1 || !sm->inputs[0] || sm->noutputs != 1 ||
	    !sm->outputs[0])
		return 0;
	out = after_casts(sm, &at);
	/* Not attention (a classifier's Softmax), or done before. */
	if (!any_matmul(out) || already_quantized(out))
		return 0;
	dtype = at != sm ? (int)qir_node_attr_int(at, "to", 0) :
		qir_value_elem_type(out);
	if (!dtype)
		dtype = fp8_float_type(sm->inputs[0], 16);
	if (!fp8_all_users_are(out, "MatMul", why, sizeof(why))) {
		fp8_skip(cfg, sm, "Softmax Q/DQ skipped (consumer not "
			    "MatMul)", "%s", why);
		return 0;
	}
	if (o->calibrated && left_in_float(sm))
		return 0;	/* said so by fp8-calibrate-place */
	if (!fp8_is_float(dtype)) {
		fp8_skip(cfg, sm, "Softmax Q/DQ skipped", "type %s is not "
			    "FLOAT, FLOAT16 or BFLOAT16", dtype ?
			    qir_dtype_name(dtype) : "unknown");
		return 0;
	}
	if (!o->on)
		return 0;	/* fp8-mha's softmax_qdq = no: the report says so */
	if ((what = unquantized_input(fp8_anywhere, sm))) {
		fp8_skip(cfg, sm, "Softmax Q/DQ skipped (block cannot be "
			    "fusible)", "%s of its attention block carries no "
			    "FP8 quantizer, so the block cannot become "
			    "fusible; the Softmax stays float", what);
		return 0;
	}
	if (!FP8_MAY(cfg, sm, "fp8-softmax-qdq not run, softmax_qdq = no, "
			"or bisect", "Q/DQ (scale 1/448) after Softmax "
			"'%s'%s%s", sm->name, at != sm ? " after Cast " : "",
			at != sm ? at->name : ""))
		return 0;
	rc = insert(cfg, sm, at, out, dtype);
	if (rc > 0 && at != sm)
		qopt_stat_add(cfg->ctx, "Softmax Q/DQ after a Cast", 1);
	return rc;
}

int fp8_softmax_qdq(struct fp8_cfg *cfg,
		       const struct fp8_softmax_opts *o, int *changed)
{
	qir_node **nodes;
	size_t i, count;
	qir_error err = { 0 };
	int rc = 0;

	size_t blocks;
	int fp8 = 0;

	if (fp8_survey(cfg, &fp8, &blocks))
		return -1;
	if (qir_graph_nodes(cfg->m->graph, "", "Softmax", 1, &nodes, &count,
			    &err))
		return fp8_fail(cfg, NULL, &err);
	for (i = 0; i < count && rc >= 0; i++)
		if ((rc = one(cfg, o, nodes[i], fp8)) > 0)
			*changed = 1;
	free(nodes);
	return rc < 0 ? -1 : 0;
}

/*
 * passes/mxfp8/export.c - ModelOpt's MXFP8 export (docs/mxfp8.md):
 *  - weight, as torch exports it: trt::TRT_MXFP8DequantizeLinear(W
 *    float, Constant 1.0) - a mark: W is to be quantized;
 *  - weight, after ModelOpt's mxfp8_exporter: TRT_MXFP8DequantizeLinear
 *    (W_f8 FLOAT8E4M3FN, scale UINT8 E8M0 codes, axis, block_size=32,
 *    output_dtype);
 *  - activation: trt::TRT_MXFP8DynamicQuantize(x) -> (x_f8, scale) ->
 *    TRT_MXFP8DequantizeLinear.
 * real (trt) quantizes the marks and keeps the rest (typing what the
 * custom ops leave untyped); real (onnx) writes weights as
 * DequantizeLinear-24 with FLOAT8E8M0 scales (the same bytes); fake
 * turns everything into values and standard ops ONNX Runtime runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "act.h"
#include "weight.h"
#include "util.h"
#include "../support/fail.h"

static int is_mx(const qir_node *n, const char *op)
{
	return n && !strcmp(n->domain, MXFP8_DOMAIN) && !strcmp(n->op_type, op);
}

/* What mxfp8_export converts: the exporter's MXFP8 ops. */
static int mxfp8_op(const qir_node *n)
{
	return is_mx(n, MXFP8_DQ) || is_mx(n, MXFP8_DYNQ);
}

static int bad(struct mxfp8_cfg *cfg, const qir_node *n, const char *why)
{
	ps_fail(cfg->ctx, QOPT_EINVALID, "node '%s' (trt::%s): %s", n->name, n->op_type,
		   why);
	return -1;
}

/* Axis attribute in [0, rank), or -1. */
static int axis_of(const qir_node *n, int rank)
{
	int64_t a = qir_node_attr_int(n, "axis", -1);

	if (a < 0)
		a += rank;
	return a >= 0 && a < rank ? (int)a : -1;
}

static int bad_attr(struct mxfp8_cfg *cfg, const qir_node *n, const char *name,
		    const char *why)
{
	ps_fail(cfg->ctx, QOPT_EINVALID, "node '%s' (trt::%s): attribute '%s' %s",
		   n->name, n->op_type, name, why);
	return -1;
}

/* The integer attribute name of n (dflt when absent): 0 with *v set;
 * -1 (said) when present with another type, which qir_node_attr_int
 * would quietly read as absent. */
static int int_attr(struct mxfp8_cfg *cfg, const qir_node *n, const char *name,
		    int64_t dflt, int64_t *v)
{
	const qir_attr *a = qir_node_attr(n, name);

	if (a && a->type != QIR_ATTR_INT)
		return bad_attr(cfg, n, name, "is not an integer");
	*v = a ? a->i : dflt;
	return 0;
}

/* block_size: absent, or the format's 32. */
static int block_ok(struct mxfp8_cfg *cfg, const qir_node *n)
{
	char why[80];
	int64_t bs;

	if (int_attr(cfg, n, "block_size", MXFP8_BLOCK, &bs))
		return -1;
	if (bs == MXFP8_BLOCK)
		return 0;
	snprintf(why, sizeof(why), "= %lld: MXFP8 blocks are 32", (long long)bs);
	return bad_attr(cfg, n, "block_size", why);
}

/* output_dtype (dflt when absent) as a data type in *dt: -1 (said)
 * when it names none; a plain (int) would read 2^32 + 1 as FLOAT. */
static int dtype_attr(struct mxfp8_cfg *cfg, const qir_node *n, int dflt, int *dt)
{
	char why[80];
	int64_t v;

	if (int_attr(cfg, n, "output_dtype", dflt, &v))
		return -1;
	if (!qir_node_attr(n, "output_dtype") && dflt <= 0)
		return bad_attr(cfg, n, "output_dtype", "is not set and the "
				"input's type is not known");
	if (v <= 0 || v > 1000 || !qir_dtype_name((int)v)) {
		snprintf(why, sizeof(why), "= %lld is not a data type",
			 (long long)v);
		return bad_attr(cfg, n, "output_dtype", why);
	}
	*dt = (int)v;
	return 0;
}

/* An activation quantizer's (or its dequantizer's) axis: the last one
 * of x (TensorRT's kernels block the last axis only); -1 when x's rank
 * is unknown, which only the literal -1 survives. */
static int last_axis_ok(struct mxfp8_cfg *cfg, const qir_node *n,
			const qir_value *x)
{
	char why[120];
	int64_t a;

	if (int_attr(cfg, n, "axis", -1, &a))
		return -1;
	if (a == -1 || (x->rank > 0 && a == x->rank - 1))
		return 0;
	snprintf(why, sizeof(why), "= %lld is not the last axis of '%s'",
		 (long long)a, x->name);
	return bad_attr(cfg, n, "axis", why);
}

/* A dynamic quantizer's shape and attributes, before anything reads
 * them: one input, two outputs, block_size 32, the last axis, and
 * output_dtype (when set) FLOAT8E4M3FN, the one type the codes have. */
static int dynq_ok(struct mxfp8_cfg *cfg, qir_node *q)
{
	int od;

	if (q->ninputs != 1 || !q->inputs[0] || q->noutputs != 2 ||
	    !q->outputs[0] || !q->outputs[1])
		return bad(cfg, q, "needs one input and two outputs (data, "
			   "scale)");
	if (block_ok(cfg, q) || last_axis_ok(cfg, q, q->inputs[0]) ||
	    dtype_attr(cfg, q, QIR_FLOAT8E4M3FN, &od))
		return -1;
	if (od != QIR_FLOAT8E4M3FN) {
		char why[80];

		snprintf(why, sizeof(why), "= %d (%s): MXFP8 codes are "
			 "FLOAT8E4M3FN (17)", od, qir_dtype_name(od));
		return bad_attr(cfg, q, "output_dtype", why);
	}
	return 0;
}

/* A weight mark: W quantized by the pass. */
static int mark(struct mxfp8_cfg *cfg, qir_node *d, qir_tensor *w, int *changed)
{
	char why[200];
	int64_t ax;
	int k = axis_of(d, w->rank), od;
	qir_value *nv;

	if (int_attr(cfg, d, "axis", -1, &ax) ||
	    dtype_attr(cfg, d, w->dtype, &od))
		return -1;
	if (k < 0) {
		snprintf(why, sizeof(why), "axis %lld outside weight '%s' of "
			 "rank %d", (long long)qir_node_attr_int(d, "axis", -1),
			 d->inputs[0]->name, w->rank);
		return bad(cfg, d, why);
	}
	if (w->dims[k] % MXFP8_BLOCK) {
		snprintf(why, sizeof(why), "weight '%s': K = %lld (axis %d) is "
			 "not a multiple of 32", d->inputs[0]->name,
			 (long long)w->dims[k], k);
		return bad(cfg, d, why);
	}
	if (od != w->dtype) {
		snprintf(why, sizeof(why), "= %s differs from weight '%s' of "
			 "type %s", qir_dtype_name(od), d->inputs[0]->name,
			 qir_dtype_name(w->dtype));
		return bad_attr(cfg, d, "output_dtype", why);
	}
	if (mxfp8_opset(cfg))
		return -1;
	nv = mxfp8_weight_value(cfg, d->graph, w, k, d->inputs[0]->name);
	if (!nv || mxfp8_replace(cfg, d->outputs[0], nv))
		return -1;
	*changed = 1;
	qopt_stat_add(cfg->ctx, "weight marks quantized", 1);
	return 0;
}

static int check_scale(struct mxfp8_cfg *cfg, qir_node *d, qir_tensor *c,
		       qir_tensor *s, int k)
{
	int i;

	if (s->rank != c->rank)
		return bad(cfg, d, "scale rank differs from the codes'");
	for (i = 0; i < c->rank; i++)
		if (s->dims[i] != (i == k ? c->dims[i] / MXFP8_BLOCK : c->dims[i]) ||
		    (i == k && c->dims[i] % MXFP8_BLOCK))
			return bad(cfg, d, "scale shape is not the codes' with "
				   "K divided by 32");
	return 0;
}

/* An exported weight: FP8 codes and E8M0 codes as UINT8. */
static int exported(struct mxfp8_cfg *cfg, qir_node *d, qir_tensor *c,
		    qir_tensor *s, int *changed)
{
	qir_error err = { 0 };
	int64_t ax;
	int k = axis_of(d, c->rank), od;
	const void *cb, *sb;
	qir_tensor *t;
	qir_node *n;
	qir_value *nv, *sv = NULL;
	char *sname;
	size_t outer, kk, inner;
	int rc;

	if (int_attr(cfg, d, "axis", -1, &ax) ||
	    dtype_attr(cfg, d, QIR_FLOAT, &od))
		return -1;
	if (k < 0)
		return bad_attr(cfg, d, "axis", "is outside the weight's rank");
	if (check_scale(cfg, d, c, s, k))
		return -1;
	if (!mxfp8_is_float(od))
		return bad_attr(cfg, d, "output_dtype", "is not FLOAT, FLOAT16 "
				"or BFLOAT16");
	if (cfg->mode == MXFP8_REAL && cfg->format == MXFP8_TRT) {
		qopt_stat_add(cfg->ctx, "exported weights kept", 1);
		return 0;
	}
	if (!qopt_may_rewrite(cfg->ctx, "exported weight '%s' to the %s form",
			      d->inputs[0]->name, cfg->mode == MXFP8_FAKE ? "fake" :
			      "standard")) {
		qopt_info(cfg->ctx, "node '%s' kept: the rewrite gate said no",
			  d->name);
		return 0;
	}
	if (mxfp8_opset(cfg))
		return -1;
	cb = qir_tensor_data(c, &err);
	sb = cb ? qir_tensor_data(s, &err) : NULL;
	if (!sb && qir_tensor_numel(c))
		return bad(cfg, d, err.msg[0] ? err.msg : "out of memory");
	if (cfg->mode == MXFP8_FAKE) {
		t = qir_tensor_new(d->outputs[0]->name, od, c->rank, c->dims, &err);
		void *dst = t ? qir_tensor_mutable_data(t, &err) : NULL;

		if (!t || (t->nbytes && !dst)) {
			qir_tensor_free(t);
			return bad(cfg, d, "out of memory");
		}
		ps_axis_split(c->dims, c->rank, k, &outer, &kk, &inner);
		rc = qk_mxfp8_dequantize(cfg->qk, cb, sb, outer, kk, inner, od,
					 dst);
		if (rc) {
			qir_tensor_free(t);
			return bad(cfg, d, qk_strerror(rc));
		}
		nv = ps_add_initializer(d->graph, t);
	} else {
		/* format = onnx: the same bytes as FLOAT8E8M0 */
		t = qir_tensor_new(d->inputs[1]->name, QIR_FLOAT8E8M0, s->rank,
				   s->dims, &err);
		void *dst = t ? qir_tensor_mutable_data(t, &err) : NULL;

		if (!t || (t->nbytes && !dst)) {
			qir_tensor_free(t);
			return bad(cfg, d, "out of memory");
		}
		if (t->nbytes)
			memcpy(dst, sb, t->nbytes);
		sv = ps_add_initializer(d->graph, t);
		n = sv ? mxfp8_node(d->graph, "DequantizeLinear", NULL, d->name,
				 d->inputs[0], sv) : NULL;
		nv = mxfp8_out(n, d->outputs[0]->name, od, d->outputs[0]);
		if (!nv || qir_node_set_attr_int(n, "axis", k) ||
		    qir_node_set_attr_int(n, "block_size", MXFP8_BLOCK) ||
		    qir_node_set_attr_int(n, "output_dtype", od))
			nv = NULL;
	}
	sname = cfg->mode == MXFP8_REAL ? strdup(d->inputs[1]->name) : NULL;
	if (!nv || mxfp8_replace(cfg, d->outputs[0], nv)) {
		free(sname);
		return nv ? -1 : bad(cfg, d, "out of memory");
	}
	/* The E8M0 scale takes the UINT8 one's name once that is gone. */
	if (sname && strcmp(sv->name, sname) &&
	    qir_value_rename(sv, sname, &err) < 0)
		qopt_info(cfg->ctx, "scale '%s' is now named '%s': %s", sname,
			  sv->name, err.msg);
	free(sname);
	*changed = 1;
	qopt_stat_add(cfg->ctx, "exported weights converted", 1);
	return 0;
}

/* Types the outputs the custom ops leave untyped (real mode). */
static int type_pair(qir_node *q, qir_node *d, qir_value *x, int od)
{
	qir_value *x8 = q->outputs[0], *sc = q->outputs[1];

	if (x->rank < 1 || x->dims[x->rank - 1].value < 0)
		return 0;
	if (x8->dtype == QIR_UNDEFINED &&
	    qir_value_copy_shape(x8, x, QIR_FLOAT8E4M3FN, NULL))
		return -1;
	if (sc->dtype == QIR_UNDEFINED) {
		if (qir_value_copy_shape(sc, x, QIR_UINT8, NULL))
			return -1;
		sc->dims[sc->rank - 1].value /= MXFP8_BLOCK;
	}
	if (d->outputs[0]->dtype == QIR_UNDEFINED &&
	    qir_value_copy_shape(d->outputs[0], x, od, NULL))
		return -1;
	return 0;
}

/* An activation pair DynamicQuantize -> DequantizeLinear. */
static int pair(struct mxfp8_cfg *cfg, qir_node *d, qir_node *q, int *changed)
{
	qir_value *x, *y;
	int od, ax;
	char buf[200];
	const char *why;

	/* (mxfp8_export checked every quantizer with dynq_ok) */
	x = q->inputs[0];
	if (d->inputs[0] != q->outputs[0] || d->inputs[1] != q->outputs[1])
		return bad(cfg, d, "does not read both outputs of its "
			   "TRT_MXFP8DynamicQuantize (data, scale)");
	if (last_axis_ok(cfg, d, x) ||
	    dtype_attr(cfg, d, qir_value_elem_type(x), &od))
		return -1;
	if (!mxfp8_is_float(od))
		return bad_attr(cfg, d, "output_dtype", "is not FLOAT, FLOAT16 "
				"or BFLOAT16");
	if (cfg->mode == MXFP8_REAL) {
		if (type_pair(q, d, x, od)) {
			ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
			return -1;
		}
		qopt_stat_add(cfg->ctx, "activation quantizers kept", 1);
		return 0;
	}
	ax = x->rank > 0 ? axis_of(q, x->rank) : -1;
	if ((why = mxfp8_act_check(x, -1, buf, sizeof(buf))))
		snprintf(buf, sizeof(buf), "input '%s': %s: no fake form",
			 x->name, why);
	else if (ax != x->rank - 1)
		snprintf(buf, sizeof(buf), "axis %lld is not the last one: no "
			 "fake form", (long long)qir_node_attr_int(q, "axis", -1));
	if (why || ax != x->rank - 1)
		return bad(cfg, q, buf);
	if (q->outputs[0]->nuses != 1 || q->outputs[1]->nuses != 1 ||
	    q->outputs[0]->is_output || q->outputs[1]->is_output)
		return bad(cfg, q, "its outputs are read by more than the "
			   "TRT_MXFP8DequantizeLinear: no fake form");
	if (!qopt_may_rewrite(cfg->ctx, "activation pair '%s' to the fake "
			      "form", q->name)) {
		qopt_info(cfg->ctx, "node '%s' kept: the rewrite gate said no",
			  q->name);
		return 0;
	}
	if (mxfp8_opset(cfg))
		return -1;
	y = mxfp8_fake_chain(cfg, x, x->dims[x->rank - 1].value, od);
	if (!y || mxfp8_replace(cfg, d->outputs[0], y))
		return -1;
	*changed = 1;
	qopt_stat_add(cfg->ctx, "activation quantizers converted", 1);
	return 0;
}

/* Types the custom ops' outputs where their inputs' types are known,
 * then lets inference carry the types on; again while that helps (a
 * pair's input is often computed from an earlier pair's output). The
 * custom ops have no inference rules of their own. */
static int type_all(struct mxfp8_cfg *cfg, const struct mxfp8_nodes *l,
		    int *changed)
{
	qir_error err = { 0 };
	size_t round, i, typed = 0, before;

	for (round = 0; round <= l->n; round++) {
		before = typed;
		typed = 0;
		for (i = 0; i < l->n; i++) {
			qir_node *d = l->v[i], *q;
			qir_value *a, *o;
			qir_tensor *c;
			int od;

			if (!is_mx(d, MXFP8_DQ) || d->ninputs < 2 || !d->inputs[0] ||
			    d->noutputs != 1 || !(o = d->outputs[0]))
				continue;
			a = d->inputs[0];
			q = a->producer;
			c = qir_value_const(a);
			if (is_mx(q, MXFP8_DYNQ) && q->ninputs >= 1 && q->inputs[0] &&
			    q->noutputs == 2 && q->outputs[0] && q->outputs[1] &&
			    q->inputs[0]->rank > 0) {
				od = (int)qir_node_attr_int(d, "output_dtype",
					qir_value_elem_type(q->inputs[0]));
				if (mxfp8_is_float(od) &&
				    type_pair(q, d, q->inputs[0], od))
					return -1;
			} else if (c && o->dtype == QIR_UNDEFINED) {
				od = (int)qir_node_attr_int(d, "output_dtype",
							    c->dtype);
				if (mxfp8_is_float(od) && qir_value_set_type(o, od,
						c->rank, c->dims, &err))
					return -1;
			}
			if (o->dtype != QIR_UNDEFINED && !round)
				*changed = 1;	/* (said once) */
			typed += o->dtype != QIR_UNDEFINED;
		}
		if (typed == before && round)
			break;
		if (qir_model_infer(cfg->m, NULL, &err) < 0)
			return -1;
	}
	return 0;
}

/* A mark's scale: one element, 1.0 (the pass ignores it, so any other
 * value would be dropped from the weight). */
static int mark_scale_one(qir_tensor *s)
{
	qir_error err = { 0 };
	const void *p = qir_tensor_numel(s) == 1 ? qir_tensor_data(s, &err) :
			NULL;

	if (!p)
		return 0;
	if (s->dtype == QIR_FLOAT)
		return *(const float *)p == 1.0f;
	return (s->dtype == QIR_FLOAT16 ? qk_f16_to_f32(*(const uint16_t *)p) :
		qk_bf16_to_f32(*(const uint16_t *)p)) == 1.0f;
}

/* Ops torch puts between a weight's dequantizer and its layer; they
 * keep the element type. */
static int layout_op(const qir_node *n)
{
	static const char *const ops[] = { "Transpose", "Reshape", "Identity",
					   "Squeeze", "Unsqueeze", "Flatten" };
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (qir_node_is(n, ops[i]))
			return 1;
	return 0;
}

/* A MatMul/Gemm reading v (through layout ops, depth levels at most)
 * whose other inputs have another known float type, or NULL; *o is
 * that input. */
static qir_node *clash(qir_value *v, int dt, int depth,
		       qir_value **o)
{
	size_t i, j;

	for (i = 0; i < v->nuses; i++) {
		qir_node *c = v->uses[i].node;
		qir_node *r;

		if (layout_op(c) && v->uses[i].index == 0 && depth > 0 &&
		    c->noutputs && c->outputs[0] &&
		    (r = clash(c->outputs[0], dt, depth - 1, o)))
			return r;
		if (!qir_node_is(c, "MatMul") && !qir_node_is(c, "Gemm"))
			continue;
		for (j = 0; j < c->ninputs && j < 3; j++) {
			qir_value *x = c->inputs[j];
			int xt = x ? qir_value_elem_type(x) : QIR_UNDEFINED;

			if (xt != QIR_UNDEFINED && xt != dt && mxfp8_is_float(xt)) {
				*o = x;
				return c;
			}
		}
	}
	return NULL;
}

/* The export's types agree: each dequantizer's output_dtype is the
 * type of the layer reading it (a FLOAT16 weight under a FLOAT MatMul
 * is a model ONNX Runtime refuses, and a fake form of it too). */
static int types_agree(struct mxfp8_cfg *cfg, const struct mxfp8_nodes *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		qir_node *d = l->v[i], *c;
		qir_value *o = NULL;
		char why[300];
		int dt;

		if (!is_mx(d, MXFP8_DQ) || d->noutputs != 1 || !d->outputs[0])
			continue;
		dt = qir_value_elem_type(d->outputs[0]);
		if (!mxfp8_is_float(dt) || !(c = clash(d->outputs[0], dt, 8, &o)))
			continue;
		snprintf(why, sizeof(why), "gives %s, but %s '%s' reading it "
			 "has %s input '%s': the export is mistyped",
			 qir_dtype_name(dt), c->op_type, c->name,
			 qir_dtype_name(qir_value_elem_type(o)), o->name);
		return bad_attr(cfg, d, "output_dtype", why);
	}
	return 0;
}

static int one_dq(struct mxfp8_cfg *cfg, qir_node *d, int *changed)
{
	qir_value *a, *b;
	qir_tensor *c, *s;

	if (d->ninputs != 2 || !(a = d->inputs[0]) || !(b = d->inputs[1]) ||
	    d->noutputs != 1 || !d->outputs[0])
		return bad(cfg, d, "needs two inputs (data, scale) and one "
			   "output");
	if (block_ok(cfg, d))
		return -1;
	if (is_mx(a->producer, MXFP8_DYNQ))
		return pair(cfg, d, a->producer, changed);
	c = qir_value_const(a);
	s = qir_value_const(b);
	if (c && mxfp8_is_float(c->dtype)) {
		if (!s || !mxfp8_is_float(s->dtype))
			return bad(cfg, d, "a float weight with a scale that is "
				   "not a float constant");
		if (!mark_scale_one(s))
			return bad(cfg, d, "a weight mark's scale is not the "
				   "scalar 1.0 torch's export writes (a "
				   "pre-scaled weight is not a mark)");
		if (!qopt_may_rewrite(cfg->ctx, "quantize marked weight '%s' "
				      "to MXFP8", a->name)) {
			qopt_info(cfg->ctx, "node '%s' kept: the rewrite gate "
				  "said no", d->name);
			return 0;
		}
		return mark(cfg, d, c, changed);
	}
	if (c && c->dtype == QIR_FLOAT8E4M3FN && s &&
	    (s->dtype == QIR_UINT8 || s->dtype == QIR_FLOAT8E8M0))
		return exported(cfg, d, c, s, changed);
	return bad(cfg, d, "input 0 is neither a constant weight (float, or "
		   "FLOAT8E4M3FN with UINT8 scales) nor the output of "
		   "TRT_MXFP8DynamicQuantize");
}

static int leftover_dynq(qir_graph *g, void *arg)
{
	qir_node *n;

	qir_graph_for_each_node(g, n) {
		qir_value *o = n->noutputs ? n->outputs[0] : NULL;
		size_t i;
		int dq = 0;

		if (!is_mx(n, MXFP8_DYNQ) || *(qir_node **)arg)
			continue;
		/* One a dequantizer reads was kept on purpose (the gate). */
		for (i = 0; o && i < o->nuses; i++)
			dq |= is_mx(o->uses[i].node, MXFP8_DQ);
		if (!dq)
			*(qir_node **)arg = n;
	}
	return 0;
}

static int any_trt(qir_graph *g, void *arg)
{
	qir_node *n;

	qir_graph_for_each_node(g, n)
		if (!strcmp(n->domain, MXFP8_DOMAIN))
			*(int *)arg = 1;
	return 0;
}

int mxfp8_export(struct mxfp8_cfg *cfg, int *found, int *changed)
{
	struct mxfp8_nodes l = { mxfp8_op, NULL, 0, 0 };
	size_t i;
	int rc = 0, left = 0;

	*found = 0;
	if (qir_graph_walk(cfg->m->graph, mxfp8_collect, &l)) {
		free(l.v);
		ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
		return -1;
	}
	*found = (int)l.n;
	for (i = 0; i < l.n && !rc; i++)
		if (is_mx(l.v[i], MXFP8_DYNQ))
			rc = dynq_ok(cfg, l.v[i]);
	if (rc) {
		free(l.v);
		return -1;
	}
	if (l.n && type_all(cfg, &l, changed)) {
		free(l.v);
		ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
		return -1;
	}
	rc = types_agree(cfg, &l);
	for (i = 0; i < l.n && !rc; i++)
		if (is_mx(l.v[i], MXFP8_DQ))
			rc = one_dq(cfg, l.v[i], changed);
	/* A dynamic quantizer whose data no MXFP8 dequantizer reads. */
	if (!rc && cfg->mode == MXFP8_FAKE) {
		qir_node *q = NULL;

		(void)qir_graph_walk(cfg->m->graph, leftover_dynq, &q);
		if (q)
			rc = bad(cfg, q, "not followed by "
				 "TRT_MXFP8DequantizeLinear: no fake form");
	}
	free(l.v);
	if (rc)
		return -1;
	if (l.n)
		qopt_info(cfg->ctx, "MXFP8 export: %zu TensorRT MXFP8 node%s",
			  l.n, l.n == 1 ? "" : "s");
	if (cfg->mode == MXFP8_FAKE && l.n) {
		(void)qir_graph_walk(cfg->m->graph, any_trt, &left);
		if (!left && qir_model_opset(cfg->m, MXFP8_DOMAIN) > 0)
			(void)qir_model_remove_opset(cfg->m, MXFP8_DOMAIN);
	}
	return 0;
}

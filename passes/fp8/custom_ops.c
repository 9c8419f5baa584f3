/*
 * passes/fp8/custom_ops.c - rewrite 1: TensorRT's custom FP8 Q/DQ
 * (trt::TRT_FP8QuantizeLinear / TRT_FP8DequantizeLinear: two inputs, no
 * zero point, per-tensor scale) become standard QuantizeLinear /
 * DequantizeLinear in the default domain with a FLOAT8E4M3FN zero point
 * shaped like the scale and saturate = 1, at opset >= 19. The custom
 * ops have no shape inference, so afterwards every Q/DQ output is typed
 * from its input (fp8_type_qdq).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp8.h"

/* The scale's shape, from its constant (folded when computed, e.g.
 * Div(amax, 448)) or its declared type. */
static int scale_shape(qir_value *s, int *rank, int64_t *dims)
{
	int owned, i, rc = 0;
	qir_tensor *t = fp8_const(s, &owned);

	if (t) {
		if (t->rank > 8) {
			rc = -1;
		} else {
			*rank = t->rank;
			for (i = 0; i < t->rank; i++)
				dims[i] = t->dims[i];
		}
		if (owned)
			qir_tensor_free(t);
		return rc;
	}
	if (s->rank < 0 || s->rank > 8)
		return -1;
	*rank = s->rank;
	for (i = 0; i < s->rank; i++)
		if ((dims[i] = s->dims[i].value) < 0)
			return -1;
	return 0;
}

static const char *why_not(qir_node *n, int kind, int *rank, int64_t *dims)
{
	static char why[200];
	int st, xt;
	int64_t numel = 1;
	int i;

	if (n->ninputs != 2 || !n->inputs[0] || !n->inputs[1] ||
	    n->noutputs != 1 || !n->outputs[0])
		return "not two inputs and one output";
	st = fp8_float_type(n->inputs[1], FP8_MAX_HOPS);
	if (n->nattrs) {
		snprintf(why, sizeof(why), "unknown attribute '%s'",
			 n->attrs[0].name);
		return why;
	}
	if (!fp8_is_float(st))
		return "scale is not FLOAT, FLOAT16 or BFLOAT16";
	if (scale_shape(n->inputs[1], rank, dims))
		return "scale shape unknown";
	for (i = 0; i < *rank; i++)
		numel *= dims[i];
	if (numel != 1)
		return "scale is not per-tensor (the custom op has no axis)";
	xt = qir_value_elem_type(n->inputs[0]);
	if (kind == FP8_CUSTOM_Q && xt != QIR_UNDEFINED && xt != st) {
		snprintf(why, sizeof(why), "input is %s, scale %s (opset 19 "
			 "needs one type)", qir_dtype_name(xt) ?
			 qir_dtype_name(xt) : "?", qir_dtype_name(st));
		return why;
	}
	return NULL;
}

static int convert(struct fp8_cfg *cfg, qir_node *n, int kind)
{
	int64_t dims[8];
	int rank = 0, rc;
	const char *why = why_not(n, kind, &rank, dims);
	char hint[256];
	qir_value *zp;

	if (why) {
		fp8_skip(cfg, n, "custom ops skipped", "%s", why);
		return 0;
	}
	if (!qopt_may_rewrite(cfg->ctx, "convert %s '%s' to %s", n->op_type,
			      n->name, kind == FP8_CUSTOM_Q ? "QuantizeLinear" :
			      "DequantizeLinear"))
		return 0;
	rc = fp8_prepare_opset(cfg);
	if (rc)
		return rc < 0 ? -1 : 0;
	snprintf(hint, sizeof(hint), "%s_zero_point",
		 n->name[0] ? n->name : n->outputs[0]->name);
	zp = ps_add_initializer(n->graph, ps_zero_point(hint,
				QIR_FLOAT8E4M3FN, rank, dims));
	if (!zp || qir_node_add_input(n, zp) ||
	    qir_node_set_op(n, kind == FP8_CUSTOM_Q ? "QuantizeLinear" :
			    "DequantizeLinear", NULL) ||
	    (kind == FP8_CUSTOM_Q && qir_node_set_attr_int(n, "saturate", 1)))
		return fp8_fail(cfg, n, NULL);
	qopt_stat_add(cfg->ctx, kind == FP8_CUSTOM_Q ? "custom Q converted" :
		      "custom DQ converted", 1);
	return 1;
}

static int uses_domain(qir_graph *g, void *arg)
{
	const char *d = arg;
	qir_node *n;

	qir_graph_for_each_node(g, n)
		if (n->domain && !strcmp(n->domain, d))
			return 1;
	return 0;
}

static void drop_unused_import(struct fp8_cfg *cfg, const char *domain)
{
	if (qir_graph_walk(cfg->m->graph, uses_domain, (void *)domain))
		return;
	if (qir_model_remove_opset(cfg->m, domain) > 0) {
		qopt_info(cfg->ctx, "opset import '%s' removed: no node uses it",
			  domain);
		qopt_stat_add(cfg->ctx, "opset imports removed", 1);
	}
}

int fp8_convert_custom_ops(struct fp8_cfg *cfg,
			      const struct fp8_switch *o, int *changed)
{
	qir_node **nodes;
	size_t i, count;
	qir_error err = { 0 };
	int any = 0;

	if (qir_graph_nodes(cfg->m->graph, NULL, NULL, 1, &nodes, &count, &err))
		return fp8_fail(cfg, NULL, &err);
	for (i = 0; i < count; i++) {
		int kind = fp8_custom_kind(nodes[i]);
		int rc;

		if (kind == FP8_NOT_CUSTOM)
			continue;
		if (!o->on) {
			fp8_skip(cfg, nodes[i], "custom ops skipped",
				    "convert_custom_ops = no");
			continue;
		}
		rc = convert(cfg, nodes[i], kind);
		if (rc < 0) {
			free(nodes);
			return -1;
		}
		any |= rc;
	}
	free(nodes);
	if (any) {
		*changed = 1;
		drop_unused_import(cfg, "trt");
		drop_unused_import(cfg, "trt.plugins");
	}
	return 0;
}

/* ---- typing: every Q/DQ output gets its element type and its
 * input's shape ---- */

static int same_shape(const qir_value *a, const qir_value *b)
{
	int i;

	if (a->rank != b->rank)
		return 0;
	for (i = 0; i < a->rank; i++)
		if (a->dims[i].value != b->dims[i].value)
			return 0;
	return 1;
}

static int out_type(const qir_node *n)
{
	int t;

	if (fp8_is_q(n))
		return fp8_q_fp8_type(n);
	t = (int)qir_node_attr_int(n, "output_dtype", 0);
	/* A scale computed by Div(amax, 448) has no declared type. */
	return t ? t : fp8_float_type(n->inputs[1], FP8_MAX_HOPS);
}

/* One walk's state: the outputs typed so far in this run (each asks
 * the gate and counts once, however many walks retype it). */
struct typing {
	struct fp8_cfg *cfg;
	const qir_value **done;	/* owned */
	size_t ndone, cap;
	int again;		/* this walk changed a declaration */
};

static int typed_before(const struct typing *ty, const qir_value *v)
{
	size_t i;

	for (i = 0; i < ty->ndone; i++)
		if (ty->done[i] == v)
			return 1;
	return 0;
}

static int remember_typed(struct typing *ty, const qir_value *v)
{
	const qir_value **d;

	if (ty->ndone == ty->cap) {
		ty->cap = ty->cap ? 2 * ty->cap : 64;
		d = realloc(ty->done, ty->cap * sizeof(*d));
		if (!d)
			return -1;
		ty->done = d;
	}
	ty->done[ty->ndone++] = v;
	return 0;
}

static int type_graph(qir_graph *g, void *arg)
{
	struct typing *ty = arg;
	struct fp8_cfg *cfg = ty->cfg;
	qir_error err = { 0 };
	qir_node *n;

	qir_graph_for_each_node(g, n) {
		qir_value *o, *x;
		int t, again;

		if (!fp8_is_q(n) && !fp8_is_dq(n))
			continue;
		o = n->outputs[0];
		x = n->inputs[0];
		t = out_type(n);
		/* a type only inferred is not in the file: declare it */
		if (!t || (o->dtype == t && same_shape(o, x) &&
			   !qir_value_type_inferred(o)))
			continue;
		/* Keep a known shape rather than erase it with an unknown. */
		if (x->rank < 0 && o->dtype == t && !qir_value_type_inferred(o))
			continue;
		again = typed_before(ty, o);
		if (!again && !qopt_may_rewrite(cfg->ctx, "type '%s' as %s "
						"from '%s'", o->name,
						qir_dtype_name(t), x->name))
			continue;
		if (qir_value_copy_shape(o, x, t, &err)) {
			fp8_fail(cfg, n, &err);
			return 1;
		}
		ty->again = 1;
		if (again)
			continue;
		if (remember_typed(ty, o)) {
			fp8_fail(cfg, n, NULL);
			return 1;
		}
		qopt_stat_add(cfg->ctx, "Q/DQ outputs typed", 1);
		cfg->typed = 1;
	}
	return 0;
}

/* A declaration changes what inference gives below it (an exporter's
 * symbolic dim on a DQ output, made static, makes every shape after it
 * static): the walk is repeated on fresh inference until it changes
 * nothing, so a second run finds nothing left to type. Each walk
 * settles at least the first Q/DQ still stale on every path. */
#define TYPE_WALKS 256

int fp8_type_qdq(struct fp8_cfg *cfg, int *changed)
{
	struct typing ty = { cfg, NULL, 0, 0, 0 };
	qir_error err = { 0 };
	int walk, rc = 0;

	/* Inputs before outputs, so a chain of Q/DQ passes shapes along. */
	if (qir_graph_toposort(cfg->m->graph, &err))
		return fp8_fail(cfg, NULL, &err);
	for (walk = 0; walk < TYPE_WALKS && !rc; walk++) {
		ty.again = 0;
		if (qir_graph_walk(cfg->m->graph, type_graph, &ty))
			rc = -1;
		else if (!ty.again)
			break;
		else if (qir_model_infer(cfg->m, NULL, &err) < 0)
			rc = fp8_fail(cfg, NULL, &err);
	}
	free(ty.done);
	if (cfg->typed)
		*changed = 1;
	return rc;
}

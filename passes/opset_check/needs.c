/*
 * needs.c - what opset and IR version a model needs, and why: element
 * types, Q/DQ features, ops newer than the declared opset. Facts from
 * the ONNX QuantizeLinear/DequantizeLinear changelog and the IR version
 * table (docs/numerics.md).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "opset_check.h"

/* Reasons past this many are logged at DEBUG (one summary line). */
#define OPSET_CHECK_REASONS_SHOWN 25

struct scan {
	qopt_ctx *ctx;
	int declared;
	struct opset_check_needs *out;
	int hidden;
};

static void reason(struct scan *s, int opset, int ir, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void reason(struct scan *s, int opset, int ir, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (opset > s->out->opset)
		s->out->opset = opset;
	if (ir > s->out->ir)
		s->out->ir = ir;
	s->out->reasons++;
	if (s->out->reasons <= OPSET_CHECK_REASONS_SHOWN) {
		if (opset)
			qopt_info(s->ctx, "needs opset %d: %s", opset, msg);
		else
			qopt_info(s->ctx, "needs IR version %d: %s", ir, msg);
	} else {
		s->hidden++;
		qopt_debug(s->ctx, "needs opset %d / IR %d: %s", opset, ir,
			   msg);
	}
}

/* Opset in which the default domain first accepts tensors of type dt. */
static int dtype_opset(int dt)
{
	switch (dt) {
	case QIR_FLOAT8E4M3FN: case QIR_FLOAT8E4M3FNUZ:
	case QIR_FLOAT8E5M2: case QIR_FLOAT8E5M2FNUZ:
		return 19;
	case QIR_UINT4: case QIR_INT4:
		return 21;
	case QIR_FLOAT4E2M1:
		return 23;
	case QIR_FLOAT8E8M0:
		return 24;
	case QIR_UINT2: case QIR_INT2:
		return 25;
	default:
		return 0;
	}
}

static void check_type(struct scan *s, int dt, const char *what,
		       const char *name)
{
	int op = dtype_opset(dt);
	int ir = qir_dtype_min_ir_version(dt);
	const char *tn = qir_dtype_name(dt);

	if (op || ir > 3)
		reason(s, op, ir, "%s '%s' is %s (IR >= %d)", what, name,
		       tn ? tn : "?", ir);
}

static void check_value(struct scan *s, qir_value *v, const char *what)
{
	if (!v)
		return;
	if (v->init)
		check_type(s, v->init->dtype, "initializer", v->name);
	else if (v->dtype)
		check_type(s, v->dtype, what, v->name);
}

static void check_qdq(struct scan *s, qir_node *n)
{
	int is_q = !strcmp(n->op_type, "QuantizeLinear");
	const char *lbl = QIR_NODE_LABEL(n);
	qir_value *x = n->ninputs > 0 ? n->inputs[0] : NULL;
	qir_value *sc = n->ninputs > 1 ? n->inputs[1] : NULL;
	qir_value *zp = n->ninputs > 2 ? n->inputs[2] : NULL;
	int sdt = qir_value_elem_type(sc), xdt = qir_value_elem_type(x), zdt = qir_value_elem_type(zp);

	if (sdt == QIR_FLOAT16 || sdt == QIR_BFLOAT16)
		reason(s, 19, 0, "%s has a %s scale '%s'", lbl,
		       qir_dtype_name(sdt), sc->name);
	if (sdt == QIR_FLOAT8E8M0)
		reason(s, 24, 0, "%s has a FLOAT8E8M0 scale '%s'", lbl,
		       sc->name);
	if (zdt == QIR_INT16 || zdt == QIR_UINT16 ||
	    (!is_q && (xdt == QIR_INT16 || xdt == QIR_UINT16)))
		reason(s, 21, 0, "%s quantizes to 16-bit integers", lbl);
	if (qir_node_attr(n, "block_size") &&
	    qir_node_attr_int(n, "block_size", 0) != 0)
		reason(s, 21, 0, "%s uses block_size=%lld", lbl,
		       (long long)qir_node_attr_int(n, "block_size", 0));
	if (qir_node_attr(n, "output_dtype"))
		reason(s, is_q ? 21 : 23, 0, "%s sets output_dtype", lbl);
	if (is_q && qir_node_attr(n, "precision"))
		reason(s, 23, 0, "%s sets precision", lbl);
	if (is_q && xdt && sdt && xdt != sdt)
		reason(s, 23, 0, "%s: input '%s' (%s) and scale (%s) "
		       "differ in type", lbl, x->name, qir_dtype_name(xdt),
		       qir_dtype_name(sdt));
}

static void check_node(struct scan *s, qir_node *n)
{
	int64_t first;
	size_t i;

	for (i = 0; i < n->noutputs; i++)
		check_value(s, n->outputs[i], "value");
	for (i = 0; i < n->nattrs; i++) {
		const qir_attr *a = &n->attrs[i];
		size_t k;

		if (a->type == QIR_ATTR_TENSOR && a->t)
			check_type(s, a->t->dtype, "attribute tensor",
				   a->name);
		for (k = 0; a->type == QIR_ATTR_TENSORS && k < a->n; k++)
			check_type(s, a->tensors[k]->dtype,
				   "attribute tensor", a->name);
	}
	if (!qir_domain_is_default(n->domain))
		return;
	if (!strcmp(n->op_type, "Cast") || !strcmp(n->op_type, "CastLike")) {
		int to = qir_node_attr_dtype(n, "to");

		if (dtype_opset(to))
			reason(s, dtype_opset(to), qir_dtype_min_ir_version(to),
			       "%s casts to %s", QIR_NODE_LABEL(n),
			       qir_dtype_name(to));
	}
	if (!strcmp(n->op_type, "QuantizeLinear") ||
	    !strcmp(n->op_type, "DequantizeLinear"))
		check_qdq(s, n);
	first = qir_op_first_opset(n->op_type);
	if (!first) {
		qopt_warn(s->ctx, "%s: %s is not an ai.onnx operator known "
			  "up to opset %d", QIR_NODE_LABEL(n), n->op_type,
			  OPSET_CHECK_MAX_OPSET);
		return;
	}
	if (first > s->declared)
		reason(s, (int)first, 0, "%s exists only from opset %lld",
		       QIR_NODE_LABEL(n), (long long)first);
}

static int scan_graph(qir_graph *g, void *arg)
{
	struct scan *s = arg;
	qir_node *n;
	size_t i;

	for (i = 0; i < g->ninputs; i++)
		check_value(s, g->inputs[i], "graph input");
	for (i = 0; i < g->ninits; i++)
		if (!g->inits[i]->is_input)
			check_value(s, g->inits[i], "initializer");
	qir_graph_for_each_node(g, n)
		check_node(s, n);
	return 0;
}

/* TensorRT custom ops and the standard form that replaces each. */
static const struct {
	const char *op, *standard;
} trt_ops[] = {
	{ "TRT_FP8QuantizeLinear", "QuantizeLinear (opset 19) with a "
	  "FLOAT8E4M3FN zero point of 0 and saturate=1" },
	{ "TRT_FP8DequantizeLinear", "DequantizeLinear (opset 19) with a "
	  "FLOAT8E4M3FN zero point of 0" },
	{ "TRT_FP4QDQ", "QuantizeLinear+DequantizeLinear to FLOAT4E2M1, "
	  "block_size=16, with FLOAT8E4M3FN block scales from a second "
	  "DequantizeLinear (opset 23), when the input is constant" },
	{ "TRT_FP4DynamicQuantize", "none: dynamic block scales have no "
	  "standard ONNX form" },
	{ NULL, NULL }
};

struct dom_scan {
	qopt_ctx *ctx;
	int counts[4];
	const char *seen[32];
	int nseen;
};

static int scan_domains(qir_graph *g, void *arg)
{
	struct dom_scan *d = arg;
	qir_node *n;
	int i;

	qir_graph_for_each_node(g, n) {
		for (i = 0; trt_ops[i].op; i++)
			if (!strcmp(n->op_type, trt_ops[i].op))
				d->counts[i]++;
		if (qir_domain_is_default(n->domain))
			continue;
		for (i = 0; i < d->nseen; i++)
			if (!strcmp(d->seen[i], n->domain))
				break;
		if (i == d->nseen && d->nseen < 32)
			d->seen[d->nseen++] = n->domain;
	}
	return 0;
}

static int standard_domain(const char *d)
{
	return !strcmp(d, "ai.onnx.ml") ||
	       !strcmp(d, "ai.onnx.preview.training");
}

static void report_domains(qopt_ctx *ctx, qir_model *m,
			   struct opset_check_needs *out)
{
	struct dom_scan d = { 0 };
	size_t i;
	int k;

	d.ctx = ctx;
	for (i = 0; i < m->nopsets; i++) {
		const qir_opset *o = &m->opsets[i];

		if (qir_domain_is_default(o->domain))
			continue;
		qopt_info(ctx, "%s domain '%s' version %lld imported",
			  standard_domain(o->domain) ? "standard" :
			  "non-standard", o->domain, (long long)o->version);
	}
	qir_graph_walk(m->graph, scan_domains, &d);
	for (k = 0; k < d.nseen; k++)
		if (!standard_domain(d.seen[k]))
			qopt_info(ctx, "nodes in non-standard domain '%s'",
				  d.seen[k]);
	for (k = 0; trt_ops[k].op; k++) {
		if (!d.counts[k])
			continue;
		out->trt_ops += d.counts[k];
		qopt_info(ctx, "TensorRT custom op %s x%d; standard form: %s",
			  trt_ops[k].op, d.counts[k], trt_ops[k].standard);
	}
	qopt_stat_add(ctx, "TensorRT custom ops", out->trt_ops);
}

void opset_check_scan_needs(qopt_ctx *ctx, qir_model *m, int declared,
		   struct opset_check_needs *out)
{
	struct scan s = { 0 };

	memset(out, 0, sizeof(*out));
	s.ctx = ctx;
	s.declared = declared;
	s.out = out;
	qir_graph_walk(m->graph, scan_graph, &s);
	if (s.hidden)
		qopt_info(ctx, "... and %d more reasons (shown with -v)",
			  s.hidden);
	report_domains(ctx, m, out);
}

/*
 * ir/transforms/opset_rewrite.c - small graph-building helpers for the opset
 * upgrade rules (opset_rules.c), written against the public IR API.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qopt/kernels.h>
#include "transforms/opset_upgrade.h"

const char *ir_up_label(const qir_node *n)
{
	static __thread char buf[256];

	return qir_node_label(n, buf, sizeof(buf));
}

int ir_up_fail(struct ir_up *u, const qir_node *n, int step,
		 const char *fmt, ...)
{
	char why[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return qir_fail(u->err, QIR_EUNSUPPORTED,
			"cannot upgrade %s across %s-%d: %s",
			ir_up_label(n), n->op_type, step, why);
}

qir_value *ir_up_const_i64(struct ir_up *u, qir_graph *g,
			     const char *hint, const int64_t *v,
			     size_t count, int scalar)
{
	int64_t dims[1] = { (int64_t)count };
	qir_error err = { 0 };
	qir_tensor *t;
	qir_value *val;

	t = qir_tensor_new(hint, QIR_INT64, scalar ? 0 : 1, dims, &err);
	if (!t) {
		qir_fail(u->err, QIR_ENOMEM, "constant '%s': %s", hint,
			 err.msg);
		return NULL;
	}
	if (count) {
		void *d = qir_tensor_mutable_data(t, &err);

		if (!d) {
			qir_tensor_free(t);
			qir_fail(u->err, QIR_ENOMEM, "constant '%s': %s",
				 hint, err.msg);
			return NULL;
		}
		memcpy(d, v, count * sizeof(*v));
	}
	val = qir_graph_add_initializer(g, t);
	if (!val)
		qir_fail(u->err, QIR_ENOMEM, "cannot add constant '%s'", hint);
	return val;
}

static int put_scalar(void *d, int dtype, double v)
{
	switch (dtype) {
	case QIR_FLOAT: { float f = (float)v; memcpy(d, &f, 4); return 0; }
	case QIR_DOUBLE: memcpy(d, &v, 8); return 0;
	case QIR_FLOAT16: { uint16_t h = qk_f32_to_f16((float)v);
		memcpy(d, &h, 2); return 0; }
	case QIR_BFLOAT16: { uint16_t h = qk_f32_to_bf16((float)v);
		memcpy(d, &h, 2); return 0; }
	case QIR_INT8: { int8_t x = (int8_t)v; memcpy(d, &x, 1); return 0; }
	case QIR_UINT8: { uint8_t x = (uint8_t)v; memcpy(d, &x, 1); return 0; }
	case QIR_INT16: { int16_t x = (int16_t)v; memcpy(d, &x, 2); return 0; }
	case QIR_UINT16: { uint16_t x = (uint16_t)v; memcpy(d, &x, 2);
		return 0; }
	case QIR_INT32: { int32_t x = (int32_t)v; memcpy(d, &x, 4); return 0; }
	case QIR_UINT32: { uint32_t x = (uint32_t)v; memcpy(d, &x, 4);
		return 0; }
	case QIR_INT64: { int64_t x = (int64_t)v; memcpy(d, &x, 8); return 0; }
	case QIR_UINT64: { uint64_t x = (uint64_t)v; memcpy(d, &x, 8);
		return 0; }
	default: return -1;
	}
}

qir_value *ir_up_const_scalar(struct ir_up *u, qir_graph *g,
				const char *hint, int dtype, double v)
{
	qir_error err = { 0 };
	qir_tensor *t;
	qir_value *val;
	void *d;

	t = qir_tensor_new(hint, dtype, 0, NULL, &err);
	if (!t) {
		qir_fail(u->err, QIR_ENOMEM, "constant '%s': %s", hint,
			 err.msg);
		return NULL;
	}
	d = qir_tensor_mutable_data(t, &err);
	if (!d || put_scalar(d, dtype, v) < 0) {
		qir_tensor_free(t);
		qir_fail(u->err, QIR_EUNSUPPORTED, "constant '%s' of type %s",
			 hint, qir_dtype_name(dtype) ? qir_dtype_name(dtype) :
			 "?");
		return NULL;
	}
	val = qir_graph_add_initializer(g, t);
	if (!val)
		qir_fail(u->err, QIR_ENOMEM, "cannot add constant '%s'", hint);
	return val;
}

/* Ops whose first output has the element type of their first input. */
static const char *const same_type_ops[] = {
	"Abs", "Add", "AveragePool", "BatchNormalization", "Ceil", "Clip",
	"Concat", "Conv", "ConvTranspose", "DepthToSpace", "Div", "Dropout",
	"Elu", "Exp", "Expand", "Flatten", "Floor", "Gather",
	"GatherElements", "GatherND", "Gemm", "GlobalAveragePool",
	"GlobalMaxPool", "HardSigmoid", "HardSwish", "Hardmax", "Identity",
	"InstanceNormalization", "LRN", "LeakyRelu", "Log", "LogSoftmax",
	"LpNormalization", "MatMul", "Max", "MaxPool", "Mean", "Min", "Mul",
	"Neg", "PRelu", "Pad", "Pow", "Reciprocal", "ReduceL1", "ReduceL2",
	"ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
	"ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare", "Relu",
	"Reshape", "Resize", "Selu", "Sigmoid", "Sign", "Slice", "Softmax",
	"Softplus", "Softsign", "SpaceToDepth", "Split", "Sqrt", "Squeeze",
	"Sub", "Sum", "Tanh", "Tile", "TopK", "Transpose", "Unsqueeze",
	"Upsample", "Sin", "Cos", "Tan", "Erf", "ThresholdedRelu",
	"LayerNormalization", "GroupNormalization", NULL
};

/* Ops whose inputs all share the output's element type. */
static const char *const all_same_ops[] = {
	"Add", "Sub", "Mul", "Div", "Max", "Min", "Sum", "Mean", "Concat",
	"MatMul", "Gemm", NULL
};

static int in_list(const char *const *l, const char *op)
{
	for (; *l; l++)
		if (!strcmp(*l, op))
			return 1;
	return 0;
}

static int infer(qir_value *v, int depth)
{
	qir_node *p;
	qir_tensor *t;
	size_t i;
	int dt;

	if (!v || depth > 64)
		return 0;
	if (v->dtype != QIR_UNDEFINED)
		return v->dtype;
	if ((t = qir_value_const(v)))
		return t->dtype;
	p = v->producer;
	if (!p || !ir_default_domain(p->domain) || !p->ninputs)
		return 0;
	if (!strcmp(p->op_type, "Cast"))
		return (int)qir_node_attr_int(p, "to", 0);
	if (v->producer_index != 0 || !in_list(same_type_ops, p->op_type))
		return 0;
	if ((dt = infer(p->inputs[0], depth + 1)))
		return dt;
	if (!in_list(all_same_ops, p->op_type))
		return 0;
	for (i = 1; i < p->ninputs; i++)
		if ((dt = infer(p->inputs[i], depth + 1)))
			return dt;
	return 0;
}

int ir_up_infer_dtype(qir_value *v)
{
	return infer(v, 0);
}

const qir_attr *ir_up_ints_attr(const qir_node *n, const char *name)
{
	const qir_attr *a = qir_node_attr(n, name);

	return a && a->type == QIR_ATTR_INTS ? a : NULL;
}

static int skipped(const char *name, const char *const *skip)
{
	for (; skip && *skip; skip++)
		if (!strcmp(*skip, name))
			return 1;
	return 0;
}

/* Checks that every attribute can be carried over (dry run). */
static int attrs_copyable(struct ir_up *u, const qir_node *n,
			  const char *const *skip)
{
	size_t i;

	for (i = 0; i < n->nattrs; i++) {
		const qir_attr *a = &n->attrs[i];

		if (skipped(a->name, skip))
			continue;
		if (a->ref_attr_name || a->type == QIR_ATTR_GRAPH ||
		    a->type == QIR_ATTR_GRAPHS ||
		    (a->type > QIR_ATTR_TENSOR && a->type != QIR_ATTR_FLOATS &&
		     a->type != QIR_ATTR_INTS)) {
			return qir_fail(u->err, QIR_EUNSUPPORTED,
					"%s: attribute '%s' cannot be carried "
					"over", ir_up_label(n), a->name);
		}
	}
	return 0;
}

/* A rewritten node keeps the original's name once the original is
 * gone (node names are how tools, and pass targets, find nodes). */
static void take_node_name(qir_node *nn, const char *name)
{
	struct ir_model_priv *mp = QIR_MPRIV(nn->graph->model);
	char *copy;

	if (!name[0] || !strcmp(nn->name, name) ||
	    ir_strmap_get(&mp->node_names, name))
		return;
	copy = strdup(name);
	if (!copy || ir_strmap_put(&mp->node_names, copy, nn) < 0) {
		free(copy);
		return;
	}
	if (ir_strmap_get(&mp->node_names, nn->name) == nn)
		ir_strmap_del(&mp->node_names, nn->name);
	free(nn->name);
	nn->name = copy;
}

/* Erases n, then gives heir (may be NULL) its name and repl[i] the
 * name of n's output i, i < k: the new values were created while n
 * still held those names. */
static int erase_keeping_names(struct ir_up *u, qir_node *n,
			       qir_node *heir, qir_value *const *repl,
			       size_t k)
{
	char **names = calloc(k ? k : 1, sizeof(*names));
	char *name = strdup(n->name);
	qir_error err = { 0 };
	size_t i;
	int rc = 0;

	if (!names || !name)
		goto oom;
	for (i = 0; i < k && i < n->noutputs; i++)
		if (n->outputs[i] && repl[i] &&
		    !(names[i] = strdup(n->outputs[i]->name)))
			goto oom;
	if (qir_node_erase(n, &err) < 0) {
		rc = qir_fail(u->err, err.code, "%s", err.msg);
		goto out;
	}
	for (i = 0; i < k; i++)
		if (names[i])
			qir_value_rename(repl[i], names[i], NULL);
	if (heir)
		take_node_name(heir, name);
	goto out;
oom:
	rc = qir_fail(u->err, QIR_ENOMEM, "%s: out of memory replacing the "
		      "node", ir_up_label(n));
out:
	for (i = 0; names && i < k; i++)
		free(names[i]);
	free(names);
	free(name);
	return rc;
}

static int take_names(struct ir_up *u, qir_node *n, qir_node *nn,
		      size_t nout)
{
	size_t k = nout < nn->noutputs ? nout : nn->noutputs;

	return erase_keeping_names(u, n, nn, nn->outputs, k);
}

int ir_up_rebuild(struct ir_up *u, qir_node **np, const char *op_type,
		    qir_value *const *inputs, size_t nin, size_t nout,
		    const char *const *skip)
{
	qir_node *n = *np, *nn;
	size_t i;

	if (attrs_copyable(u, n, skip) < 0)
		return -1;
	for (i = nout; i < n->noutputs; i++) {
		qir_value *o = n->outputs[i];

		if (o && (o->nuses || o->is_output)) {
			return qir_fail(u->err, QIR_EUNSUPPORTED,
					"%s: output '%s' is used but has no "
					"equivalent in %s-%d", ir_up_label(n),
					o->name, op_type, u->to);
		}
	}
	if (u->dry)
		return 0;
	nn = qir_node_new(n->graph, op_type, n->domain, n->name);
	if (!nn)
		goto oom;
	qir_node_move_before(nn, n);
	for (i = 0; i < nin; i++)
		if (qir_node_add_input(nn, inputs[i]) < 0)
			goto oom;
	for (i = 0; i < n->nattrs; i++)
		if (!skipped(n->attrs[i].name, skip) &&
		    qir_node_copy_attr(nn, &n->attrs[i], NULL) < 0)
			goto oom;
	for (i = 0; i < nout && i < n->noutputs; i++) {
		qir_value *o = n->outputs[i], *no;

		if (!o) {
			if (!qir_node_add_output(nn, NULL, "unused"))
				goto oom;
			continue;
		}
		no = qir_node_add_output(nn, NULL, o->name);
		if (!no)
			goto oom;
		if (o->dtype || o->rank >= 0) {
			int64_t *d = NULL;
			int r;

			if (o->rank > 0) {
				d = calloc((size_t)o->rank, sizeof(*d));
				if (!d)
					goto oom;
				for (r = 0; r < o->rank; r++)
					d[r] = o->dims[r].value;
			}
			qir_value_set_type(no, o->dtype, o->rank, d, NULL);
			free(d);
		}
		qir_value_replace_all_uses(o, no);
	}
	if (take_names(u, n, nn, nout) < 0)
		return -1;
	*np = nn;
	return 0;
oom:
	return qir_fail(u->err, QIR_ENOMEM,
			"%s: out of memory rebuilding the node",
			ir_up_label(n));
}

int ir_up_replace(struct ir_up *u, qir_node *n, qir_value *const *repl,
		    size_t k, qir_node *heir)
{
	size_t i;

	if (k > n->noutputs)
		return ir_up_fail(u, n, u->to, "too many outputs to replace");
	for (i = 0; i < k; i++) {
		qir_value *o = n->outputs[i];

		if (!o || !repl[i])
			continue;
		if (o->dtype && !repl[i]->dtype)
			qir_value_set_type(repl[i], o->dtype, -1, NULL, NULL);
		qir_value_replace_all_uses(o, repl[i]);
	}
	return erase_keeping_names(u, n, heir, repl, k);
}

void ir_up_drop_if_unused(qir_value *v)
{
	if (v && v->init && !v->nuses && !v->is_output && !v->is_input)
		qir_graph_remove_initializer(v->graph, v, NULL);
}

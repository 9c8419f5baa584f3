/*
 * core/calib/calib-hoist.c - a subgraph's tensor exposed to the main
 * graph of the probe model (calib-hoist.h). Only the probe, a copy the
 * calibration throws away, is changed: the model whose hash the file
 * carries was hashed before.
 *
 * Why these forms: an If's two branches must give outputs of one
 * element type, but their shapes may differ (ONNX If), so the branch
 * that does not hold v gives an empty tensor, which adds no element to
 * the range; a Loop's scan outputs stack what the body gives at every
 * iteration, so every iteration is measured (the body's tensor must
 * keep its shape from one iteration to the next, as ONNX Runtime's
 * stacking requires).
 */
#include <stdio.h>
#include <string.h>

#include "calib/calib-hoist.h"

/* Which attribute of parent holds g: "then_branch", "else_branch",
 * "body", ...; NULL when none does. */
static const char *holder(const qir_node *parent, const qir_graph *g)
{
	size_t i;

	for (i = 0; i < parent->nattrs; i++)
		if (parent->attrs[i].type == QIR_ATTR_GRAPH &&
		    parent->attrs[i].g == g)
			return parent->attrs[i].name;
	return NULL;
}

static qir_graph *branch(const qir_node *n, const char *name)
{
	const qir_attr *a = qir_node_attr(n, name);

	return a && a->type == QIR_ATTR_GRAPH ? a->g : NULL;
}

/* An Identity of v in v's graph, listed as that graph's last output. */
static qir_value *listed_copy(qir_value *v, int dtype, qir_error *err)
{
	qir_graph *g = v->graph;
	qir_node *id = qir_node_new(g, "Identity", NULL, "calib_hoist");
	qir_value *out;
	char hint[512];

	snprintf(hint, sizeof(hint), "%s_calib", v->name);
	if (!id || qir_node_add_input(id, v) ||
	    !(out = qir_node_add_output(id, NULL, hint)) ||
	    qir_value_copy_shape(out, v, dtype, err) ||
	    qir_graph_add_output(g, out)) {
		if (!err->code)
			qir_fail(err, QIR_ENOMEM, "out of memory");
		return NULL;
	}
	return out;
}

/* An empty 1-D tensor of dtype from a Constant node, listed as g's last
 * output. */
static int listed_empty(qir_graph *g, int dtype, const char *name,
			qir_error *err)
{
	int64_t zero = 0;
	qir_tensor *t = qir_tensor_new(name, dtype, 1, &zero, err);
	qir_node *c = t ? qir_node_new(g, "Constant", NULL, "calib_hoist") :
		      NULL;
	qir_value *out;
	char hint[512];

	snprintf(hint, sizeof(hint), "%s_calib_none", name);
	if (!c || qir_node_set_attr_tensor(c, "value", t)) {
		if (!c)
			qir_tensor_free(t);
		return err->code ? -1 :
		       qir_fail(err, QIR_ENOMEM, "out of memory");
	}
	if (!(out = qir_node_add_output(c, NULL, hint)) ||
	    qir_value_set_type(out, dtype, 1, &zero, err) ||
	    qir_graph_add_output(g, out))
		return err->code ? -1 :
		       qir_fail(err, QIR_ENOMEM, "out of memory");
	return 0;
}

/* One level up: v (in a subgraph of parent) as a new output of parent. */
static qir_value *lift(qir_node *parent, qir_value *v, int dtype,
		       qir_error *err)
{
	const char *attr = holder(parent, v->graph);
	qir_graph *other;
	qir_value *out;
	char hint[512];

	if (!attr || !(qir_node_is(parent, "If") || qir_node_is(parent, "Loop")))
		return qir_fail(err, QIR_EUNSUPPORTED, "tensor '%s' is inside "
				"%s: only If branches and Loop bodies can be "
				"calibrated", v->name, QIR_NODE_LABEL(parent)),
		       NULL;
	if (qir_node_is(parent, "If")) {
		other = branch(parent, strcmp(attr, "then_branch") ?
			       "then_branch" : "else_branch");
		if (!other)
			return qir_fail(err, QIR_EINVALID, "%s has no other "
					"branch", QIR_NODE_LABEL(parent)), NULL;
		if (!listed_copy(v, dtype, err) ||
		    listed_empty(other, dtype, v->name, err))
			return NULL;
	} else if (!listed_copy(v, dtype, err))
		return NULL;	/* a Loop's scan outputs come last: appended */
	snprintf(hint, sizeof(hint), "%s_calib", v->name);
	out = qir_node_add_output(parent, NULL, hint);
	if (!out)
		qir_fail(err, QIR_ENOMEM, "out of memory");
	return out;
}

/* An If inside a Loop body (at any depth) cannot be hoisted: the
 * branch that does not hold v gives an empty tensor, so when the
 * iterations take different branches the Loop's scan output changes
 * shape, which ONNX Runtime cannot stack (and its error blames the
 * model). Refused before anything changes, naming both nodes. */
static int if_in_loop(const qir_value *v, qir_error *err)
{
	const qir_node *in_if = NULL, *p;
	const qir_graph *g;

	for (g = v->graph; g && (p = g->parent_node); g = p->graph) {
		if (!in_if && qir_node_is(p, "If"))
			in_if = p;
		else if (in_if && qir_node_is(p, "Loop"))
			return qir_fail(err, QIR_EUNSUPPORTED, "tensor '%s' is "
					"inside %s, an If in the body of %s: "
					"not calibrated (a sample whose "
					"iterations take different branches "
					"would change the shape of the Loop's "
					"scan output); leave its layer out "
					"(exclude)", v->name,
					QIR_NODE_LABEL(in_if), QIR_NODE_LABEL(p));
	}
	return 0;
}

qir_value *calib_hoist(qir_model *m, qir_value *v, qir_error *err)
{
	int dtype = qir_value_elem_type(v);

	if (if_in_loop(v, err))
		return NULL;

	while (v && v->graph != m->graph) {
		if (!v->graph->parent_node)
			return qir_fail(err, QIR_EINVALID, "tensor '%s' is in "
					"no graph of the model", v->name), NULL;
		if (!dtype)
			return qir_fail(err, QIR_EINVALID, "tensor '%s' inside "
					"%s has no known element type", v->name,
					QIR_NODE_LABEL(v->graph->parent_node)),
			       NULL;
		v = lift(v->graph->parent_node, v, dtype, err);
	}
	return v;
}

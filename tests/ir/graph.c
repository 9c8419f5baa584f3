/* tests/ir/graph.c - building and editing graphs through the API. */
#include <stdlib.h>
#include <string.h>
#include <qopt/ir.h>
#include "../lib/tap.h"

static qir_tensor *ftensor(const char *name, int64_t d0, int64_t d1)
{
	int64_t dims[2] = { d0, d1 };

	return qir_tensor_new(name, QIR_FLOAT, 2, dims, NULL);
}

static int has_use(const qir_value *v, const qir_node *n, int idx)
{
	size_t i;

	for (i = 0; i < v->nuses; i++)
		if (v->uses[i].node == n && v->uses[i].index == idx)
			return 1;
	return 0;
}

static void test_build_and_edit(void)
{
	qir_error err = { 0 };
	qir_model *m = qir_model_new(9, 17, &err);
	qir_graph *g = m->graph;
	qir_value *x, *w, *y, *z, *n1, *v;
	qir_node *mm, *relu, *neg, **cons;
	int64_t dims[2] = { 1, 4 };
	size_t cnt, xuses;

	tap_ok(m && g && qir_model_opset(m, "") == 17 &&
	       qir_model_opset(m, "ai.onnx") == 17, "model with default opset");
	x = qir_value_new(g, "x");
	qir_value_set_type(x, QIR_FLOAT, 2, dims, &err);
	qir_graph_add_input(g, x);
	w = qir_graph_add_initializer(g, ftensor("w", 4, 4));
	tap_ok(w && w->init && !strcmp(w->name, "w") && g->ninits == 1 &&
	       w->dtype == QIR_FLOAT && w->rank == 2, "initializer value typed");
	mm = qir_node_new(g, "MatMul", NULL, "mm");
	qir_node_add_input(mm, x);
	qir_node_add_input(mm, w);
	y = qir_node_add_output(mm, NULL, "y");
	relu = qir_node_new(g, "Relu", NULL, "relu");
	qir_node_add_input(relu, y);
	z = qir_node_add_output(relu, NULL, "z");
	qir_graph_add_output(g, z);

	tap_ok(qir_graph_find_value(g, "y") == y && !qir_graph_find_value(g, "q"),
	       "find_value");
	tap_ok(y->producer == mm && y->producer_index == 0 && y->nuses == 1 &&
	       has_use(y, relu, 0), "producer and use list of y");
	tap_ok(x->nuses == 1 && has_use(x, mm, 0) && has_use(w, mm, 1),
	       "inputs record their uses");
	tap_ok(g->first == mm && g->last == relu && g->nnodes == 2 &&
	       mm->next == relu, "node list order");

	v = qir_value_new(g, "y");
	TAP_IS_STR(v->name, "y_1", "taken hint gets _1");
	v = qir_value_new(g, "y");
	TAP_IS_STR(v->name, "y_2", "then _2");
	v = qir_graph_add_initializer(g, ftensor("w", 1, 1));
	tap_ok(v && !strcmp(v->name, "w_1") && !strcmp(v->init->name, "w_1"),
	       "initializer named after a taken name is renamed with its tensor");
	tap_ok(qir_value_rename(v, "x", &err) == -1 && err.code == QIR_EUSAGE,
	       "rename to a taken name fails");
	tap_ok(qir_value_rename(v, "w_small", &err) == 0 &&
	       qir_graph_find_value(g, "w_small") == v && !qir_graph_find_value(g, "w_1") &&
	       !strcmp(v->init->name, "w_small"), "rename updates lookup and tensor");
	tap_ok(qir_graph_remove_initializer(g, v, &err) == 0 && g->ninits == 1 &&
	       !qir_graph_find_value(g, "w_small"), "unused initializer removed");
	{
		qir_node *a = qir_node_new(g, "Relu", NULL, "relu");

		TAP_IS_STR(a->name, "relu_1", "node names made unique");
		tap_ok(qir_node_erase(a, &err) == 0, "erase unused fresh node");
	}

	/* Insert Neg between MatMul and Relu. */
	neg = qir_node_new(g, "Neg", NULL, NULL);
	qir_node_add_input(neg, y);
	n1 = qir_node_add_output(neg, NULL, "y_neg");
	qir_node_move_after(neg, mm);
	tap_ok(mm->next == neg && neg->next == relu && g->last == relu,
	       "move_after places the node");
	qir_value_replace_use(y, y->uses[0], n1);
	tap_ok(relu->inputs[0] == n1 && y->nuses == 1 && has_use(y, neg, 0) &&
	       has_use(n1, relu, 0), "replace_use rewires one slot");

	err.code = 0;
	tap_ok(qir_node_erase(mm, &err) == -1 && err.code == QIR_EUSAGE &&
	       strstr(err.msg, "mm") && strstr(err.msg, "y"),
	       "erase refused while output used: %s", err.msg);
	tap_ok(qir_node_erase(relu, &err) == -1 && strstr(err.msg, "graph output"),
	       "erase refused for a graph output producer: %s", err.msg);

	/* Replace z as graph output by n1, then Relu can go. */
	qir_value_replace_all_uses(z, n1);
	tap_ok(g->outputs[0] == n1 && !z->is_output && n1->is_output,
	       "replace_all_uses renames the graph output");
	tap_ok(qir_node_erase(relu, &err) == 0 && n1->nuses == 0 && g->nnodes == 2 &&
	       !qir_graph_find_value(g, "z"), "erase frees outputs and drops uses");

	/* Mul(y, y): consumers deduplicated; uses kept per slot. */
	{
		qir_node *mul = qir_node_new(g, "Mul", NULL, NULL);

		qir_node_add_input(mul, y);
		qir_node_add_input(mul, y);
		qir_node_add_output(mul, NULL, "sq");
		cons = qir_node_consumers(mm, &cnt);
		tap_ok(cnt == 2 && ((cons[0] == neg && cons[1] == mul) ||
				    (cons[0] == mul && cons[1] == neg)),
		       "consumers deduplicated");
		free(cons);
		tap_ok(y->nuses == 3 && has_use(y, mul, 0) && has_use(y, mul, 1),
		       "each input slot is a use");
		qir_node_set_input(mul, 1, x);
		tap_ok(y->nuses == 2 && has_use(x, mul, 1), "set_input moves the use");
		xuses = x->nuses;
		qir_node_erase(mul, NULL);
		tap_ok(x->nuses == xuses - 1 && y->nuses == 1, "erase drops input uses");
	}

	/* Replacing every use of y by a new value. */
	{
		qir_node *id = qir_node_new(g, "Identity", NULL, NULL);
		qir_value *y2;

		qir_node_add_input(id, x);
		y2 = qir_node_add_output(id, NULL, "y");
		TAP_IS_STR(y2->name, "y_3", "hint after y_1, y_2");
		qir_value_replace_all_uses(y, y2);
		tap_ok(y->nuses == 0 && y2->nuses == 1 && neg->inputs[0] == y2,
		       "replace_all_uses moves every use");
		tap_ok(qir_node_add_output(neg, y2, NULL) == NULL,
		       "a produced value cannot become another node's output");
	}
	qir_model_free(m);
}

static void test_attrs(void)
{
	qir_model *m = qir_model_new(9, 17, NULL);
	qir_node *n = qir_node_new(m->graph, "Conv", NULL, "c");
	int64_t ks[2] = { 3, 3 };
	float sc[1] = { 0.5f };
	qir_attr *a;

	qir_node_set_attr_int(n, "group", 2);
	qir_node_set_attr_float(n, "alpha", 0.25f);
	qir_node_set_attr_string(n, "auto_pad", "SAME_UPPER");
	qir_node_set_attr_ints(n, "kernel_shape", ks, 2);
	qir_node_set_attr_floats(n, "scales", sc, 1);
	tap_ok(qir_node_attr_int(n, "group", 1) == 2 &&
	       qir_node_attr_int(n, "missing", 7) == 7, "int attr and default");
	tap_ok(qir_node_attr_float(n, "alpha", 0) == 0.25f, "float attr");
	TAP_IS_STR(qir_node_attr_string(n, "auto_pad", NULL), "SAME_UPPER",
		   "string attr");
	tap_ok(qir_node_attr_int(n, "alpha", -1) == -1, "wrong type gives default");
	a = qir_node_attr(n, "kernel_shape");
	tap_ok(a && a->type == QIR_ATTR_INTS && a->n == 2 && a->ints[1] == 3,
	       "ints attr");
	qir_node_set_attr_int(n, "group", 4);
	tap_ok(qir_node_attr_int(n, "group", 1) == 4 && n->nattrs == 5,
	       "setter replaces");
	tap_ok(qir_node_remove_attr(n, "alpha") == 0 && n->nattrs == 4 &&
	       !qir_node_attr(n, "alpha") && qir_node_attr_int(n, "group", 0) == 4,
	       "remove_attr");
	tap_ok(qir_node_remove_attr(n, "alpha") == -1, "removing a missing attr fails");
	qir_model_free(m);
}

static void test_constants(void)
{
	qir_error err = { 0 };
	qir_model *m = qir_model_new(9, 17, NULL);
	qir_graph *g = m->graph;
	qir_value *w, *c1, *c2, *c3;
	qir_node *k1, *k2, *k3;
	qir_tensor *t;
	int64_t ints[3] = { 1, -1, 4 }, iv;
	double d;

	w = qir_graph_add_initializer(g, ftensor("w", 2, 2));
	tap_ok(qir_value_const(w) == w->init, "initializer is a constant");
	qir_graph_add_input(g, w);
	tap_ok(qir_value_const(w) == NULL, "initializer that is an input is not");

	k1 = qir_node_new(g, "Constant", NULL, NULL);
	qir_node_set_attr_ints(k1, "value_ints", ints, 3);
	c1 = qir_node_add_output(k1, NULL, "shape");
	t = qir_value_const(c1);
	tap_ok(t && t->dtype == QIR_INT64 && t->rank == 1 && t->dims[0] == 3 &&
	       qir_tensor_get_i64(t, 1, &iv, NULL) == 0 && iv == -1,
	       "value_ints Constant gives an INT64[3] tensor");
	tap_ok(qir_value_const(c1) == t, "cached");

	k2 = qir_node_new(g, "Constant", NULL, NULL);
	qir_node_set_attr_float(k2, "value_float", 0.125f);
	c2 = qir_node_add_output(k2, NULL, "scale");
	t = qir_value_const(c2);
	tap_ok(t && t->dtype == QIR_FLOAT && t->rank == 0 &&
	       qir_tensor_get_f64(t, 0, &d, NULL) == 0 && d == 0.125,
	       "value_float Constant gives a FLOAT scalar");

	k3 = qir_node_new(g, "Constant", NULL, NULL);
	qir_node_set_attr_tensor(k3, "value", ftensor("", 3, 1));
	c3 = qir_node_add_output(k3, NULL, "cst");
	tap_ok(qir_value_const(c3) && qir_value_const(c3)->rank == 2,
	       "value tensor Constant");
	{
		qir_node *use = qir_node_new(g, "Neg", NULL, NULL);

		qir_node_add_input(use, c3);
		qir_node_add_output(use, NULL, NULL);
	}
	tap_ok(qir_graph_constant_to_initializer(g, k3, &err) == 0 &&
	       c3->init && !c3->producer && c3->nuses == 1 &&
	       !strcmp(c3->init->name, "cst") && g->ninits == 2 && g->nnodes == 3,
	       "Constant turned into an initializer, uses kept");
	tap_ok(qir_graph_constant_to_initializer(g, k2, &err) == 0 &&
	       c2->init && c2->init->rank == 0, "scalar Constant too");
	qir_model_free(m);
}

static void test_subgraph_uses(void)
{
	qir_error err = { 0 };
	qir_model *m = qir_model_new(9, 17, NULL);
	qir_graph *g = m->graph, *then;
	qir_value *x, *cond, *inner, *out;
	qir_node *iff, *sub;

	x = qir_value_new(g, "x");
	cond = qir_value_new(g, "cond");
	qir_graph_add_input(g, x);
	qir_graph_add_input(g, cond);
	iff = qir_node_new(g, "If", NULL, "if");
	qir_node_add_input(iff, cond);
	out = qir_node_add_output(iff, NULL, "out");
	qir_graph_add_output(g, out);
	then = qir_node_add_subgraph(iff, "then_branch", "then", &err);
	tap_ok(then && then->parent == g && then->parent_node == iff &&
	       qir_node_attr(iff, "then_branch")->g == then, "subgraph attached");
	sub = qir_node_new(then, "Neg", NULL, NULL);
	qir_node_add_input(sub, x);
	inner = qir_node_add_output(sub, NULL, "x");
	qir_graph_add_output(then, inner);
	TAP_IS_STR(inner->name, "x_1", "names unique across the model");
	tap_ok(qir_graph_find_value(then, "x") == x &&
	       qir_graph_find_value(then, "x_1") == inner &&
	       !qir_graph_find_value(g, "x_1"), "lookup sees outer values only");
	tap_ok(x->nuses == 1 && x->uses[0].node == sub,
	       "use inside the subgraph recorded on the outer value");
	{
		qir_node *trt = qir_node_new(g, "Neg", "trt", "custom");
		qir_node **v;
		size_t cnt;
		char buf[64];

		tap_ok(qir_graph_nodes(g, "", NULL, 1, &v, &cnt, &err) == 0 &&
		       cnt == 2 && v[0] == iff && v[1] == sub,
		       "qir_graph_nodes: default domain, subgraphs after parents");
		free(v);
		tap_ok(qir_graph_nodes(g, NULL, "Neg", 0, &v, &cnt, &err) == 0 &&
		       cnt == 1 && v[0] == trt,
		       "qir_graph_nodes: one graph, any domain, by op type");
		free(v);
		tap_ok(qir_graph_nodes(g, "trt", "Relu", 1, &v, &cnt, &err) == 0 &&
		       cnt == 0 && !v, "qir_graph_nodes: nothing matches");
		TAP_IS_STR(qir_node_label(iff, buf, sizeof(buf)), "node 'if' (If)",
			   "label of a named node");
		TAP_IS_STR(qir_node_label(sub, buf, sizeof(buf)),
			   "node Neg producing 'x_1'", "label of an unnamed node");
		qir_node_erase(trt, &err);
	}
	qir_graph_set_output(g, 0, x);
	tap_ok(out->is_output == 0 && x->is_output == 1, "set_output");
	tap_ok(qir_node_erase(iff, &err) == 0 && x->nuses == 0 &&
	       !qir_graph_find_value(g, "x_1"),
	       "erasing the If drops the subgraph's outer uses");
	qir_model_free(m);
}

int main(void)
{
	test_build_and_edit();
	test_attrs();
	test_constants();
	test_subgraph_uses();
	return tap_done();
}

/* tests/ir/order.c - topological sort and dead code removal. */
#include <string.h>
#include <qopt/ir.h>
#include "../lib/tap.h"

static qir_node *unary(qir_graph *g, const char *op, const char *name,
		       qir_value *in, qir_value **out)
{
	qir_node *n = qir_node_new(g, op, NULL, name);

	if (in)
		qir_node_add_input(n, in);
	*out = qir_node_add_output(n, NULL, name);
	return n;
}

static int order_is(qir_graph *g, const char *want)
{
	char got[256] = "";
	qir_node *n;

	qir_graph_for_each_node(g, n) {
		if (got[0])
			strcat(got, " ");
		strcat(got, n->name);
	}
	if (strcmp(got, want))
		tap_diag("order: got '%s', want '%s'", got, want);
	return strcmp(got, want) == 0;
}

static void test_toposort(void)
{
	qir_error err = { 0 };
	qir_model *m = qir_model_new(9, 17, NULL);
	qir_graph *g = m->graph;
	qir_value *x, *a, *b, *c, *d;
	qir_node *na, *nb, *nc, *nd;

	x = qir_value_new(g, "x");
	qir_graph_add_input(g, x);
	/* Appended consumer-first: d(c), c(b), b(a), a(x); plus e(x). */
	nd = qir_node_new(g, "Relu", NULL, "d");
	nc = qir_node_new(g, "Relu", NULL, "c");
	nb = qir_node_new(g, "Relu", NULL, "b");
	unary(g, "Neg", "e", x, &a);
	na = qir_node_new(g, "Relu", NULL, "a");
	qir_node_add_input(na, x);
	a = qir_node_add_output(na, NULL, "a");
	qir_node_add_input(nb, a);
	b = qir_node_add_output(nb, NULL, "b");
	qir_node_add_input(nc, b);
	c = qir_node_add_output(nc, NULL, "c");
	qir_node_add_input(nd, c);
	d = qir_node_add_output(nd, NULL, "d");
	qir_graph_add_output(g, d);
	tap_ok(qir_graph_toposort(g, &err) == 0 && order_is(g, "e a b c d"),
	       "toposort orders producers first, keeping ready nodes in old order");
	tap_ok(qir_graph_toposort(g, &err) == 0 && order_is(g, "e a b c d"),
	       "stable on a sorted graph");
	qir_node_move_before(nd, NULL);	/* to the end: no-op position */
	qir_node_move_before(nc, na);
	tap_ok(order_is(g, "e c a b d"), "move_before");
	tap_ok(qir_graph_toposort(g, &err) == 0 && order_is(g, "e a b c d"),
	       "re-sorted");

	/* Cycle: a takes c as a second input. */
	qir_node_add_input(na, c);
	memset(&err, 0, sizeof(err));
	tap_ok(qir_graph_toposort(g, &err) == -1 && err.code == QIR_EVERIFY &&
	       strstr(err.msg, "cycle") && (strstr(err.msg, "'a'") ||
	       strstr(err.msg, "'b'") || strstr(err.msg, "'c'")),
	       "cycle detected, naming a node: %s", err.msg);
	tap_ok(g->nnodes == 5, "no node lost on a cycle");
	qir_node_set_input(na, 1, NULL);
	tap_ok(qir_graph_toposort(g, &err) == 0, "cycle broken, sorts again");

	/* Self loop. */
	qir_node_add_input(nb, b);
	memset(&err, 0, sizeof(err));
	tap_ok(qir_graph_toposort(g, &err) == -1 && strstr(err.msg, "'b'"),
	       "self loop detected: %s", err.msg);
	qir_node_set_input(nb, 1, NULL);
	qir_model_free(m);
}

static void test_subgraph_dependency(void)
{
	qir_error err = { 0 };
	qir_model *m = qir_model_new(9, 17, NULL);
	qir_graph *g = m->graph, *body;
	qir_value *x, *p, *o, *r;
	qir_node *iff, *sub;

	x = qir_value_new(g, "x");
	qir_graph_add_input(g, x);
	iff = qir_node_new(g, "If", NULL, "if");
	qir_node_add_input(iff, x);
	o = qir_node_add_output(iff, NULL, "o");
	qir_graph_add_output(g, o);
	body = qir_node_add_subgraph(iff, "then_branch", NULL, &err);
	unary(g, "Neg", "p", x, &p);	/* after the If in the list */
	sub = qir_node_new(body, "Identity", NULL, "inner");
	qir_node_add_input(sub, p);	/* captures p */
	r = qir_node_add_output(sub, NULL, "r");
	qir_graph_add_output(body, r);
	tap_ok(qir_verify(m, &err) == -1 && strstr(err.msg, "'p'"),
	       "capture of a later value is caught by the verifier: %s", err.msg);
	tap_ok(qir_graph_toposort(g, &err) == 0 && order_is(g, "p if"),
	       "node holding a subgraph sorted after what the subgraph captures");
	tap_ok(qir_verify(m, &err) == 0, "verifies after sorting: %s", err.msg);
	qir_model_free(m);
}

static void test_remove_dead(void)
{
	qir_error err = { 0 };
	qir_model *m = qir_model_new(9, 17, NULL);
	qir_graph *g = m->graph, *body;
	qir_value *x, *a, *b, *c, *keep, *o, *cap, *r, *w, *wi;
	qir_node *iff, *sub;
	int64_t dim = 2;
	size_t removed;

	x = qir_value_new(g, "x");
	qir_graph_add_input(g, x);
	w = qir_graph_add_initializer(g, qir_tensor_new("w", QIR_FLOAT, 1, &dim, NULL));
	wi = qir_graph_add_initializer(g, qir_tensor_new("wi", QIR_FLOAT, 1, &dim, NULL));
	qir_graph_add_input(g, wi);	/* overridable input: kept */
	qir_graph_add_initializer(g, qir_tensor_new("unused", QIR_FLOAT, 1, &dim, NULL));
	/* Dead chain a -> b -> c, c unused; a uses w. */
	{
		qir_node *na = qir_node_new(g, "Add", NULL, "a");

		qir_node_add_input(na, x);
		qir_node_add_input(na, w);
		a = qir_node_add_output(na, NULL, "a");
	}
	unary(g, "Relu", "b", a, &b);
	unary(g, "Relu", "c", b, &c);
	unary(g, "Relu", "keep", x, &keep);
	qir_graph_add_output(g, keep);
	/* An If whose subgraph is the only user of cap. */
	unary(g, "Neg", "cap", x, &cap);
	iff = qir_node_new(g, "If", NULL, "if");
	qir_node_add_input(iff, x);
	o = qir_node_add_output(iff, NULL, "o");
	qir_graph_add_output(g, o);
	body = qir_node_add_subgraph(iff, "then_branch", NULL, &err);
	sub = qir_node_new(body, "Identity", NULL, "inner");
	qir_node_add_input(sub, cap);
	r = qir_node_add_output(sub, NULL, "r");
	qir_graph_add_output(body, r);
	unary(body, "Relu", "inner_dead", r, &a);

	removed = qir_graph_remove_dead(g);
	tap_ok(removed == 6, "removed 3 chain nodes, inner dead node, 2 unused initializers (got %zu)",
	       removed);
	tap_ok(!qir_graph_find_value(g, "a") && !qir_graph_find_value(g, "c") &&
	       !qir_graph_find_value(g, "w") && !qir_graph_find_value(g, "unused"),
	       "dead values gone");
	tap_ok(qir_graph_find_value(g, "keep") && qir_graph_find_value(g, "cap") &&
	       qir_graph_find_value(g, "wi") && body->nnodes == 1 && g->nnodes == 3,
	       "outputs, subgraph captures and input initializers kept");
	tap_ok(x->nuses == 3, "x keeps only live uses (%zu)", x->nuses);
	tap_ok(qir_graph_remove_dead(g) == 0, "second run removes nothing");
	tap_ok(qir_verify(m, &err) == 0, "still valid: %s", err.msg);
	qir_model_free(m);
}

int main(void)
{
	test_toposort();
	test_subgraph_dependency();
	test_remove_dead();
	return tap_done();
}

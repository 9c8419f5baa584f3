/* tests/ir/verify.c - the verifier's findings. */
#include <stdlib.h>
#include <string.h>
#include <qopt/ir.h>
#include "../lib/tap.h"

struct fx {
	qir_model *m;
	qir_graph *g;
	qir_value *x, *y, *z;
	qir_node *n1, *n2;
};

/* x -> Relu(n1) -> y -> Neg(n2) -> z (output) */
static void build(struct fx *f)
{
	f->m = qir_model_new(9, 17, NULL);
	f->g = f->m->graph;
	f->x = qir_value_new(f->g, "x");
	qir_graph_add_input(f->g, f->x);
	f->n1 = qir_node_new(f->g, "Relu", NULL, "n1");
	qir_node_add_input(f->n1, f->x);
	f->y = qir_node_add_output(f->n1, NULL, "y");
	f->n2 = qir_node_new(f->g, "Neg", NULL, "n2");
	qir_node_add_input(f->n2, f->y);
	f->z = qir_node_add_output(f->n2, NULL, "z");
	qir_graph_add_output(f->g, f->z);
}

static int fails_with(qir_model *m, const char *a, const char *b)
{
	qir_error err = { 0 };
	int ok = qir_verify(m, &err) == -1 && err.code == QIR_EVERIFY &&
		 strstr(err.msg, a) && (!b || strstr(err.msg, b));

	tap_diag("verifier: %s", err.msg);
	return ok;
}

int main(void)
{
	qir_error err = { 0 };
	struct fx f;

	build(&f);
	tap_ok(qir_verify(f.m, &err) == 0, "valid model verifies");
	qir_model_free(f.m);

	build(&f);
	qir_node_move_before(f.n2, f.n1);
	tap_ok(fails_with(f.m, "'y'", "used before its producer, node 'n1'"),
	       "use before definition reported with the value name");
	qir_model_free(f.m);

	build(&f);
	{
		qir_value *u = qir_value_new(f.g, "ghost");

		qir_node_add_input(f.n2, u);
		tap_ok(fails_with(f.m, "'ghost'", "n2"),
		       "undefined input reported naming value and node");
	}
	qir_model_free(f.m);

	build(&f);
	{
		/* A node producing the graph input x again. */
		qir_node *d = qir_node_new(f.g, "Relu", NULL, "dup");

		qir_node_add_input(d, f.y);
		qir_node_add_output(d, f.x, NULL);
		tap_ok(fails_with(f.m, "'x'", "more than once"),
		       "duplicate definition (input and node output) reported");
	}
	qir_model_free(f.m);

	build(&f);
	{
		int64_t dim = 1;
		qir_value *w = qir_graph_add_initializer(f.g,
			qir_tensor_new("w", QIR_FLOAT, 1, &dim, NULL));
		qir_node *d = qir_node_new(f.g, "Relu", NULL, "dup");

		qir_node_add_input(d, f.y);
		qir_node_add_output(d, w, NULL);
		tap_ok(fails_with(f.m, "'w'", NULL),
		       "node output that is also an initializer reported");
	}
	qir_model_free(f.m);

	build(&f);
	free(f.n1->domain);
	f.n1->domain = strdup("com.microsoft");
	tap_ok(fails_with(f.m, "com.microsoft", "opset"),
	       "missing opset import for a custom domain");
	qir_model_set_opset(f.m, "com.microsoft", 1);
	tap_ok(qir_verify(f.m, &err) == 0, "import added: verifies");
	free(f.n2->domain);
	f.n2->domain = strdup("ai.onnx");
	tap_ok(qir_verify(f.m, &err) == 0, "\"ai.onnx\" is the default domain");
	qir_model_free(f.m);

	build(&f);
	{
		qir_value *o = qir_value_new(f.g, "orphan");

		qir_graph_add_output(f.g, o);
		tap_ok(fails_with(f.m, "'orphan'", "not produced"),
		       "graph output nobody produces");
	}
	qir_model_free(f.m);

	build(&f);
	{
		/* Outer-scope use from a subgraph is fine... */
		qir_node *loop = qir_node_new(f.g, "If", NULL, "if");
		qir_graph *body;
		qir_node *in;
		qir_value *r;

		qir_node_add_input(loop, f.x);
		qir_node_add_output(loop, NULL, "o");
		qir_node_move_before(loop, f.n2);
		body = qir_node_add_subgraph(loop, "then_branch", NULL, &err);
		in = qir_node_new(body, "Neg", NULL, "inner");
		qir_node_add_input(in, f.y);
		r = qir_node_add_output(in, NULL, "r");
		qir_graph_add_output(body, r);
		tap_ok(qir_verify(f.m, &err) == 0,
		       "subgraph using an outer value defined earlier verifies: %s",
		       err.msg);
		/* ...but an outer node cannot see a subgraph's values. */
		qir_node_add_input(f.n2, r);
		tap_ok(fails_with(f.m, "'r'", "n2"),
		       "outer node using a subgraph value reported");
		qir_node_set_input(f.n2, 1, NULL);
		/* ...and a capture of a value defined later is reported. */
		qir_node_set_input(in, 0, f.z);
		tap_ok(fails_with(f.m, "'z'", "inner"),
		       "subgraph capturing a later value reported");
	}
	qir_model_free(f.m);

	build(&f);
	{
		/* A third node appended last whose output n1 reads: sorting
		 * moves one node, not the whole list. */
		qir_node *c = qir_node_new(f.g, "Abs", NULL, "late");
		qir_value *a;
		size_t moved = 99;

		qir_node_add_input(c, f.x);
		a = qir_node_add_output(c, NULL, "a");
		qir_node_set_input(f.n1, 0, a);
		tap_ok(fails_with(f.m, "'a'", "used before its producer, node 'late'"),
		       "use before producer names the producer");
		tap_ok(qir_graph_toposort_count(f.g, &moved, &err) == 0 &&
		       moved == 1 && f.g->first == c,
		       "toposort moves 1 node (moved %zu)", moved);
		tap_ok(qir_verify(f.m, &err) == 0, "sorted graph verifies");
		tap_ok(qir_graph_toposort_count(f.g, &moved, &err) == 0 &&
		       moved == 0, "sorting again moves nothing");
		/* n2 -> late -> n1 -> n2: a cycle of three. */
		qir_node_set_input(c, 0, f.z);
		err.msg[0] = 0;
		tap_ok(qir_graph_toposort(f.g, &err) < 0 &&
		       err.code == QIR_EVERIFY && strstr(err.msg, "'late'") &&
		       strstr(err.msg, "'n1'") && strstr(err.msg, "'n2'") &&
		       f.g->nnodes == 3,
		       "cycle error names its three nodes, keeps them: %s",
		       err.msg);
	}
	qir_model_free(f.m);

	build(&f);
	f.m->ir_version = -1;
	tap_ok(fails_with(f.m, "IR version -1", NULL), "negative IR version");
	f.m->ir_version = 9;
	qir_model_set_opset(f.m, "", 100000);
	tap_ok(fails_with(f.m, "version 100000", "ai.onnx"), "absurd opset");
	qir_model_set_opset(f.m, "", 17);
	qir_graph_add_input(f.g, f.x);
	tap_ok(fails_with(f.m, "'x'", "listed more than once"),
	       "graph input listed twice");
	qir_model_free(f.m);

	build(&f);
	qir_graph_add_output(f.g, f.z);
	tap_ok(fails_with(f.m, "'z'", "listed more than once"),
	       "graph output listed twice");
	qir_model_free(f.m);

	build(&f);
	{
		qir_node *mm = qir_node_new(f.g, "MatMul", NULL, "mm");

		qir_node_add_input(mm, f.y);
		qir_node_add_input(mm, NULL);
		qir_node_add_output(mm, NULL, "p");
		tap_ok(fails_with(f.m, "'mm'", "required input 1 is empty"),
		       "empty required input");
		qir_node_set_input(mm, 1, f.y);
		tap_ok(qir_verify(f.m, &err) == 0, "filled: verifies");
		qir_node_set_attr_int(mm, "odd", 1);
		mm->attrs[0].type = 42;
		tap_ok(fails_with(f.m, "attribute 'odd' has unknown type 42", NULL),
		       "attribute of unknown type");
		mm->attrs[0].type = QIR_ATTR_INT;
	}
	qir_model_free(f.m);

	build(&f);
	f.y->nuses = 0;	/* corrupt the use list behind the API's back */
	tap_ok(fails_with(f.m, "'y'", "use"), "missing use reported");
	f.y->nuses = 1;
	f.x->uses[0].index = 3;
	tap_ok(fails_with(f.m, "x", NULL), "stale use reported");
	f.x->uses[0].index = 0;
	tap_ok(qir_verify(f.m, &err) == 0, "repaired");
	qir_model_free(f.m);
	return tap_done();
}

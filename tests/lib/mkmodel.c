/*
 * tests/lib/mkmodel.c - writes the small model the core tests run on:
 *	X[1,4] -> Relu (relu1) -> Add W (add1) -> Identity (out_id) -> Y
 * usage: core-mkmodel [--unsorted] [--opset=N] OUT.onnx
 * --unsorted lists the nodes backwards (out_id, add1, relu1), as some
 * exporters do: every consumer before its producer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/ir.h>

static qir_value *node1(qir_graph *g, const char *op, const char *name,
			qir_value *a, qir_value *b, const char *out)
{
	static const int64_t dims[2] = { 1, 4 };
	qir_node *n = qir_node_new(g, op, NULL, name);
	qir_value *v;

	if (!n)
		return NULL;
	if (qir_node_add_input(n, a) < 0 ||
	    (b && qir_node_add_input(n, b) < 0))
		return NULL;
	v = qir_node_add_output(n, NULL, out);
	if (v && qir_value_set_type(v, QIR_FLOAT, 2, dims, NULL) < 0)
		return NULL;
	return v;
}

int main(int argc, char **argv)
{
	static const int64_t dims[2] = { 1, 4 }, wdims[1] = { 4 };
	qir_error err = { 0 };
	qir_model *m;
	qir_graph *g;
	qir_tensor *t;
	qir_value *x, *w, *a, *b, *y;
	float *data;
	int i;

	int unsorted = 0, opset = 17;

	for (i = 1; i < argc - 1; i++) {
		if (!strcmp(argv[i], "--unsorted"))
			unsorted = 1;
		else if (!strncmp(argv[i], "--opset=", 8))
			opset = atoi(argv[i] + 8);
		else
			break;
	}
	if (argc < 2 || i != argc - 1) {
		fprintf(stderr, "usage: core-mkmodel [--unsorted] [--opset=N] OUT.onnx\n");
		return 2;
	}
	m = qir_model_new(8, opset, &err);
	if (!m)
		goto fail;
	g = m->graph;
	x = qir_value_new(g, "X");
	if (!x || qir_value_set_type(x, QIR_FLOAT, 2, dims, &err) < 0)
		goto fail;
	if (qir_graph_add_input(g, x) < 0)
		goto fail;
	t = qir_tensor_new("W", QIR_FLOAT, 1, wdims, &err);
	if (!t)
		goto fail;
	data = qir_tensor_mutable_data(t, &err);
	for (i = 0; data && i < 4; i++)
		data[i] = 0.25f * (float)(i + 1);
	w = qir_graph_add_initializer(g, t);
	a = node1(g, "Relu", "relu1", x, NULL, "A");
	b = a ? node1(g, "Add", "add1", a, w, "B") : NULL;
	y = b ? node1(g, "Identity", "out_id", b, NULL, "Y") : NULL;
	if (!w || !y)
		goto fail;
	if (qir_graph_add_output(g, y) < 0)
		goto fail;
	if (unsorted) {
		qir_node_move_before(y->producer, a->producer);
		qir_node_move_before(b->producer, a->producer);
	}
	if (qir_model_save(m, argv[argc - 1], NULL, &err) < 0)
		goto fail;
	qir_model_free(m);
	return 0;
fail:
	fprintf(stderr, "core-mkmodel: %s\n", err.msg[0] ? err.msg : "failed");
	return 1;
}

/* tests/ir/print.c - the listing and the model hash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/ir.h>
#include "../lib/tap.h"

static qir_model *build(void)
{
	qir_model *m = qir_model_new(8, 17, NULL);
	qir_graph *g = m->graph;
	int64_t dims[4] = { -1, 3, 224, 224 }, wd[2] = { 3, 4 }, ks[2] = { 7, 7 };
	qir_value *x, *w, *y;
	qir_node *n;
	qir_graph *body;

	free(m->producer_name);
	m->producer_name = strdup("pytorch");
	m->producer_version = strdup("2.1");
	qir_model_set_opset(m, "com.microsoft", 1);
	x = qir_value_new(g, "x");
	qir_value_set_type(x, QIR_FLOAT, 4, dims, NULL);
	x->dims[0].param = strdup("N");
	qir_graph_add_input(g, x);
	w = qir_graph_add_initializer(g, qir_tensor_new("w", QIR_FLOAT, 2, wd, NULL));
	n = qir_node_new(g, "Conv", NULL, "conv1");
	qir_node_add_input(n, x);
	qir_node_add_input(n, w);
	qir_node_add_input(n, NULL);
	qir_node_set_attr_ints(n, "kernel_shape", ks, 2);
	qir_node_set_attr_string(n, "auto_pad", "NOTSET");
	y = qir_node_add_output(n, NULL, "y");
	n = qir_node_new(g, "If", NULL, NULL);
	qir_node_add_input(n, y);
	qir_graph_add_output(g, qir_node_add_output(n, NULL, "out"));
	body = qir_node_add_subgraph(n, "then_branch", "then", NULL);
	n = qir_node_new(body, "Gelu", "com.microsoft", NULL);
	qir_node_add_input(n, y);
	qir_graph_add_output(body, qir_node_add_output(n, NULL, "g"));
	return m;
}

/* Small tensors show their values: integers exactly (16777217 is not
 * 1.67772e+07), UINT64 beyond int64 too. */
static void test_values(void)
{
	qir_model *m = qir_model_new(8, 17, NULL);
	int64_t d3 = 3, d1 = 1, *i;
	qir_tensor *t = qir_tensor_new("i", QIR_INT64, 1, &d3, NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	i = qir_tensor_mutable_data(t, NULL);
	i[0] = 16777217;
	i[1] = -INT64_C(9007199254740993);
	i[2] = INT64_MAX;
	qir_graph_add_initializer(m->graph, t);
	t = qir_tensor_new("u", QIR_UINT64, 1, &d1, NULL);
	*(uint64_t *)qir_tensor_mutable_data(t, NULL) = UINT64_MAX;
	qir_graph_add_initializer(m->graph, t);
	t = qir_tensor_new("h", QIR_FLOAT, 1, &d1, NULL);
	*(float *)qir_tensor_mutable_data(t, NULL) = 0.5f;
	qir_graph_add_initializer(m->graph, t);
	f = open_memstream(&buf, &len);
	qir_print(m, f);
	fclose(f);
	tap_ok(strstr(buf, "{16777217, -9007199254740993, 9223372036854775807}")
	       != NULL, "INT64 values printed exactly");
	tap_ok(strstr(buf, "{18446744073709551615}") != NULL,
	       "UINT64 above int64 printed exactly");
	tap_ok(strstr(buf, "{0.5}") != NULL, "floats printed as before");
	if (!strstr(buf, "{16777217,"))
		tap_diag("listing:\n%s", buf);
	free(buf);
	qir_model_free(m);
}

int main(void)
{
	qir_model *m = build(), *m2 = build();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	uint64_t h1, h2;

	qir_print(m, f);
	fclose(f);
	tap_diag("listing:\n%s", buf);
	tap_ok(strstr(buf, "ir_version: 8") != NULL, "IR version");
	tap_ok(strstr(buf, "ai.onnx=17") && strstr(buf, "com.microsoft=1"), "opsets");
	tap_ok(strstr(buf, "producer: pytorch 2.1") != NULL, "producer");
	tap_ok(strstr(buf, "x: FLOAT[N,3,224,224]") != NULL, "input with symbolic dim");
	tap_ok(strstr(buf, "w: FLOAT[3,4] (48 bytes, owned)") != NULL,
	       "initializer with dtype, dims, bytes, location");
	tap_ok(strstr(buf, "y = Conv(x, w, _) kernel_shape=[7,7] auto_pad=\"NOTSET\"  # conv1")
	       != NULL, "node line with attributes and name");
	tap_ok(strstr(buf, "then_branch={") != NULL &&
	       strstr(buf, "      g = com.microsoft::Gelu(y)") != NULL,
	       "subgraph nested and indented, domain shown");
	free(buf);

	h1 = qir_model_hash(m);
	h2 = qir_model_hash(m2);
	tap_ok(h1 == h2, "equal models hash equal");
	qir_node_set_attr_int(m2->graph->first, "group", 1);
	tap_ok(qir_model_hash(m2) != h1, "an added attribute changes the hash");
	((float *)qir_tensor_mutable_data(m->graph->inits[0]->init, NULL))[5] = 1;
	tap_ok(qir_model_hash(m) != h1, "a changed weight byte changes the hash");
	qir_model_free(m);
	qir_model_free(m2);
	test_values();
	return tap_done();
}

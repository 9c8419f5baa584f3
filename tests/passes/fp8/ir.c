/*
 * tests/passes/fp8/ir.c - the IR functions fp8-mha added to the public API:
 * qir_node_set_op, qir_value_copy_shape, qir_model_remove_opset.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qopt/qopt.h>
#include "../../lib/tap.h"

static void test_set_op(void)
{
	qir_error err = { 0 };
	qir_model *m = qir_model_new(9, 19, &err);
	qir_value *x = qir_value_new(m->graph, "x");
	qir_node *n = qir_node_new(m->graph, "TRT_FP8QuantizeLinear", "trt",
				   "q");
	qir_value *y;

	qir_graph_add_input(m->graph, x);
	qir_node_add_input(n, x);
	y = qir_node_add_output(n, NULL, "y");
	qir_node_set_attr_int(n, "saturate", 1);
	tap_ok(qir_node_set_op(n, "QuantizeLinear", NULL) == 0,
	       "set_op succeeds");
	tap_ok(!strcmp(n->op_type, "QuantizeLinear") && !strcmp(n->domain, ""),
	       "op and domain changed (domain NULL means the default)");
	tap_ok(!strcmp(n->name, "q") && n->ninputs == 1 && n->inputs[0] == x &&
	       n->outputs[0] == y && y->producer == n &&
	       qir_node_attr_int(n, "saturate", 0) == 1,
	       "name, inputs, outputs and attributes kept");
	tap_ok(qir_node_set_op(n, NULL, NULL) == -1 &&
	       !strcmp(n->op_type, "QuantizeLinear"),
	       "a NULL op is refused, the node unchanged");
	qir_model_free(m);
}

static void test_copy_shape(void)
{
	qir_error err = { 0 };
	qir_model *m = qir_model_new(9, 19, &err);
	qir_value *a = qir_value_new(m->graph, "a");
	qir_value *b = qir_value_new(m->graph, "b");
	qir_value *c = qir_value_new(m->graph, "c");
	int64_t dims[3] = { -1, 8, 16 };

	qir_value_set_type(a, QIR_FLOAT16, 3, dims, NULL);
	a->dims[0].param = strdup("batch");	/* as the reader sets it */
	tap_ok(qir_value_copy_shape(b, a, QIR_FLOAT8E4M3FN, &err) == 0,
	       "copy_shape succeeds");
	tap_ok(b->dtype == QIR_FLOAT8E4M3FN && b->rank == 3 &&
	       b->dims[0].value == -1 && b->dims[0].param &&
	       !strcmp(b->dims[0].param, "batch") && b->dims[0].param !=
	       a->dims[0].param && b->dims[1].value == 8 &&
	       b->dims[2].value == 16,
	       "type set, dims and symbolic names copied (not shared)");
	tap_ok(qir_value_copy_shape(b, b, QIR_FLOAT, &err) == 0 &&
	       b->rank == 3 && !strcmp(b->dims[0].param, "batch") &&
	       b->dtype == QIR_FLOAT, "copying a value's shape onto itself");
	tap_ok(qir_value_copy_shape(b, c, QIR_FLOAT, &err) == 0 &&
	       b->rank == -1 && b->dtype == QIR_FLOAT,
	       "an unknown shape copies as rank -1");
	tap_ok(qir_value_copy_shape(b, a, 99, &err) == -1 &&
	       err.code == QIR_EUSAGE && b->rank == -1,
	       "an unknown type is refused (%s)", err.msg);
	qir_model_free(m);
}

static void test_remove_opset(void)
{
	qir_error err = { 0 };
	qir_model *m = qir_model_new(9, 19, &err);

	qir_model_set_opset(m, "trt", 1);
	qir_model_set_opset(m, "com.example", 2);
	tap_ok(m->nopsets == 3, "three imports");
	tap_ok(qir_model_remove_opset(m, "trt") == 1 && m->nopsets == 2 &&
	       qir_model_opset(m, "com.example") == 2 &&
	       qir_model_opset(m, "") == 19,
	       "the trt import removed, the others kept");
	tap_ok(qir_model_remove_opset(m, "trt") == 0 && m->nopsets == 2,
	       "removing it again: 0, nothing changes");
	tap_ok(qir_model_remove_opset(m, "ai.onnx") == 1 &&
	       qir_model_opset(m, "") == 0,
	       "\"ai.onnx\" names the default domain");
	qir_model_free(m);
}

int main(void)
{
	test_set_op();
	test_copy_shape();
	test_remove_opset();
	return tap_done();
}

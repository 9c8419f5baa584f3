/*
 * tests/abi/helpers.c - the public helpers that replace what every pass
 * used to write for itself: qir_node_is, qir_domain_is_default,
 * QIR_NODE_LABEL; qopt_version and qopt_abi_version.
 */
#include <stdio.h>
#include <string.h>
#include <qopt/qopt.h>
#include "../lib/tap.h"

int main(void)
{
	qir_error err = { 0 };
	qir_model *m = qir_model_new(10, 21, &err);
	qir_node *mm, *custom, *ai, *anon;
	unsigned major = 99, minor = 99;
	char vs[64];

	if (!m) {
		tap_ok(0, "model: %s", err.msg);
		return tap_done();
	}
	mm = qir_node_new(m->graph, "MatMul", NULL, "fc1");
	custom = qir_node_new(m->graph, "MatMul", "com.example", "fc2");
	ai = qir_node_new(m->graph, "MatMul", "ai.onnx", "fc3");
	anon = qir_node_new(m->graph, "Relu", NULL, NULL);
	tap_ok(qir_node_is(mm, "MatMul"), "MatMul in the default domain");
	tap_ok(qir_node_is(ai, "MatMul"), "\"ai.onnx\" is the default domain");
	tap_ok(!qir_node_is(custom, "MatMul"),
	       "a custom domain's MatMul is not an ONNX MatMul");
	tap_ok(!qir_node_is(mm, "Gemm"), "another op type is not");
	tap_ok(!qir_node_is(NULL, "MatMul"), "NULL node is not");
	tap_ok(qir_domain_is_default(NULL) && qir_domain_is_default("") &&
	       !qir_domain_is_default("ai.onnx.ml"),
	       "default domain: NULL, \"\", \"ai.onnx\" only");
	tap_ok(strstr(QIR_NODE_LABEL(mm), "fc1") &&
	       strstr(QIR_NODE_LABEL(mm), "MatMul"),
	       "QIR_NODE_LABEL names node and op: %s", QIR_NODE_LABEL(mm));
	tap_ok(strcmp(QIR_NODE_LABEL(mm), QIR_NODE_LABEL(custom)) != 0,
	       "two labels in one expression do not share a buffer");
	tap_ok(strstr(QIR_NODE_LABEL(anon), "Relu") != NULL,
	       "label of an unnamed node: %s", QIR_NODE_LABEL(anon));
	TAP_IS_STR(qopt_version(), QOPT_VERSION_STRING,
		   "qopt_version() is the headers' release");
	qopt_abi_version(&major, &minor);
	tap_ok(major == QOPT_ABI_MAJOR && minor == QOPT_ABI_MINOR,
	       "qopt_abi_version() is %u.%u", major, minor);
	snprintf(vs, sizeof(vs), "%d.%d.%d", QOPT_VERSION_MAJOR,
		 QOPT_VERSION_MINOR, QOPT_VERSION_PATCH);
	tap_ok(QOPT_VERSION >= QOPT_VERSION_AT(0, 3, 0) &&
	       QOPT_VERSION == QOPT_VERSION_AT(QOPT_VERSION_MAJOR,
					       QOPT_VERSION_MINOR,
					       QOPT_VERSION_PATCH) &&
	       QOPT_VERSION < QOPT_VERSION_AT(QOPT_VERSION_MAJOR,
					      QOPT_VERSION_MINOR,
					      QOPT_VERSION_PATCH + 1) &&
	       !strcmp(vs, QOPT_VERSION_STRING),
	       "QOPT_VERSION compares with QOPT_VERSION_AT and spells "
	       "QOPT_VERSION_STRING");
	tap_ok(qir_upgrade_max_opset() >= 25 &&
	       qir_opset_min_ir_version(qir_upgrade_max_opset()) > 0,
	       "qir_upgrade_max_opset() answers at run time (%lld)",
	       (long long)qir_upgrade_max_opset());
	qir_model_free(m);
	return tap_done();
}

/*
 * tests/abi/opts-size.c - the caller-allocated option structs begin with
 * their size (ABI 4.0): the _INIT macros set it; size 0 reads as ABI
 * 4.0's layout; a size below it is refused (QIR_EUSAGE, naming the
 * struct, nothing written); a caller built against a later minor (a
 * larger struct) works, its unknown fields ignored and, for the upgrade
 * report libqopt fills, never written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <qopt/qopt.h>
#include "../lib/tap.h"

static char dir[] = "/tmp/qopt-opts-size-XXXXXX";

static const char *path_of(const char *name)
{
	static char buf[2][256];
	static int k;

	k ^= 1;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

/* x[1,4] -> Relu -> y, opset 17. */
static qir_model *small(qir_error *err)
{
	static const int64_t d[2] = { 1, 4 };
	qir_model *m = qir_model_new(8, 17, err);
	qir_value *x, *y;
	qir_node *n;

	if (!m)
		return NULL;
	x = qir_value_new(m->graph, "x");
	if (qir_value_set_type(x, QIR_FLOAT, 2, d, err) < 0 ||
	    qir_graph_add_input(m->graph, x) < 0)
		return NULL;
	n = qir_node_new(m->graph, "Relu", NULL, "relu");
	if (qir_node_add_input(n, x) < 0)
		return NULL;
	y = qir_node_add_output(n, NULL, "y");
	if (!y || qir_graph_add_output(m->graph, y) < 0)
		return NULL;
	return m;
}

/* A caller built against a later minor: our struct, then a field this
 * libqopt does not know. */
struct later_report {
	qir_upgrade_report r;
	int64_t later_field;
};

int main(void)
{
	qir_error err = { 0 };
	qir_model *m, *back = NULL;
	qir_save_opts so = QIR_SAVE_OPTS_INIT;
	qir_load_opts lo = QIR_LOAD_OPTS_INIT;
	qir_infer_opts io = QIR_INFER_OPTS_INIT;
	qir_upgrade_report rep = QIR_UPGRADE_REPORT_INIT;
	struct later_report later;
	qir_save_opts zero = { 0 };

	if (!mkdtemp(dir)) {
		tap_ok(0, "mkdtemp");
		return tap_done();
	}
	tap_ok(so.size == sizeof(qir_save_opts) && lo.size == sizeof(qir_load_opts) &&
	       io.size == sizeof(qir_infer_opts) &&
	       rep.size == sizeof(qir_upgrade_report),
	       "each _INIT macro sets the struct's size");
	tap_ok(offsetof(qir_save_opts, size) == 0 && offsetof(qir_load_opts, size) == 0 &&
	       offsetof(qir_infer_opts, size) == 0 &&
	       offsetof(qir_upgrade_report, size) == 0,
	       "the size is each struct's first field");
	m = small(&err);
	if (!tap_ok(m != NULL, "a model (%s)", err.msg))
		return tap_done();

	tap_ok(qir_model_save(m, path_of("a.onnx"), &so, &err) == 0 &&
	       qir_model_load(path_of("a.onnx"), &lo, &back, &err) == 0,
	       "save and load with the _INIT structs (%s)", err.msg);
	qir_model_free(back);
	back = NULL;
	tap_ok(qir_model_save(m, path_of("z.onnx"), &zero, &err) == 0,
	       "size 0 reads as ABI 4.0's layout (%s)", err.msg);
	tap_ok(qir_model_infer(m, &io, &err) == 0, "infer with QIR_INFER_OPTS_INIT");

	so.size = 4;
	err = (qir_error){ 0 };
	tap_ok(qir_model_save(m, path_of("b.onnx"), &so, &err) < 0 &&
	       err.code == QIR_EUSAGE && strstr(err.msg, "qir_save_opts.size is 4") &&
	       access(path_of("b.onnx"), F_OK) != 0,
	       "a size below 4.0's is refused, naming the struct, nothing written: %s",
	       err.msg);
	lo.size = 1;
	err = (qir_error){ 0 };
	tap_ok(qir_model_load(path_of("a.onnx"), &lo, &back, &err) < 0 &&
	       err.code == QIR_EUSAGE && strstr(err.msg, "qir_load_opts") && !back,
	       "likewise qir_load_opts: %s", err.msg);
	io.size = 2;
	err = (qir_error){ 0 };
	tap_ok(qir_model_infer(m, &io, &err) < 0 && err.code == QIR_EUSAGE &&
	       strstr(err.msg, "qir_infer_opts"), "likewise qir_infer_opts: %s",
	       err.msg);
	rep.size = 3;
	err = (qir_error){ 0 };
	tap_ok(qir_model_upgrade_opset(m, 19, &rep, &err) < 0 &&
	       err.code == QIR_EUSAGE && strstr(err.msg, "qir_upgrade_report") &&
	       qir_model_opset(m, "") == 17,
	       "likewise qir_upgrade_report, the model untouched: %s", err.msg);

	memset(&later, 0, sizeof(later));
	later.r.size = sizeof(later);
	later.later_field = 12345;
	err = (qir_error){ 0 };
	tap_ok(qir_model_upgrade_opset(m, 19, &later.r, &err) == 0 &&
	       later.r.from_opset == 17 && later.r.to_opset == 19 &&
	       later.r.size == sizeof(later) && later.later_field == 12345,
	       "a later minor's larger report: filled, its size and unknown field left as they were (%s)",
	       err.msg);
	qir_model_free(m);
	unlink(path_of("a.onnx"));
	unlink(path_of("z.onnx"));
	rmdir(dir);
	return tap_done();
}

/*
 * tests/ir/upgrade.c - qir_model_upgrade_opset: rewrites that keep a
 * node's meaning across operator changes, refusals that leave the
 * model untouched (hash before == after), and models with local
 * functions (hand-encoded ModelProto.functions) refused.
 */
#include <stdlib.h>
#include <string.h>
#include <qopt/ir.h>
#include <qopt/upgrade.h>
#include "../lib/io-util.h"
#include "../lib/tap.h"

/* ---- building ---- */

static qir_value *input(qir_graph *g, const char *name, int rank,
			const int64_t *dims)
{
	qir_value *v = qir_value_new(g, name);

	qir_value_set_type(v, QIR_FLOAT, rank, dims, NULL);
	qir_graph_add_input(g, v);
	return v;
}

static qir_node *node1(qir_graph *g, const char *op, const char *name,
		       qir_value *in)
{
	qir_node *n = qir_node_new(g, op, "", name);

	qir_node_add_input(n, in);
	qir_node_add_output(n, NULL, name);
	return n;
}

static void output(qir_node *n)
{
	qir_value_set_type(n->outputs[0], QIR_FLOAT, -1, NULL, NULL);
	qir_graph_add_output(n->outputs[0]->graph, n->outputs[0]);
}

static qir_node *find(qir_model *m, const char *op, const char *name)
{
	qir_node *n;

	qir_graph_for_each_node(m->graph, n)
		if (!strcmp(n->op_type, op) &&
		    (!name || !strcmp(n->name, name)))
			return n;
	return NULL;
}

static int count(qir_model *m, const char *op)
{
	qir_node *n;
	int c = 0;

	qir_graph_for_each_node(m->graph, n)
		c += !strcmp(n->op_type, op);
	return c;
}

/* 1 when input i of n is a constant INT64 list equal to want. */
static int const_ints(qir_node *n, size_t i, const int64_t *want, size_t k)
{
	qir_tensor *t = i < n->ninputs ? qir_value_const(n->inputs[i]) : NULL;
	int64_t v;
	size_t j;

	if (!t || t->dtype != QIR_INT64 || qir_tensor_numel(t) != k)
		return 0;
	for (j = 0; j < k; j++)
		if (qir_tensor_get_i64(t, j, &v, NULL) || v != want[j])
			return 0;
	return 1;
}

struct seen {
	int rewrites, softmax, progress_last;
	size_t done, total;
};

static void on_rewrite(void *arg, const char *node, const char *op, int step,
		       const char *what)
{
	struct seen *s = arg;

	s->rewrites++;
	if (strstr(node, "'sm'") && !strcmp(op, "Softmax") && step == 13 &&
	    what && *what)
		s->softmax++;
}

static void on_progress(void *arg, size_t done, size_t total)
{
	struct seen *s = arg;

	s->done = done;
	s->total = total;
}

/* ---- 11 -> 19 ---- */

/* x[1,3,1,5] -> Squeeze(axes=[2]) -> Softmax(axis=1, not the last)
 * -> ReduceMean(axes=[2]) -> y */
static qir_model *model11(void)
{
	static const int64_t dx[4] = { 1, 3, 1, 5 }, ax2[1] = { 2 };
	qir_model *m = qir_model_new(6, 11, NULL);
	qir_graph *g = m->graph;
	qir_node *sq, *sm, *rm;

	sq = node1(g, "Squeeze", "sq", input(g, "x", 4, dx));
	qir_node_set_attr_ints(sq, "axes", ax2, 1);
	qir_value_set_type(sq->outputs[0], QIR_FLOAT, 3,
			   (const int64_t[]){ 1, 3, 5 }, NULL);
	sm = node1(g, "Softmax", "sm", sq->outputs[0]);
	qir_node_set_attr_int(sm, "axis", 1);
	rm = node1(g, "ReduceMean", "rm", sm->outputs[0]);
	qir_node_set_attr_ints(rm, "axes", ax2, 1);
	output(rm);
	return m;
}

static void test_upgrade_11_19(void)
{
	static const int64_t ax2[1] = { 2 };
	qir_model *m = model11();
	qir_upgrade_report rep = { 0 };
	struct seen s = { 0 };
	qir_error err = { 0 };
	qir_node *sq, *sm, *fl, *rm, *rs;
	int rc;

	rep.on_rewrite = on_rewrite;
	rep.on_progress = on_progress;
	rep.arg = &s;
	rc = qir_model_upgrade_opset(m, 19, &rep, &err);
	if (!tap_ok(rc == 0, "11 -> 19: upgraded"))
		tap_diag("%s", err.msg);
	tap_ok(qir_model_opset(m, "") == 19 && m->ir_version == 9,
	       "11 -> 19: opset 19, IR raised 6 -> 9 (got %lld, %lld)",
	       (long long)qir_model_opset(m, ""), (long long)m->ir_version);
	tap_ok(rep.from_opset == 11 && rep.to_opset == 19 &&
	       rep.ir_before == 6 && rep.ir_after == 9,
	       "11 -> 19: report says opsets and IR versions");
	tap_ok(rep.nodes_checked == 3 && rep.nodes_rewritten == 3,
	       "11 -> 19: 3 nodes checked, 3 rewritten (got %lld, %lld)",
	       (long long)rep.nodes_checked, (long long)rep.nodes_rewritten);
	tap_ok(s.rewrites == 3 && s.softmax == 1,
	       "11 -> 19: rewrite callback once per rule, naming the node");
	tap_ok(s.total == 3 && s.done == 3, "11 -> 19: progress reaches 3/3");

	sq = find(m, "Squeeze", "sq");
	tap_ok(sq && !qir_node_attr(sq, "axes") && sq->ninputs == 2 &&
	       const_ints(sq, 1, ax2, 1),
	       "Squeeze-13: axes attribute -> constant input [2]");
	sm = find(m, "Softmax", NULL);
	fl = sm && sm->inputs[0]->producer ? sm->inputs[0]->producer : NULL;
	tap_ok(sm && qir_node_attr_int(sm, "axis", -1) == 1 && fl &&
	       !strcmp(fl->op_type, "Flatten") &&
	       qir_node_attr_int(fl, "axis", -1) == 1 &&
	       fl->inputs[0] == sq->outputs[0],
	       "Softmax-13 on a middle axis: Flatten(axis=1) -> "
	       "Softmax(axis=1)");
	rm = find(m, "ReduceMean", "rm");
	rs = rm && rm->inputs[0]->producer ? rm->inputs[0]->producer : NULL;
	tap_ok(rs && !strcmp(rs->op_type, "Reshape") && rs->ninputs == 2 &&
	       rs->inputs[1]->producer &&
	       !strcmp(rs->inputs[1]->producer->op_type, "Shape") &&
	       rs->inputs[1]->producer->inputs[0] == sq->outputs[0] &&
	       count(m, "Softmax") == 1,
	       "Softmax-13: result reshaped back to Shape(input)");
	tap_ok(rm && !qir_node_attr(rm, "axes") && const_ints(rm, 1, ax2, 1),
	       "ReduceMean-18: axes attribute -> input");
	rc = qir_verify(m, &err);
	if (!tap_ok(rc == 0, "11 -> 19: result verifies"))
		tap_diag("%s", err.msg);
	qir_model_free(m);

	m = model11();
	tap_ok(qir_model_upgrade_opset(m, 11, NULL, NULL) == 0 &&
	       find(m, "Squeeze", "sq") &&
	       qir_node_attr(find(m, "Squeeze", "sq"), "axes") &&
	       m->ir_version == 6,
	       "target == declared opset: nothing changes");
	qir_model_free(m);
}

/* Chains of rules: each step sees what the previous one made, the
 * dry run included. */
static void test_chains(void)
{
	static const int64_t dx[4] = { 1, 1, 2, 2 }, pads[8] = { 0, 0, 1, 1,
								 0, 0, 1, 1 };
	static const float sc[4] = { 1, 1, 2, 2 };
	qir_error err = { 0 };
	qir_model *m = qir_model_new(3, 7, NULL);
	qir_node *n;
	int rc;

	n = node1(m->graph, "Upsample", "up", input(m->graph, "x", 4, dx));
	qir_node_set_attr_floats(n, "scales", sc, 4);
	qir_node_set_attr_string(n, "mode", "nearest");
	output(n);
	rc = qir_model_upgrade_opset(m, 13, NULL, &err);
	if (!tap_ok(rc == 0, "Upsample-7 -> 13: upgraded"))
		tap_diag("%s", err.msg);
	n = find(m, "Resize", "up");
	tap_ok(n && n->ninputs == 3 && !qir_node_attr(n, "scales") &&
	       !strcmp(qir_node_attr_string(n,
			"coordinate_transformation_mode", ""), "asymmetric") &&
	       !strcmp(qir_node_attr_string(n, "nearest_mode", ""), "floor") &&
	       !find(m, "Upsample", NULL),
	       "Upsample-7 -> Resize-13 (X, roi, scales), asymmetric/floor");
	qir_model_free(m);

	m = qir_model_new(3, 1, NULL);
	n = node1(m->graph, "Pad", "pad", input(m->graph, "x", 4, dx));
	qir_node_set_attr_ints(n, "paddings", pads, 8);
	output(n);
	rc = qir_model_upgrade_opset(m, 11, NULL, &err);
	if (!tap_ok(rc == 0, "Pad-1 -> 11: upgraded"))
		tap_diag("%s", err.msg);
	n = find(m, "Pad", "pad");
	tap_ok(n && n->ninputs == 2 && !qir_node_attr(n, "paddings") &&
	       !qir_node_attr(n, "pads") && const_ints(n, 1, pads, 8),
	       "Pad-1 -> 11: paddings -> pads -> input");
	qir_model_free(m);
}

/* ---- refusals ---- */

static void expect_refused(qir_model *m, int64_t target, int code,
			   const char *needle, const char *what)
{
	uint64_t h0 = qir_model_hash(m);
	qir_upgrade_report rep = { 0 };
	qir_error err = { 0 };
	int rc = qir_model_upgrade_opset(m, target, &rep, &err);

	tap_ok(rc < 0 && err.code == code && strstr(err.msg, needle),
	       "%s: refused (%d, '%s')", what, err.code, err.msg);
	tap_ok(qir_model_hash(m) == h0 && rep.nodes_rewritten == 0,
	       "%s: model unchanged", what);
}

static void test_refusals(void)
{
	static const int64_t dx[4] = { 1, 3, 4, 4 };
	qir_model *m = model11();
	qir_node *sm = find(m, "Softmax", "sm");
	qir_node *rz;

	/* A rewritable node first, then one the upgrade refuses: the dry
	 * run must stop before the Squeeze is touched. */
	rz = node1(m->graph, "Resize", "rz", input(m->graph, "img", 4, dx));
	qir_node_add_input(rz, NULL);
	qir_node_add_input(rz, NULL);
	qir_node_add_input(rz, input(m->graph, "sizes", 1, (int64_t[]){ 4 }));
	qir_node_set_attr_string(rz, "coordinate_transformation_mode",
				 "tf_half_pixel_for_nn");
	output(rz);
	expect_refused(m, 19, QIR_EUNSUPPORTED, "node 'rz' (Resize) across "
		       "Resize-18", "Resize tf_half_pixel_for_nn");
	tap_ok(qir_node_attr(find(m, "Squeeze", "sq"), "axes") &&
	       find(m, "Softmax", "sm") == sm &&
	       qir_model_opset(m, "") == 11 && m->ir_version == 6,
	       "refused: earlier nodes keep their old form, opset 11, IR 6");
	qir_model_free(m);

	m = model11();
	node1(m->graph, "FancyOp", "f", m->graph->inputs[0]);
	expect_refused(m, 19, QIR_EUNSUPPORTED, "unsupported op: FancyOp",
		       "unknown op");
	expect_refused(m, 9, QIR_EUSAGE, "downgrading", "target below");
	expect_refused(m, 26, QIR_EUSAGE, "known only up to opset 25",
		       "target beyond 25");
	qir_model_free(m);
}

/* ---- 23 -> 24 -> 25 ---- */

static qir_value *typed_input(qir_graph *g, const char *name, int dtype,
			      int rank, const int64_t *dims)
{
	qir_value *v = qir_value_new(g, name);

	qir_value_set_type(v, dtype, rank, dims, NULL);
	qir_graph_add_input(g, v);
	return v;
}

/* x[2,6] -> QuantizeLinear(s, zp) -> DequantizeLinear(s, zp)
 * -> Reshape(shp) -> Transpose(perm=[1,0]) -> Cast(to=FLOAT16) -> y:
 * ops whose definitions changed at 24 (FLOAT8E8M0) and 25 (INT2/UINT2)
 * by type additions only. */
static qir_model *model_qdq(int64_t ir, int64_t opset)
{
	static const int64_t dx[2] = { 2, 6 }, d1[1] = { 2 }, perm[2] = { 1,
									   0 };
	qir_model *m = qir_model_new(ir, opset, NULL);
	qir_graph *g = m->graph;
	qir_value *x = input(g, "x", 2, dx);
	qir_value *sc = typed_input(g, "s", QIR_FLOAT, 0, NULL);
	qir_value *zp = typed_input(g, "zp", QIR_INT8, 0, NULL);
	qir_value *shp = typed_input(g, "shp", QIR_INT64, 1, d1);
	qir_node *q, *dq, *rs, *tr, *c;

	q = node1(g, "QuantizeLinear", "q", x);
	qir_node_add_input(q, sc);
	qir_node_add_input(q, zp);
	dq = node1(g, "DequantizeLinear", "dq", q->outputs[0]);
	qir_node_add_input(dq, sc);
	qir_node_add_input(dq, zp);
	rs = node1(g, "Reshape", "rs", dq->outputs[0]);
	qir_node_add_input(rs, shp);
	tr = node1(g, "Transpose", "tr", rs->outputs[0]);
	qir_node_set_attr_ints(tr, "perm", perm, 2);
	c = node1(g, "Cast", "c", tr->outputs[0]);
	qir_node_set_attr_int(c, "to", QIR_FLOAT16);
	qir_value_set_type(c->outputs[0], QIR_FLOAT16, -1, NULL, NULL);
	qir_graph_add_output(g, c->outputs[0]);
	return m;
}

static void expect_bump(int64_t ir, int64_t from, int64_t to, int64_t ir_to)
{
	qir_model *m = model_qdq(ir, from), *want = model_qdq(ir_to, to);
	qir_upgrade_report rep = { 0 };
	qir_error err = { 0 };
	int rc;

	rc = qir_model_upgrade_opset(m, to, &rep, &err);
	if (!tap_ok(rc == 0, "%lld -> %lld: upgraded", (long long)from,
		    (long long)to))
		tap_diag("%s", err.msg);
	tap_ok(qir_model_opset(m, "") == to && m->ir_version == ir_to &&
	       rep.ir_before == ir && rep.ir_after == ir_to,
	       "%lld -> %lld: opset %lld, IR %lld -> %lld (got %lld, %lld)",
	       (long long)from, (long long)to, (long long)to, (long long)ir,
	       (long long)ir_to, (long long)qir_model_opset(m, ""),
	       (long long)m->ir_version);
	tap_ok(rep.nodes_checked == 5 && rep.nodes_rewritten == 0,
	       "%lld -> %lld: Q/DQ/Reshape/Transpose/Cast checked, none "
	       "rewritten (type additions only; got %lld, %lld)",
	       (long long)from, (long long)to, (long long)rep.nodes_checked,
	       (long long)rep.nodes_rewritten);
	tap_ok(qir_model_hash(m) == qir_model_hash(want),
	       "%lld -> %lld: same model as one built at opset %lld, IR %lld",
	       (long long)from, (long long)to, (long long)to,
	       (long long)ir_to);
	rc = qir_verify(m, &err);
	if (!tap_ok(rc == 0, "%lld -> %lld: result verifies",
		    (long long)from, (long long)to))
		tap_diag("%s", err.msg);
	qir_model_free(m);
	qir_model_free(want);
}

/* Q[1,2,4,8], K and V alike -> Attention -> y */
static qir_model *model_attention(int64_t ir, int64_t opset)
{
	static const int64_t d[4] = { 1, 2, 4, 8 };
	qir_model *m = qir_model_new(ir, opset, NULL);
	qir_graph *g = m->graph;
	qir_node *a;

	a = node1(g, "Attention", "att", input(g, "q", 4, d));
	qir_node_add_input(a, input(g, "k", 4, d));
	qir_node_add_input(a, input(g, "v", 4, d));
	output(a);
	return m;
}

static void test_upgrade_24_25(void)
{
	qir_model *m;

	expect_bump(11, 23, 24, 12);
	expect_bump(12, 24, 25, 13);
	expect_bump(11, 23, 25, 13);
	expect_bump(10, 21, 25, 13);

	/* Attention's changes at 24 and 25 are not established: refused
	 * rather than renumbered. */
	m = model_attention(11, 23);
	expect_refused(m, 24, QIR_EUNSUPPORTED, "node 'att' (Attention) "
		       "from Attention-23 to Attention-24",
		       "Attention-23 -> 24");
	expect_refused(m, 25, QIR_EUNSUPPORTED, "Attention-23 to "
		       "Attention-24", "Attention-23 -> 25 (stops at 24)");
	qir_model_free(m);
	m = model_attention(12, 24);
	expect_refused(m, 25, QIR_EUNSUPPORTED, "from Attention-24 to "
		       "Attention-25", "Attention-24 -> 25");
	qir_model_free(m);

	/* Ops new in 24 do not exist in a 23 model. */
	m = qir_model_new(11, 23, NULL);
	output(node1(m->graph, "Swish", "sw",
		     input(m->graph, "x", 1, (int64_t[]){ 4 })));
	expect_refused(m, 25, QIR_EINVALID, "Swish does not exist in opset "
		       "23 (first defined in 24)", "Swish in an opset-23 model");
	qir_model_free(m);
}

/* ---- model-local functions ---- */

/* ModelProto (IR 6, opset 11) with graph x -> Relu -> y and one
 * function local.myfn (y = Relu(x)), written byte by byte. */
static struct pb function_model(void)
{
	static const int64_t d[1] = { 4 };
	static const char *const in[] = { "x", NULL }, *const out[] = { "y",
									NULL };
	struct pb m = { 0 }, g = { 0 }, op = { 0 }, f = { 0 }, fop = { 0 },
		  fn = { 0 };

	pb_node(&g, "Relu", "r", in, out, NULL);
	pb_str(&g, 2, "main");
	pb_value(&g, 11, "x", QIR_FLOAT, d, 1);
	pb_value(&g, 12, "y", QIR_FLOAT, d, 1);
	pb_int(&m, 1, 6);
	pb_str(&op, 1, "");
	pb_int(&op, 2, 11);
	pb_msg(&m, 8, &op);
	pb_msg(&m, 7, &g);
	pb_str(&f, 1, "myfn");
	pb_str(&f, 4, "x");
	pb_str(&f, 5, "y");
	/* pb_node writes GraphProto.node (field 1); FunctionProto.node is
	 * field 7: same bytes under another one-byte key. */
	pb_node(&fn, "Relu", "fr", in, out, NULL);
	fn.d[0] = (7 << 3) | 2;
	pb_raw(&f, fn.d, fn.n);
	free(fn.d);
	pb_str(&fop, 1, "");
	pb_int(&fop, 2, 11);
	pb_msg(&f, 9, &fop);
	pb_str(&f, 10, "local");
	pb_msg(&m, 25, &f);
	return m;
}

static void test_functions(void)
{
	struct pb b = function_model();	/* lives as long as the model */
	qir_error err = { 0 };
	qir_model *m = NULL, *plain;
	char fn[512];

	if (!tap_ok(qir_model_load_buffer(b.d, b.n, NULL, &m, &err) == 0,
		    "function model loads")) {
		tap_diag("%s", err.msg);
		free(b.d);
		return;
	}
	tap_ok(qir_model_function_count(m) == 1 &&
	       qir_model_function_name(m, 0, fn, sizeof(fn)) &&
	       !strcmp(qir_model_function_name(m, 0, fn, sizeof(fn)), "local.myfn") &&
	       !qir_model_function_name(m, 1, fn, sizeof(fn)),
	       "qir_model_function_count/name: 1, 'local.myfn'");
	expect_refused(m, 19, QIR_EUNSUPPORTED, "model-local function",
		       "local function");
	tap_ok(qir_model_opset(m, "") == 11 && m->ir_version == 6,
	       "local function: opset and IR version stay 11 and 6");
	qir_model_free(m);
	free(b.d);

	plain = qir_model_new(6, 11, NULL);
	tap_ok(qir_model_function_count(plain) == 0 &&
	       !qir_model_function_name(plain, 0, fn, sizeof(fn)),
	       "a model built in memory has no functions");
	qir_model_free(plain);
}

static void test_ir_table(void)
{
	tap_ok(qir_opset_min_ir_version(13) == 7 &&
	       qir_opset_min_ir_version(19) == 9 &&
	       qir_opset_min_ir_version(21) == 10 &&
	       qir_opset_min_ir_version(23) == 11 &&
	       qir_opset_min_ir_version(24) == 12 &&
	       qir_opset_min_ir_version(25) == 13,
	       "qir_opset_min_ir_version follows docs/numerics.md");
	tap_ok(qir_op_first_opset("Gelu") == 20 &&
	       qir_op_first_opset("Relu") == 1 &&
	       qir_op_first_opset("Swish") == 24 &&
	       qir_op_first_opset("TensorScatter") == 24 &&
	       qir_op_first_opset("NoSuchOp") == 0,
	       "qir_op_first_opset: Gelu 20, Relu 1, Swish and "
	       "TensorScatter 24, unknown 0");
}

int main(void)
{
	test_upgrade_11_19();
	test_chains();
	test_refusals();
	test_upgrade_24_25();
	test_functions();
	test_ir_table();
	return tap_done();
}

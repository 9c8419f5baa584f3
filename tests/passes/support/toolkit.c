/*
 * tests/passes/support/toolkit.c - the pass toolkit (passes/support) on small
 * graphs built with the IR API: target selection and its hit counts,
 * the reduction axis K per consumer and through layout nodes, the
 * walk's refusals, rotate_back, the Q/DQ builder, skip reports,
 * cleanup of what a rewrite leaves unread (and its mark-and-sweep), a
 * deferred recipe's shared fill, NVFP4 fake quantization and
 * qopt_require_opset() without a manager.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qopt/qopt.h>
#include "../../../passes/support/support.h"
#include "../../lib/tap.h"

static qir_model *new_model(void)
{
	qir_error err = { 0 };
	qir_model *m = qir_model_new(8, 17, &err);

	if (!m) {
		printf("Bail out! qir_model_new: %s\n", err.msg);
		exit(1);
	}
	return m;
}

static qir_value *input(qir_model *m, const char *name, int rank,
			const int64_t *dims)
{
	qir_value *v = qir_value_new(m->graph, name);

	if (qir_value_set_type(v, QIR_FLOAT, rank, dims, NULL) ||
	    qir_graph_add_input(m->graph, v)) {
		printf("Bail out! input %s\n", name);
		exit(1);
	}
	return v;
}

static qir_value *weight(qir_model *m, const char *name, int rank,
			 const int64_t *dims)
{
	qir_tensor *t = qir_tensor_new(name, QIR_FLOAT, rank, dims, NULL);
	qir_value *v = t ? qir_graph_add_initializer(m->graph, t) : NULL;

	if (!v) {
		printf("Bail out! weight %s\n", name);
		exit(1);
	}
	return v;
}

/* op(a, b) -> one output; NULL b: one input. */
static qir_node *node(qir_model *m, const char *op, const char *name,
		      qir_value *a, qir_value *b)
{
	qir_node *n = qir_node_new(m->graph, op, NULL, name);

	if (!n || qir_node_add_input(n, a) || (b && qir_node_add_input(n, b)) ||
	    !qir_node_add_output(n, NULL, name)) {
		printf("Bail out! node %s\n", name);
		exit(1);
	}
	return n;
}

static void t_targets(void)
{
	static const char *const inc[] = { "fc*", "nothing*", "*.w" };
	static const char *const exc[] = { "fc2" };
	static const char *const ops[] = { "MatMul", "Gemm" };
	struct ps_targets t = { 0 };
	const char *names[3] = { "fc1", NULL, "layer.w" };
	int first;

	t.include.option = "include";
	t.include.pat = inc;
	t.include.n = 3;
	t.include.set = 1;
	t.include.hits = calloc(4, sizeof(uint64_t));
	t.exclude.option = "exclude";
	t.exclude.pat = exc;
	t.exclude.n = 1;
	t.exclude.hits = calloc(2, sizeof(uint64_t));
	t.op_types = ops;
	t.nop_types = 2;
	first = ps_globs_match(&t.include, names, 3);
	tap_ok(first == 0 && t.include.hits[0] == 1 && t.include.hits[1] == 0 &&
	       t.include.hits[2] == 1,
	       "globs: the first matching pattern, a hit for each that matches");
	names[0] = "";
	names[2] = "other";
	tap_ok(ps_globs_match(&t.include, names, 3) < 0,
	       "globs: empty and NULL names match nothing, not even '*'");
	names[0] = "fc2";
	tap_ok(ps_globs_match(&t.exclude, names, 1) == 0 &&
	       t.exclude.hits[0] == 1, "globs: exclude counts its hits too");
	tap_ok(ps_targets_op(&t, "Gemm") && !ps_targets_op(&t, "Conv"),
	       "op_types: listed ops only");
	ps_targets_report(NULL, &t, "weight");	/* warns for 'nothing*' */
	ps_targets_fini(&t);
	tap_ok(!t.include.hits && !t.exclude.hits, "fini frees the hit counts");
	tap_ok(ps_targets_init(&t, NULL, PS_TARGET_ALL) == 0 &&
	       t.include.n == 0 && t.exclude.n == 0 && t.nop_types == 0 &&
	       t.min_size == 0 && !t.include.set,
	       "init without a manager: every option reads as unset");
	ps_targets_fini(&t);
}

/* node=NAME: the node's name (names[0]) alone, exactly; a glob still
 * matches any name offered, as before. */
static void t_node_pattern(void)
{
	static const char *const inc[] = { "node=X", "X", "node=X*" };
	struct ps_globs g = { .option = "include", .pat = inc, .n = 3,
				.set = 1 };
	const char *out_x[2] = { "attention", "X" };	/* its output: X */
	const char *node_x[2] = { "X", "a" };
	const char *star[2] = { "X*", "X1" };
	const char *x1[2] = { "X1", "X*" };

	g.hits = calloc(4, sizeof(uint64_t));
	tap_ok(ps_globs_match(&g, out_x, 2) == 1 && g.hits[0] == 0 &&
	       g.hits[1] == 1,
	       "node=X: not a node whose other name is X (the glob X is)");
	tap_ok(ps_globs_match(&g, node_x, 2) == 0 && g.hits[0] == 1,
	       "node=X: the node named X");
	tap_ok(ps_globs_match(&g, star, 2) == 2 && g.hits[2] == 1 &&
	       ps_globs_match(&g, x1, 2) < 0 && g.hits[2] == 1,
	       "node=X*: the name X* literally, no glob and no other name");
	free(g.hits);
}

static void t_reduce_axis(void)
{
	qir_model *m = new_model();
	int64_t d2[2] = { 8, 4 }, d4[4] = { 2, 3, 8, 4 };
	qir_value *x = input(m, "x", 2, d2), *w = weight(m, "w", 2, d2);
	qir_value *cw = weight(m, "cw", 4, d4);
	qir_node *mm = node(m, "MatMul", "mm", x, w);
	qir_node *gm = node(m, "Gemm", "gm", x, w);
	qir_node *cv = node(m, "Conv", "cv", x, cw);
	qir_node *ad = node(m, "Add", "ad", x, w);

	tap_ok(ps_reduce_axis(mm, 0, 3) == 2 && ps_reduce_axis(mm, 1, 3) == 1 &&
	       ps_reduce_axis(mm, 1, 1) == 0 && ps_reduce_axis(mm, 1, 0) == -1,
	       "MatMul: A's last axis, B's second to last ([K] for rank 1)");
	tap_ok(ps_reduce_axis(gm, 1, 2) == 0 && ps_reduce_axis(gm, 0, 2) == 1 &&
	       ps_reduce_axis(gm, 1, 3) == -1, "Gemm: B [K, N], A [M, K], rank 2 only");
	if (qir_node_set_attr_int(gm, "transB", 1) ||
	    qir_node_set_attr_int(gm, "transA", 1))
		printf("Bail out! attr\n");
	tap_ok(ps_reduce_axis(gm, 1, 2) == 1 && ps_reduce_axis(gm, 0, 2) == 0,
	       "Gemm: transB / transA move K");
	tap_ok(ps_reduce_axis(cv, 1, 4) == 1 && ps_reduce_axis(cv, 1, 2) == -1 &&
	       ps_reduce_axis(cv, 0, 4) == -1, "Conv: W's input channels, rank >= 3");
	tap_ok(ps_reduce_axis(ad, 1, 2) == -1 && ps_weight_slot(ad) == -1 &&
	       ps_weight_slot(mm) == 1, "Add reduces nothing and has no weight slot");
	qir_model_free(m);
}

/* w [4, 8] -> Transpose(perm 1,0) -> Cast(FLOAT16) -> MatMul B: the
 * consumer's K (axis 0 of [8, 4]) is stored axis 1. */
static void t_walk(void)
{
	qir_model *m = new_model();
	int64_t dw[2] = { 4, 8 }, dx[2] = { 2, 8 };
	static const int64_t perm[2] = { 1, 0 };
	qir_value *x = input(m, "x", 2, dx), *w = weight(m, "w", 2, dw);
	qir_node *tr = node(m, "Transpose", "tr", w, NULL);
	qir_node *ca = node(m, "Cast", "ca", tr->outputs[0], NULL);
	qir_node *mm = node(m, "MatMul", "mm", x, ca->outputs[0]);
	struct ps_uses u = { 0 };
	struct ps_skip s = { 0 };
	int k = -7;

	if (qir_node_set_attr_ints(tr, "perm", perm, 2) ||
	    qir_node_set_attr_int(ca, "to", QIR_FLOAT16))
		printf("Bail out! attr\n");
	tap_ok(ps_stored_value(mm->inputs[1], 0) == w,
	       "stored value: looked through Cast and Transpose");
	tap_ok(ps_collect_uses(w, 0, &u, &s) == 0 && u.n == 1 && !s.kind &&
	       u.v[0].node == mm && u.v[0].npath == 2 && u.v[0].path[0] == tr,
	       "walk: one use, the layout path in order");
	tap_ok(ps_uses_kaxis(&u, 2, &k, &s) == 0 && k == 1,
	       "K mapped back through the Transpose: stored axis 1");
	/* a second consumer reading w directly reduces over axis 0 */
	node(m, "MatMul", "mm2", input(m, "x2", 2, (int64_t[2]){ 2, 4 }), w);
	tap_ok(ps_collect_uses(w, 0, &u, &s) == 0 && u.n == 2 &&
	       ps_uses_kaxis(&u, 2, &k, &s) < 0 && s.kind == &ps_skip_k_disagree,
	       "consumers that disagree on K: skipped, saying so");
	memset(&s, 0, sizeof(s));
	node(m, "Relu", "re", w, NULL);
	tap_ok(ps_collect_uses(w, 0, &u, &s) == 0 && s.kind == &ps_skip_shared &&
	       strstr(s.why, "Relu node 're'"),
	       "a non-reducing reader: skipped as shared, naming it (%s)", s.why);
	ps_skip_first(&s, &ps_skip_layout, "later");
	tap_ok(s.kind == &ps_skip_shared, "the first reason wins");
	memset(&s, 0, sizeof(s));
	tap_ok(ps_collect_uses(x, PS_WALK_ACTIVATION, &u, &s) == 0 &&
	       u.n == 1 && u.v[0].slot == 0 && !s.kind &&
	       ps_uses_kaxis(&u, 2, &k, &s) == 0 && k == 1,
	       "activation side: MatMul A counts, K its last axis");
	ps_uses_free(&u);
	qir_model_free(m);
}

static int fq_round(void *arg, qk_ctx *qk, float *x, size_t outer, size_t k,
		    size_t inner, const char **step)
{
	size_t i, n = outer * k * inner;

	(void)qk;
	*step = "rounding";
	if (arg)
		return QK_EINVAL;
	for (i = 0; i < n; i++)
		x[i] = roundf(x[i]);
	return 0;
}

static void t_rotate_back(void)
{
	float w[2 * 8 * 3], out[2 * 8 * 3], r[2 * 8 * 3];
	size_t o, k, i, n = 2 * 8 * 3;
	const char *step = NULL;
	double err = 0;
	int64_t dims[3] = { 2, 8, 3 };
	size_t outer, kk, inner;
	int rc;

	ps_axis_split(dims, 3, 1, &outer, &kk, &inner);
	tap_ok(outer == 2 && kk == 8 && inner == 3, "axis split [2, 8, 3] at 1");
	for (i = 0; i < n; i++)
		w[i] = (float)((i * 7) % 11) - 5.0f;
	/* R w computed by hand: the Sylvester H_8 / sqrt(8) along K. */
	for (o = 0; o < 2; o++)
		for (k = 0; k < 8; k++)
			for (i = 0; i < 3; i++) {
				double s = 0;

				for (size_t j = 0; j < 8; j++)
					s += (__builtin_popcount(
						      (unsigned)(k & j)) & 1 ?
						      -1 : 1) *
					     w[(o * 8 + j) * 3 + i];
				r[(o * 8 + k) * 3 + i] = roundf(
					(float)(s / sqrt(8.0)));
			}
	rc = ps_rotate_back(NULL, QIR_FLOAT, w, out, 2, 8, 3, 0, fq_round,
			    NULL, &step);
	/* out = R round(R w): R out = round(R w) */
	for (o = 0; o < 2; o++)
		for (k = 0; k < 8; k++)
			for (i = 0; i < 3; i++) {
				double s = 0;

				for (size_t j = 0; j < 8; j++)
					s += (__builtin_popcount(
						      (unsigned)(k & j)) & 1 ?
						      -1 : 1) *
					     out[(o * 8 + j) * 3 + i];
				err = fmax(err, fabs(s / sqrt(8.0) -
						     r[(o * 8 + k) * 3 + i]));
			}
	tap_ok(rc == 0 && err < 1e-4,
	       "rotate_back: R fq(R W) along K (max error %g)", err);
	rc = ps_rotate_back(NULL, QIR_FLOAT, w, out, 2, 8, 3, 0, fq_round,
			    (void *)1, &step);
	tap_ok(rc == QK_EINVAL && step && !strcmp(step, "rounding"),
	       "a failing fake quantizer: its code and step come back");
	rc = ps_rotate_back(NULL, QIR_STRING, w, out, 2, 8, 3, 0, fq_round,
			    NULL, &step);
	tap_ok(rc != 0 && !strcmp(step, "conversion to FP32"),
	       "a type the kernels cannot convert: the first step fails (%s)",
	       step);
}

static void t_qdq(void)
{
	qir_model *m = new_model();
	int64_t dx[2] = { 4, 8 }, ds[1] = { 8 };
	qir_value *x = input(m, "x", 2, dx), *s, *zp;
	qir_tensor *st = ps_filled_tensor("x_fp8_scale", QIR_FLOAT16, 0.5, 1, ds);
	struct ps_qdq_attrs a = { .per_axis = 1, .axis = 1, .saturate = 1 };
	qir_node *q = NULL, *dq = NULL;
	qir_error err = { 0 };
	char name[64];
	double v = 0;

	tap_ok(st && st->dtype == QIR_FLOAT16 &&
	       !qir_tensor_get_f64(st, 7, &v, NULL) && v == 0.5,
	       "filled tensor: FLOAT16 0.5 everywhere");
	tap_ok(!ps_filled_tensor("i", QIR_INT8, 1, 0, NULL),
	       "filled tensor: a non-float type is refused");
	ps_qdq_name(name, sizeof(name), "x", "fp8", "zero_point");
	tap_ok(!strcmp(name, "x_fp8_zero_point"), "naming: BASE_TAG_SUFFIX");
	zp = ps_add_initializer(m->graph, ps_zero_point(name, QIR_FLOAT8E4M3FN,
							1, ds));
	s = ps_add_initializer(m->graph, st);
	tap_ok(s && zp && zp->init->dtype == QIR_FLOAT8E4M3FN &&
	       !ps_add_initializer(m->graph, NULL), "initializers added");
	tap_ok(ps_qdq_pair(m->graph, "x", x, s, zp, QIR_FLOAT8E4M3FN,
			   QIR_FLOAT, &a, &q, &dq, &err) == 0,
	       "Q/DQ pair built");
	tap_ok(q && dq && !strcmp(q->name, "x_q") && !strcmp(dq->name, "x_dq") &&
	       q->ninputs == 3 && dq->inputs[0] == q->outputs[0] &&
	       qir_value_elem_type(q->outputs[0]) == QIR_FLOAT8E4M3FN &&
	       qir_value_elem_type(dq->outputs[0]) == QIR_FLOAT &&
	       dq->outputs[0]->rank == 2,
	       "Q/DQ: names, wiring, output types and shape");
	tap_ok(q && dq && qir_node_attr_int(q, "saturate", 0) == 1 &&
	       qir_node_attr_int(q, "axis", -9) == 1 &&
	       qir_node_attr_int(dq, "axis", -9) == 1 &&
	       !qir_node_attr(q, "block_size") && !qir_node_attr(dq, "saturate"),
	       "Q/DQ: saturate on Q, axis on both, no block_size");
	q = ps_qdq_node(m->graph, "DequantizeLinear", "two", x, s, NULL);
	tap_ok(q && q->ninputs == 2, "a DQ without zero point has two inputs");
	qir_model_free(m);
}

static void t_skip_and_opset(void)
{
	struct ps_skip s = { 0 };

	ps_skip_set(&s, &ps_skip_below_min_size, "%d elements < %d", 3, 4);
	tap_ok(s.kind == &ps_skip_below_min_size &&
	       !strcmp(s.why, "3 elements < 4"), "skip: kind and sentence");
	ps_skip_set(&s, &ps_skip_nonfinite, "again");
	tap_ok(s.kind->level == PS_SKIP_WARN && ps_skip_not_included.level ==
	       PS_SKIP_QUIET, "skip: set overrides; levels say how loud");
	ps_skip_report(NULL, &s, "weight", "W");
	tap_ok(qopt_require_opset(NULL, 19, "FP8 Q/DQ") == QOPT_EUSAGE,
	       "qopt_require_opset without a manager: QOPT_EUSAGE");
	tap_ok(QOPT_PRIMARY(QOPT_EPLUGIN_ABI) == QOPT_EPLUGIN &&
	       *qopt_status_str(QOPT_EPOLICY),
	       "status: primary of an extended code, names");
}

static void t_cleanup(void)
{
	qir_model *m = new_model();
	int64_t d2[2] = { 4, 4 };
	qir_value *x = input(m, "x", 2, d2), *w = weight(m, "w", 2, d2);
	qir_node *mm = node(m, "MatMul", "mm", x, w);
	qir_error err = { 0 };

	tap_ok(!ps_unused_initializer(w) && !ps_unused_initializer(x) &&
	       ps_drop_unused_initializer(w, &err) == 0,
	       "cleanup: a read initializer and a graph input stay");
	tap_ok(ps_node_unused(mm), "cleanup: a node nothing reads is unused");
	if (qir_node_erase(mm, &err))
		printf("Bail out! erase: %s\n", err.msg);
	tap_ok(ps_unused_initializer(w) &&
	       ps_drop_unused_initializer(w, &err) == 1 &&
	       !qir_graph_find_value(m->graph, "w"),
	       "cleanup: once unread, the initializer goes");
	qir_model_free(m);
}

static int has_node(qir_model *m, const char *name)
{
	qir_node *n;

	qir_graph_for_each_node(m->graph, n)
		if (n->name && !strcmp(n->name, name))
			return 1;
	return 0;
}

static qir_value *val(qir_model *m, const char *name)
{
	return qir_graph_find_value(m->graph, name);
}

/* y = MatMul(x, Add(Transpose(w), Constant c)), z = Relu(DQ(q, s)),
 * both graph outputs: what the sweep tests orphan. */
static qir_model *sweep_model(void)
{
	qir_model *m = new_model();
	int64_t d2[2] = { 4, 4 };
	qir_value *x = input(m, "x", 2, d2), *w = weight(m, "w", 2, d2);
	qir_value *q = weight(m, "q", 2, d2), *s = weight(m, "s", 0, NULL);
	qir_node *tr = node(m, "Transpose", "tr", w, NULL);
	qir_node *c = qir_node_new(m->graph, "Constant", NULL, "c");
	qir_node *add, *mm, *dq, *relu;

	if (!c || !qir_node_add_output(c, NULL, "c")) {
		printf("Bail out! node c\n");
		exit(1);
	}
	add = node(m, "Add", "add", tr->outputs[0], c->outputs[0]);
	mm = node(m, "MatMul", "mm", x, add->outputs[0]);
	dq = node(m, "DequantizeLinear", "dq", q, s);
	relu = node(m, "Relu", "relu", dq->outputs[0], NULL);
	if (qir_graph_add_output(m->graph, mm->outputs[0]) ||
	    qir_graph_add_output(m->graph, relu->outputs[0])) {
		printf("Bail out! outputs\n");
		exit(1);
	}
	return m;
}

/* Points input i of the node called name at x (what a rewrite does);
 * returns the value it read before. */
static qir_value *rewire(qir_model *m, const char *name, size_t i)
{
	qir_node *n = val(m, name)->producer;
	qir_value *old = n->inputs[i];

	if (qir_node_set_input(n, i, val(m, "x"))) {
		printf("Bail out! rewire %s\n", name);
		exit(1);
	}
	return old;
}

static void t_sweep(void)
{
	qir_model *m = sweep_model();
	struct ps_sweep s = { .follow = ps_follow_all };
	qir_error err = { 0 };
	qir_node *neg = node(m, "Neg", "neg", val(m, "tr"), NULL);
	qir_value *a = rewire(m, "mm", 1);

	/* marked twice, swept once; tr is still read by neg */
	ps_sweep_value(&s, a);
	ps_sweep_value(&s, a);
	tap_ok(ps_sweep(&s, &err) == 0 && !has_node(m, "add") &&
	       !has_node(m, "c") && has_node(m, "tr") && val(m, "w") &&
	       s.nnodes == 0 && s.ninits == 0,
	       "sweep: an orphaned Add and its Constant go, a producer "
	       "still read stays");
	/* a marked node that is read stays, and is forgotten */
	if (qir_graph_add_output(m->graph, neg->outputs[0]))
		printf("Bail out! output neg\n");
	ps_sweep_mark(&s, neg);
	ps_sweep_nodes(&s);
	tap_ok(has_node(m, "neg") && s.nnodes == 0,
	       "sweep: a marked node still read stays and is forgotten");
	if (qir_graph_set_output(m->graph, 2, val(m, "x")))
		printf("Bail out! set output\n");
	ps_sweep_mark(&s, neg);
	tap_ok(ps_sweep(&s, &err) == 0 && !has_node(m, "neg") &&
	       !has_node(m, "tr") && !val(m, "w"),
	       "sweep: once unread, the marked node, the producer only it "
	       "read and their initializer go");
	s.follow = ps_follow_not_dq;
	ps_sweep_value(&s, rewire(m, "relu", 0));
	tap_ok(ps_sweep(&s, &err) == 0 && has_node(m, "dq") && val(m, "q"),
	       "sweep: a producer not followed (DequantizeLinear) stays");
	/* no follow: a marked node goes, its initializers with it, but one
	 * read again before the sweep stays */
	s.follow = NULL;
	ps_sweep_mark(&s, val(m, "dq")->producer);
	ps_sweep_nodes(&s);
	node(m, "Neg", "neg2", val(m, "s"), NULL);
	tap_ok(!has_node(m, "dq") && s.ninits == 2 &&
	       ps_sweep_inits(&s, &err) == 0 && !val(m, "q") && val(m, "s"),
	       "sweep: no follow: the marked node goes; of its initializers, "
	       "the one read again stays");
	ps_sweep_fini(&s);
	qir_model_free(m);
}

/* The test recipe: dst = src + 1 (FLOAT); fails with a kernel code
 * when bias is 0, with err set when bias is -1. */
struct add_recipe {
	struct ps_recipe base;
	int bias;
	int *freed;
};

static int add_run(struct ps_recipe *base, qk_ctx *kc, const qir_tensor *in,
		   const void *src, void *const *dst, const char **step,
		   qir_error *err)
{
	struct add_recipe *r = (struct add_recipe *)base;
	const float *x = src;
	float *y = dst[0];

	(void)kc;
	*step = "adding";
	if (r->bias == 0)
		return QOPT_EINVALID_BLOCK;
	if (r->bias < 0)
		return qir_fail(err, QIR_EINVALID, "own message");
	for (size_t i = 0; i < in->nbytes / sizeof(float); i++)
		y[i] = x[i] + (float)r->bias;
	return 0;
}

static void add_fini(struct ps_recipe *base)
{
	++*((struct add_recipe *)base)->freed;
}

/* The recipe's output for bias over w = { 0, 1, 2, 3 }: its first
 * element, or NAN with err set. */
static float recipe_out(int bias, int *freed, qir_error *err)
{
	qir_model *m = new_model();
	int64_t d[1] = { 4 };
	qir_value *w = weight(m, "w", 1, d);
	float *x = qir_tensor_mutable_data(w->init, NULL), y = NAN;
	struct add_recipe *r = ps_recipe_new(NULL, sizeof(*r), "w", add_run,
					     add_fini);
	const qir_tensor_spec spec = { "w_out", QIR_FLOAT, 1, d };
	const float *p;
	qir_tensor *out;

	for (int i = 0; i < 4; i++)
		x[i] = (float)i;
	if (!r) {
		printf("Bail out! recipe\n");
		exit(1);
	}
	r->bias = bias;
	r->freed = freed;
	if (ps_recipe_defer(m, &r->base, w->init, 0, &spec, 1, &out, err) == 0) {
		p = qir_tensor_data(out, err);
		if (p)
			y = p[3];
		qir_tensor_free(out);
	}
	qir_model_free(m);
	return y;
}

static void t_recipe(void)
{
	qir_error err = { 0 };
	int freed = 0;
	float y = recipe_out(2, &freed, &err);

	tap_ok(y == 5.0f && freed == 1,
	       "recipe: filled from a shared view of the weight; fini once");
	y = recipe_out(0, &freed, &err);
	tap_ok(isnan(y) && strstr(err.msg, "weight 'w': adding failed: ") &&
	       freed == 2,
	       "recipe: a kernel code names the weight and the step");
	memset(&err, 0, sizeof(err));
	y = recipe_out(-1, &freed, &err);
	tap_ok(isnan(y) && strstr(err.msg, "own message") && freed == 3,
	       "recipe: a run's own error passes through");
}

static void t_fakequant(void)
{
	/* Two blocks of 16 whose values NVFP4 holds exactly (E2M1 codes
	 * times a power-of-two block scale): fake quantization keeps them. */
	static const float e2m1[8] = { 0, 0.5f, 1, 1.5f, 2, 3, 4, 6 };
	float w[32], out[32];
	const char *step = NULL;
	int i, rc, same = 1;

	for (i = 0; i < 32; i++)
		w[i] = (i & 1 ? -1.0f : 1.0f) * e2m1[i % 8] * (i < 16 ? 1 : 4);
	rc = ps_fake_nvfp4(NULL, QIR_FLOAT, w, out, 1, 32, 1, &step);
	for (i = 0; i < 32; i++)
		same &= out[i] == w[i];
	tap_ok(rc == 0 && same, "fake NVFP4: representable values unchanged");
	for (i = 0; i < 32; i++)
		w[i] = (float)(i * 37 % 23) * 0.13f - 1.3f;
	rc = ps_fake_nvfp4(NULL, QIR_FLOAT, w, out, 1, 32, 1, &step);
	rc |= ps_fake_nvfp4(NULL, QIR_FLOAT, w, w, 1, 32, 1, &step);
	same = 1;
	for (i = 0; i < 32; i++)
		same &= out[i] == w[i];
	tap_ok(rc == 0 && same, "fake NVFP4 in place: the same values");
	rc = ps_fake_nvfp4(NULL, QIR_FLOAT, w, out, 1, 24, 1, &step);
	tap_ok(rc != 0 && !strcmp(step, "NVFP4 quantization"),
	       "fake NVFP4: K not a multiple of 16 fails naming the step");
}

int main(void)
{
	t_targets();
	t_node_pattern();
	t_reduce_axis();
	t_walk();
	t_rotate_back();
	t_qdq();
	t_skip_and_opset();
	t_cleanup();
	t_sweep();
	t_recipe();
	t_fakequant();
	return tap_done();
}

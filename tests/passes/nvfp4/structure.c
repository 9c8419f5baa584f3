/*
 * tests/passes/nvfp4/structure.c - the nvfp4-weights pass end to end through
 * the qopt binary: small models built with the IR API, run through a
 * pipeline, the output loaded back and its structure checked; real
 * mode decoded with the kernels equals fake mode bit for bit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <qopt/qopt.h>
#include "../../lib/tap.h"

static const char *qopt_bin;
static char work[512];

/* ---- model building ---- */

static uint32_t rng = 12345;

static float frand(void)
{
	rng = rng * 1664525u + 1013904223u;
	return (float)((rng >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static qir_model *new_model(int opset)
{
	qir_error err = { 0 };
	qir_model *m = qir_model_new(8, opset, &err);

	if (!m) {
		printf("Bail out! qir_model_new: %s\n", err.msg);
		exit(1);
	}
	return m;
}

static qir_value *input(qir_model *m, const char *name, int dt, int rank,
			const int64_t *dims)
{
	qir_value *v = qir_value_new(m->graph, name);

	qir_value_set_type(v, dt, rank, dims, NULL);
	qir_graph_add_input(m->graph, v);
	return v;
}

static qir_tensor *rand_tensor(const char *name, int dt, int rank,
			       const int64_t *dims)
{
	qir_tensor *t = qir_tensor_new(name, dt, rank, dims, NULL);
	uint64_t i, n = qir_tensor_numel(t);
	void *p = qir_tensor_mutable_data(t, NULL);

	for (i = 0; i < n; i++) {
		float x = frand() * (i % 97 == 0 ? 8.0f : 1.0f);

		if (dt == QIR_FLOAT)
			((float *)p)[i] = x;
		else
			((uint16_t *)p)[i] = qk_f32_to_f16(x);
	}
	return t;
}

static qir_value *init(qir_model *m, const char *name, int dt, int rank,
		       const int64_t *dims)
{
	return qir_graph_add_initializer(m->graph,
					 rand_tensor(name, dt, rank, dims));
}

static qir_value *constant(qir_model *m, const char *name, qir_tensor *t)
{
	qir_node *n = qir_node_new(m->graph, "Constant", NULL, name);

	qir_node_set_attr_tensor(n, "value", t);
	return qir_node_add_output(n, NULL, name);
}

static qir_value *op(qir_model *m, const char *type, const char *name,
		     qir_value *a, qir_value *b)
{
	qir_node *n = qir_node_new(m->graph, type, NULL, name);

	qir_node_add_input(n, a);
	if (b)
		qir_node_add_input(n, b);
	return qir_node_add_output(n, NULL, name);
}

static void output(qir_model *m, qir_value *v, int dt)
{
	qir_value_set_type(v, dt, -1, NULL, NULL);
	qir_graph_add_output(m->graph, v);
}

static void save(qir_model *m, const char *name)
{
	char path[700];
	qir_error err = { 0 };

	snprintf(path, sizeof(path), "%s/%s.onnx", work, name);
	if (qir_model_save(m, path, NULL, &err)) {
		printf("Bail out! save %s: %s\n", path, err.msg);
		exit(1);
	}
	qir_model_free(m);
}

/* ---- running qopt ---- */

/* Runs the pipeline `ini` on in.onnx; returns the exit status. The
 * output is <out>.onnx, stderr in <out>.err. */
static int run(const char *in, const char *out, const char *ini,
	       const char *flags)
{
	char pl[700], cmd[4096];
	FILE *f;
	int rc;

	snprintf(pl, sizeof(pl), "%s/%s.ini", work, out);
	f = fopen(pl, "w");
	fputs(ini, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "'%s' %s -p '%s' '%s/%s.onnx' -o '%s/%s.onnx' "
		 "2>'%s/%s.err'", qopt_bin, flags ? flags : "", pl, work, in,
		 work, out, work, out);
	rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : 255;
}

static qir_model *load(const char *name)
{
	char path[700];
	qir_error err = { 0 };
	qir_model *m = NULL;

	snprintf(path, sizeof(path), "%s/%s.onnx", work, name);
	if (qir_model_load(path, NULL, &m, &err)) {
		tap_diag("load %s: %s", path, err.msg);
		return NULL;
	}
	if (qir_verify(m, &err))
		tap_diag("verify %s: %s", path, err.msg);
	return m;
}

static char *slurp(const char *name, const char *ext)
{
	char path[700];
	static char buf[1 << 16];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s.%s", work, name, ext);
	f = fopen(path, "r");
	if (!f)
		return strcpy(buf, "");
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static int exists(const char *name)
{
	char path[700];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s.onnx", work, name);
	return stat(path, &st) == 0;
}

/* ---- inspecting ---- */

static qir_node *find_node(qir_model *m, const char *name)
{
	qir_node *n;

	qir_graph_for_each_node(m->graph, n)
		if (!strcmp(n->name, name))
			return n;
	return NULL;
}

static int count_op(qir_model *m, const char *op)
{
	qir_node *n;
	int c = 0;

	qir_graph_for_each_node(m->graph, n)
		c += !strcmp(n->op_type, op);
	return c;
}

struct chain {
	qir_node *dq1, *dq2, *cast;
	qir_tensor *f4, *s8, *g;
};

/* The NVFP4 chain feeding value v (through an optional Cast). */
static int get_chain(qir_value *v, struct chain *c)
{
	memset(c, 0, sizeof(*c));
	if (!v || !v->producer)
		return 0;
	if (!strcmp(v->producer->op_type, "Cast")) {
		c->cast = v->producer;
		v = c->cast->inputs[0];
		if (!v->producer)
			return 0;
	}
	c->dq2 = v->producer;
	if (strcmp(c->dq2->op_type, "DequantizeLinear") || c->dq2->ninputs != 2)
		return 0;
	c->f4 = c->dq2->inputs[0]->init;
	c->dq1 = c->dq2->inputs[1]->producer;
	if (!c->dq1 || strcmp(c->dq1->op_type, "DequantizeLinear") ||
	    c->dq1->ninputs != 2)
		return 0;
	c->s8 = c->dq1->inputs[0]->init;
	c->g = c->dq1->inputs[1]->init;
	return c->f4 && c->s8 && c->g;
}

static int dims_eq(const qir_tensor *t, int rank, const int64_t *d)
{
	int i;

	if (t->rank != rank)
		return 0;
	for (i = 0; i < rank; i++)
		if (t->dims[i] != d[i])
			return 0;
	return 1;
}

/* Checks the real-mode chain at consumer `node` input 1 (or at the
 * input of the layout node feeding it when via is set). */
static void check_chain(qir_model *m, const char *what, qir_value *v,
			int axis, int rank, const int64_t *wdims,
			const int64_t *sdims, int cast_to)
{
	struct chain c;

	if (!tap_ok(get_chain(v, &c), "%s: DequantizeLinear chain present",
		    what))
		return;
	tap_ok(c.f4->dtype == QIR_FLOAT4E2M1 && dims_eq(c.f4, rank, wdims),
	       "%s: FLOAT4E2M1 weight of the weight's shape", what);
	tap_ok(c.s8->dtype == QIR_FLOAT8E4M3FN && dims_eq(c.s8, rank, sdims),
	       "%s: FLOAT8E4M3FN block scales, K/16 along axis %d", what, axis);
	tap_ok(c.g->dtype == QIR_FLOAT && qir_tensor_numel(c.g) == 1,
	       "%s: FP32 global scale", what);
	tap_ok(qir_node_attr_int(c.dq2, "axis", -99) == axis &&
	       qir_node_attr_int(c.dq2, "block_size", 0) == 16 &&
	       !qir_node_attr(c.dq1, "axis") && c.dq2->ninputs == 2,
	       "%s: DQ(axis=%d, block_size=16), no zero points", what, axis);
	if (cast_to)
		tap_ok(c.cast && qir_node_attr_int(c.cast, "to", 0) == cast_to,
		       "%s: Cast back to the weight's type %d", what, cast_to);
	tap_ok(qir_model_opset(m, "") >= 23 && m->ir_version >= 11,
	       "%s: opset %lld >= 23, IR %lld >= 11", what,
	       (long long)qir_model_opset(m, ""), (long long)m->ir_version);
}

static qir_value *weight_in(qir_model *m, const char *node, int slot)
{
	qir_node *n = find_node(m, node);

	return n && (int)n->ninputs > slot ? n->inputs[slot] : NULL;
}

/* ---- numerics: real decoded == fake ---- */

static int compare_real_fake(qir_model *real, qir_model *fake,
			     const char *node, int axis, int via_transpose)
{
	qir_value *rv = weight_in(real, node, 1);
	qir_value *fv = weight_in(fake, node, 1);
	struct chain c;
	qir_tensor *ft;
	size_t outer = 1, inner = 1, k;
	void *buf;
	const void *fd;
	int i, ok, dt;
	qk_ctx *qk;

	if (via_transpose) {
		rv = rv && rv->producer ? rv->producer->inputs[0] : NULL;
		fv = fv && fv->producer ? fv->producer->inputs[0] : NULL;
	}
	ft = fv ? qir_value_const(fv) : NULL;
	if (!rv || !ft || !get_chain(rv, &c))
		return 0;
	for (i = 0; i < c.f4->rank; i++) {
		if (i < axis)
			outer *= c.f4->dims[i];
		else if (i > axis)
			inner *= c.f4->dims[i];
	}
	k = c.f4->dims[axis];
	dt = ft->dtype;
	buf = malloc(ft->nbytes);
	qk = qk_ctx_new(QK_DEVICE_CPU, 1);
	ok = !qk_nvfp4_dequantize(qk, qir_tensor_data(c.f4, NULL),
				  qir_tensor_data(c.s8, NULL),
				  *(const float *)qir_tensor_data(c.g, NULL),
				  outer, k, inner, dt, buf);
	fd = qir_tensor_data(ft, NULL);
	ok = ok && fd && !memcmp(buf, fd, ft->nbytes);
	qk_ctx_free(qk);
	free(buf);
	return ok;
}

/* ---- the cases ---- */

static const int64_t d_x[] = { 2, 64 }, d_w[] = { 64, 32 },
	d_s[] = { 4, 32 }, d_wt[] = { 32, 64 }, d_st[] = { 32, 4 };

static void build_init(const char *name, int dt)
{
	qir_model *m = new_model(17);
	qir_value *x = input(m, "x", dt, 2, d_x);
	qir_value *w = init(m, "W", dt, 2, d_w);

	output(m, op(m, "MatMul", "mm", x, w), dt);
	save(m, name);
}

static void build_constant(void)
{
	qir_model *m = new_model(17);
	qir_value *x = input(m, "x", QIR_FLOAT, 2, d_x);
	qir_value *w = constant(m, "Wc", rand_tensor("", QIR_FLOAT, 2, d_w));

	output(m, op(m, "MatMul", "mm", x, w), QIR_FLOAT);
	save(m, "constant");
}

/* A rotation folded in at export: Reshape(MatMul(W0, H)) -> MatMul. */
static void build_subgraph(void)
{
	static const int64_t d_h[] = { 32, 32 }, d_shape[] = { 2 };
	qir_model *m = new_model(17);
	qir_value *x = input(m, "x", QIR_FLOAT, 2, d_x);
	qir_value *w0 = init(m, "W0", QIR_FLOAT, 2, d_w);
	qir_tensor *h = qir_tensor_new("", QIR_FLOAT, 2, d_h, NULL);
	qir_tensor *shape = qir_tensor_new("", QIR_INT64, 1, d_shape, NULL);
	float *hp = qir_tensor_mutable_data(h, NULL);
	int64_t *sp = qir_tensor_mutable_data(shape, NULL);
	qir_value *wr, *ws;
	int i, j;

	for (i = 0; i < 32; i++)
		for (j = 0; j < 32; j++)
			hp[i * 32 + j] = (__builtin_popcount(i & j) & 1 ?
					  -1.0f : 1.0f) / sqrtf(32.0f);
	sp[0] = 64;
	sp[1] = 32;
	wr = op(m, "MatMul", "rotate", w0, constant(m, "H", h));
	ws = op(m, "Reshape", "reshape", wr, constant(m, "shape", shape));
	output(m, op(m, "MatMul", "mm", x, ws), QIR_FLOAT);
	save(m, "subgraph");
}

static void build_transpose(void)
{
	qir_model *m = new_model(17);
	qir_value *x = input(m, "x", QIR_FLOAT, 2, d_x);
	qir_value *w = init(m, "W", QIR_FLOAT, 2, d_wt);
	qir_value *t = op(m, "Transpose", "t", w, NULL);
	int64_t perm[2] = { 1, 0 };

	qir_node_set_attr_ints(t->producer, "perm", perm, 2);
	output(m, op(m, "MatMul", "mm", x, t), QIR_FLOAT);
	save(m, "transpose");
}

static void build_gemm(void)
{
	qir_model *m = new_model(17);
	qir_value *x = input(m, "x", QIR_FLOAT, 2, d_x);
	qir_value *w = init(m, "W", QIR_FLOAT, 2, d_wt);
	qir_value *y = op(m, "Gemm", "gemm", x, w);

	qir_node_set_attr_int(y->producer, "transB", 1);
	output(m, y, QIR_FLOAT);
	save(m, "gemm");
}

static void build_placeholder(void)
{
	qir_model *m = new_model(17);
	qir_value *x = input(m, "x", QIR_FLOAT, 2, d_x);
	qir_value *w = init(m, "W", QIR_FLOAT, 2, d_w);
	qir_node *p = qir_node_new(m->graph, "TRT_FP4QDQ", "trt", "w_qdq");
	qir_value *wq;

	qir_model_set_opset(m, "trt", 1);
	qir_node_add_input(p, w);
	wq = qir_node_add_output(p, NULL, "W_dq");
	qir_node_set_attr_int(p, "block_size", 16);
	output(m, op(m, "MatMul", "mm", x, wq), QIR_FLOAT);
	save(m, "placeholder");
}

static void build_experts(void)
{
	static const char *const names[] = {
		"model.experts.0.w1", "model.experts.1.w1",
		"model.experts.2.w1", "model.shared.w1"
	};
	qir_model *m = new_model(17);
	qir_value *x = input(m, "x", QIR_FLOAT, 2, d_x);
	char nn[32];
	int i;

	for (i = 0; i < 4; i++) {
		snprintf(nn, sizeof(nn), "mm%d", i);
		output(m, op(m, "MatMul", nn, x,
			     init(m, names[i], QIR_FLOAT, 2, d_w)), QIR_FLOAT);
	}
	save(m, "experts");
}

static void build_batched(void)
{
	static const int64_t dx[] = { 4, 2, 64 }, dw[] = { 4, 64, 32 };
	qir_model *m = new_model(17);
	qir_value *x = input(m, "x", QIR_FLOAT, 3, dx);
	qir_value *w = init(m, "W", QIR_FLOAT, 3, dw);

	output(m, op(m, "MatMul", "mm", x, w), QIR_FLOAT);
	save(m, "batched");
}

static void build_conv(void)
{
	static const int64_t dx[] = { 1, 32, 8, 8 }, dw[] = { 32, 32, 3, 3 };
	qir_model *m = new_model(17);
	qir_value *x = input(m, "x", QIR_FLOAT, 4, dx);
	qir_value *w = init(m, "W", QIR_FLOAT, 4, dw);

	output(m, op(m, "Conv", "conv", x, w), QIR_FLOAT);
	save(m, "conv");
}

/* Every way a weight is left alone, with its reason. */
static void build_negative(void)
{
	static const int64_t dk[] = { 24, 32 }, ds[] = { 16, 16 },
		dxs[] = { 2, 16 }, dxk[] = { 2, 24 };
	qir_model *m = new_model(17);
	qir_value *x = input(m, "x", QIR_FLOAT, 2, d_x);
	qir_value *xk = input(m, "xk", QIR_FLOAT, 2, dxk);
	qir_value *xs = input(m, "xs", QIR_FLOAT, 2, dxs);
	qir_value *wi = input(m, "W_in", QIR_FLOAT, 2, d_w);
	qir_value *sh = init(m, "W_shared", QIR_FLOAT, 2, d_w);

	output(m, op(m, "MatMul", "mm_in", x, wi), QIR_FLOAT);
	output(m, op(m, "MatMul", "mm_k24", xk,
		     init(m, "W_k24", QIR_FLOAT, 2, dk)), QIR_FLOAT);
	output(m, op(m, "MatMul", "mm_ex", x,
		     init(m, "W_ex", QIR_FLOAT, 2, d_w)), QIR_FLOAT);
	output(m, op(m, "MatMul", "mm_small", xs,
		     init(m, "W_small", QIR_FLOAT, 2, ds)), QIR_FLOAT);
	output(m, op(m, "MatMul", "mm_shared", x, sh), QIR_FLOAT);
	output(m, op(m, "Add", "add_shared", sh, sh), QIR_FLOAT);
	save(m, "negative");
}

static void build_constants(void)
{
	static const int64_t db[] = { 128, 256 }, dsm[] = { 4 };
	qir_model *m = new_model(17);
	qir_value *x = input(m, "x", QIR_FLOAT, 2, db);
	qir_value *y = op(m, "Add", "add_big", x,
			  constant(m, "big", rand_tensor("", QIR_FLOAT, 2, db)));
	qir_value *x2 = input(m, "x2", QIR_FLOAT, 1, dsm);

	output(m, y, QIR_FLOAT);
	output(m, op(m, "Add", "add_small", x2,
		     constant(m, "small", rand_tensor("", QIR_FLOAT, 1, dsm))),
	       QIR_FLOAT);
	save(m, "constants");
}

#define PL(opts) "[nvfp4-weights]\nmin_size = 0\n" opts

static void t_real(const char *name, const char *node, int axis, int rank,
		   const int64_t *wd, const int64_t *sd, int cast_to,
		   int via_transpose, const char *extra)
{
	char ini[512], out[64];
	qir_model *m;
	qir_value *v;

	snprintf(ini, sizeof(ini), PL("%s"), extra ? extra : "");
	snprintf(out, sizeof(out), "%s-real", name);
	if (!tap_ok(run(name, out, ini, "--stats") == 0, "%s: qopt runs (real)",
		    name)) {
		tap_diag("%s", slurp(out, "err"));
		return;
	}
	m = load(out);
	if (!tap_ok(m != NULL, "%s: output loads", name))
		return;
	v = weight_in(m, node, 1);
	if (via_transpose) {
		qir_node *t = v ? v->producer : NULL;

		tap_ok(t && !strcmp(t->op_type, "Transpose"),
		       "%s: Transpose kept between weight and consumer", name);
		v = t ? t->inputs[0] : NULL;
	}
	check_chain(m, name, v, axis, rank, wd, sd, cast_to);
	qir_model_free(m);
}

static void t_fake(const char *name, const char *node, int axis,
		   int via_transpose, const char *extra)
{
	char ini[512], fo[64], ro[64];
	qir_model *real, *fake;

	snprintf(ini, sizeof(ini), PL("mode = fake\n%s"), extra ? extra : "");
	snprintf(fo, sizeof(fo), "%s-fake", name);
	snprintf(ro, sizeof(ro), "%s-real", name);
	if (!tap_ok(run(name, fo, ini, NULL) == 0, "%s: qopt runs (fake)",
		    name)) {
		tap_diag("%s", slurp(fo, "err"));
		return;
	}
	fake = load(fo);
	real = load(ro);
	tap_ok(fake && qir_model_opset(fake, "") == 17 &&
	       count_op(fake, "DequantizeLinear") == 0,
	       "%s: fake mode keeps opset 17 and adds no DequantizeLinear",
	       name);
	tap_ok(fake && real && compare_real_fake(real, fake, node, axis,
						 via_transpose),
	       "%s: real codes decoded by qk_nvfp4_dequantize == fake weight, "
	       "bit for bit", name);
	qir_model_free(fake);
	qir_model_free(real);
}

static int has_float_init(qir_model *m, const char *name)
{
	qir_value *v = qir_graph_find_value(m->graph, name);

	return v && v->init && v->init->dtype == QIR_FLOAT;
}

static void t_sources(void)
{
	qir_model *m;

	build_init("init", QIR_FLOAT);
	t_real("init", "mm", 0, 2, d_w, d_s, 0, 0, NULL);
	m = load("init-real");
	tap_ok(m && !has_float_init(m, "W") && m->graph->ninits == 3,
	       "init: original FLOAT initializer removed, 3 new ones");
	qir_model_free(m);
	t_fake("init", "mm", 0, 0, NULL);

	build_constant();
	t_real("constant", "mm", 0, 2, d_w, d_s, 0, 0, NULL);
	m = load("constant-real");
	tap_ok(m && count_op(m, "Constant") == 0,
	       "constant: the Constant node is gone");
	qir_model_free(m);
	t_fake("constant", "mm", 0, 0, NULL);
	m = load("constant-fake");
	tap_ok(m && count_op(m, "Constant") == 0 &&
	       qir_value_const(weight_in(m, "mm", 1)) &&
	       weight_in(m, "mm", 1)->init,
	       "constant: fake weight is an initializer");
	qir_model_free(m);

	build_subgraph();
	t_real("subgraph", "mm", 0, 2, d_w, d_s, 0, 0, NULL);
	m = load("subgraph-real");
	tap_ok(m && count_op(m, "MatMul") == 1 && count_op(m, "Reshape") == 0 &&
	       count_op(m, "Constant") == 0 && !has_float_init(m, "W0"),
	       "subgraph: folded rotation and its constants removed");
	qir_model_free(m);
	t_fake("subgraph", "mm", 0, 0, NULL);
}

static void t_layouts(void)
{
	static const int64_t d_wf[] = { 64, 32 };
	static const int64_t bw[] = { 4, 64, 32 }, bs[] = { 4, 4, 32 };
	static const int64_t cw[] = { 32, 32, 3, 3 }, cs[] = { 32, 2, 3, 3 };

	build_transpose();
	t_real("transpose", "mm", 1, 2, d_wt, d_st, 0, 1, NULL);
	t_fake("transpose", "mm", 1, 1, NULL);
	build_gemm();
	t_real("gemm", "gemm", 1, 2, d_wt, d_st, 0, 0, NULL);
	t_fake("gemm", "gemm", 1, 0, NULL);
	build_init("fp16", QIR_FLOAT16);
	t_real("fp16", "mm", 0, 2, d_wf, d_s, QIR_FLOAT16, 0, NULL);
	t_fake("fp16", "mm", 0, 0, NULL);
	build_batched();
	t_real("batched", "mm", 1, 3, bw, bs, 0, 0, NULL);
	t_fake("batched", "mm", 1, 0, NULL);
	build_conv();
	t_real("conv", "conv", 1, 4, cw, cs, 0, 0,
	       "op_types = MatMul,Gemm,Conv\ntarget = ort\n");
	t_fake("conv", "conv", 1, 0,
	       "op_types = MatMul,Gemm,Conv\ntarget = ort\n");
}

static void t_placeholder(void)
{
	qir_model *m;

	build_placeholder();
	t_real("placeholder", "mm", 0, 2, d_w, d_s, 0, 0, NULL);
	m = load("placeholder-real");
	tap_ok(m && count_op(m, "TRT_FP4QDQ") == 0,
	       "placeholder: trt::TRT_FP4QDQ replaced by the standard form");
	qir_model_free(m);
	tap_ok(strstr(slurp("placeholder-real", "err"), "placeholder") != NULL,
	       "placeholder: counted in the stats");
	t_fake("placeholder", "mm", 0, 0, NULL);
}

static void t_experts(void)
{
	qir_model *m;
	struct chain c;
	int i, n = 0;
	char nn[8];

	build_experts();
	tap_ok(run("experts", "experts-out",
		   PL("include = *experts.*.w1\n"), "--stats") == 0,
	       "experts: qopt runs");
	m = load("experts-out");
	for (i = 0; m && i < 3; i++) {
		snprintf(nn, sizeof(nn), "mm%d", i);
		n += get_chain(weight_in(m, nn, 1), &c);
	}
	tap_ok(n == 3, "experts: '*experts.*.w1' quantizes the 3 per-expert weights");
	tap_ok(m && has_float_init(m, "model.shared.w1"),
	       "experts: the shared weight is left alone");
	qir_model_free(m);
}

static void expect_reason(const char *err, const char *w, const char *why)
{
	char pat[256];

	snprintf(pat, sizeof(pat), "'%s' %s", w, why);
	tap_ok(strstr(err, pat) != NULL, "negative: %s %s", w, why);
}

static void t_negative(void)
{
	static const char *const left[] = { "W_k24", "W_ex", "W_small",
					    "W_shared" };
	qir_model *m;
	const char *err;
	size_t i;

	build_negative();
	tap_ok(run("negative", "negative-out",
		   "[nvfp4-weights]\nmin_size = 1000\nexclude = *_ex\n",
		   "--stats") == 0, "negative: qopt runs");
	err = slurp("negative-out", "err");
	expect_reason(err, "W_in", "skipped (not constant)");
	expect_reason(err, "W_k24", "skipped (K not a multiple of 16)");
	expect_reason(err, "W_ex", "skipped (excluded)");
	expect_reason(err, "W_small", "skipped (below min_size)");
	expect_reason(err, "W_shared", "skipped (shared with a non-weight use)");
	m = load("negative-out");
	for (i = 0; i < sizeof(left) / sizeof(left[0]); i++)
		tap_ok(m && has_float_init(m, left[i]),
		       "negative: %s unchanged", left[i]);
	tap_ok(m && count_op(m, "DequantizeLinear") == 0,
	       "negative: nothing quantized");
	qir_model_free(m);
}

static void t_globs(void)
{
	const char *err;

	build_init("globs", QIR_FLOAT);
	tap_ok(run("globs", "globs-warn", PL("include = W,nomatch*\n"), NULL) == 0,
	       "globs: a pattern matching nothing is not an error by default");
	err = slurp("globs-warn", "err");
	tap_ok(strstr(err, "'nomatch*' matches no weight") != NULL,
	       "globs: the warning names the pattern");
	tap_ok(run("globs", "globs-strict", PL("include = W,nomatch*\n"),
		   "--strict") != 0 && !exists("globs-strict"),
	       "globs: --strict fails and writes no output");
	tap_ok(run("globs", "globs-mode", PL("mode = half\n"), NULL) != 0 &&
	       !exists("globs-mode"), "globs: a bad mode fails");
	tap_ok(run("globs", "globs-block", PL("block_size = 32\n"), NULL) != 0,
	       "globs: block_size other than 16 fails");
}

static void t_constants(void)
{
	qir_model *m;

	build_constants();
	tap_ok(run("constants", "constants-out", PL(""), NULL) == 0,
	       "constants: qopt runs");
	m = load("constants-out");
	tap_ok(m && count_op(m, "Constant") == 1,
	       "constants: the 128 KiB Constant became an initializer, the "
	       "16-byte one stayed");
	tap_ok(m && qir_graph_find_value(m->graph, "big") &&
	       qir_graph_find_value(m->graph, "big")->init,
	       "constants: the initializer keeps the Constant's output name");
	qir_model_free(m);
}

static void t_opset_check(void)
{
	char cmd[700];

	snprintf(cmd, sizeof(cmd), "'%s' --help-pass opset-check >/dev/null 2>&1",
		 qopt_bin);
	if (system(cmd)) {
		tap_skip("opset-check pass not built", "opset: upgrade = no");
		tap_skip("opset-check pass not built", "opset: fake mode");
		return;
	}
	build_init("opset", QIR_FLOAT);
	/* The limit is the pipeline's [qopt] policy, nothing else. */
	tap_ok(run("opset", "opset-no",
		   "[qopt]\nallow_upgrade = no\n"
		   "[nvfp4-weights]\nmin_size = 0\n", NULL) != 0 &&
	       strstr(slurp("opset-no", "err"), "opset 23") &&
	       strstr(slurp("opset-no", "err"), "allow_upgrade = no") &&
	       !exists("opset-no"),
	       "opset: [qopt] allow_upgrade = no forbids raising to 23");
	tap_ok(run("opset", "opset-max",
		   "[qopt]\nmax_opset = 21\n"
		   "[nvfp4-weights]\nmin_size = 0\n", NULL) != 0 &&
	       strstr(slurp("opset-max", "err"), "max_opset = 21") &&
	       !exists("opset-max"),
	       "opset: [qopt] max_opset = 21 forbids raising to 23");
	tap_ok(run("opset", "opset-fake",
		   "[qopt]\nallow_upgrade = no\n"
		   "[nvfp4-weights]\nmin_size = 0\nmode = fake\n", NULL) == 0,
	       "opset: fake mode needs no new opset");
	/* The same request gets the same answer with and without an
	 * unrelated [opset-check] (whose upgrade defaults to no). */
	{
		static const char *const with[] = {
			"", "[opset-check]\n", "[opset-check]\nupgrade = no\n",
		};
		static const char *const names[] = {
			"opset-alone", "opset-with-check", "opset-with-check-no",
		};
		char ini[256];
		int k;

		for (k = 0; k < 3; k++) {
			qir_model *m;

			snprintf(ini, sizeof(ini), "%s%s", with[k],
				 "[nvfp4-weights]\nmin_size = 0\n");
			m = run("opset", names[k], ini, NULL) == 0 ?
			    load(names[k]) : NULL;
			tap_ok(m && qir_model_opset(m, "") == 23 &&
			       count_op(m, "DequantizeLinear") == 2,
			       "opset: %s: raised to 23 and quantized",
			       names[k]);
			qir_model_free(m);
		}
	}
	/* The upgrade is a bisect point of its own: point 1 is the pass,
	 * 2 the upgrade, 3 the weight. */
	tap_ok(run("opset", "opset-bisect", PL(""), "--bisect-limit=2") == 0 &&
	       strstr(slurp("opset-bisect", "err"),
		      "BISECT: running rewrite (2) nvfp4-weights: upgrade opset 17 -> 23") &&
	       strstr(slurp("opset-bisect", "err"), "BISECT: NOT running rewrite (3)"),
	       "opset: the whole-model upgrade is its own bisect point");
	tap_ok(run("opset", "opset-bisect1", PL(""), "--bisect-limit=1") == 0 &&
	       strstr(slurp("opset-bisect1", "err"),
		      "BISECT: NOT running rewrite (2) nvfp4-weights: upgrade opset"),
	       "opset: without the upgrade point no weight is rewritten");
	/* qopt_require_opset: a declined upgrade holds for the run, so
	 * four weights needing it make one point, not four (experts.onnx:
	 * t_experts built it; building it again would move the random
	 * weights of every later case). */
	{
		const char *e;

		tap_ok(run("experts", "opset-bisect-once", PL(""),
			   "--bisect-limit=1 --stats") == 0,
		       "opset: four weights, bisect limit 1: qopt runs");
		e = slurp("opset-bisect-once", "err");
		tap_ok(strstr(e, "BISECT: NOT running rewrite (2) nvfp4-weights: "
			      "upgrade opset 17 -> 23") &&
		       !strstr(e, "rewrite (3)") &&
		       strstr(e, "4 skipped (bisect)"),
		       "opset: one upgrade point per run, every weight skipped");
		tap_ok(run("opset", "opset-stats", PL(""), "--stats") == 0 &&
		       strstr(slurp("opset-stats", "err"),
			      "1 opset upgraded to 23") &&
		       strstr(slurp("opset-stats", "err"),
			      "upgraded ai.onnx opset 17 -> 23"),
		       "opset: the upgrade is logged and counted by the manager");
	}
}

/* Opset 9: MatMul -> Clip(min, max attributes). FLOAT4E2M1 needs 23,
 * where Clip takes min/max as inputs: the pass must upgrade the Clip,
 * not just renumber the opset (an attribute-form Clip at 23 would
 * clip nothing). */
static void build_clip9(void)
{
	qir_model *m = new_model(9);
	qir_value *x = input(m, "x", QIR_FLOAT, 2, d_x);
	qir_value *y = op(m, "MatMul", "mm", x, init(m, "W", QIR_FLOAT, 2, d_w));
	qir_value *c = op(m, "Clip", "clip", y, NULL);

	m->ir_version = 4;
	qir_value_set_type(y, QIR_FLOAT, 2, (const int64_t[]){ 2, 32 }, NULL);
	qir_node_set_attr_float(c->producer, "min", -0.5f);
	qir_node_set_attr_float(c->producer, "max", 0.75f);
	output(m, c, QIR_FLOAT);
	save(m, "clip9");
}

/* Opset 6: MatMul -> Mul with legacy broadcast along axis 0 of a
 * [2, 32] value: not trailing-aligned, which the upgrade refuses. */
static void build_legacy6(void)
{
	static const int64_t d_b[] = { 2 };
	qir_model *m = new_model(6);
	qir_value *x = input(m, "x", QIR_FLOAT, 2, d_x);
	qir_value *y = op(m, "MatMul", "mm", x, init(m, "W", QIR_FLOAT, 2, d_w));
	qir_value *z = op(m, "Mul", "mul", y, init(m, "b", QIR_FLOAT, 1, d_b));

	m->ir_version = 3;
	qir_value_set_type(y, QIR_FLOAT, 2, (const int64_t[]){ 2, 32 }, NULL);
	qir_node_set_attr_int(z->producer, "broadcast", 1);
	qir_node_set_attr_int(z->producer, "axis", 0);
	output(m, z, QIR_FLOAT);
	save(m, "legacy6");
}

static int scalar_is(qir_value *v, float want)
{
	qir_tensor *t = v ? qir_value_const(v) : NULL;
	const float *d = t && t->dtype == QIR_FLOAT &&
			 qir_tensor_numel(t) == 1 ? qir_tensor_data(t, NULL) :
			 NULL;

	return d && *d == want;
}

static void t_upgrade(void)
{
	qir_node *clip;
	qir_model *m;
	const char *err;

	build_clip9();
	t_real("clip9", "mm", 0, 2, d_w, d_s, 0, 0, NULL);
	m = load("clip9-real");
	clip = m ? find_node(m, "clip") : NULL;
	tap_ok(clip && clip->ninputs == 3 && !qir_node_attr(clip, "min") &&
	       !qir_node_attr(clip, "max") &&
	       scalar_is(clip->inputs[1], -0.5f) &&
	       scalar_is(clip->inputs[2], 0.75f),
	       "clip9: opset 9 -> 23 rewrote Clip's min/max attributes into "
	       "FLOAT inputs -0.5, 0.75");
	tap_ok(m && m->ir_version == 11,
	       "clip9: IR version raised 4 -> 11");
	qir_model_free(m);
	err = slurp("clip9-real", "err");
	tap_ok(strstr(err, "upgraded ai.onnx opset 9 -> 23") != NULL &&
	       !strstr(err, "warning"),
	       "clip9: the upgrade is logged, no renumbering warning");

	build_legacy6();
	tap_ok(run("legacy6", "legacy6-real", PL(""), NULL) != 0 &&
	       !exists("legacy6-real"),
	       "legacy6: an op the upgrade refuses fails the pass, no output");
	err = slurp("legacy6-real", "err");
	tap_ok(strstr(err, "cannot be upgraded") &&
	       strstr(err, "node 'mul' (Mul)") &&
	       strstr(err, "not trailing-aligned") &&
	       strstr(err, "mode = fake"),
	       "legacy6: the error names the node and why, and hints at "
	       "mode = fake");
	if (!strstr(err, "not trailing-aligned"))
		tap_diag("%s", err);
	tap_ok(run("legacy6", "legacy6-fake", PL("mode = fake\n"), NULL) == 0,
	       "legacy6: mode = fake needs no upgrade and runs");
}

/* "bytes after" is what the rewrite wrote: FP4 codes, FP8 scales and
 * the global scale in real mode; the dequantized weight, in its own
 * type, in fake mode (not the real form's size). */
static void t_bytes(void)
{
	/* W FLOAT[64,32]: 8192 bytes; 2048 codes in 1024 bytes, 128 block
	 * scales, 4 bytes of global scale. */
	tap_ok(run("init", "bytes-real", PL(""), "--stats") == 0 &&
	       strstr(slurp("bytes-real", "err"),
		      "8192 bytes before, 1156 bytes after"),
	       "real mode: bytes after = codes + scales + global scale");
	tap_ok(run("init", "bytes-fake", PL("mode = fake\n"), "--stats") == 0 &&
	       strstr(slurp("bytes-fake", "err"),
		      "8192 bytes before, 8192 bytes after"),
	       "fake mode: bytes after = the FLOAT weight written");
	tap_ok(run("fp16", "bytes-fake16", PL("mode = fake\n"), "--stats") == 0 &&
	       strstr(slurp("bytes-fake16", "err"),
		      "4096 bytes before, 4096 bytes after"),
	       "fake mode: bytes after = the FLOAT16 weight written");
}

int main(void)
{
	const char *bd = getenv("top_builddir");

	qopt_bin = getenv("QOPT");
	if (!qopt_bin || !bd) {
		printf("1..0 # SKIP QOPT/top_builddir not set (run via make check)\n");
		return 0;
	}
	snprintf(work, sizeof(work), "%s/tests/work/nvfp4-structure", bd);
	if (system("mkdir -p \"$top_builddir/tests/work/nvfp4-structure\"")) {
		printf("Bail out! cannot create %s\n", work);
		return 1;
	}
	t_sources();
	t_layouts();
	t_placeholder();
	t_experts();
	t_negative();
	t_globs();
	t_constants();
	t_opset_check();
	t_upgrade();
	t_bytes();
	return tap_done();
}

/*
 * passes/hadamard_rotate/activation.c - the activation side, online, in
 * standard ops: x -> x R before the rotated MatMul. Never a dense
 * constant above HADAMARD_ROTATE_DENSE_MAX per side: a block b > HADAMARD_ROTATE_DENSE_MAX uses
 * H_b = H_a (x) H_c (Sylvester matrices factor), so x reshaped to
 * [-1, K/b, a, c] becomes H_a X H_c (then back to Shape(x)), two small MatMuls; the constants
 * a rotation adds are a^2 + c^2 <= 2 b elements, far under K sqrt(K).
 * Each constant and each rotated activation is made once and shared.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hadamard_rotate.h"
#include "../support/fail.h"

/* H_n / sqrt(n) in the activation's type, shared per (type, n). */
static qir_value *h_const(struct hadamard_rotate_cfg *cfg, qir_graph *g, int dt, size_t n)
{
	char key[64], name[64];
	int64_t dims[2] = { (int64_t)n, (int64_t)n };
	qir_error err = { 0 };
	qir_tensor *t;
	qir_value *v;
	double s = 1 / sqrt((double)n);
	unsigned char *p;

	snprintf(key, sizeof(key), "h:%d:%zu", dt, n);
	v = hadamard_rotate_memo_get(&cfg->memo, key);
	if (v)
		return v;
	snprintf(name, sizeof(name), "hadamard_%zu_%s", n,
		 dt == QIR_FLOAT ? "f32" : dt == QIR_FLOAT16 ? "f16" : "bf16");
	t = qir_tensor_new(name, dt, 2, dims, &err);
	p = t ? qir_tensor_mutable_data(t, &err) : NULL;
	if (!p) {
		qir_tensor_free(t);
		return NULL;
	}
	for (size_t i = 0; i < n * n; i++) {
		float f = (float)(__builtin_popcountll((i / n) & (i % n)) & 1 ?
					  -s : s);
		uint16_t h = dt == QIR_FLOAT16 ? qk_f32_to_f16(f) :
						 qk_f32_to_bf16(f);

		if (dt == QIR_FLOAT)
			memcpy(p + 4 * i, &f, 4);
		else
			memcpy(p + 2 * i, &h, 2);
	}
	v = qir_graph_add_initializer(g, t);
	if (!v || hadamard_rotate_memo_put(&cfg->memo, key, v))
		return NULL;
	return v;
}

/* An INT64 shape [-1, tail...] for Reshape, shared. */
static qir_value *shape_const(struct hadamard_rotate_cfg *cfg, qir_graph *g,
			      const int64_t *tail, int ntail)
{
	char key[128];
	int64_t dims[1] = { 1 + ntail };
	qir_error err = { 0 };
	qir_tensor *t;
	qir_value *v;
	int64_t *p;
	int len;

	len = snprintf(key, sizeof(key), "s");
	for (int i = 0; i < ntail && len < 100; i++)
		len += snprintf(key + len, sizeof(key) - (size_t)len, ":%lld",
				(long long)tail[i]);
	v = hadamard_rotate_memo_get(&cfg->memo, key);
	if (v)
		return v;
	t = qir_tensor_new("hadamard_shape", QIR_INT64, 1, dims, &err);
	p = t ? qir_tensor_mutable_data(t, &err) : NULL;
	if (!p) {
		qir_tensor_free(t);
		return NULL;
	}
	p[0] = -1;
	memcpy(p + 1, tail, (size_t)ntail * sizeof(*tail));
	v = qir_graph_add_initializer(g, t);
	if (!v || hadamard_rotate_memo_put(&cfg->memo, key, v))
		return NULL;
	return v;
}

/* out = op(a, b) placed before `before`; NULL on failure. */
static qir_value *op2(qir_node *before, const char *op, const char *hint,
		      qir_value *a, qir_value *b)
{
	qir_node *n = qir_node_new(before->graph, op, NULL, hint);
	qir_value *out;

	if (!n || qir_node_add_input(n, a) || (b && qir_node_add_input(n, b)))
		return NULL;
	out = qir_node_add_output(n, NULL, hint);
	if (out)
		qir_node_move_before(n, before);
	return out;
}

/* Swaps the last two axes of a rank-4 value, before `before`. */
static qir_value *transpose(qir_node *before, const char *hint, qir_value *v)
{
	static const int64_t perm[4] = { 0, 1, 3, 2 };
	qir_value *out = op2(before, "Transpose", hint, v, NULL);

	if (out && qir_node_set_attr_ints(out->producer, "perm", perm, 4))
		return NULL;
	return out;
}

qir_value *hadamard_rotate_rotate_activation(struct hadamard_rotate_cfg *cfg, struct hadamard_rotate_target *t,
				qir_value *x, qir_node *before)
{
	qir_value *y, *ha = NULL, *hc, *s1, *s2;
	qir_graph *g = before->graph;
	int dt = t->w->dtype;
	size_t b = t->block, a = 1, c;
	char key[600], hint[512];
	int64_t tail[3];

	snprintf(key, sizeof(key), "a:%s:%zu", x->name, b);
	y = hadamard_rotate_memo_get(&cfg->memo, key);
	if (y)
		return y;
	while (b > HADAMARD_ROTATE_DENSE_MAX && a < b / a)
		a <<= 1;
	c = b / a;
	snprintf(hint, sizeof(hint), "%s_hadamard", x->name);
	hc = h_const(cfg, g, dt, c);
	if (a > 1)
		ha = h_const(cfg, g, dt, a);
	if (!hc || (a > 1 && !ha))
		goto oom;
	/* x [.., K] -> [-1, K/b, a, c] (a = 1: [-1, K/b, c, 1]); every
	 * constant multiplies from the left, so that weight passes that
	 * follow (nvfp4-weights reads input B) never take it for a
	 * weight: H_c X^T, transposed back, then H_a (X H_c); then back
	 * to Shape(x). */
	tail[0] = t->k / (int64_t)b;
	tail[1] = (int64_t)(a > 1 ? a : c);
	tail[2] = (int64_t)(a > 1 ? c : 1);
	s1 = shape_const(cfg, g, tail, 3);
	s2 = op2(before, "Shape", hint, x, NULL);
	if (!s1 || !s2)
		goto oom;
	y = op2(before, "Reshape", hint, x, s1);
	if (y && a > 1)
		y = transpose(before, hint, y);
	y = y ? op2(before, "MatMul", hint, hc, y) : NULL;
	if (y && a > 1) {
		y = transpose(before, hint, y);
		y = y ? op2(before, "MatMul", hint, ha, y) : NULL;
	}
	y = y ? op2(before, "Reshape", hint, y, s2) : NULL;
	if (!y || hadamard_rotate_memo_put(&cfg->memo, key, y))
		goto oom;
	return y;
oom:
	ps_fail(cfg->ctx, QOPT_ENOMEM, "node '%s': out of memory adding the activation "
		   "rotation", before->name);
	return NULL;
}

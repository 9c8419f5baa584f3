/*
 * bench/fp8mha-gen.c - writes the fp8-mha benchmark model: NWEIGHTS
 * nn.Linear layers as an FP8 exporter leaves them, FLOAT16 throughout:
 *
 *   W_i [N, K] -> QuantizeLinear(s_i, FP8 zero point) -> DequantizeLinear
 *   -> Transpose -> MatMul(x [1, K], .)
 *
 * every weight in external data.
 *
 *   fp8mha-gen OUT.onnx TOTAL_MIB NWEIGHTS
 *
 * N is chosen so the weights add up to TOTAL_MIB (K = 4096); values in
 * [-1, 1), scale 1/448.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qopt/qopt.h>

static qir_value *scalar_init(qir_graph *g, const char *name, int dtype,
			      qir_error *err)
{
	qir_tensor *t = qir_tensor_new(name, dtype, 0, NULL, err);
	void *p = t ? qir_tensor_mutable_data(t, err) : NULL;

	if (!p)
		return NULL;
	if (dtype == QIR_FLOAT16)
		*(uint16_t *)p = qk_f32_to_f16(1.0f / 448.0f);
	return qir_graph_add_initializer(g, t);
}

static qir_value *node1(qir_graph *g, const char *op, const char *name,
			qir_value *a, qir_value *b, qir_value *c, int dtype)
{
	qir_node *n = qir_node_new(g, op, NULL, name);
	int64_t perm[2] = { 1, 0 };
	qir_value *o;

	if (!n || !a || qir_node_add_input(n, a) ||
	    (b && qir_node_add_input(n, b)) || (c && qir_node_add_input(n, c)))
		return NULL;
	o = qir_node_add_output(n, NULL, name);
	if (!o || qir_value_set_type(o, dtype, -1, NULL, NULL))
		return NULL;
	if (!strcmp(op, "Transpose") &&
	    qir_node_set_attr_ints(n, "perm", perm, 2))
		return NULL;
	return o;
}

int main(int argc, char **argv)
{
	qir_error err = { 0 };
	qir_save_opts so = { 0 };
	qir_model *m;
	uint64_t total, per, n;
	int64_t k = 4096, dx[2], dw[2];
	uint32_t rng = 1;
	int i, count;
	qir_value *x;

	if (argc != 4) {
		fprintf(stderr, "usage: %s OUT.onnx TOTAL_MIB NWEIGHTS\n", argv[0]);
		return 2;
	}
	total = strtoull(argv[2], NULL, 10) << 20;
	count = atoi(argv[3]);
	if (!total || count <= 0)
		return 2;
	per = total / (uint64_t)count;
	dw[0] = (int64_t)(per / 2 / (uint64_t)k);
	dw[1] = k;
	dx[0] = 1;
	dx[1] = k;
	m = qir_model_new(9, 19, &err);
	if (!m)
		goto fail;
	x = qir_value_new(m->graph, "x");
	if (!x || qir_value_set_type(x, QIR_FLOAT16, 2, dx, &err) ||
	    qir_graph_add_input(m->graph, x))
		goto fail;
	for (i = 0; i < count; i++) {
		char name[64];
		qir_tensor *t;
		uint16_t *p;
		qir_value *w, *s, *z, *v;
		uint64_t j;

		snprintf(name, sizeof(name), "layers.%d.weight", i);
		t = qir_tensor_new(name, QIR_FLOAT16, 2, dw, &err);
		if (!t)
			goto fail;
		p = qir_tensor_mutable_data(t, &err);
		if (!p)
			goto fail;
		n = qir_tensor_numel(t);
		for (j = 0; j < n; j++) {
			rng = rng * 1664525u + 1013904223u;
			p[j] = qk_f32_to_f16((float)(int)(rng >> 16 & 0xff) /
					     128.0f - 1.0f);
		}
		w = qir_graph_add_initializer(m->graph, t);
		snprintf(name, sizeof(name), "layers.%d.scale", i);
		s = scalar_init(m->graph, name, QIR_FLOAT16, &err);
		snprintf(name, sizeof(name), "layers.%d.zero_point", i);
		z = scalar_init(m->graph, name, QIR_FLOAT8E4M3FN, &err);
		if (!w || !s || !z)
			goto fail;
		snprintf(name, sizeof(name), "q%d", i);
		v = node1(m->graph, "QuantizeLinear", name, w, s, z,
			  QIR_FLOAT8E4M3FN);
		snprintf(name, sizeof(name), "dq%d", i);
		v = node1(m->graph, "DequantizeLinear", name, v, s, z,
			  QIR_FLOAT16);
		snprintf(name, sizeof(name), "t%d", i);
		v = node1(m->graph, "Transpose", name, v, NULL, NULL,
			  QIR_FLOAT16);
		snprintf(name, sizeof(name), "mm%d", i);
		v = node1(m->graph, "MatMul", name, x, v, NULL, QIR_FLOAT16);
		if (!v || qir_graph_add_output(m->graph, v))
			goto fail;
	}
	so.external_threshold = 1024;
	if (qir_model_save(m, argv[1], &so, &err))
		goto fail;
	qir_model_free(m);
	return 0;
fail:
	fprintf(stderr, "fp8mha-gen: %s\n", err.msg[0] ? err.msg :
		"out of memory");
	return 1;
}

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
#include <string.h>

#include "gen-common.h"

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
	struct bench_gen g;
	int64_t dw[2];
	int i, rc = bench_gen_start(&g, argc, argv, 9, 19);

	if (rc)
		return rc == 2 ? 2 : bench_gen_finish(&g, NULL, "fp8mha-gen", 1);
	dw[0] = g.rows;
	dw[1] = BENCH_K;
	for (i = 0; i < g.count && !rc; i++) {
		char name[64];
		qir_value *w, *s, *z, *v;

		w = bench_gen_weight(&g, i, dw);
		snprintf(name, sizeof(name), "layers.%d.scale", i);
		s = scalar_init(g.m->graph, name, QIR_FLOAT16, &g.err);
		snprintf(name, sizeof(name), "layers.%d.zero_point", i);
		z = scalar_init(g.m->graph, name, QIR_FLOAT8E4M3FN, &g.err);
		if (!w || !s || !z) {
			rc = 1;
			break;
		}
		snprintf(name, sizeof(name), "q%d", i);
		v = node1(g.m->graph, "QuantizeLinear", name, w, s, z,
			  QIR_FLOAT8E4M3FN);
		snprintf(name, sizeof(name), "dq%d", i);
		v = node1(g.m->graph, "DequantizeLinear", name, v, s, z,
			  QIR_FLOAT16);
		snprintf(name, sizeof(name), "t%d", i);
		v = node1(g.m->graph, "Transpose", name, v, NULL, NULL,
			  QIR_FLOAT16);
		snprintf(name, sizeof(name), "mm%d", i);
		v = node1(g.m->graph, "MatMul", name, g.x, v, NULL, QIR_FLOAT16);
		rc = !v || qir_graph_add_output(g.m->graph, v);
	}
	return bench_gen_finish(&g, argv[1], "fp8mha-gen", rc);
}

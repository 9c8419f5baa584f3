/*
 * bench/nvfp4-gen.c - writes the nvfp4-weights benchmark model:
 * NWEIGHTS independent MatMuls x[1,K] @ W_i[K,N], FLOAT16, every
 * weight in external data.
 *
 *   nvfp4-gen OUT.onnx TOTAL_MIB NWEIGHTS
 *
 * K and N are chosen so the weights add up to TOTAL_MIB (K = 4096).
 */
#include <stdio.h>
#include <stdlib.h>

#include <qopt/qopt.h>

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
	dw[0] = k;
	dw[1] = (int64_t)(per / 2 / (uint64_t)k);
	dx[0] = 1;
	dx[1] = k;
	m = qir_model_new(8, 17, &err);
	if (!m)
		goto fail;
	x = qir_value_new(m->graph, "x");
	if (!x || qir_value_set_type(x, QIR_FLOAT16, 2, dx, &err) < 0 ||
	    qir_graph_add_input(m->graph, x) < 0)
		goto fail;
	for (i = 0; i < count; i++) {
		char name[64];
		qir_tensor *t;
		uint16_t *p;
		qir_node *mm;
		qir_value *y;
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
		snprintf(name, sizeof(name), "mm%d", i);
		mm = qir_node_new(m->graph, "MatMul", NULL, name);
		if (!mm || qir_node_add_input(mm, x) < 0 ||
		    qir_node_add_input(mm, qir_graph_add_initializer(m->graph,
								     t)) < 0)
			goto fail;
		y = qir_node_add_output(mm, NULL, name);
		if (!y || qir_value_set_type(y, QIR_FLOAT16, -1, NULL, &err) < 0 ||
		    qir_graph_add_output(m->graph, y) < 0)
			goto fail;
	}
	so.external_threshold = 1024;
	if (qir_model_save(m, argv[1], &so, &err))
		goto fail;
	qir_model_free(m);
	return 0;
fail:
	fprintf(stderr, "nvfp4-gen: %s\n", err.msg);
	return 1;
}

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

#include "gen-common.h"

int main(int argc, char **argv)
{
	struct bench_gen g;
	int64_t dw[2];
	int i, rc = bench_gen_start(&g, argc, argv, 8, 17);

	if (rc)
		return rc == 2 ? 2 : bench_gen_finish(&g, NULL, "nvfp4-gen", 1);
	dw[0] = BENCH_K;
	dw[1] = g.rows;
	for (i = 0; i < g.count && !rc; i++) {
		char name[64];
		qir_node *mm;
		qir_value *w = bench_gen_weight(&g, i, dw), *y = NULL;

		snprintf(name, sizeof(name), "mm%d", i);
		mm = w ? qir_node_new(g.m->graph, "MatMul", NULL, name) : NULL;
		if (mm && !qir_node_add_input(mm, g.x) &&
		    !qir_node_add_input(mm, w))
			y = qir_node_add_output(mm, NULL, name);
		rc = !y || qir_value_set_type(y, QIR_FLOAT16, -1, NULL,
					      &g.err) < 0 ||
		     qir_graph_add_output(g.m->graph, y) < 0;
	}
	return bench_gen_finish(&g, argv[1], "nvfp4-gen", rc);
}

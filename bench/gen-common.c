/*
 * bench/gen-common.c - the shared parts of the benchmark generators.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gen-common.h"

int bench_gen_start(struct bench_gen *g, int argc, char **argv, int ir,
		    int opset)
{
	int64_t dx[2] = { 1, BENCH_K };
	uint64_t total;

	g->m = NULL;
	g->rng = 1;
	if (argc != 4) {
		fprintf(stderr, "usage: %s OUT.onnx TOTAL_MIB NWEIGHTS\n",
			argv[0]);
		return 2;
	}
	total = strtoull(argv[2], NULL, 10) << 20;
	g->count = atoi(argv[3]);
	if (!total || g->count <= 0) {
		fprintf(stderr, "%s: TOTAL_MIB and NWEIGHTS must be > 0\n",
			argv[0]);
		return 2;
	}
	g->rows = (int64_t)(total / (uint64_t)g->count / 2 / BENCH_K);
	g->m = qir_model_new(ir, opset, &g->err);
	if (!g->m)
		return 1;
	g->x = qir_value_new(g->m->graph, "x");
	if (!g->x || qir_value_set_type(g->x, QIR_FLOAT16, 2, dx, &g->err) ||
	    qir_graph_add_input(g->m->graph, g->x))
		return 1;
	return 0;
}

qir_value *bench_gen_weight(struct bench_gen *g, int i, const int64_t dims[2])
{
	char name[64];
	qir_tensor *t;
	uint16_t *p;
	uint64_t j, n;

	snprintf(name, sizeof(name), "layers.%d.weight", i);
	t = qir_tensor_new(name, QIR_FLOAT16, 2, dims, &g->err);
	p = t ? qir_tensor_mutable_data(t, &g->err) : NULL;
	if (!p) {
		qir_tensor_free(t);
		return NULL;
	}
	n = qir_tensor_numel(t);
	for (j = 0; j < n; j++) {
		g->rng = g->rng * 1664525u + 1013904223u;
		p[j] = qk_f32_to_f16((float)(int)(g->rng >> 16 & 0xff) /
				     128.0f - 1.0f);
	}
	return qir_graph_add_initializer(g->m->graph, t);
}

int bench_gen_finish(struct bench_gen *g, const char *path, const char *prog,
		     int failed)
{
	qir_save_opts so = QIR_SAVE_OPTS_INIT;

	so.external_threshold = 1024;

	if (!failed && qir_model_save(g->m, path, &so, &g->err))
		failed = 1;
	if (failed)
		fprintf(stderr, "%s: %s\n", prog,
			g->err.msg[0] ? g->err.msg : "out of memory");
	qir_model_free(g->m);
	return failed;
}

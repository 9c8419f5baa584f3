/*
 * passes/mxfp8/util.h - util.c: what every file of the pass uses.
 */
#ifndef QOPT_PASSES_MXFP8_UTIL_H
#define QOPT_PASSES_MXFP8_UTIL_H

#include "mxfp8.h"

/* Skip kinds of this pass. */
extern const struct ps_skip_kind mxfp8_skip_k_block, mxfp8_skip_mixed,
	mxfp8_skip_act_layout;

int mxfp8_is_float(int dtype);
/* Nodes of every graph in walk order that want accepts (plugin.c's
 * linear layers, export.c's MXFP8 ops); v is owned (free it). */
struct mxfp8_nodes {
	int (*want)(const qir_node *n);
	qir_node **v;
	size_t n, cap;
};
/* A qir_graph_walk callback on a struct mxfp8_nodes: -1 out of memory. */
int mxfp8_collect(qir_graph *g, void *arg);

/* Ensures the opset the mode and format need (once). QOPT_OK, else
 * the manager's code (logged). */
qopt_status mxfp8_opset(struct mxfp8_cfg *cfg);

qir_node *mxfp8_node(qir_graph *g, const char *op, const char *domain,
		  const char *hint, qir_value *a, qir_value *b);
qir_value *mxfp8_out(qir_node *n, const char *hint, int dtype,
		  const qir_value *shape_from);
/* A new initializer named after name holding v (rank, dims, dtype). */
qir_value *mxfp8_const(qir_graph *g, const char *name, int dtype, int rank,
		    const int64_t *dims, const void *v);
qir_value *mxfp8_const_i64(qir_graph *g, const char *name, int rank,
			const int64_t *dims, const int64_t *v);
qir_value *mxfp8_const_f32(qir_graph *g, const char *name, int rank,
			const int64_t *dims, const float *v);

#endif

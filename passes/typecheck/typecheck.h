/*
 * passes/typecheck/typecheck.h - the strong-typing check: what
 * TensorRT's strongly typed builder (the only one TensorRT 11 has) will
 * see in a model. Each float-computing node's precision, the FLOAT
 * islands of a low-precision model and the Casts around them, mixed
 * float types on ops that take one, Q/DQ scale types against their
 * data; counts of nodes and parameters per precision. It reads the
 * model and changes nothing.
 */
#ifndef PASSES_TYPECHECK_H
#define PASSES_TYPECHECK_H

#include <stddef.h>
#include <stdint.h>

#include <qopt/qopt.h>

#include "../support/float_ops.h"
#include "../support/targets.h"

/* A node's precision: the float type it computes in, or one of these. */
#define TYPECHECK_NONE 0	/* computes in no float type (shapes, indices) */
#define TYPECHECK_MIXED (-1)	/* its float inputs disagree */

struct typecheck_node {
	qir_node *n;
	int prec;		/* a qir dtype, TYPECHECK_NONE or TYPECHECK_MIXED */
	uint64_t params;	/* constant elements it reads at T slots */
};

struct typecheck_cfg {
	qopt_ctx *ctx;
	qir_model *m;
	int expect;		/* QIR_FLOAT16, QIR_BFLOAT16, or 0: any */
	struct ps_targets tg;	/* allow: FLOAT nodes asked for */
	struct typecheck_node *nodes;
	size_t nnodes;
	uint64_t findings;	/* mismatches and unasked islands */
};

/* precision.c: each node's precision, mismatches said. 0, or -1. */
int typecheck_precisions(struct typecheck_cfg *cfg);
/* islands.c: the FLOAT islands of a low-precision model, said. */
int typecheck_islands(struct typecheck_cfg *cfg);
/* The record of n, or NULL. */
struct typecheck_node *typecheck_node_of(struct typecheck_cfg *cfg, const qir_node *n);

#endif

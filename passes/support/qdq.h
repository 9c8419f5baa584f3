/*
 * passes/support/qdq.h - building QuantizeLinear / DequantizeLinear:
 * their constants (scale, zero point) and nodes.
 *
 * Naming scheme (what the built-in passes write, so that later passes
 * and users find things): for a value or node named BASE, the scale is
 * BASE_TAG_scale and the zero point BASE_TAG_zero_point (TAG: "fp8",
 * "fp4"), the nodes and their outputs BASE_q and BASE_dq. Nodes are
 * made unplaced: the caller moves them (qir_node_move_before/after)
 * and rewires the consumers; the manager restores the order after the
 * pass. Initializers are added in the caller's order, which is the
 * order they are written in.
 */
#ifndef PASSES_SUPPORT_QDQ_H
#define PASSES_SUPPORT_QDQ_H

#include <stddef.h>
#include <stdint.h>

#include <qopt/qopt.h>

/* Adds t to g as an initializer; t is taken (freed on failure). NULL
 * when t is NULL or out of memory. */
qir_value *ps_add_initializer(qir_graph *g, qir_tensor *t);

/* Caller owns: a FLOAT, FLOAT16 or BFLOAT16 tensor of the given shape
 * holding x in every element; NULL for another type or out of memory. */
qir_tensor *ps_filled_tensor(const char *name, int dtype, double x, int rank,
			     const int64_t *dims);
/* Caller owns: a zero point of type qtype (code 0: +0 in every FP8 and
 * FP4 type, 0 in the integer ones) and the given shape. */
qir_tensor *ps_zero_point(const char *name, int qtype, int rank,
			  const int64_t *dims);

/* "BASE_TAG_SUFFIX" into buf (truncated to n). */
void ps_qdq_name(char *buf, size_t n, const char *base, const char *tag,
		 const char *suffix);

/* An unplaced QuantizeLinear or DequantizeLinear (op) node named hint
 * reading x, scale s and, when zp is not NULL, zero point zp, with one
 * output named after hint. NULL when out of memory. */
qir_node *ps_qdq_node(qir_graph *g, const char *op, const char *hint,
		      qir_value *x, qir_value *s, qir_value *zp);

/* Attributes of a Q -> DQ pair. */
struct ps_qdq_attrs {
	int per_axis;		/* set axis on both nodes */
	int64_t axis;
	int64_t block_size;	/* 0: not set */
	int saturate;		/* 1: saturate = 1 on the Q; 0: not set */
};

/* The pair Q(x, s, zp) -> DQ(., s, zp) named BASE_q and BASE_dq,
 * unplaced; Q's output typed qtype and DQ's dtype, both of x's shape.
 * Attributes in the order saturate, axis, block_size. 0, or -1 (err
 * set when the IR said why, else out of memory). */
int ps_qdq_pair(qir_graph *g, const char *base, qir_value *x, qir_value *s,
		qir_value *zp, int qtype, int dtype,
		const struct ps_qdq_attrs *a, qir_node **q, qir_node **dq,
		qir_error *err);

#endif

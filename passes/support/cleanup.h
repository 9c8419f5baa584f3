/*
 * passes/support/cleanup.h - what a rewrite leaves unread goes: an
 * initializer or a node whose outputs nothing reads any more. Only
 * what the rewrite touched is checked (the passes call these on the
 * values and nodes they rewired, or mark them for a sweep), never the
 * whole graph.
 */
#ifndef PASSES_SUPPORT_CLEANUP_H
#define PASSES_SUPPORT_CLEANUP_H

#include <qopt/qopt.h>

/* 1 when v is an initializer nothing reads: no use, not a graph
 * output or input. */
int ps_unused_initializer(const qir_value *v);
/* 1 when no output of n is read or is a graph output. */
int ps_node_unused(const qir_node *n);
/* Removes v when it is an unused initializer: 1 removed, 0 not one,
 * -1 when the IR refused (err says why; the initializer only stays). */
int ps_drop_unused_initializer(qir_value *v, qir_error *err);

/* Mark and sweep: what a rewrite may have left unread is marked as it
 * goes (nodes it orphaned, values it stopped reading), and a sweep
 * removes what is unread by then, with what only that kept alive: the
 * inputs of every erased node, their producers when `follow` lets the
 * sweep go there, and the initializers among them. Nodes go at once
 * (ps_sweep_nodes); initializers wait for ps_sweep_inits, which removes
 * them in one call per graph, so thousands of weights cost linear time.
 * Only what was marked is ever checked, never the whole graph. Out of
 * memory, a mark is lost and what it named merely stays. */
struct ps_sweep {
	/* 1 when the sweep may erase p, the producer of an erased node's
	 * input (or of a marked value); NULL: none (only initializers). */
	int (*follow)(const qir_node *p, void *arg);
	void *arg;
	qir_node **nodes;
	size_t nnodes, capnodes;
	qir_value **inits;
	size_t ninits, capinits;
};

/* follow functions: any producer; any but a DequantizeLinear. */
int ps_follow_all(const qir_node *p, void *arg);
int ps_follow_not_dq(const qir_node *p, void *arg);

/* n may be unread now: erased by the next ps_sweep_nodes if it is. */
void ps_sweep_mark(struct ps_sweep *s, qir_node *n);
/* v may be unread now: its producer is marked when followed, else v
 * when it is an initializer. Nothing when v is read. */
void ps_sweep_value(struct ps_sweep *s, qir_value *v);
/* Erases the marked nodes nothing reads, repeatedly (an erased node's
 * inputs are marked as ps_sweep_value says), until none is left; forgets
 * the marked nodes still read. */
void ps_sweep_nodes(struct ps_sweep *s);
/* Removes the marked initializers still unread, one call per graph; -1
 * when the IR refused (err says why, those of that graph stay). */
int ps_sweep_inits(struct ps_sweep *s, qir_error *err);
/* ps_sweep_nodes, then ps_sweep_inits. */
int ps_sweep(struct ps_sweep *s, qir_error *err);
/* Frees the marks (removes nothing). */
void ps_sweep_fini(struct ps_sweep *s);

#endif

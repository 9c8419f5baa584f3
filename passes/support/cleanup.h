/*
 * passes/support/cleanup.h - what a rewrite leaves unread goes: an
 * initializer or a node whose outputs nothing reads any more. Only
 * what the rewrite touched is checked (the passes call these on the
 * values and nodes they rewired), never the whole graph.
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

#endif

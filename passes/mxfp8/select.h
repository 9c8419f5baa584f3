/*
 * passes/mxfp8/select.h - select.c: the targets' choice of layers.
 */
#ifndef QOPT_PASSES_MXFP8_SELECT_H
#define QOPT_PASSES_MXFP8_SELECT_H

#include "mxfp8.h"

/* 0 when the targets select layer n, else 1 with s set. */
int mxfp8_match(struct mxfp8_cfg *cfg, qir_node *n, struct ps_skip *s);

#endif

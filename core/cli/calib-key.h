/*
 * core/cli/calib-key.h - the key of a tensor in the calibration file
 * (binary only). ONNX lets sibling sub-graphs (an If's two branches, two
 * Loops' bodies) reuse a name, so a name alone may not say which tensor
 * an amax is for. The scheme (docs/calibration.md): a tensor keeps its
 * name, unless it lives in a sub-graph and another graph of the model
 * has a value of that name; then the key is its scope, outermost first,
 * each enclosing node as NODE/ATTRIBUTE/ (NODE its name, or its first
 * output's when it has none), then the name: "loop/body/if/then_branch/x".
 * passes/support/calib_key.c computes the same for the passes' queries.
 */
#ifndef QOPT_CALIB_KEY_H
#define QOPT_CALIB_KEY_H

#include <stddef.h>
#include <qopt/ir.h>

/* The keys of sel[0..n) in m (computed before the probe changes m):
 * keys[k] malloc'd. 0, or -1 out of memory (keys[] all NULL again). */
int calib_keys(const qir_model *m, qir_value *const *sel, size_t n,
	       char **keys);
void calib_keys_free(char **keys, size_t n);

#endif

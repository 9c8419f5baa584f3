/*
 * core/calib/calib-hoist.h - makes a value inside an If branch or a Loop
 * body readable from the probe model's main graph, so that `qopt
 * calibrate` measures tensors of subgraphs as it does the others
 * (ONNX Runtime returns only the main graph's outputs).
 */
#ifndef QOPT_CLI_CALIB_HOIST_H
#define QOPT_CLI_CALIB_HOIST_H

#include <qopt/ir.h>

/* The value of m's main graph that carries v's elements: v itself when
 * it lives there; otherwise a new output of every enclosing If (the
 * branch that holds v gives an Identity of v, the other branch an empty
 * tensor of v's type, so a sample that takes the other branch adds no
 * element) or Loop (a scan output: v's elements of every iteration,
 * stacked). NULL with err set when v sits in another kind of subgraph
 * (Scan, a custom op), in an If inside a Loop body (the scan output's
 * shape would change between iterations), or its element type is
 * unknown. */
qir_value *calib_hoist(qir_model *m, qir_value *v, qir_error *err);

#endif

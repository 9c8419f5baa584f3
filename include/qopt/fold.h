/*
 * qopt/fold.h - constant folding, a transform over the IR (public,
 * versioned: qopt/version.h). Implemented in ir/transforms/.
 */
#ifndef QOPT_FOLD_H
#define QOPT_FOLD_H

#include <stdint.h>
#include <qopt/ir.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Constant folding of small subgraphs: if v is computed only from
 * constants through Reshape, Transpose, MatMul, Mul, Add, Sub, Div,
 * Pow (float types), Cast, Squeeze, Unsqueeze, Concat, Slice, Gather,
 * Identity (and Shape/Constant/ConstantOfShape/Unsqueeze over those),
 * evaluates it. Caller owns *out. QIR_EUNSUPPORTED (with the op named)
 * when v is not such a constant. max_bytes bounds any intermediate. */
int qir_const_eval(qir_value *v, uint64_t max_bytes, qir_tensor **out,
		   qir_error *err);

#ifdef __cplusplus
}
#endif
#endif /* QOPT_FOLD_H */

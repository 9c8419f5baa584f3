/*
 * passes/support/support.h - the pass toolkit: what the built-in passes
 * share, one header per concept (docs/pass-toolkit.md). Linked into
 * each pass module (libpass-support.la); public API only underneath,
 * like the passes themselves. Not part of the plugin interface.
 *
 *   targets.h  include/exclude globs, op types, min_size; unmatched
 *              patterns warned about
 *   skip.h     why a candidate is left alone: counter, level, sentence
 *   weight.h   the stored weight behind layout nodes, its consumers
 *              and reduction axis K
 *   rotate.h   rotate_back: R fq(R W) along K
 *   qdq.h      Q/DQ constants and nodes, the naming scheme
 *   fakequant.h  NVFP4 fake quantization (dq(q(W)) in W's type)
 *   cleanup.h  unused initializers and nodes after a rewrite; the
 *              mark-and-sweep of what a rewrite orphaned
 *   results.h  big results in reused buffers and the spill file
 *   finite.h   Inf/NaN in a float weight
 *   device.h   the kernel device a deferred recipe runs on
 *   recipe.h   a deferred recipe's struct, fill and free
 *   coverage.h what fraction of the weights a pass quantized: per
 *              format, reason, include pattern and repeated structure
 * The opset a pass needs comes from the manager: qopt_require_opset()
 * (qopt/pass.h).
 */
#ifndef PASSES_SUPPORT_H
#define PASSES_SUPPORT_H

#include "cleanup.h"
#include "coverage.h"
#include "device.h"
#include "fakequant.h"
#include "fail.h"
#include "finite.h"
#include "qdq.h"
#include "recipe.h"
#include "results.h"
#include "rotate.h"
#include "skip.h"
#include "targets.h"
#include "weight.h"

#endif

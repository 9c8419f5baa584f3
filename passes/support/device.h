/*
 * passes/support/device.h - the kernel device of a deferred recipe.
 *
 * A recipe is filled after its pass returned: by a later reader or on
 * one of the writer's threads, when the run's kernel context may be
 * gone and its thread pool is busy elsewhere. So a recipe keeps the
 * run's device (--device, QOPT_DEVICE) when it is made and opens a
 * one-thread context of its own for each fill. The bytes are the same
 * on every device (CUDA matches the CPU bit for bit), so the choice is
 * one of speed only; calls made this way are not in the run's --stats.
 */
#ifndef PASSES_SUPPORT_DEVICE_H
#define PASSES_SUPPORT_DEVICE_H

#include "qopt/kernels.h"
#include "qopt/pass.h"

/* The device the run's kernels use (QK_DEVICE_CPU without a context). */
qk_device ps_recipe_device(qopt_ctx *ctx);

/* A one-thread context on dev for one fill, freed with qk_ctx_free();
 * NULL (the CPU kernels on the calling thread) for QK_DEVICE_CPU or
 * when none can be made, which changes no result. */
qk_ctx *ps_recipe_kernels(qk_device dev);

#endif

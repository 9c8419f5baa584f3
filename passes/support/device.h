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
 * Only an explicit cuda sends fills to the GPU: auto keeps them on the
 * CPU, which writes straight into the output's mapping while the GPU
 * would add a copy each way (measured on an H100 with 16 cores: 1 GiB
 * of weights to NVFP4 in 0.23 s on the CPU, 0.69 s through CUDA).
 */
#ifndef PASSES_SUPPORT_DEVICE_H
#define PASSES_SUPPORT_DEVICE_H

#include "qopt/kernels.h"
#include "qopt/pass.h"

/* The device the run's kernels use (QK_DEVICE_CPU without a context). */
qk_device ps_recipe_device(qopt_ctx *ctx);

/* A one-thread context for one fill, freed with qk_ctx_free(): on
 * CUDA for QK_DEVICE_CUDA, else NULL (the CPU kernels on the calling
 * thread), also when none can be made, which changes no result. */
qk_ctx *ps_recipe_kernels(qk_device dev);

#endif

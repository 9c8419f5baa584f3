/* passes/support/device.c - the kernel device of a deferred recipe. */
#include "device.h"

qk_device ps_recipe_device(qopt_ctx *ctx)
{
	return qk_ctx_device(qopt_kernels(ctx));
}

qk_ctx *ps_recipe_kernels(qk_device dev)
{
	/* One thread: the writer already fills recipes in parallel. AUTO
	 * stays on the CPU (device.h says why). */
	return dev == QK_DEVICE_CUDA ? qk_ctx_new(dev, 1) : NULL;
}

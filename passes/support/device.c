/* passes/support/device.c - the kernel device of a deferred recipe. */
#include "device.h"

qk_device ps_recipe_device(qopt_ctx *ctx)
{
	return qk_ctx_device(qopt_kernels(ctx));
}

qk_ctx *ps_recipe_kernels(qk_device dev)
{
	/* One thread: the writer already fills recipes in parallel. */
	return dev == QK_DEVICE_CPU ? NULL : qk_ctx_new(dev, 1);
}

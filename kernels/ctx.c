/*
 * kernels/ctx.c - contexts, device choice and the optional CUDA module.
 *
 * The CUDA kernels live in a separate module (libqopt-cuda.so) so that
 * libqopt itself never links the CUDA runtime: a machine without the
 * driver or a GPU runs the same binary on the CPU. The module is
 * dlopened on first use: $QOPT_CUDA_MODULE when set (only that file),
 * else QOPT_PKGLIBDIR/libqopt-cuda.so. No build-tree path is compiled
 * in: an uninstalled qopt sets QOPT_CUDA_MODULE to its own tree's
 * module (core/cli/discovery.c), and so do the tests (tests/env.sh).
 * Whatever goes wrong is kept as a sentence; contexts copy it into
 * qk_stats.fallback_reason when they would have used CUDA.
 */
#include "config.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "internal.h"

#ifndef QOPT_PKGLIBDIR
#define QOPT_PKGLIBDIR "/usr/local/lib/qopt"
#endif
#define QKI_CUDA_MODULE "libqopt-cuda.so"

static struct {
	pthread_once_t once;
	const struct qki_cuda_ops *ops; /* NULL: unusable, see why */
	char why[sizeof(((qk_stats *)0)->fallback_reason)];
} qki_cuda = { .once = PTHREAD_ONCE_INIT };

#ifdef HAVE_CUDA
/* The first kernel entry a module left NULL, or NULL when it has all:
 * libqopt calls them without looking. */
static const char *qki_cuda_missing(const struct qki_cuda_ops *o)
{
	const struct {
		const char *name;
		int set;
	} e[] = {
		{ "init", o->init != NULL },
		{ "last_error", o->last_error != NULL },
		{ "convert", o->convert != NULL },
		{ "amax", o->amax != NULL },
		{ "amax_blocks", o->amax_blocks != NULL },
		{ "fp8_quantize", o->fp8_quantize != NULL },
		{ "fp8_dequantize", o->fp8_dequantize != NULL },
		{ "nvfp4_quantize", o->nvfp4_quantize != NULL },
		{ "nvfp4_dequantize", o->nvfp4_dequantize != NULL },
		{ "hadamard", o->hadamard != NULL },
		{ "int8_quantize", o->int8_quantize != NULL },
		{ "int8_dequantize", o->int8_dequantize != NULL },
	};

	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++)
		if (!e[i].set)
			return e[i].name;
	return NULL;
}

static void *qki_cuda_open(char *why, size_t len)
{
	const char *env = getenv("QOPT_CUDA_MODULE");
	const char *path = QOPT_PKGLIBDIR "/" QKI_CUDA_MODULE;
	void *h;

	if (env && *env)
		path = env;
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		snprintf(why, len, "cannot load CUDA module: %s", dlerror());
	return h;
}

static void qki_cuda_load(void)
{
	char *why = qki_cuda.why;
	size_t len = sizeof(qki_cuda.why);
	const struct qki_cuda_ops *ops;
	qki_cuda_entry_fn entry;
	void *h = qki_cuda_open(why, len);

	/* On failure below the module stays loaded: unloading a CUDA
	 * runtime that may have started threads is not safe. */
	if (!h)
		return;
	*(void **)&entry = dlsym(h, QK_CUDA_ENTRY_NAME);
	if (!entry) {
		snprintf(why, len, "CUDA module has no %s", QK_CUDA_ENTRY_NAME);
		return;
	}
	ops = entry();
	if (!ops || ops->abi != QK_CUDA_ABI || ops->size != sizeof(*ops)) {
		/* The size too: a table of the same ABI number but another
		 * size would otherwise read "ABI 1, libqopt wants 1". */
		snprintf(why, len,
			 "CUDA module ABI %u (table %u bytes), libqopt wants "
			 "%u (%zu bytes)",
			 ops ? (unsigned)ops->abi : 0u,
			 ops ? (unsigned)ops->size : 0u, (unsigned)QK_CUDA_ABI,
			 sizeof(*ops));
		return;
	}
	if (qki_cuda_missing(ops)) {
		snprintf(why, len, "CUDA module has no %s kernel",
			 qki_cuda_missing(ops));
		return;
	}
	if (ops->init(why, len) == QOPT_OK)
		qki_cuda.ops = ops;
}
#else
static void qki_cuda_load(void)
{
	snprintf(qki_cuda.why, sizeof(qki_cuda.why),
		 "libqopt was built without CUDA support");
}
#endif

static const struct qki_cuda_ops *qki_cuda_get(void)
{
	pthread_once(&qki_cuda.once, qki_cuda_load);
	return qki_cuda.ops;
}

int qk_cuda_available(void)
{
	return qki_cuda_get() != NULL;
}

static void qki_reason(qk_ctx *ctx, const char *why)
{
	snprintf(ctx->stats.fallback_reason,
		 sizeof(ctx->stats.fallback_reason), "%s", why);
}

int qki_simd_off(void)
{
	static int off = -1;
	int v = __atomic_load_n(&off, __ATOMIC_RELAXED);

	if (v < 0) {
		const char *env = getenv("QK_NO_SIMD");

		v = env && *env && strcmp(env, "0") != 0;
		__atomic_store_n(&off, v, __ATOMIC_RELAXED);
	}
	return v;
}

qk_ctx *qk_ctx_new(qk_device dev, int threads)
{
	qk_ctx *ctx = calloc(1, sizeof(*ctx));
	const char *env = getenv("QOPT_DEVICE");
	long ncpu;

	if (!ctx)
		return NULL;
	ctx->dev = dev;
	if (env && *env) {
		int d = qk_device_from_name(env);

		if (d >= 0)
			ctx->dev = (qk_device)d;
		else
			qki_reason(ctx, "QOPT_DEVICE not cpu, cuda or auto; "
					"ignored");
	}
	if (threads <= 0) {
		ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		threads = ncpu > 0 ? (int)ncpu : 1;
	}
	ctx->threads = threads > QKI_MAX_THREADS ? QKI_MAX_THREADS : threads;
	return ctx;
}

void qk_ctx_free(qk_ctx *ctx)
{
	free(ctx);
}

qk_device qk_ctx_device(const qk_ctx *ctx)
{
	return ctx ? ctx->dev : QK_DEVICE_CPU;
}

const qk_stats *qk_ctx_stats(const qk_ctx *ctx)
{
	return ctx ? &ctx->stats : NULL;
}

int qk_device_from_name(const char *name)
{
	if (!name)
		return -1;
	if (!strcasecmp(name, "cpu"))
		return QK_DEVICE_CPU;
	if (!strcasecmp(name, "cuda"))
		return QK_DEVICE_CUDA;
	if (!strcasecmp(name, "auto"))
		return QK_DEVICE_AUTO;
	return -1;
}

const char *qk_device_name(qk_device dev)
{
	switch (dev) {
	case QK_DEVICE_AUTO:
		return "auto";
	case QK_DEVICE_CPU:
		return "cpu";
	case QK_DEVICE_CUDA:
		return "cuda";
	}
	return "unknown";
}

qopt_status qki_route(qk_ctx *ctx, size_t bytes_in,
		      const struct qki_cuda_ops **ops)
{
	const struct qki_cuda_ops *o;

	*ops = NULL;
	if (!ctx || ctx->dev == QK_DEVICE_CPU)
		return QK_OK;
	if (ctx->dev == QK_DEVICE_AUTO && bytes_in < QKI_CUDA_AUTO_MIN_BYTES)
		return QK_OK;
	o = qki_cuda_get();
	if (o) {
		*ops = o;
		return QK_OK;
	}
	qki_reason(ctx, qki_cuda.why);
	if (ctx->dev == QK_DEVICE_CUDA)
		return QK_EDEVICE;
	ctx->stats.cuda_fallbacks++;
	return QK_OK;
}

void qki_account(qk_ctx *ctx, int cuda, size_t bytes_in)
{
	if (!ctx)
		return;
	if (cuda)
		ctx->stats.cuda_calls++;
	else
		ctx->stats.cpu_calls++;
	ctx->stats.bytes_in += bytes_in;
}

int qki_cuda_result(qk_ctx *ctx, const struct qki_cuda_ops *ops,
		    qopt_status rc, size_t bytes_in)
{
	const char *e;

	if (rc == QK_OK)
		qki_account(ctx, 1, bytes_in);
	if (rc != QOPT_EDEVICE_CALL && rc != QKI_CUDA_ECLOBBERED)
		return rc;
	e = ops->last_error ? ops->last_error() : NULL;
	snprintf(ctx->stats.fallback_reason,
		 sizeof(ctx->stats.fallback_reason), "CUDA kernel failed: %s",
		 e ? e : "unknown error");
	if (rc == QKI_CUDA_ECLOBBERED)
		return QOPT_EDEVICE_CALL;
	ctx->stats.cuda_fallbacks++;
	return QKI_CPU;
}

/*
 * tests/kernels/ctx.c - contexts, device names, QOPT_DEVICE, error
 * strings, statistics, and the CPU fallback when the CUDA module is
 * missing. The module path is pointed at a file that does not exist
 * (QOPT_CUDA_MODULE), so the fallback is exercised on every machine,
 * with or without a GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qopt/dtype.h"
#include "qopt/kernels.h"
#include "../lib/tap.h"

static void names(void)
{
	tap_ok(qk_device_from_name("cpu") == QK_DEVICE_CPU &&
	       qk_device_from_name("CUDA") == QK_DEVICE_CUDA &&
	       qk_device_from_name("auto") == QK_DEVICE_AUTO &&
	       qk_device_from_name("gpu") == -1 &&
	       qk_device_from_name(NULL) == -1,
	       "qk_device_from_name");
	TAP_IS_STR(qk_device_name(QK_DEVICE_CUDA), "cuda", "qk_device_name");
	tap_ok(strcmp(qk_strerror(QK_EBLOCK), qk_strerror(QK_EDTYPE)) &&
	       strcmp(qk_strerror(QK_OK), qk_strerror(-99)) &&
	       strlen(qk_strerror(QK_EDEVICE)) > 0 &&
	       strlen(qk_strerror(QK_ENOMEM)) > 0 &&
	       strlen(qk_strerror(QK_EINVAL)) > 0,
	       "qk_strerror names every code");
	tap_ok(!strcmp(qk_strerror(QK_EBLOCK), qopt_status_str(QK_EBLOCK)) &&
	       !strcmp(qk_strerror(QK_EDEVICE),
		       qopt_status_str(QK_EDEVICE)),
	       "qk_strerror is qopt_status_str");
}

static void env_override(void)
{
	qk_ctx *c;

	setenv("QOPT_DEVICE", "cpu", 1);
	c = qk_ctx_new(QK_DEVICE_CUDA, 1);
	tap_ok(c && qk_ctx_device(c) == QK_DEVICE_CPU,
	       "QOPT_DEVICE=cpu overrides the device asked for");
	qk_ctx_free(c);
	setenv("QOPT_DEVICE", "bogus", 1);
	c = qk_ctx_new(QK_DEVICE_AUTO, 1);
	tap_ok(c && qk_ctx_device(c) == QK_DEVICE_AUTO &&
	       strstr(qk_ctx_stats(c)->fallback_reason, "QOPT_DEVICE"),
	       "an unknown QOPT_DEVICE is ignored, with a reason");
	qk_ctx_free(c);
	unsetenv("QOPT_DEVICE");
}

static void stats(void)
{
	qk_ctx *c = qk_ctx_new(QK_DEVICE_CPU, 2);
	float x[100] = { 1 }, a;
	uint16_t h[100];
	const qk_stats *s = qk_ctx_stats(c);

	qk_amax(c, QIR_FLOAT, x, 100, &a);
	qk_convert(c, QIR_FLOAT16, h, QIR_FLOAT, x, 100);
	tap_ok(s->cpu_calls == 2 && s->cuda_calls == 0 && s->bytes_in == 800,
	       "stats count calls and input bytes");
	qk_ctx_free(c);
	tap_ok(qk_amax(NULL, QIR_FLOAT, x, 100, &a) == 0 && a == 1 &&
	       qk_ctx_stats(NULL) == NULL,
	       "a NULL context runs on the CPU");
}

/* With the module missing: AUTO falls back for large work and counts
 * it, CUDA explicitly is refused; results stay the CPU's. */
static void fallback(void)
{
	size_t n = 8u << 20; /* 32 MiB of FLOAT: over the AUTO threshold */
	float *x = calloc(n, 4), a = 0;
	qk_ctx *ca = qk_ctx_new(QK_DEVICE_AUTO, 0);
	qk_ctx *cc = qk_ctx_new(QK_DEVICE_CUDA, 0);

	x[n - 1] = -3;
	tap_ok(!qk_cuda_available(), "no CUDA with QOPT_CUDA_MODULE missing");
	tap_ok(qk_amax(ca, QIR_FLOAT, x, 1000, &a) == 0 &&
	       qk_ctx_stats(ca)->cuda_fallbacks == 0,
	       "AUTO: small work goes to the CPU without a fallback");
	tap_ok(qk_amax(ca, QIR_FLOAT, x, n, &a) == 0 && a == 3 &&
	       qk_ctx_stats(ca)->cuda_fallbacks == 1 &&
	       qk_ctx_stats(ca)->cpu_calls == 2 &&
	       (strstr(qk_ctx_stats(ca)->fallback_reason, "cannot load") ||
		strstr(qk_ctx_stats(ca)->fallback_reason, "without CUDA")),
	       "AUTO: large work falls back to the CPU, reason recorded");
	tap_diag("reason: %s", qk_ctx_stats(ca)->fallback_reason);
	tap_ok(qk_amax(cc, QIR_FLOAT, x, 10, &a) == QK_EDEVICE &&
	       qk_ctx_stats(cc)->cpu_calls == 0 &&
	       qk_ctx_stats(cc)->fallback_reason[0],
	       "CUDA asked explicitly: QK_EDEVICE, reason recorded");
	qk_ctx_free(ca);
	qk_ctx_free(cc);
	free(x);
}

int main(void)
{
	setenv("QOPT_CUDA_MODULE", "/nonexistent/libqopt-cuda.so", 1);
	unsetenv("QOPT_DEVICE");
	names();
	env_override();
	stats();
	fallback();
	return tap_done();
}

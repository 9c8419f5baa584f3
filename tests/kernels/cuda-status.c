/*
 * tests/kernels/cuda-status.c - how libqopt treats each status the CUDA
 * module returns (kernels/cuda-abi.h), with tests/kernels/fake-cuda.c
 * standing in for the module: no GPU needed, but libqopt must be built
 * with CUDA support (else skipped).
 */
#include <stdlib.h>
#include <string.h>
#include <qopt/qopt.h>
#include "../lib/tap.h"

static void mode(const char *m)
{
	setenv("FAKE_CUDA", m, 1);
}

int main(void)
{
	const char *top = getenv("top_builddir");
	char path[4096];
	float x[32] = { 0 }, a = 0, g;
	uint8_t codes[16], scales[2];
	int8_t q[32];
	const float one = 1.0f;
	qk_qlayout lay = { 1, 32, 1, QK_SCALE_TENSOR, 0 };
	qk_ctx *c;
	const qk_stats *s;

	snprintf(path, sizeof(path), "%s/tests/kernels/.libs/fake-cuda.so",
		 top ? top : ".");
	setenv("QOPT_CUDA_MODULE", path, 1);
	unsetenv("QOPT_DEVICE");
	mode("ok");
	if (!qk_cuda_available()) {
		printf("1..0 # SKIP libqopt without CUDA support, or the fake module is missing\n");
		return 0;
	}
	c = qk_ctx_new(QK_DEVICE_CUDA, 1);
	s = qk_ctx_stats(c);
	x[5] = -3;
	tap_ok(qk_amax(c, QIR_FLOAT, x, 32, &a) == QOPT_OK && a == 42 &&
	       s->cuda_calls == 1, "QOPT_OK: the module's result is the answer");

	mode("call");
	tap_ok(qk_amax(c, QIR_FLOAT, x, 32, &a) == QOPT_OK && a == 3 &&
	       s->cuda_fallbacks == 1 && s->cpu_calls == 1 &&
	       strstr(s->fallback_reason, "fake: launch failed"),
	       "QOPT_EDEVICE_CALL: redone on the CPU, counted, reason kept (%s)",
	       s->fallback_reason);

	/* INT8: the table's entry is called, and a failure redone here. */
	mode("ok");
	memset(q, 0, sizeof(q));
	tap_ok(qk_int8_quantize(c, q, QIR_FLOAT, x, &one, &lay) == QOPT_OK &&
	       q[0] == 42 && q[31] == 42 && s->cuda_calls == 2,
	       "int8_quantize: the module's kernel ran (its codes are the answer)");
	mode("call");
	tap_ok(qk_int8_quantize(c, q, QIR_FLOAT, x, &one, &lay) == QOPT_OK &&
	       q[5] == -3 && q[0] == 0 && s->cuda_fallbacks == 2 &&
	       s->cpu_calls == 2,
	       "int8_quantize: a failed CUDA call is redone on the CPU");

	mode("clobber");
	tap_ok(qk_hadamard(c, QIR_FLOAT, x, 1, 32, 1, 32) ==
		       QOPT_EDEVICE_CALL &&
	       s->cpu_calls == 2,
	       "written and failed (in-place Hadamard): QOPT_EDEVICE_CALL, not redone");

	mode("nonfinite");
	tap_ok(qk_nvfp4_quantize(c, QIR_FLOAT, x, 1, 32, 1, codes, scales, &g) ==
		       QOPT_EINVALID_NONFINITE &&
	       s->cpu_calls == 2 && s->cuda_fallbacks == 2,
	       "any other status reaches the caller as it is");
	qk_ctx_free(c);
	return tap_done();
}

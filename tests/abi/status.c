/*
 * tests/abi/status.c - the status convention of ABI 3.0 (qopt/status.h):
 * every code's value and primary, qopt_status_str's names, and the
 * kernels' and the IR's codes as aliases of it.
 */
#include <string.h>
#include <qopt/qopt.h>
#include "../lib/tap.h"

struct code {
	qopt_status s;
	int value;	/* what docs/plugin-abi.md's table says */
	qopt_status primary;
	const char *name;
};

static const struct code codes[] = {
	{ QOPT_OK, 0, QOPT_OK, "success" },
	{ QOPT_EIO, 1, QOPT_EIO, "input/output error" },
	{ QOPT_EPARSE, 2, QOPT_EPARSE, "malformed or truncated file" },
	{ QOPT_EINVALID, 3, QOPT_EINVALID, "invalid content" },
	{ QOPT_ENOMEM, 4, QOPT_ENOMEM, "out of memory" },
	{ QOPT_EUNSAFE, 5, QOPT_EUNSAFE, "path escapes the model folder" },
	{ QOPT_EUSAGE, 6, QOPT_EUSAGE, "API misuse" },
	{ QOPT_EVERIFY, 7, QOPT_EVERIFY, "the model does not verify" },
	{ QOPT_EUNSUPPORTED, 8, QOPT_EUNSUPPORTED, "not supported" },
	{ QOPT_EDEVICE, 9, QOPT_EDEVICE, "device error" },
	{ QOPT_EPLUGIN, 10, QOPT_EPLUGIN, "plugin error" },
	{ QOPT_EPOLICY, 11, QOPT_EPOLICY, "forbidden by the pipeline policy" },
	{ QOPT_ESKIPPED, 12, QOPT_ESKIPPED, "skipped by bisect" },
	{ QOPT_ESTRICT, 13, QOPT_ESTRICT, "warnings under --strict" },
	{ QOPT_EINTERRUPTED, 14, QOPT_EINTERRUPTED, "interrupted" },
	{ QOPT_ENOTFOUND, 15, QOPT_ENOTFOUND, "not found" },
	{ QOPT_EPASS, 16, QOPT_EPASS, "pass failed" },
	{ QOPT_EINVALID_ARG, 3 | 1 << 8, QOPT_EINVALID, "invalid argument" },
	{ QOPT_EINVALID_BLOCK, 3 | 2 << 8, QOPT_EINVALID,
	  "axis length is not a multiple of the block" },
	{ QOPT_EINVALID_NONFINITE, 3 | 3 << 8, QOPT_EINVALID,
	  "infinite or NaN value where a finite one is needed" },
	{ QOPT_EUNSUPPORTED_DTYPE, 8 | 1 << 8, QOPT_EUNSUPPORTED,
	  "element type not supported" },
	{ QOPT_EDEVICE_UNAVAILABLE, 9 | 1 << 8, QOPT_EDEVICE,
	  "CUDA requested but unusable" },
	{ QOPT_EDEVICE_CALL, 9 | 2 << 8, QOPT_EDEVICE,
	  "a CUDA call or copy failed" },
	{ QOPT_EPLUGIN_OPEN, 10 | 1 << 8, QOPT_EPLUGIN, "cannot open plugin" },
	{ QOPT_EPLUGIN_NOENTRY, 10 | 2 << 8, QOPT_EPLUGIN, "not a qopt plugin" },
	{ QOPT_EPLUGIN_ABI, 10 | 3 << 8, QOPT_EPLUGIN,
	  "plugin built for another plugin ABI" },
	{ QOPT_EPLUGIN_TABLE, 10 | 4 << 8, QOPT_EPLUGIN,
	  "malformed plugin table" },
	{ QOPT_EPLUGIN_SYMBOL, 10 | 5 << 8, QOPT_EPLUGIN,
	  "plugin needs a function this libqopt lacks" },
	{ QOPT_EPLUGIN_DUPLICATE, 10 | 6 << 8, QOPT_EPLUGIN,
	  "pass or pipeline name already registered" },
};
#define NCODES (sizeof(codes) / sizeof(codes[0]))

static void values(void)
{
	size_t i, j, bad = 0, dup = 0;

	for (i = 0; i < NCODES; i++) {
		if (codes[i].s != codes[i].value ||
		    QOPT_PRIMARY(codes[i].s) != codes[i].primary ||
		    strcmp(qopt_status_str(codes[i].s), codes[i].name)) {
			tap_diag("code %d: primary %d, named '%s'", codes[i].s,
				 QOPT_PRIMARY(codes[i].s),
				 qopt_status_str(codes[i].s));
			bad++;
		}
		for (j = 0; j < i; j++)
			if (codes[j].s == codes[i].s ||
			    !strcmp(qopt_status_str(codes[j].s),
				    qopt_status_str(codes[i].s)))
				dup++;
	}
	tap_ok(!bad, "every code has the documented value, primary and name");
	tap_ok(!dup, "no two codes share a value or a name");
	for (i = 0, bad = 0; i < NCODES; i++)
		if (codes[i].primary != codes[i].s &&
		    (codes[i].s & ~0xff) == 0)
			bad++;
	tap_ok(!bad, "an extended code is its primary plus a detail above 8 bits");
}

static void names(void)
{
	tap_ok(!strcmp(qopt_status_str(QOPT_EPLUGIN | 77 << 8),
		       qopt_status_str(QOPT_EPLUGIN)) &&
	       !strcmp(qopt_status_str(QOPT_EINVALID | 99 << 8),
		       qopt_status_str(QOPT_EINVALID)),
	       "an extended code this libqopt does not know is named by its primary");
	tap_ok(!strcmp(qopt_status_str(-1), "unknown status") &&
	       !strcmp(qopt_status_str(200), "unknown status") &&
	       !strcmp(qopt_status_str(200 | 1 << 8), "unknown status"),
	       "negative values and unknown primaries: 'unknown status'");
	tap_ok(!strcmp(qopt_status_str(256), "unknown status") &&
	       !strcmp(qopt_status_str(7 << 8), "unknown status") &&
	       !strcmp(qopt_status_str(QOPT_OK), "success"),
	       "success with detail bits (256) is not success: 'unknown status'");
}

static void aliases(void)
{
	tap_ok(QK_OK == 0 && (int)QK_EINVAL == QOPT_EINVALID_ARG &&
	       (int)QK_EDTYPE == QOPT_EUNSUPPORTED_DTYPE &&
	       (int)QK_EBLOCK == QOPT_EINVALID_BLOCK && (int)QK_ENOMEM == QOPT_ENOMEM &&
	       (int)QK_EDEVICE == QOPT_EDEVICE_UNAVAILABLE,
	       "QK_* are the design's qopt_status codes");
	tap_ok(QIR_OK == 0 && QIR_EIO == 1 && QIR_EPARSE == 2 &&
	       QIR_EINVALID == 3 && QIR_ENOMEM == 4 && QIR_EUNSAFE == 5 &&
	       QIR_EUSAGE == 6 && QIR_EVERIFY == 7 && QIR_EUNSUPPORTED == 8 &&
	       (int)QIR_EIO == QOPT_EIO && (int)QIR_EUNSUPPORTED == QOPT_EUNSUPPORTED,
	       "QIR_E* keep their values and are the primary codes");
	tap_ok(!strcmp(qk_strerror(QK_EBLOCK), qopt_status_str(QK_EBLOCK)) &&
	       !strcmp(qk_strerror(QK_EDTYPE), qopt_status_str(QK_EDTYPE)),
	       "qk_strerror gives qopt_status_str's text");
}

/* The IR and the kernels hand back these codes, not private ones. */
static void returned(void)
{
	qir_error err = { 0 };
	float x[4] = { 0 }, amax;
	qir_model *m = qir_model_new(10, 21, &err);

	tap_ok(qk_amax(NULL, QIR_INT8, x, 4, &amax) == QOPT_EUNSUPPORTED_DTYPE &&
	       qk_amax(NULL, QIR_FLOAT, x, 4, NULL) == QOPT_EINVALID_ARG &&
	       qk_hadamard(NULL, QIR_FLOAT, x, 1, 4, 1, 8) ==
		       QOPT_EINVALID_BLOCK,
	       "kernels return extended codes");
	x[1] = 1.0f / 0.0f;
	{
		float w[16] = { 0 };
		uint8_t c[8], s[1];
		float g;

		w[2] = x[1];
		tap_ok(qk_nvfp4_quantize(NULL, QIR_FLOAT, w, 1, 16, 1, c, s,
					 &g) == QOPT_EINVALID_NONFINITE,
		       "NVFP4 refuses inf with QOPT_EINVALID_NONFINITE");
	}
	if (!m) {
		tap_ok(0, "model: %s", err.msg);
		return;
	}
	{
		qir_node *a = qir_node_new(m->graph, "Relu", NULL, "a");
		qir_node *b = qir_node_new(m->graph, "Relu", NULL, "b");
		qir_value *v = qir_node_add_output(a, NULL, "v");

		tap_ok(v && qir_node_add_input(b, v) == 0 &&
		       qir_node_erase(a, &err) < 0 &&
		       err.code == QIR_EUSAGE && err.code == QOPT_EUSAGE,
		       "qir_error.code holds a qopt_status (erasing a used node: %s)",
		       err.msg);
	}
	qir_model_free(m);
}

int main(void)
{
	values();
	names();
	aliases();
	returned();
	return tap_done();
}

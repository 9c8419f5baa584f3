/*
 * passes/support/fail.c - the remembered status behind ps_fail. One per
 * module (the toolkit is linked into each), not per thread: libqopt runs
 * one pass at a time in a process (docs/library.md), and a thread-local
 * in a dlopen'ed module is dynamic TLS, whose blocks LeakSanitizer's
 * tracer reads after the module is closed (it crashed qopt's exit in
 * the sanitizer build: "Tracer caught signal 11").
 */
#include <stdarg.h>
#include <stdio.h>

#include "fail.h"

static qopt_status first;

int ps_fail(qopt_ctx *ctx, qopt_status code, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	qopt_error(ctx, "%s", msg);
	if (!first && code)
		first = code;
	return -1;
}

qopt_status ps_status(int rc)
{
	qopt_status s = first;

	first = QOPT_OK;
	if (!rc)
		return QOPT_OK;
	return s ? s : QOPT_EPASS;
}

/*
 * passes/support/fail.c - the remembered status behind ps_fail. One per
 * thread: a pass runs on the thread that called it (the kernels' worker
 * threads say nothing), and the toolkit is linked into each module, so
 * no two modules share it.
 */
#include <stdarg.h>
#include <stdio.h>

#include "fail.h"

static _Thread_local qopt_status first;

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

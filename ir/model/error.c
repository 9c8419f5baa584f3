/*
 * ir/model/error.c - filling a qir_error.
 */
#include <stdarg.h>
#include <stdio.h>
#include <qopt/ir.h>

int qir_fail(qir_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

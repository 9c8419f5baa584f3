/*
 * ir/error.c - filling a qir_error.
 */
#include <stdarg.h>
#include <stdio.h>
#include "internal.h"

size_t qir__escape_ctl(char *dst, size_t cap, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	if (!cap)
		return 0;
	for (; *src; src++) {
		unsigned char ch = (unsigned char)*src;

		if (ch < 0x20 || ch == 0x7f) {
			if (n + 4 >= cap)
				break;
			dst[n++] = '\\';
			dst[n++] = 'x';
			dst[n++] = hex[ch >> 4];
			dst[n++] = hex[ch & 15];
		} else {
			if (n + 1 >= cap)
				break;
			dst[n++] = (char)ch;
		}
	}
	dst[n] = 0;
	return n;
}

int qir_fail(qir_error *err, int code, const char *fmt, ...)
{
	char raw[sizeof(err->msg)];
	va_list ap;

	if (!err)
		return -1;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* Messages are one line: a name holding ESC or a newline (from
	 * the file) is shown escaped, not passed to the terminal. */
	qir__escape_ctl(err->msg, sizeof(err->msg), raw);
	return -1;
}

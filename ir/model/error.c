/*
 * ir/model/error.c - filling a qir_error.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "model/internal.h"
#include "file/code.h"

size_t ir_utf8_shown(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned cp;
	size_t n, i;

	if (p[0] < 0x20 || p[0] == 0x7f)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates, beyond U+10FFFF, and the C1
	 * controls (U+0080..U+009F: CSI and friends in a UTF-8 terminal). */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff ||
	    (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return n;
}

size_t ir_escape_ctl(char *dst, size_t cap, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	if (!cap)
		return 0;
	while (*src) {
		size_t k = ir_utf8_shown(src);

		if (!k) {
			unsigned char ch = (unsigned char)*src++;

			if (n + 4 >= cap)
				break;
			dst[n++] = '\\';
			dst[n++] = 'x';
			dst[n++] = hex[ch >> 4];
			dst[n++] = hex[ch & 15];
		} else {
			if (n + k >= cap)
				break;
			memcpy(dst + n, src, k);
			n += k;
			src += k;
		}
	}
	dst[n] = 0;
	return n;
}

int qir_fail(qir_error *err, qopt_status code, const char *fmt, ...)
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
	ir_escape_ctl(err->msg, sizeof(err->msg), raw);
	return -1;
}

int ir_fail_file(qir_error *err, int code, const char *msg)
{
	int qcode = code == FIO_ENOMEM ? QIR_ENOMEM :
		    code == FIO_EKIND || code == FIO_ETOOBIG ? QIR_EUSAGE :
		    QIR_EIO;

	return qir_fail(err, qcode, "%s", msg);
}

size_t qir_escape_text(char *dst, size_t cap, const char *src)
{
	return ir_escape_ctl(dst, cap, src);
}

/*
 * ir/model/error.c - filling a qir_error.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "base/utf8.h"
#include "model/internal.h"
#include "file/code.h"

size_t ir_utf8_shown(const char *s)
{
	unsigned cp = 0;
	size_t n = base_utf8_len(s, &cp);

	/* Controls and DEL, and the C1 controls (U+0080..U+009F: CSI and
	 * friends in a UTF-8 terminal), are escaped too. */
	if (!n || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f))
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

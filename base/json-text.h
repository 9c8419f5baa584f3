/*
 * base/json-text.h - the one JSON string writer and number format of
 * qopt's files (not installed): the calibration file (core/calib/), the
 * calibration job and --stats-json (the manager, through
 * core/manager/jsonstr.c and numfmt.c). Inline, as base/utf8.h is: the
 * manager links libqopt's exported API only, and this is not part of
 * it.
 */
#ifndef BASE_JSON_TEXT_H
#define BASE_JSON_TEXT_H

#include <stdio.h>
#include <stdlib.h>
#include "base/utf8.h"

/* s as a JSON string (NULL as ""). Valid UTF-8 is copied; each byte
 * that is not part of valid UTF-8 is written as the lone surrogate
 * \udcXX (XX the byte, 80..ff), the scheme Python calls
 * surrogateescape: no valid text can produce one, so a reader restores
 * the bytes exactly (core/calib/calib-read.c does). Control bytes, '"'
 * and '\\' are escaped. */
static inline void base_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n;

	fputc('"', f);
	while (*p) {
		n = base_utf8_len((const char *)p, NULL);
		if (!n) {
			fprintf(f, "\\u%04x", 0xdc00u + *p++);
			continue;
		}
		if (n > 1) {
			fwrite(p, 1, n, f);
			p += n;
			continue;
		}
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
		p++;
	}
	fputc('"', f);
}

/* The shortest %g form of x (1 to 17 significant digits) that strtod
 * turns back into x, into buf (n bytes, always terminated). */
static inline void base_fmt_double(char *buf, size_t n, double x)
{
	int prec;

	for (prec = 1; prec < 17; prec++) {
		snprintf(buf, n, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			return;
	}
	snprintf(buf, n, "%.17g", x);
}

#endif

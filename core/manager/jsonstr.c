/*
 * core/manager/jsonstr.c - the one JSON string writer of qopt's files
 * (the calibration file, calibrate's job file, --stats-json): bytes
 * that are not UTF-8 cannot be copied into JSON, and each file must
 * stay JSON whatever a path or a name in a model holds.
 */
#include <stdio.h>
#include "manager/jsonstr.h"

/* Length of the valid UTF-8 sequence at p (1..4), or 0 (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t utf8_len(const unsigned char *p)
{
	unsigned c = p[0];
	size_t n, k;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (k = 1; k < n; k++) {
		if ((p[k] & 0xc0) != 0x80)
			return 0;	/* also stops at the NUL */
		cp = (cp << 6) | (p[k] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp < 0xe000) || cp > 0x10ffff)
		return 0;
	return n;
}

void pm_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n;

	fputc('"', f);
	while (*p) {
		n = utf8_len(p);
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

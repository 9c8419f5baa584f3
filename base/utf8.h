/*
 * base/utf8.h - the one UTF-8 check (not installed), for the IR's
 * escaping of names in messages and listings (ir/model/error.c) and
 * the JSON string writer of qopt's files (base/json-text.h). Inline:
 * the manager links libqopt's exported API only, and this is not part
 * of it.
 */
#ifndef BASE_UTF8_H
#define BASE_UTF8_H

#include <stddef.h>

/* Length of the well-formed UTF-8 sequence at s (1..4; 1 for any
 * ASCII byte, controls included), or 0 when the bytes there are not
 * one (RFC 3629: no stray continuation byte, no overlong form, no
 * surrogate, nothing above U+10FFFF, no sequence cut short: the NUL
 * ends one). *cp, when not NULL, gets the code point. */
static inline size_t base_utf8_len(const char *s, unsigned *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned c = p[0], v;
	size_t n, k;

	if (c < 0x80)
		n = 1, v = c;
	else if (c >= 0xc2 && c <= 0xdf)
		n = 2, v = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, v = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, v = c & 0x07;
	else
		return 0;
	for (k = 1; k < n; k++) {
		if ((p[k] & 0xc0) != 0x80)
			return 0;	/* also stops at the NUL */
		v = (v << 6) | (p[k] & 0x3f);
	}
	if ((n == 3 && v < 0x800) || (n == 4 && v < 0x10000) ||
	    (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff)
		return 0;
	if (cp)
		*cp = v;
	return n;
}

#endif

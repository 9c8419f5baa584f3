/*
 * core/manager/jsonstr.c - the one JSON string writer of qopt's files
 * (the calibration file, calibrate's job file, --stats-json): bytes
 * that are not UTF-8 cannot be copied into JSON, and each file must
 * stay JSON whatever a path or a name in a model holds.
 */
#include <stdio.h>
#include "base/utf8.h"
#include "manager/jsonstr.h"

void pm_json_str(FILE *f, const char *s)
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

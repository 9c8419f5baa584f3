/*
 * core/cli/calib-json.c - writes the calibration file of `qopt
 * calibrate`. qopt writes it (not the node script) so that every byte
 * of a tensor name survives (JavaScript strings cannot hold bytes that
 * are not UTF-8) and so that no number JSON cannot hold is ever
 * written. passes/fp8_mha/calib_file.c reads it back; the round trip is
 * tested over random files (tests/calib-roundtrip.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/calib-json.h"
#include "manager/numfmt.h"

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

void calib_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
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

int calib_json_write(FILE *f, const struct calib_doc *d, size_t *bad)
{
	char num[40];
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!isfinite(d->amax[i]) || d->amax[i] < 0) {
			*bad = i;
			return -1;
		}
	*bad = (size_t)-1;
	fputs("{\n \"format\": \"qopt-calibration\",\n \"version\": 1,\n"
	      " \"model\": ", f);
	calib_json_str(f, d->model);
	fprintf(f, ",\n \"model_hash\": \"%016llx\",\n \"method\": \"%s\",\n",
		(unsigned long long)d->hash,
		d->percentile < 100 ? "percentile" : "max");
	pm_fmt_double(num, sizeof(num), d->percentile);
	fprintf(f, " \"percentile\": %s,\n \"samples\": %ld,\n \"source\": ",
		num, d->samples);
	calib_json_str(f, d->source);
	fputs(",\n \"tensors\": {", f);
	for (i = 0; i < d->n; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		calib_json_str(f, d->names[i]);
		fputs(": {\n   \"dtype\": ", f);
		calib_json_str(f, d->dtypes[i]);
		pm_fmt_double(num, sizeof(num), d->amax[i]);
		fprintf(f, ",\n   \"amax\": %s\n  }", num);
	}
	fputs(d->n ? "\n }\n}\n" : "}\n}\n", f);
	return ferror(f) ? -1 : 0;
}

/*
 * core/calib/calib-npy.c - the .npy header of a sample file, parsed
 * strictly (a Python dict literal) and checked against the file's size,
 * for a .npy of `qopt calibrate --data` (calib-samples.c) and for a
 * member of an .npz (calib-npz.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "calib/calib-samples.h"

#define NPY_MAX_HEADER (1u << 20)

/* ---- the .npy header: a Python dict literal, parsed strictly ------ */

struct hdr {
	const char *s;
	size_t i, n;
	char *why;
	size_t whyn;
};

static int hbad(struct hdr *h, const char *what)
{
	snprintf(h->why, h->whyn, "%s in the .npy header at byte %zu", what,
		 h->i);
	return -1;
}

static void hws(struct hdr *h)
{
	while (h->i < h->n && (h->s[h->i] == ' ' || h->s[h->i] == '\n' ||
			       h->s[h->i] == '\t' || h->s[h->i] == '\r'))
		h->i++;
}

static int heat(struct hdr *h, char c)
{
	hws(h);
	if (h->i < h->n && h->s[h->i] == c) {
		h->i++;
		return 1;
	}
	return 0;
}

/* A quoted Python string without escapes, into buf. */
static int hstr(struct hdr *h, char *buf, size_t n)
{
	size_t start, len;
	char q;

	hws(h);
	if (h->i >= h->n || (h->s[h->i] != '\'' && h->s[h->i] != '"'))
		return hbad(h, "expected a quoted string");
	q = h->s[h->i++];
	start = h->i;
	while (h->i < h->n && h->s[h->i] != q && h->s[h->i] != '\\')
		h->i++;
	if (h->i >= h->n || h->s[h->i] != q)
		return hbad(h, "unterminated or escaped string");
	len = h->i++ - start;
	if (len >= n)
		return hbad(h, "string too long");
	memcpy(buf, h->s + start, len);
	buf[len] = 0;
	return 0;
}

static int hword(struct hdr *h, const char *w)
{
	size_t l = strlen(w);

	hws(h);
	if (h->n - h->i >= l && !memcmp(h->s + h->i, w, l)) {
		h->i += l;
		return 1;
	}
	return 0;
}

/* (d0, d1, ...) of decimal integers; count = their product, rank and
 * dim0 (0 when rank 0) beside it. */
static int hshape(struct hdr *h, struct calib_npy *in)
{
	char *txt = in->shape;
	size_t k = 0, used = 0, txtn = sizeof(in->shape);
	uint64_t v, *count = &in->count;

	*count = 1;
	txt[0] = 0;
	if (!heat(h, '('))
		return hbad(h, "'shape' is not a tuple");
	if (heat(h, ')'))
		return 0;
	for (;;) {
		hws(h);
		if (h->i >= h->n || !isdigit((unsigned char)h->s[h->i]))
			return hbad(h, "a 'shape' entry is not a non-negative integer");
		for (v = 0; h->i < h->n && isdigit((unsigned char)h->s[h->i]); h->i++) {
			if (v > (UINT64_MAX - 9) / 10)
				return hbad(h, "a 'shape' entry is too large");
			v = v * 10 + (uint64_t)(h->s[h->i] - '0');
		}
		if (v && *count > UINT64_MAX / v)
			return hbad(h, "'shape' has too many elements");
		*count *= v;
		if (!k)
			in->dim0 = v;
		in->rank = (int)k + 1;
		used += (size_t)snprintf(txt + used, used < txtn ? txtn - used : 0,
					 "%s%llu", k ? "," : "",
					 (unsigned long long)v);
		if (used >= txtn)
			used = txtn - 1;
		k++;
		if (!heat(h, ','))
			break;
		if (heat(h, ')'))
			return 0;
	}
	if (k == 1)	/* (3) is the number 3 in Python, not a tuple */
		return hbad(h, "'shape' is not a tuple (a 1-D shape is (N,))");
	return heat(h, ')') ? 0 : hbad(h, "expected ',' or ')' in 'shape'");
}

static long npy_itemsize(const char *descr)
{
	static const struct { const char *d; long size; } t[] = {
		{ "<f4", 4 }, { "<f2", 2 }, { "<f8", 8 }, { "|u1", 1 },
		{ "|i1", 1 }, { "<u2", 2 }, { "<i2", 2 }, { "<i4", 4 },
		{ "<i8", 8 }, { "|b1", 1 }, { "<u4", 4 }, { "<u8", 8 },
	};
	size_t k;

	for (k = 0; k < sizeof(t) / sizeof(*t); k++)
		if (!strcmp(descr, t[k].d))
			return t[k].size;
	return 0;
}

static int npy_dict(struct hdr *h, struct calib_npy *in)
{
	int seen[3] = { 0, 0, 0 };
	char key[64];

	if (!heat(h, '{'))
		return hbad(h, "expected '{'");
	while (!heat(h, '}')) {
		int k;

		if (hstr(h, key, sizeof(key)))
			return -1;
		k = !strcmp(key, "descr") ? 0 : !strcmp(key, "fortran_order") ?
		    1 : !strcmp(key, "shape") ? 2 : -1;
		if (k < 0) {
			snprintf(h->why, h->whyn, "unexpected key '%s' in the "
				 ".npy header (numpy writes descr, "
				 "fortran_order and shape only)", key);
			return -1;
		}
		if (seen[k]++) {
			snprintf(h->why, h->whyn, "'%s' given twice in the .npy "
				 "header", key);
			return -1;
		}
		if (!heat(h, ':'))
			return hbad(h, "expected ':'");
		if (k == 0 && hstr(h, in->descr, sizeof(in->descr)))
			return -1;
		if (k == 1) {
			if (hword(h, "True"))
				in->fortran = 1;
			else if (!hword(h, "False"))
				return hbad(h, "'fortran_order' is not True or False");
		}
		if (k == 2 && hshape(h, in))
			return -1;
		if (!heat(h, ',')) {
			if (heat(h, '}'))
				break;
			return hbad(h, "expected ',' or '}'");
		}
	}
	hws(h);
	if (h->i != h->n)
		return hbad(h, "text after the dict");
	for (int k = 0; k < 3; k++)
		if (!seen[k]) {
			snprintf(h->why, h->whyn, "the .npy header lacks '%s'",
				 k == 0 ? "descr" : k == 1 ? "fortran_order" :
				 "shape");
			return -1;
		}
	return 0;
}

static int read_at(int fd, void *buf, size_t n, off_t at)
{
	size_t got = 0;
	ssize_t k;

	while (got < n) {
		k = pread(fd, (char *)buf + got, n - got, at + (off_t)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	return 0;
}

int calib_npy_check(int fd, long long size, char *why, size_t whyn)
{
	struct calib_npy in;

	return calib_npy_check_at(fd, 0, size, &in, why, whyn);
}

int calib_npy_check_at(int fd, long long base, long long size,
		       struct calib_npy *info, char *why, size_t whyn)
{
	unsigned char pre[12];
	struct calib_npy in = { .fortran = 0 };
	struct hdr h = { .why = why, .whyn = whyn };
	size_t start, hlen;
	char *text;
	long item;
	int rc;

	if (size < 10 || read_at(fd, pre, size < 12 ? 10 : 12, (off_t)base) ||
	    memcmp(pre, "\x93NUMPY", 6)) {
		snprintf(why, whyn, "not a .npy file (no \\x93NUMPY magic)");
		return -1;
	}
	if (pre[6] < 1 || pre[6] > 3 || pre[7] != 0) {
		snprintf(why, whyn, ".npy format version %u.%u; numpy defines "
			 "1.0, 2.0 and 3.0", pre[6], pre[7]);
		return -1;
	}
	if (pre[6] == 1) {
		hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
		start = 10;
	} else {
		if (size < 12) {
			snprintf(why, whyn, "truncated .npy header");
			return -1;
		}
		hlen = (size_t)pre[8] | (size_t)pre[9] << 8 |
		       (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
		start = 12;
	}
	if (hlen > NPY_MAX_HEADER || (long long)(start + hlen) > size) {
		snprintf(why, whyn, "the .npy header claims %zu bytes; the file "
			 "has %lld", hlen, size - (long long)start);
		return -1;
	}
	text = malloc(hlen + 1);
	if (!text || read_at(fd, text, hlen, (off_t)(base + (long long)start))) {
		snprintf(why, whyn, "cannot read the .npy header: %s",
			 text ? strerror(errno) : "out of memory");
		free(text);
		return -1;
	}
	h.s = text;
	h.n = hlen;
	rc = npy_dict(&h, &in);
	free(text);
	if (rc)
		return -1;
	item = npy_itemsize(in.descr);
	if (!item) {
		snprintf(why, whyn, "dtype '%s' not supported (little-endian "
			 "numbers and bool only)", in.descr);
		return -1;
	}
	if (in.fortran) {
		snprintf(why, whyn, "Fortran-order arrays are not supported "
			 "(save with C order)");
		return -1;
	}
	if (in.count > (uint64_t)CALIB_SAMPLE_MAX_BYTES / (uint64_t)item ||
	    (uint64_t)(size - (long long)(start + hlen)) !=
	    in.count * (uint64_t)item) {
		snprintf(why, whyn, "%lld data bytes, shape (%s) of %s needs "
			 "%llu%s", size - (long long)(start + hlen), in.shape,
			 in.descr, (unsigned long long)in.count * (unsigned long long)item,
			 in.count > (uint64_t)CALIB_SAMPLE_MAX_BYTES / (uint64_t)item ?
			 " or more" : "");
		return -1;
	}
	*info = in;
	return 0;
}


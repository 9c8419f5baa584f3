/*
 * core/calib/calib-read.c - reads the calibration JSON of `qopt
 * calibrate` (qopt_calib_read): {"model_hash": "<16 hex>", "tensors": {NAME: {"amax": X,
 * "dtype": T}, ...}, ...} (docs/calibration.md). model_hash and tensors
 * are required; each other member the format defines (format, version,
 * model, method, percentile, samples, source; a tensor's dtype) is
 * checked when present (and kept: merging and writing the file back need
 * them), since a file of another format or version must not be read as
 * if it were this one; members it does not define are skipped, so the
 * file can carry what it was made from. A key given
 * twice is refused: which of the two counts would be a guess. A small
 * strict JSON reader: the file is data from elsewhere, so every
 * malformed byte is an error with its offset.
 * A lone surrogate \udc80..\udcff is the byte 80..ff of a name that is
 * not UTF-8 (the writer's scheme, calib-write.c); any other
 * lone surrogate is an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <qopt/dtype.h>
#include <qopt/file.h>

#include "calib/calib-internal.h"

#define CALIB_MAX_BYTES (256u << 20)
#define CALIB_MAX_DEPTH 64

struct rd {
	const char *s;
	size_t i, n;
	char *why;
	size_t whyn;
};

static int bad(struct rd *r, const char *what)
{
	snprintf(r->why, r->whyn, "%s at byte %zu", what, r->i);
	return -1;
}

static void ws(struct rd *r)
{
	while (r->i < r->n && (r->s[r->i] == ' ' || r->s[r->i] == '\t' ||
			       r->s[r->i] == '\n' || r->s[r->i] == '\r'))
		r->i++;
}

static int eat(struct rd *r, char c)
{
	ws(r);
	if (r->i < r->n && r->s[r->i] == c) {
		r->i++;
		return 1;
	}
	return 0;
}

static int hex4(struct rd *r, unsigned *out)
{
	unsigned v = 0;
	int k;

	if (r->i + 4 > r->n)
		return bad(r, "truncated \\u escape");
	for (k = 0; k < 4; k++) {
		char c = r->s[r->i++];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return bad(r, "bad \\u escape");
	}
	*out = v;
	return 0;
}

static size_t utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A string; *out (malloc'd) when out is non-NULL. */
static int string(struct rd *r, char **out)
{
	char *o = NULL;
	size_t k = 0, start;
	unsigned cp, lo;

	ws(r);
	if (r->i >= r->n || r->s[r->i] != '"')
		return bad(r, "expected a string");
	start = ++r->i;
	/* Escapes only shrink the text: its raw length bounds the result. */
	while (r->i < r->n && r->s[r->i] != '"')
		r->i += r->s[r->i] == '\\' ? 2 : 1;
	if (r->i >= r->n)
		return bad(r, "unterminated string");
	if (out && !(o = malloc(r->i - start + 1)))
		return bad(r, "out of memory");
	r->i = start;
	while (r->s[r->i] != '"') {
		char c = r->s[r->i++];

		if ((unsigned char)c < 0x20) {
			free(o);
			return bad(r, "control character in a string");
		}
		if (c != '\\') {
			if (o)
				o[k++] = c;
			continue;
		}
		c = r->s[r->i++];
		switch (c) {
		case '"': case '\\': case '/': break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'u':
			if (hex4(r, &cp))
				goto fail;
			if (cp >= 0xd800 && cp < 0xdc00 && r->i + 6 <= r->n &&
			    r->s[r->i] == '\\' && r->s[r->i + 1] == 'u') {
				r->i += 2;
				if (hex4(r, &lo))
					goto fail;
				if (lo < 0xdc00 || lo > 0xdfff) {
					bad(r, "bad surrogate pair");
					goto fail;
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc80 && cp <= 0xdcff) {
				/* a byte that is not UTF-8, escaped by the
				 * writer (calib-write.c) */
				if (o)
					o[k++] = (char)(cp - 0xdc00);
				continue;
			} else if (cp >= 0xd800 && cp < 0xe000) {
				bad(r, "lone surrogate");
				goto fail;
			}
			if (!cp) {
				bad(r, "NUL in a string");
				goto fail;
			}
			if (o)
				k += utf8(o + k, cp);
			continue;
		default:
			bad(r, "bad escape");
			goto fail;
		}
		if (o)
			o[k++] = c;
	}
	r->i++;
	if (o) {
		o[k] = 0;
		*out = o;
	}
	return 0;
fail:
	free(o);
	return -1;
}

static int number(struct rd *r, double *out)
{
	char buf[64], *end;
	size_t k = 0;

	ws(r);
	while (r->i < r->n && k + 1 < sizeof(buf) &&
	       strchr("+-0123456789.eE", r->s[r->i]) && r->s[r->i])
		buf[k++] = r->s[r->i++];
	buf[k] = 0;
	errno = 0;
	*out = k ? strtod(buf, &end) : 0;
	/* An underflow reads as the nearest double (a subnormal is a
	 * number); an overflow is no number. */
	if (!k || *end || (errno == ERANGE && isinf(*out)))
		return bad(r, "expected a number");
	return 0;
}

static int skip_value(struct rd *r, int depth);

static int skip_container(struct rd *r, char close, int depth, int object)
{
	if (depth > CALIB_MAX_DEPTH)
		return bad(r, "nesting too deep");
	if (eat(r, close))
		return 0;
	do {
		if (object && (string(r, NULL) || !eat(r, ':')))
			return r->why[0] ? -1 : bad(r, "expected ':'");
		if (skip_value(r, depth + 1))
			return -1;
	} while (eat(r, ','));
	return eat(r, close) ? 0 : bad(r, "expected ',' or the end of a "
				       "list or object");
}

static int skip_value(struct rd *r, int depth)
{
	static const char *const words[] = { "true", "false", "null" };
	double d;
	int k;

	ws(r);
	if (r->i >= r->n)
		return bad(r, "unexpected end");
	if (r->s[r->i] == '"')
		return string(r, NULL);
	if (eat(r, '{'))
		return skip_container(r, '}', depth, 1);
	if (eat(r, '['))
		return skip_container(r, ']', depth, 0);
	for (k = 0; k < 3; k++) {
		size_t l = strlen(words[k]);

		if (r->n - r->i >= l && !memcmp(r->s + r->i, words[k], l)) {
			r->i += l;
			return 0;
		}
	}
	return number(r, &d);
}

/* Reads (or skips) the value of member key; the key is the caller's. */
typedef int (*member_fn)(struct rd *r, const char *key, void *arg);

/* The keys of one object, to refuse one given twice (sorted at the end:
 * a hostile object with many keys stays O(n log n)). */
struct keys {
	char **k;
	size_t n, cap;
};

static void keys_free(struct keys *ks)
{
	for (size_t i = 0; i < ks->n; i++)
		free(ks->k[i]);
	free(ks->k);
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 0, or -1 with why naming the first key given twice (what is where,
 * e.g. "tensor 'x': "). */
static int keys_unique(struct rd *r, struct keys *ks, const char *where)
{
	size_t i;

	if (ks->n)	/* qsort(NULL, 0) is undefined */
		qsort(ks->k, ks->n, sizeof(*ks->k), by_str);
	for (i = 1; i < ks->n; i++)
		if (!strcmp(ks->k[i], ks->k[i - 1])) {
			snprintf(r->why, r->whyn, "%skey \"%s\" given twice",
				 where, ks->k[i]);
			return -1;
		}
	return 0;
}

/* {"key": value, ...}, each value through fn; each key into ks (NULL:
 * the caller checks its own, as the tensor list does). not_object is
 * the error when the text is not an object. */
static int members(struct rd *r, const char *not_object, member_fn fn,
		   void *arg, struct keys *ks)
{
	char *key, **grown;
	int rc;

	if (!eat(r, '{'))
		return bad(r, not_object);
	if (eat(r, '}'))
		return 0;
	do {
		if (string(r, &key))
			return -1;
		if (!eat(r, ':')) {
			free(key);
			return bad(r, "expected ':'");
		}
		rc = fn(r, key, arg);
		if (!rc && ks && ks->n == ks->cap) {
			ks->cap = ks->cap ? 2 * ks->cap : 8;
			grown = realloc(ks->k, ks->cap * sizeof(*grown));
			if (!grown)
				rc = bad(r, "out of memory");
			else
				ks->k = grown;
		}
		if (!rc && ks)
			ks->k[ks->n++] = key;
		else
			free(key);
		if (rc)
			return -1;
	} while (eat(r, ','));
	return eat(r, '}') ? 0 : bad(r, "expected ',' or '}'");
}

struct amax_entry {
	double amax;
	int has;
	char *dtype;		/* owned until kept */
};

/* A string member named key: a string, else why names the key. */
static int string_member(struct rd *r, const char *key, char **out)
{
	ws(r);
	if (r->i >= r->n || r->s[r->i] != '"') {
		snprintf(r->why, r->whyn, "\"%s\" must be a string, at byte "
			 "%zu", key, r->i);
		return -1;
	}
	return string(r, out);
}

/* A tensor's object: {"amax": X, "dtype": T, ...}; T an ONNX element
 * type name (UNDEFINED where the writer knew none); members the format
 * does not define are skipped. */
static int entry_member(struct rd *r, const char *key, void *arg)
{
	struct amax_entry *a = arg;
	char *dtype;
	size_t at;

	if (!strcmp(key, "amax")) {
		a->has = 1;
		return number(r, &a->amax);
	}
	if (strcmp(key, "dtype"))
		return skip_value(r, 2);
	ws(r);
	at = r->i;
	if (string_member(r, key, &dtype))
		return -1;
	if (qir_dtype_from_name(dtype) < 0) {
		snprintf(r->why, r->whyn, "\"dtype\" '%.64s' at byte %zu is "
			 "no ONNX element type", dtype, at);
		free(dtype);
		return -1;
	}
	free(a->dtype);
	a->dtype = dtype;
	return 0;
}

/* "name": {"amax": X}, appended to the list; a name given twice is
 * refused (which of the two counts would be a guess). */
static int tensor_member(struct rd *r, const char *name, void *arg)
{
	struct qopt_calib *c = arg;
	struct amax_entry a = { 0 };
	struct keys ks = { 0 };
	char where[300];
	int rc;

	rc = members(r, "expected an object for a tensor", entry_member, &a,
		     &ks);
	snprintf(where, sizeof(where), "tensor '%.200s': ", name);
	if (!rc)
		rc = keys_unique(r, &ks, where);
	keys_free(&ks);
	if (!rc && !a.has) {
		snprintf(r->why, r->whyn, "tensor '%s' has no \"amax\"", name);
		rc = -1;
	}
	if (!rc) {
		rc = cal_append(c, name, a.dtype, a.amax);
		if (rc > 0)
			snprintf(r->why, r->whyn, "tensor '%s' listed twice",
				 name);
		else if (rc < 0)
			bad(r, "out of memory");
	}
	free(a.dtype);
	return rc ? -1 : 0;
}

struct top_state {
	struct qopt_calib *c;
	int seen_tensors;
};

/* "method": a string, kept for the passes' messages (a method this
 * reader does not know is kept too: amax means the same whatever made
 * it). */
static int method_member(struct rd *r, struct qopt_calib *c)
{
	char *m;

	ws(r);
	if (r->i >= r->n || r->s[r->i] != '"')
		return bad(r, "\"method\" must be a string");
	if (string(r, &m))
		return -1;
	free(c->method);
	c->method = m;
	return 0;
}

/* A number member in lo..hi (integral when asked) into *out, else why
 * names the key and the range. */
static int number_member(struct rd *r, const char *key, double lo,
			 double hi, int integral, double *out)
{
	double d;
	size_t at;

	ws(r);
	at = r->i;
	if (number(r, &d))
		return -1;
	if (!(d >= lo && d <= hi) || (integral && d != floor(d))) {
		snprintf(r->why, r->whyn, "\"%s\" at byte %zu must be %s from "
			 "%.17g to %.17g", key, at, integral ? "an integer" :
			 "a number", lo, hi);
		return -1;
	}
	*out = d;
	return 0;
}

/* "model_hash": hexadecimal digits, at most 16 (qir_model_hash()). */
static int hash_member(struct rd *r, struct qopt_calib *c)
{
	char *hash;
	size_t at, k;

	ws(r);
	at = r->i;
	if (string_member(r, "model_hash", &hash))
		return -1;
	k = strspn(hash, "0123456789abcdefABCDEF");
	if (!*hash || hash[k] || k > 16) {
		free(hash);
		snprintf(r->why, r->whyn, "\"model_hash\" at byte %zu must be "
			 "1 to 16 hexadecimal digits", at);
		return -1;
	}
	for (k = 0; hash[k]; k++)	/* qopt_calib_model_hash: lower case */
		c->hash[k] = hash[k] >= 'A' && hash[k] <= 'F' ?
			     (char)(hash[k] - 'A' + 'a') : hash[k];
	c->hash[k] = 0;
	free(hash);
	return 0;
}

/* "format" must name this format: a JSON file of another tool must
 * not pass for a calibration because it has the two keys read. */
static int format_member(struct rd *r)
{
	char *f;
	size_t at;
	int ok;

	ws(r);
	at = r->i;
	if (string_member(r, "format", &f))
		return -1;
	ok = !strcmp(f, "qopt-calibration");
	if (!ok)
		snprintf(r->why, r->whyn, "\"format\" at byte %zu is '%.64s', "
			 "not 'qopt-calibration'", at, f);
	free(f);
	return ok ? 0 : -1;
}

/* "model" or "source": a string, kept. */
static int text_member(struct rd *r, const char *key, char **keep)
{
	char *text;

	if (string_member(r, key, &text))
		return -1;
	free(*keep);
	*keep = text;
	return 0;
}

/* The file's object: each member the format defines, checked; the rest
 * is skipped. */
static int top_member(struct rd *r, const char *key, void *arg)
{
	struct top_state *st = arg;
	struct qopt_calib *c = st->c;
	double d;

	if (!strcmp(key, "tensors")) {
		st->seen_tensors = 1;
		return members(r, "\"tensors\" must be an object",
			       tensor_member, c, NULL);
	}
	if (!strcmp(key, "method"))	/* optional; "max" when absent */
		return method_member(r, c);
	if (!strcmp(key, "model_hash"))
		return hash_member(r, c);
	if (!strcmp(key, "format"))
		return format_member(r);
	if (!strcmp(key, "version"))	/* the one version there is */
		return number_member(r, key, 1, 1, 1, &d);
	if (!strcmp(key, "percentile"))
		return number_member(r, key, 50, 100, 0, &c->percentile);
	if (!strcmp(key, "samples")) {
		if (number_member(r, key, 0, 9007199254740992.0, 1, &d))
			return -1;
		c->samples = d > (double)LONG_MAX ? LONG_MAX : (long)d;
		return 0;
	}
	if (!strcmp(key, "bins")) {
		if (number_member(r, key, 1, 1 << 30, 1, &d))
			return -1;
		c->bins = (long)d;
		return 0;
	}
	if (!strcmp(key, "model"))
		return text_member(r, key, &c->model);
	if (!strcmp(key, "source"))
		return text_member(r, key, &c->source);
	return skip_value(r, 1);
}

static int top(struct rd *r, struct qopt_calib *c, int *seen_tensors)
{
	struct top_state st = { .c = c };
	struct keys ks = { 0 };
	int rc;

	rc = members(r, "expected a JSON object", top_member, &st, &ks);
	if (!rc)
		rc = keys_unique(r, &ks, "");
	keys_free(&ks);
	if (rc)
		return -1;
	*seen_tensors = st.seen_tensors;
	ws(r);
	return r->i == r->n ? 0 : bad(r, "text after the JSON object");
}

/* The file whole (qir_read_file: a regular file of at most
 * CALIB_MAX_BYTES). */
qopt_status qopt_calib_read(const char *path, qopt_calib **out,
			    qir_error *err)
{
	struct qopt_calib *c = cal_alloc();
	qir_error rerr = { 0 };
	struct rd r = { 0 };
	char why[512] = "";
	int seen = 0;

	*out = NULL;
	if (!c)
		return qir_fail(err, QOPT_ENOMEM, "out of memory"), QOPT_ENOMEM;
	r.s = qir_read_file(path, 0, CALIB_MAX_BYTES, &r.n, &rerr);
	if (!r.s) {
		qopt_calib_free(c);
		qir_fail(err, rerr.code, "%s", rerr.msg);
		return rerr.code;
	}
	r.why = why;
	r.whyn = sizeof(why);
	if (top(&r, c, &seen)) {
		free((char *)r.s);
		qopt_calib_free(c);
		qir_fail(err, QOPT_EPARSE, "'%s': %s", path, why);
		return QOPT_EPARSE;
	}
	free((char *)r.s);
	if (!c->hash[0] || !seen) {
		qir_fail(err, QOPT_EINVALID, "'%s': not a calibration file of "
			 "qopt calibrate (no \"%s\")", path,
			 seen ? "model_hash" : "tensors");
		qopt_calib_free(c);
		return QOPT_EINVALID;
	}
	*out = c;
	return QOPT_OK;
}

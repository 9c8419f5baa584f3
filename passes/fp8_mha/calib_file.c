/*
 * passes/fp8_mha/calib_file.c - reads the calibration JSON of `qopt
 * calibrate`: {"model_hash": "<16 hex>", "tensors": {NAME: {"amax": X,
 * ...}, ...}, ...}. Other members are skipped, so the file can carry
 * what it was made from. A small strict JSON reader: the file is data
 * from elsewhere, so every malformed byte is an error with its offset.
 * A lone surrogate \udc80..\udcff is the byte 80..ff of a name that is
 * not UTF-8 (the writer's scheme, core/cli/calib-json.c); any other
 * lone surrogate is an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <qopt/file.h>

#include "calib.h"

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
				 * writer (core/cli/calib-json.c) */
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

/* {"key": value, ...}, each value through fn. not_object is the error
 * when the text is not an object. */
static int members(struct rd *r, const char *not_object, member_fn fn,
		   void *arg)
{
	char *key;
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
		free(key);
		if (rc)
			return -1;
	} while (eat(r, ','));
	return eat(r, '}') ? 0 : bad(r, "expected ',' or '}'");
}

struct amax_entry {
	double amax;
	int has;
};

/* A tensor's object: {"amax": X, ...}; other members are skipped. */
static int entry_member(struct rd *r, const char *key, void *arg)
{
	struct amax_entry *a = arg;

	if (strcmp(key, "amax"))
		return skip_value(r, 2);
	a->has = 1;
	return number(r, &a->amax);
}

struct tensor_list {
	struct fp8mha_calib *c;
	size_t cap;
};

/* "name": {"amax": X}, appended to the list. */
static int tensor_member(struct rd *r, const char *name, void *arg)
{
	struct tensor_list *t = arg;
	struct fp8mha_calib *c = t->c;
	struct fp8mha_calib_entry *grown;
	struct amax_entry a = { 0 };

	if (members(r, "expected an object for a tensor", entry_member, &a))
		return -1;
	if (!a.has) {
		snprintf(r->why, r->whyn, "tensor '%s' has no \"amax\"", name);
		return -1;
	}
	if (c->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		grown = realloc(c->e, t->cap * sizeof(*grown));
		if (!grown)
			return bad(r, "out of memory");
		c->e = grown;
	}
	c->e[c->n].name = strdup(name);
	if (!c->e[c->n].name)
		return bad(r, "out of memory");
	c->e[c->n++].amax = a.amax;
	return 0;
}

struct top_state {
	struct fp8mha_calib *c;
	struct tensor_list t;	/* kept across a repeated "tensors" */
	int seen_tensors;
};

/* "method": a string, kept for the passes' messages (a method this
 * reader does not know is kept too: amax means the same whatever made
 * it). A repeated member: the last wins, as for "model_hash". */
static int method_member(struct rd *r, struct fp8mha_calib *c)
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

/* The file's object: "tensors", "model_hash" and "method"; the rest is
 * skipped. */
static int top_member(struct rd *r, const char *key, void *arg)
{
	struct top_state *st = arg;
	char *hash;

	if (!strcmp(key, "tensors")) {
		st->seen_tensors = 1;
		return members(r, "\"tensors\" must be an object",
			       tensor_member, &st->t);
	}
	if (!strcmp(key, "method"))	/* optional; "max" when absent */
		return method_member(r, st->c);
	if (strcmp(key, "model_hash"))
		return skip_value(r, 1);
	if (string(r, &hash))
		return -1;
	snprintf(st->c->hash, sizeof(st->c->hash), "%s", hash);
	free(hash);
	return 0;
}

static int top(struct rd *r, struct fp8mha_calib *c, int *seen_tensors)
{
	struct top_state st = { .c = c, .t = { .c = c } };

	if (members(r, "expected a JSON object", top_member, &st))
		return -1;
	*seen_tensors = st.seen_tensors;
	ws(r);
	return r->i == r->n ? 0 : bad(r, "text after the JSON object");
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct fp8mha_calib_entry *)a)->name,
		      ((const struct fp8mha_calib_entry *)b)->name);
}

/* The file whole (qir_read_file: a regular file of at most
 * CALIB_MAX_BYTES); NULL with why, which names the path. */
static char *slurp(const char *path, size_t *len, char *why, size_t n)
{
	qir_error err = { 0 };
	char *buf = qir_read_file(path, 0, CALIB_MAX_BYTES, len, &err);

	if (!buf)
		snprintf(why, n, "%s", err.msg);
	return buf;
}

int fp8mha_calib_load(const char *path, struct fp8mha_calib **out,
		      char *why, size_t n)
{
	struct fp8mha_calib *c = calloc(1, sizeof(*c));
	struct rd r = { 0 };
	int seen = 0;
	size_t i;

	*out = NULL;
	why[0] = 0;
	if (!c) {
		snprintf(why, n, "out of memory");
		return -1;
	}
	r.s = slurp(path, &r.n, why, n);
	if (!r.s) {
		fp8mha_calib_free(c);
		return FP8MHA_CALIB_UNREADABLE;
	}
	r.why = why;
	r.whyn = n;
	if (top(&r, c, &seen)) {
		free((char *)r.s);
		fp8mha_calib_free(c);
		return -1;
	}
	free((char *)r.s);
	if (!c->hash[0] || !seen) {
		snprintf(why, n, "not a calibration file of qopt calibrate "
			 "(no \"%s\")", seen ? "model_hash" : "tensors");
		fp8mha_calib_free(c);
		return -1;
	}
	if (c->n)	/* qsort(NULL, 0) is undefined */
		qsort(c->e, c->n, sizeof(*c->e), by_name);
	for (i = 1; i < c->n; i++)
		if (!strcmp(c->e[i].name, c->e[i - 1].name)) {
			snprintf(why, n, "tensor '%s' listed twice", c->e[i].name);
			fp8mha_calib_free(c);
			return -1;
		}
	*out = c;
	return 0;
}

const struct fp8mha_calib_entry *
fp8mha_calib_find(const struct fp8mha_calib *c, const char *name)
{
	struct fp8mha_calib_entry key = { (char *)name, 0 };

	return c->n ? bsearch(&key, c->e, c->n, sizeof(key), by_name) : NULL;
}

void fp8mha_calib_free(struct fp8mha_calib *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		free(c->e[i].name);
	free(c->e);
	free(c->method);
	free(c);
}

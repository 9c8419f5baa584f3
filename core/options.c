/*
 * core/options.c - typed option values, parsed from their INI text.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <qopt/pass.h>
#include "core.h"

const char *qopt_opt_type_name(int type)
{
	switch (type) {
	case QOPT_OPT_BOOL: return "bool";
	case QOPT_OPT_INT: return "int";
	case QOPT_OPT_FLOAT: return "float";
	case QOPT_OPT_STRING: return "string";
	case QOPT_OPT_LIST: return "list";
	}
	return NULL;
}

int qopt_parse_bool(const char *s, int *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	size_t i;

	for (i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

void qopt_value_clear(struct qopt_value *v)
{
	size_t i;

	free(v->text);
	for (i = 0; i < v->nitems; i++)
		free(v->items[i]);
	free(v->items);
	memset(v, 0, sizeof(*v));
}

static char *trim_dup(const char *s, size_t len)
{
	char *out;

	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	out = malloc(len + 1);
	if (out) {
		memcpy(out, s, len);
		out[len] = 0;
	}
	return out;
}

/* Items are trimmed; empty items are dropped so "a, b," means a and b
 * and "" is the empty list. The canonical text is "a,b". */
static int parse_list(const char *text, struct qopt_value *v)
{
	const char *p = text;
	size_t len = 1;

	while (*p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char *item = trim_dup(p, n);
		char **grown;

		if (!item)
			return -1;
		if (!*item) {
			free(item);
		} else {
			/* Capacity: nitems rounded up to a power of two. */
			if (!(v->nitems & (v->nitems - 1))) {
				grown = realloc(v->items, (v->nitems ?
						2 * v->nitems : 1) * sizeof(*grown));
				if (!grown) {
					free(item);
					return -1;
				}
				v->items = grown;
			}
			v->items[v->nitems++] = item;
			len += strlen(item) + 1;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	v->text = calloc(1, len);
	if (!v->text)
		return -1;
	for (len = 0; len < v->nitems; len++) {
		if (len)
			strcat(v->text, ",");
		strcat(v->text, v->items[len]);
	}
	return 0;
}

/* Shortest text that reads back as the same double, so a printed
 * pipeline says 0.1 and still parses to the identical value. */
static void fmt_double(char *buf, size_t n, double x)
{
	int prec;

	for (prec = 1; prec < 17; prec++) {
		snprintf(buf, n, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			return;
	}
	snprintf(buf, n, "%.17g", x);
}

int qopt_value_parse(const qopt_option_spec *spec, const char *text,
		     struct qopt_value *v, char *why, size_t n)
{
	char buf[64];
	char *end;

	qopt_value_clear(v);
	errno = 0;
	switch (spec->type) {
	case QOPT_OPT_BOOL:
		if (qopt_parse_bool(text, &v->b) < 0) {
			snprintf(why, n, "expects a bool (yes/no, true/false, on/off, 1/0), got '%s'",
				 text);
			return -1;
		}
		snprintf(buf, sizeof(buf), "%s", v->b ? "yes" : "no");
		break;
	case QOPT_OPT_INT:
		v->i = strtoll(text, &end, 10);
		if (!*text || *end || errno) {
			snprintf(why, n, "expects an integer, got '%s'", text);
			return -1;
		}
		snprintf(buf, sizeof(buf), "%lld", (long long)v->i);
		break;
	case QOPT_OPT_FLOAT:
		v->f = strtod(text, &end);
		if (!*text || *end || errno || !isfinite(v->f)) {
			snprintf(why, n, "expects a number, got '%s'", text);
			return -1;
		}
		fmt_double(buf, sizeof(buf), v->f);
		break;
	case QOPT_OPT_STRING:
		v->text = strdup(text);
		v->present = 1;
		return v->text ? 0 : -1;
	case QOPT_OPT_LIST:
		if (parse_list(text, v) < 0) {
			snprintf(why, n, "out of memory");
			return -1;
		}
		v->present = 1;
		return 0;
	default:
		snprintf(why, n, "has an unknown type %d", (int)spec->type);
		return -1;
	}
	v->text = strdup(buf);
	v->present = 1;
	return v->text ? 0 : -1;
}

/*
 * core/manager/options.c - typed option values, parsed from their INI text.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <qopt/pass.h>
#include "manager/options.h"
#include "manager/msg.h"
#include "manager/numfmt.h"

const char *pm_opt_type_name(int type)
{
	switch (type) {
	case QOPT_OPT_BOOL: return "bool";
	case QOPT_OPT_INT: return "int";
	case QOPT_OPT_FLOAT: return "float";
	case QOPT_OPT_STRING: return "string";
	case QOPT_OPT_LIST: return "list";
	case QOPT_OPT_ENUM: return "enum";
	}
	return NULL;
}

int pm_parse_bool(const char *s, int *out)
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

void pm_value_clear(struct pm_value *v)
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
static int parse_list(const char *text, struct pm_value *v)
{
	const char *p = text;
	size_t len = 1, i;

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
	/* Joined by position: strcat would rescan the text each time. */
	for (i = 0, len = 0; i < v->nitems; i++) {
		size_t n = strlen(v->items[i]);

		if (i)
			v->text[len++] = ',';
		memcpy(v->text + len, v->items[i], n);
		len += n;
	}
	return 0;
}

/* Shortest text that reads back as the same double, so a printed
 * pipeline says 0.1 and still parses to the identical value. */
static size_t count_choices(const qopt_option_spec *spec)
{
	size_t k = 0;

	while (spec->choices && spec->choices[k])
		k++;
	return k;
}

/* "real, fake" into buf. */
static void join_choices(const qopt_option_spec *spec, char *buf, size_t n)
{
	size_t k, used = 0;

	buf[0] = 0;
	for (k = 0; spec->choices && spec->choices[k] && used < n; k++)
		used += snprintf(buf + used, n - used, "%s%s", k ? ", " : "",
				 spec->choices[k]);
}

static int choice_index(const qopt_option_spec *spec, const char *word)
{
	size_t k;

	for (k = 0; spec->choices && spec->choices[k]; k++)
		if (!strcmp(spec->choices[k], word))
			return (int)k;
	return -1;
}

static int not_a_choice(const qopt_option_spec *spec, const char *word,
			char *why, size_t n)
{
	char dym[PM_DID_YOU_MEAN_SIZE];
	char list[512];

	join_choices(spec, list, sizeof(list));
	snprintf(why, n, "expects one of %s, got '%s'%s", list, word,
		 pm_did_you_mean(word, spec->choices, count_choices(spec),
				 dym, sizeof(dym)));
	return -1;
}

/* QOPT_OPT_POW2 (ABI 4.1): 0 or a power of two from 2. */
static int not_pow2(const qopt_option_spec *spec, int64_t x)
{
	return (spec->flags & QOPT_OPT_POW2) && x != 0 &&
	       (x < 2 || (x & (x - 1)));
}

static int out_of_range(const qopt_option_spec *spec, double x)
{
	return ((spec->flags & QOPT_OPT_HAS_MIN) && x < spec->min) ||
	       ((spec->flags & QOPT_OPT_HAS_MAX) && x > spec->max);
}

int pm_option_accepts(const qopt_option_spec *spec, char *buf, size_t n)
{
	char lo[32], hi[32];
	int has_min = (spec->flags & QOPT_OPT_HAS_MIN) != 0;
	int has_max = (spec->flags & QOPT_OPT_HAS_MAX) != 0;
	int pow2 = spec->type == QOPT_OPT_INT &&
		   (spec->flags & QOPT_OPT_POW2);
	size_t used;

	buf[0] = 0;
	if (spec->choices && (spec->type == QOPT_OPT_ENUM ||
			      spec->type == QOPT_OPT_LIST)) {
		size_t used = snprintf(buf, n, "%s", spec->type ==
				       QOPT_OPT_ENUM ? "one of: " : "items: ");

		if (used < n)
			join_choices(spec, buf + used, n - used);
		return 1;
	}
	if (spec->type != QOPT_OPT_INT && spec->type != QOPT_OPT_FLOAT)
		return 0;
	pm_fmt_double(lo, sizeof(lo), spec->min);
	pm_fmt_double(hi, sizeof(hi), spec->max);
	if (has_min && has_max)
		snprintf(buf, n, "range: %s to %s", lo, hi);
	else if (has_min)
		snprintf(buf, n, "range: at least %s", lo);
	else if (has_max)
		snprintf(buf, n, "range: at most %s", hi);
	used = strlen(buf);
	if (pow2 && used < n)
		snprintf(buf + used, n - used, "%sa power of two from 2, or 0",
			 used ? "; " : "");
	return has_min || has_max || pow2;
}

/* "is out of range: 131072 (range: 0 to 65536)", "is not a power of
 * two: 12 (...)": what is wrong, the value, and what the spec takes. */
static int accepts_error(const qopt_option_spec *spec, const char *what,
			 const char *text, char *why, size_t n)
{
	char acc[128];

	pm_option_accepts(spec, acc, sizeof(acc));
	snprintf(why, n, "is %s: %s (%s)", what, text, acc);
	return -1;
}

int pm_value_parse(const qopt_option_spec *spec, const char *text,
		     struct pm_value *v, char *why, size_t n)
{
	size_t k;
	int idx;

	char buf[64];
	char *end;

	pm_value_clear(v);
	errno = 0;
	switch (spec->type) {
	case QOPT_OPT_BOOL:
		if (pm_parse_bool(text, &v->b) < 0) {
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
		if (out_of_range(spec, (double)v->i))
			return accepts_error(spec, "out of range", text, why, n);
		if (not_pow2(spec, v->i))
			return accepts_error(spec, "not a power of two", text,
					     why, n);
		snprintf(buf, sizeof(buf), "%lld", (long long)v->i);
		break;
	case QOPT_OPT_FLOAT:
		v->f = strtod(text, &end);
		if (!*text || *end || errno || !isfinite(v->f)) {
			snprintf(why, n, "expects a number, got '%s'", text);
			return -1;
		}
		if (out_of_range(spec, v->f))
			return accepts_error(spec, "out of range", text, why, n);
		pm_fmt_double(buf, sizeof(buf), v->f);
		break;
	case QOPT_OPT_ENUM:
		idx = choice_index(spec, text);
		if (idx < 0)
			return not_a_choice(spec, text, why, n);
		v->i = idx;
		v->text = strdup(spec->choices[idx]);
		v->present = 1;
		return v->text ? 0 : -1;
	case QOPT_OPT_STRING:
		v->text = strdup(text);
		v->present = 1;
		return v->text ? 0 : -1;
	case QOPT_OPT_LIST:
		if (parse_list(text, v) < 0) {
			snprintf(why, n, "out of memory");
			return -1;
		}
		for (k = 0; spec->choices && k < v->nitems; k++)
			if (choice_index(spec, v->items[k]) < 0)
				return not_a_choice(spec, v->items[k], why, n);
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

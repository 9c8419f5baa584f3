/*
 * core/manager/pipeline-print.c - a pipeline back as INI (--print-pipeline).
 * The text parses to the same pipeline: values are printed in their
 * canonical form, paths absolute, defaults as comments. The INI reader
 * has no quoting: a value it would read otherwise (a line break, blank
 * space at an end, " ;" that starts a comment, a line over its limit)
 * is refused with the reason rather than printed wrong. A long list
 * goes on continuation lines, one item each.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <ini.h>
#include <qopt/pass.h>
#include "manager/pipeline.h"

/* The longest line the reader takes (pipeline-ini.c). */
#define PM_INI_LINE (INI_MAX_LINE - 2)
#define PM_INI_INDENT "    "

/* Why text cannot be an INI value, or NULL. */
static const char *unfit(const char *v)
{
	size_t n = strlen(v), i;

	if (strpbrk(v, "\n\r"))
		return "it holds a line break";
	if (n && (isspace((unsigned char)v[0]) ||
		  isspace((unsigned char)v[n - 1])))
		return "it begins or ends with blank space, which INI drops";
	for (i = 1; i < n; i++)
		if (v[i] == ';' && isspace((unsigned char)v[i - 1]))
			return "it holds a blank before ';', which INI reads as a comment";
	return NULL;
}

/* 1 when the list's items go one a line (the line is too long). */
static int needs_lines(const char *key, const char *text)
{
	return strlen(key) + 3 + strlen(text) > PM_INI_LINE;
}

/* Why key = v cannot be printed so that it reads back, or NULL. */
static const char *unfit_option(const char *key, const struct pm_value *v,
				int list)
{
	const char *why = unfit(v->text);
	size_t i;

	if (why || !needs_lines(key, v->text))
		return why;
	if (!list || !v->nitems)
		return "the line would be longer than the INI reader takes";
	for (i = 0; i < v->nitems; i++) {
		if (strlen(v->items[i]) + strlen(i ? PM_INI_INDENT : key) +
		    (i ? 0 : 3) > PM_INI_LINE)
			return "a list item would be longer than the INI reader takes";
		if (i && strchr(";#", v->items[i][0]))
			return "a list item on a line of its own would start a comment";
	}
	return NULL;
}

static void print_list(FILE *f, const char *key, char **v, size_t n)
{
	size_t i;

	if (!n)
		return;
	fprintf(f, "%s = ", key);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "," : "", v[i]);
	fputc('\n', f);
}

static void print_globals(const struct pm_globals *g, FILE *f)
{
	if (!g->nplugin_path && !g->nload && g->verify_each < 0 &&
	    g->strict < 0 && !g->device && g->external_threshold < 0 &&
	    !g->external_name && g->all_inline < 0 && g->max_opset < 0 &&
	    g->allow_upgrade < 0)
		return;
	fprintf(f, "[qopt]\n");
	print_list(f, "plugin_path", g->plugin_path, g->nplugin_path);
	print_list(f, "load", g->load, g->nload);
	if (g->verify_each >= 0)
		fprintf(f, "verify_each = %s\n", g->verify_each ? "yes" : "no");
	if (g->strict >= 0)
		fprintf(f, "strict = %s\n", g->strict ? "yes" : "no");
	if (g->device)
		fprintf(f, "device = %s\n", g->device);
	if (g->external_threshold >= 0)
		fprintf(f, "external_threshold = %lld\n",
			(long long)g->external_threshold);
	if (g->external_name)
		fprintf(f, "external_name = %s\n", g->external_name);
	if (g->all_inline >= 0)
		fprintf(f, "all_inline = %s\n", g->all_inline ? "yes" : "no");
	if (g->max_opset >= 0)
		fprintf(f, "max_opset = %lld\n", (long long)g->max_opset);
	if (g->allow_upgrade >= 0)
		fprintf(f, "allow_upgrade = %s\n",
			g->allow_upgrade ? "yes" : "no");
	fputc('\n', f);
}

static void print_option(FILE *f, const char *key, const struct pm_value *v,
			 int list)
{
	size_t i;

	if (!list || !needs_lines(key, v->text)) {
		fprintf(f, "%s = %s\n", key, v->text);
		return;
	}
	fprintf(f, "%s = %s\n", key, v->items[0]);
	for (i = 1; i < v->nitems; i++)
		fprintf(f, PM_INI_INDENT "%s\n", v->items[i]);
}

static void print_stage(const struct pm_stage *s, FILE *f)
{
	const qopt_option_spec *spec;
	size_t i;

	if (s->from)
		fprintf(f, "; from pipeline '%s'\n", s->from);
	fprintf(f, "[%s]\n", s->name);
	if (!s->pass) {
		for (i = 0; i < s->nraw; i++)
			fprintf(f, "%s = %s\n", s->raw[i].key, s->raw[i].value);
		return;
	}
	spec = s->pass->info->options;
	for (i = 0; i < s->pass->nopts; i++) {
		const struct pm_value *v = &s->vals[i];

		if (v->set)
			print_option(f, spec[i].name, v,
				     spec[i].type == QOPT_OPT_LIST);
		else if (v->present)
			fprintf(f, "; %s = %s (default)\n", spec[i].name,
				v->text);
		else
			fprintf(f, "; %s is unset\n", spec[i].name);
	}
}

/* Every value set, checked before anything is printed. */
static int check_stages(const struct pm_pipeline *p, char *why, size_t n)
{
	const char *bad = NULL, *key = NULL;
	size_t i, j;

	for (i = 0; i < p->nstages && !bad; i++) {
		const struct pm_stage *s = &p->stages[i];

		for (j = 0; !s->pass && j < s->nraw && !bad; j++) {
			struct pm_value v = { .text = s->raw[j].value };

			key = s->raw[j].key;
			bad = unfit_option(key, &v, 0);
		}
		for (j = 0; s->pass && j < s->pass->nopts && !bad; j++) {
			const qopt_option_spec *spec = &s->pass->info->options[j];

			key = spec->name;
			if (s->vals[j].set)
				bad = unfit_option(key, &s->vals[j],
						   spec->type == QOPT_OPT_LIST);
		}
		if (bad && strstr(bad, "longer"))
			snprintf(why, n, "option '%s' of pass '%s' (pass %zu): %s (a line holds at most %d characters)",
				 key, s->name, i + 1, bad, PM_INI_LINE);
		else if (bad)
			snprintf(why, n, "option '%s' of pass '%s' (pass %zu): %s",
				 key, s->name, i + 1, bad);
	}
	return bad ? -1 : 0;
}

static int check_globals(const struct pm_globals *g, char *why, size_t n)
{
	const char *bad = NULL, *key = NULL;
	size_t i;

	for (i = 0; i < g->nplugin_path && !bad; i++)
		if (strpbrk(g->plugin_path[i], ":,") ||
		    (bad = unfit(g->plugin_path[i])))
			key = "plugin_path", bad = bad ? bad :
				"a folder holds ':' or ',', which separate folders";
	for (i = 0; i < g->nload && !bad; i++)
		if (strchr(g->load[i], ',') || (bad = unfit(g->load[i])))
			key = "load", bad = bad ? bad :
				"a file name holds ',', which separates files";
	if (!bad && g->device && (bad = unfit(g->device)))
		key = "device";
	if (!bad && g->external_name && (bad = unfit(g->external_name)))
		key = "external_name";
	if (bad)
		snprintf(why, n, "[qopt] %s: %s", key, bad);
	return bad ? -1 : 0;
}

int pm_pipeline_print(const struct pm_pipeline *p, FILE *f, char *why,
		      size_t n)
{
	size_t i;

	if (check_globals(&p->g, why, n) < 0 || check_stages(p, why, n) < 0)
		return -1;
	/* No file name here: printing the re-parsed text must give the
	 * same text. */
	fprintf(f, "; qopt pipeline\n");
	print_globals(&p->g, f);
	for (i = 0; i < p->nstages; i++) {
		if (i)
			fputc('\n', f);
		print_stage(&p->stages[i], f);
	}
	return 0;
}

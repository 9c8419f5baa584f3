/*
 * core/manager/pipeline-print.c - a pipeline back as INI (--print-pipeline).
 * The text parses to the same pipeline: values are printed in their
 * canonical form, paths absolute, defaults as comments.
 */
#include <stdio.h>
#include <string.h>
#include <qopt/pass.h>
#include "manager/core.h"

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
			fprintf(f, "%s = %s\n", spec[i].name, v->text);
		else if (v->present)
			fprintf(f, "; %s = %s (default)\n", spec[i].name,
				v->text);
		else
			fprintf(f, "; %s is unset\n", spec[i].name);
	}
}

void pm_pipeline_print(const struct pm_pipeline *p, FILE *f)
{
	size_t i;

	/* No file name here: printing the re-parsed text must give the
	 * same text. */
	fprintf(f, "; qopt pipeline\n");
	print_globals(&p->g, f);
	for (i = 0; i < p->nstages; i++) {
		if (i)
			fputc('\n', f);
		print_stage(&p->stages[i], f);
	}
}

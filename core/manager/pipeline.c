/*
 * core/manager/pipeline.c - the pipeline: stages (a pass and its options) in
 * order, plus [qopt] settings; the --passes form; checking it against
 * the registered passes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/pass.h>
#include "manager/pipeline.h"
#include "manager/pipeline-internal.h"
#include "manager/session-api.h"

static char *next_piece(char **s, char sep, int *open_quote)
{
	char *start = *s, *c;
	int q = 0, depth = 0, angle = 0, kv = 0;

	if (!start)
		return NULL;
	for (c = start; *c; c++) {
		if (q && *c == '\\' && c[1]) {
			c++;
			continue;
		}
		if (*c == '"') {
			q = !q;
			continue;
		}
		if (q)
			continue;
		if (*c == '{' && !angle)
			depth++;
		else if (*c == '}' && depth)
			depth--;
		else if (*c == '<' && !depth && !angle && !kv)
			angle = 1;
		else if (*c == '>' && angle)
			angle = 0;
		else if (*c == sep && !depth && !angle) {
			*c = 0;
			*s = c + 1;
			return start;
		} else if ((*c == ':' || *c == '=') && !depth && !angle)
			kv = 1;
	}
	if (q)
		*open_quote = 1;
	*s = NULL;
	return start;
}

/* Drops the quotes of a value in place; *list gets a copy where each
 * ';' outside quotes is ',' (a list item separator that cannot end the
 * pass), NULL when there is none: a ';' means ',' only to an option of
 * type list (calibration=c;d.json names c;d.json). */
static int unquote(char *v, char **list)
{
	char *o = v, *c, *l = malloc(strlen(v) + 1), *lo = l;
	int q = 0, semi = 0;

	*list = NULL;
	if (!l)
		return -1;
	for (c = v; *c; c++) {
		if (*c == '"') {
			q = !q;
			continue;
		}
		if (q && *c == '\\' && (c[1] == '"' || c[1] == '\\'))
			c++;
		semi |= !q && *c == ';';
		*lo++ = !q && *c == ';' ? ',' : *c;
		*o++ = *c;
	}
	*o = 0;
	*lo = 0;
	if (semi)
		*list = l;
	else
		free(l);
	return 0;
}

/* One "key=value" of --passes into stage s; 1 when malformed. */
static int inline_option(struct pm_pipeline *p, struct pm_stage *s,
			 char *part, int *oom)
{
	char *eq = strchr(part, '='), *list;

	if (!eq || eq == part) {
		pm_pl_error(p, 0, "pass '%s': expected key=value, got '%s' "
			      "(quote a value holding ':' or ',': "
			      "key=\"a::b\")", s->name, part);
		return 1;
	}
	*eq = 0;
	if (unquote(eq + 1, &list) < 0 ||
	    pm_pl_add_raw(&s->raw, &s->nraw, part, eq + 1, 0) < 0) {
		free(list);
		*oom = 1;
		return 0;
	}
	s->raw[s->nraw - 1].list = list;
	return 0;
}

/* NAME{key=value,...} or NAME<key=value;...> (LLVM's spelling): splits
 * off the options into *inner and says which separator they use in
 * *sep; *inner is NULL when there are none. 1 when the brackets do not
 * close at the end of the name. */
static int split_options(struct pm_pipeline *p, char *name, char **inner,
			 char *sep)
{
	char *brace = strchr(name, '{'), *angle = strchr(name, '<');
	char *open = brace && (!angle || brace < angle) ? brace : angle;
	char close = open == brace ? '}' : '>';
	size_t n = strlen(name);

	*inner = NULL;
	if (!open)
		return 0;
	if (brace && angle) {
		pm_pl_error(p, 0, "pass '%.*s': options in both {...} and "
			      "<...> in '%s' (use one)", (int)(open - name),
			      name, name);
		return 1;
	}
	if (name[n - 1] != close) {
		pm_pl_error(p, 0, "pass '%.*s': '%c' without a closing '%c' at "
			      "the end of '%s'", (int)(open - name), name,
			      *open, close, name);
		return 1;
	}
	*sep = open == brace ? ',' : ';';
	*open = 0;
	name[n - 1] = 0;
	*inner = open + 1;
	return 0;
}

/* One "name[{key=value,...}|<key=value;...>][:key=value...]" element
 * of --passes. */
static int inline_stage(struct pm_pipeline *p, char *tok)
{
	char *rest = tok, *part, *inner;
	struct pm_stage *s;
	int bad = 0, open_quote = 0, oom = 0;
	char sep = ',';

	part = next_piece(&rest, ':', &open_quote);
	if (!part || !*part || *part == '{' || *part == '<') {
		pm_pl_error(p, 0, "empty pass name in '%s'", tok);
		return 1;
	}
	if (split_options(p, part, &inner, &sep))
		return 1;
	s = pm_pl_add_stage(p, part, 0);
	if (!s)
		return 1;
	/* Inside braces ',' separates options too (and ':'); inside
	 * angle brackets ';' does, as in LLVM, and ':' is a character. */
	while (inner && (part = next_piece(&inner, sep, &open_quote))) {
		char *opt;

		if (sep == ';') {
			if (*part)
				bad += inline_option(p, s, part, &oom);
			continue;
		}
		while ((opt = next_piece(&part, ':', &open_quote)))
			if (*opt)
				bad += inline_option(p, s, opt, &oom);
	}
	while (!oom && (part = next_piece(&rest, ':', &open_quote)))
		if (*part)
			bad += inline_option(p, s, part, &oom);
	return bad + oom;
}

int pm_pipeline_parse_inline(struct pm_pipeline *p, const char *spec)
{
	char *copy = strdup(spec), *rest, *tok;
	int bad = 0, open_quote = 0;

	if (!p->file)
		p->file = strdup("--passes");
	if (!copy || !p->file) {
		free(copy);
		return 1;
	}
	rest = copy;
	while ((tok = next_piece(&rest, ',', &open_quote))) {
		while (*tok == ' ')
			tok++;
		if (*tok)
			bad += inline_stage(p, tok);
	}
	if (open_quote) {
		pm_pl_error(p, 0, "unterminated \" in '%s'", spec);
		bad++;
	}
	if (!p->nstages && !bad) {
		pm_pl_error(p, 0, "no passes given");
		bad++;
	}
	free(copy);
	return bad;
}

int pm_pipeline_add_stage(struct pm_pipeline *p, const char *pass,
			  const char *const *kv)
{
	struct pm_stage *s;
	size_t i;

	if (!p->file && !(p->file = strdup("<passes>")))
		return QM_FAIL;
	if (!pass || !*pass) {
		pm_pl_error(p, 0, "empty pass name");
		return QM_USAGE;
	}
	if (!(s = pm_pl_add_stage(p, pass, 0)))
		return QM_FAIL;
	for (i = 0; kv && kv[i]; i += 2) {
		if (!kv[i + 1]) {
			pm_pl_error(p, 0, "pass '%s': option '%s' without a value",
				    pass, kv[i]);
			return QM_USAGE;
		}
		if (!*kv[i]) {
			pm_pl_error(p, 0, "pass '%s': an option without a name",
				    pass);
			return QM_USAGE;
		}
		if (pm_pl_add_raw(&s->raw, &s->nraw, kv[i], kv[i + 1], 0) < 0)
			return QM_FAIL;
	}
	return QM_OK;
}

/* A relative path from a pipeline file is relative to its folder, as a
 * compiler reads an include path: joined here, so the pass (and
 * --print-pipeline) see the path it stands for. 1 when out of memory. */
static int in_file_dir(struct pm_pipeline *p, const qopt_option_spec *spec,
		       const struct pm_rawopt *o, struct pm_value *v)
{
	char *joined;

	if (!(spec->flags & QOPT_OPT_PATH) || o->line <= 0 || !p->dir ||
	    !v->text || !*v->text || v->text[0] == '/')
		return 0;
	joined = malloc(strlen(p->dir) + strlen(v->text) + 2);
	if (!joined) {
		pm_pl_error(p, o->line, "out of memory");
		return 1;
	}
	sprintf(joined, "%s/%s", p->dir, v->text);
	free(v->text);
	v->text = joined;
	return 0;
}

static int resolve_option(struct pm_pipeline *p, struct pm_stage *s,
			  const struct pm_rawopt *o)
{
	char dym[PM_DID_YOU_MEAN_SIZE];
	const qopt_option_spec *specs = s->pass->info->options;
	const char *names[128];
	char why[512];
	size_t i, n = 0;
	int idx = pm_pass_option_index(s->pass, o->key);

	if (idx < 0) {
		for (i = 0; i < s->pass->nopts && n < 128; i++)
			names[n++] = specs[i].name;
		if (!n)
			pm_pl_error(p, o->line,
				      "unknown option '%s' for pass '%s' (it takes no options)",
				      o->key, s->name);
		else
			pm_pl_error(p, o->line,
				      "unknown option '%s' for pass '%s'%s",
				      o->key, s->name,
				      pm_did_you_mean(o->key, names, n, dym,
						      sizeof(dym)));
		return 1;
	}
	if (pm_value_parse(&specs[idx], pm_rawopt_text(o, &specs[idx]),
			   &s->vals[idx], why, sizeof(why)) < 0) {
		pm_pl_error(p, o->line, "option '%s' of pass '%s'%s%s%s %s",
			      o->key, s->name, s->from ? " (a step of '" : "",
			      s->from ? s->from : "", s->from ? "')" : "",
			      why);
		return 1;
	}
	s->vals[idx].set = 1;
	return in_file_dir(p, &specs[idx], o, &s->vals[idx]);
}

static int resolve_stage(struct pm_pipeline *p, struct pm_stage *s,
			 const struct pm_registry *r)
{
	char dym[PM_DID_YOU_MEAN_SIZE];
	const qopt_option_spec *specs;
	char why[512];
	size_t i;
	int bad = 0;

	s->pass = pm_registry_find(r, s->name);
	if (!s->pass) {
		pm_pl_error(p, s->line, "unknown pass '%s'%s", s->name,
			      pm_registry_did_you_mean(r, s->name, dym));
		p->nunknown++;
		return 1;
	}
	specs = s->pass->info->options;
	s->vals = calloc(s->pass->nopts ? s->pass->nopts : 1,
			 sizeof(*s->vals));
	if (!s->vals)
		return 1;
	/* Defaults were checked when the plugin was loaded. */
	for (i = 0; i < s->pass->nopts; i++)
		if (specs[i].default_value)
			pm_value_parse(&specs[i], specs[i].default_value,
					 &s->vals[i], why, sizeof(why));
	for (i = 0; i < s->nraw; i++)
		bad += resolve_option(p, s, &s->raw[i]);
	return bad;
}

int pm_pipeline_resolve(struct pm_pipeline *p,
			  const struct pm_registry *r)
{
	size_t i;
	int bad = pm_pipeline_expand(p, r);

	if (!bad)
		for (i = 0; i < p->nstages; i++)
			bad += resolve_stage(p, &p->stages[i], r);
	if (p->nunknown)
		pm_msg_line(p->s, "%s", PM_UNKNOWN_PASS_HINT);
	return bad;
}

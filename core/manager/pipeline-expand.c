/*
 * core/manager/pipeline-expand.c - named pipelines in a pipeline: a stage
 * naming one is replaced by its steps, each an ordinary stage (so bisect,
 * --print-after, timing, --verify-each and statistics see the steps),
 * remembering the name the user wrote.
 *
 * The user's options on the name are checked against the pipeline's
 * spec as a pass's are; a step gets the options the pipeline forwards
 * to it and those it fixes. What the pipeline's table says about other
 * plugins' passes (the step's pass exists, takes the options given to
 * it) can only be checked here: such a problem is the plugin's, and is
 * reported naming the plugin, the pipeline and the step.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/pass.h>
#include "manager/pipeline.h"
#include "manager/pipeline-internal.h"

struct expand {
	struct pm_pipeline *p;
	const struct pm_registry *r;
	struct pm_pipeline out;	/* the expanded stages */
	const char *top;	/* the name the user wrote */
	size_t group;
	unsigned flags;
	int bad;
};

/* A problem of the plugin's table, found now that its steps' passes
 * are known: "qopt: error: PLUGIN: pipeline 'x' step N ('p'): ...". */
static void table_error(struct expand *x, const struct pm_alias *a, size_t k,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void table_error(struct expand *x, const struct pm_alias *a, size_t k,
			const char *fmt, ...)
{
	char what[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	pm_msg_line(x->p->s, "qopt: error: %s: malformed plugin table: pipeline '%s' step %zu ('%s'): %s",
		    a->plugin->path, a->info->name, k + 1,
		    a->info->steps[k].pass, what);
	x->p->nerrors++;
	x->p->nplugin_errors++;
	x->bad++;
}

/* The pipeline's option values: defaults, then what the user set. */
static int alias_values(struct expand *x, const struct pm_alias *a,
			const struct pm_stage *s, struct pm_value *vals,
			int *lines)
{
	char dym[PM_DID_YOU_MEAN_SIZE];
	const qopt_option_spec *spec = a->info->options;
	const char *names[128];
	char why[512];
	size_t i, n = 0;
	int bad = 0, idx;

	for (i = 0; i < a->nopts; i++) {
		lines[i] = s->line;
		if (spec[i].default_value)
			pm_value_parse(&spec[i], spec[i].default_value,
				       &vals[i], why, sizeof(why));
		if (n < 128)
			names[n++] = spec[i].name;
	}
	for (i = 0; i < s->nraw; i++) {
		const struct pm_rawopt *o = &s->raw[i];

		idx = pm_alias_option_index(a, o->key);
		if (idx < 0) {
			pm_pl_error(x->p, o->line,
				    "unknown option '%s' for pipeline '%s'%s",
				    o->key, s->name,
				    n ? pm_did_you_mean(o->key, names, n, dym,
							sizeof(dym)) :
					" (it takes no options)");
			bad++;
			continue;
		}
		if (pm_value_parse(&spec[idx], pm_rawopt_text(o, &spec[idx]),
				   &vals[idx], why, sizeof(why)) < 0) {
			pm_pl_error(x->p, o->line,
				    "option '%s' of pipeline '%s' %s", o->key,
				    s->name, why);
			bad++;
			continue;
		}
		vals[idx].set = 1;
		lines[idx] = o->line;
	}
	return bad;
}

/* 1 when the step's target (a pass or a pipeline) takes option key. */
static int takes(const struct pm_pass *pass, const struct pm_alias *sub,
		 const char *key)
{
	return pass ? pm_pass_option_index(pass, key) >= 0 :
		      pm_alias_option_index(sub, key) >= 0;
}

/* 1 when v, a default of the pipeline's, is what the step would take
 * by itself: then it is not handed on, and the step reads the option as
 * not set (qopt_opt_is_set), as it would run on its own. */
static int step_default(const struct pm_pass *pass, const struct pm_alias *sub,
			const char *key, const struct pm_value *v)
{
	const qopt_option_spec *spec;
	struct pm_value own = { 0 };
	char why[256];
	int idx, same;

	idx = pass ? pm_pass_option_index(pass, key) :
		     pm_alias_option_index(sub, key);
	spec = pass ? &pass->info->options[idx] : &sub->info->options[idx];
	if (!spec->default_value ||
	    pm_value_parse(spec, spec->default_value, &own, why,
			   sizeof(why)) < 0)
		return 0;
	same = own.text && !strcmp(own.text, v->text);
	pm_value_clear(&own);
	return same;
}

/* The step's options into st: fixed ones, then forwarded ones. */
static int step_options(struct expand *x, const struct pm_alias *a,
			size_t k, const struct pm_pass *pass,
			const struct pm_alias *sub, const struct pm_value *vals,
			const int *lines, struct pm_stage *st)
{
	const qopt_pipeline_step *step = &a->info->steps[k];
	char key[256];
	size_t i;
	int idx;

	for (i = 0; step->fixed && step->fixed[i]; i++) {
		const char *eq = strchr(step->fixed[i], '=');
		size_t klen = (size_t)(eq - step->fixed[i]);

		snprintf(key, sizeof(key), "%.*s", (int)klen, step->fixed[i]);
		if (!takes(pass, sub, key)) {
			table_error(x, a, k, "fixes option '%s', which '%s' does not take",
				    key, step->pass);
			continue;
		}
		if (pm_pl_add_raw(&st->raw, &st->nraw, key, eq + 1,
				  st->line) < 0)
			return -1;
	}
	for (i = 0; step->forward && step->forward[i]; i++) {
		const char *name = step->forward[i];

		if (!takes(pass, sub, name)) {
			table_error(x, a, k, "forwards option '%s', which '%s' does not take",
				    name, step->pass);
			continue;
		}
		idx = pm_alias_option_index(a, name);
		if (!vals[idx].present ||
		    (!vals[idx].set && step_default(pass, sub, name, &vals[idx])))
			continue;
		if (pm_pl_add_raw(&st->raw, &st->nraw, name, vals[idx].text,
				  lines[idx]) < 0)
			return -1;
	}
	return 0;
}

static int expand_alias(struct expand *x, const struct pm_stage *s,
			const struct pm_alias *a);

/* One step: a stage of its own for a pass, an expansion for a
 * pipeline. */
static int expand_step(struct expand *x, const struct pm_stage *s,
		       const struct pm_alias *a, size_t k,
		       const struct pm_value *vals, const int *lines)
{
	char dym[PM_DID_YOU_MEAN_SIZE];
	const qopt_pipeline_step *step = &a->info->steps[k];
	const struct pm_pass *pass = pm_registry_find(x->r, step->pass);
	const struct pm_alias *sub = pass ? NULL :
				     pm_registry_find_alias(x->r, step->pass);
	struct pm_stage tmp = { 0 }, *st;
	int idx, rc;

	if (step->when) {
		idx = pm_alias_option_index(a, step->when);
		if (idx >= 0 && !vals[idx].b)
			return 0;
	}
	if (!pass && !sub) {
		table_error(x, a, k, "no loaded plugin provides pass '%s'%s",
			    step->pass,
			    pm_registry_did_you_mean(x->r, step->pass, dym));
		x->p->nunknown++;
		return 0;
	}
	/* No cycle, nesting or size to fear: pm_pipeline_graph_check
	 * passed. */
	if (pass) {
		st = pm_pl_add_stage(&x->out, step->pass, s->line);
		if (!st || !(st->from = strdup(x->top)))
			return -1;
		st->group = x->group;
		st->from_flags = x->flags;
		return step_options(x, a, k, pass, NULL, vals, lines, st);
	}
	tmp.name = (char *)step->pass;
	tmp.line = s->line;
	rc = step_options(x, a, k, NULL, sub, vals, lines, &tmp);
	if (rc == 0)
		rc = expand_alias(x, &tmp, sub);
	for (size_t i = 0; i < tmp.nraw; i++) {
		free(tmp.raw[i].key);
		free(tmp.raw[i].value);
		free(tmp.raw[i].list);
	}
	free(tmp.raw);
	return rc;
}

static int expand_alias(struct expand *x, const struct pm_stage *s,
			const struct pm_alias *a)
{
	struct pm_value *vals = calloc(a->nopts + 1, sizeof(*vals));
	int *lines = calloc(a->nopts + 1, sizeof(*lines));
	size_t i, k;
	int rc = -1, bad;

	if (!vals || !lines)
		goto out;
	bad = alias_values(x, a, s, vals, lines);
	x->bad += bad;
	rc = 0;
	if (bad)
		goto out;
	for (k = 0; k < a->nsteps && rc == 0; k++)
		rc = expand_step(x, s, a, k, vals, lines);
out:
	for (i = 0; vals && i < a->nopts; i++)
		pm_value_clear(&vals[i]);
	free(vals);
	free(lines);
	return rc;
}

/* Moves stage s to the end of out (s is left empty). */
static int move_stage(struct pm_pipeline *out, struct pm_stage *s)
{
	struct pm_stage *d = pm_pl_add_stage(out, s->name, s->line);

	if (!d)
		return -1;
	free(d->name);
	*d = *s;
	memset(s, 0, sizeof(*s));
	return 0;
}

static void free_stage_raw(struct pm_stage *s)
{
	size_t i;

	for (i = 0; i < s->nraw; i++) {
		free(s->raw[i].key);
		free(s->raw[i].value);
		free(s->raw[i].list);
	}
	free(s->raw);
	free(s->name);
	free(s->from);
	memset(s, 0, sizeof(*s));
}

int pm_pipeline_expand(struct pm_pipeline *p, const struct pm_registry *r)
{
	struct expand x = { .p = p, .r = r };
	const struct pm_alias *a;
	size_t i;
	int rc = 0, bad;

	for (i = 0; i < p->nstages && rc == 0; i++) {
		struct pm_stage *s = &p->stages[i];

		a = pm_registry_find(r, s->name) ? NULL :
		    pm_registry_find_alias(r, s->name);
		if (!a) {
			rc = move_stage(&x.out, s);
			continue;
		}
		bad = pm_pipeline_graph_check(p->s, r, a);
		if (bad) {
			rc = bad < 0 ? -1 : 0;
			p->nerrors++;
			p->nplugin_errors++;
			x.bad++;
			continue;
		}
		x.top = s->name;
		x.group++;
		x.flags = a->info->flags;
		rc = expand_alias(&x, s, a);
	}
	if (rc < 0) {
		pm_pl_error(p, 0, "out of memory expanding the pipeline");
		x.bad++;
	}
	for (i = 0; i < p->nstages; i++)
		free_stage_raw(&p->stages[i]);
	free(p->stages);
	p->stages = x.out.stages;
	p->nstages = x.out.nstages;
	/* A stage not moved (out of memory) was freed above; the rest of
	 * x.out is p's now. */
	return x.bad;
}

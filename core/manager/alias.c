/*
 * core/manager/alias.c - named pipelines in the registry (ABI 3.0):
 * checking a plugin's pipeline table (imported by import.c) for what
 * can be checked before other plugins are known, and registering them
 * (registry.c finds them by name).
 *
 * Pass and pipeline names share one namespace: a user writes either in
 * a section header or --passes, so one name must mean one thing.
 */
#include <stdlib.h>
#include <string.h>
#include <qopt/pass.h>
#include "manager/options.h"
#include "manager/registry.h"

static const qopt_option_spec *find_spec(const qopt_option_spec *o,
					 const char *name)
{
	for (; o && o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

static int in_strv(const char *const *v, const char *key, size_t keylen)
{
	for (; v && *v; v++)
		if (strlen(*v) == keylen && !strncmp(*v, key, keylen))
			return 1;
	return 0;
}

/* What one step says about the pipeline's own options. */
static int check_step(const char *path, const qopt_pipeline_info *pi,
		      size_t k, qir_error *err)
{
	const qopt_pipeline_step *s = &pi->steps[k];
	const qopt_option_spec *o;
	size_t i;

	if (!pm_valid_name(s->pass))
		return qir_fail(err, QOPT_EPLUGIN_TABLE,
				"%s: malformed plugin table: pipeline '%s' step %zu names an invalid pass '%s'",
				path, pi->name, k + 1, s->pass);
	if (s->when) {
		o = find_spec(pi->options, s->when);
		if (!o || o->type != QOPT_OPT_BOOL)
			return qir_fail(err, QOPT_EPLUGIN_TABLE,
					"%s: malformed plugin table: pipeline '%s' step %zu ('%s'): 'when' names '%s', which is not a bool option of the pipeline",
					path, pi->name, k + 1, s->pass, s->when);
	}
	for (i = 0; s->forward && s->forward[i]; i++)
		if (!find_spec(pi->options, s->forward[i]))
			return qir_fail(err, QOPT_EPLUGIN_TABLE,
					"%s: malformed plugin table: pipeline '%s' step %zu ('%s') forwards '%s', which is not an option of the pipeline",
					path, pi->name, k + 1, s->pass,
					s->forward[i]);
	for (i = 0; s->fixed && s->fixed[i]; i++) {
		const char *eq = strchr(s->fixed[i], '=');
		size_t klen = eq ? (size_t)(eq - s->fixed[i]) : 0;

		if (!klen)
			return qir_fail(err, QOPT_EPLUGIN_TABLE,
					"%s: malformed plugin table: pipeline '%s' step %zu ('%s'): fixed option '%s' is not key=value",
					path, pi->name, k + 1, s->pass,
					s->fixed[i]);
		if (in_strv(s->forward, s->fixed[i], klen))
			return qir_fail(err, QOPT_EPLUGIN_TABLE,
					"%s: malformed plugin table: pipeline '%s' step %zu ('%s'): option '%.*s' is both fixed and forwarded",
					path, pi->name, k + 1, s->pass,
					(int)klen, s->fixed[i]);
	}
	return 0;
}

/* Who has name already: "pass 'x' of FILE", or NULL. */
static const char *taken_by(const struct pm_registry *r, const char *name,
			    const char **kind)
{
	const struct pm_pass *p = pm_registry_find(r, name);
	const struct pm_alias *a = pm_registry_find_alias(r, name);

	*kind = p ? "pass" : "pipeline";
	return p ? p->plugin->path : a ? a->plugin->path : NULL;
}

static int check_names(const struct pm_registry *r, const char *path,
		       const qopt_plugin_info *info, qir_error *err)
{
	const qopt_pipeline_info *pi = info->pipelines;
	const char *kind, *by;
	size_t i, j;

	for (i = 0; info->passes && info->passes[i].name; i++) {
		by = taken_by(r, info->passes[i].name, &kind);
		if (by && !strcmp(kind, "pipeline"))
			return qir_fail(err, QOPT_EPLUGIN_DUPLICATE,
					"%s: pass '%s' is already registered by %s (as a pipeline)",
					path, info->passes[i].name, by);
	}
	for (i = 0; pi && pi[i].name; i++) {
		by = taken_by(r, pi[i].name, &kind);
		if (by)
			return qir_fail(err, QOPT_EPLUGIN_DUPLICATE,
					"%s: pipeline '%s' is already registered by %s (as a %s)",
					path, pi[i].name, by, kind);
		for (j = 0; info->passes && info->passes[j].name; j++)
			if (!strcmp(info->passes[j].name, pi[i].name))
				return qir_fail(err, QOPT_EPLUGIN_DUPLICATE,
						"%s: malformed plugin table: '%s' is both a pass and a pipeline",
						path, pi[i].name);
		for (j = 0; j < i; j++)
			if (!strcmp(pi[j].name, pi[i].name))
				return qir_fail(err, QOPT_EPLUGIN_DUPLICATE,
						"%s: malformed plugin table: pipeline '%s' listed twice",
						path, pi[i].name);
	}
	return 0;
}

static int check_one(const char *path, const qopt_pipeline_info *pi,
		     qir_error *err)
{
	size_t k, nopts;

	if (!pm_valid_name(pi->name))
		return qir_fail(err, QOPT_EPLUGIN_TABLE,
				"%s: malformed plugin table: a pipeline has an invalid name '%s'",
				path, pi->name);
	if (!strcmp(pi->name, "qopt"))
		return qir_fail(err, QOPT_EPLUGIN_TABLE,
				"%s: pipeline name 'qopt' is reserved for pipeline settings",
				path);
	if (!pi->summary)
		return qir_fail(err, QOPT_EPLUGIN_TABLE,
				"%s: malformed plugin table: pipeline '%s' has no summary",
				path, pi->name);
	if (!pi->steps || !pi->steps[0].pass)
		return qir_fail(err, QOPT_EPLUGIN_TABLE,
				"%s: malformed plugin table: pipeline '%s' has no steps",
				path, pi->name);
	if (pm_check_option_table(path, "pipeline", pi->name, pi->options,
				  &nopts, err) < 0)
		return -1;
	for (k = 0; pi->steps[k].pass; k++)
		if (check_step(path, pi, k, err) < 0)
			return -1;
	return 0;
}

int pm_alias_check_table(const struct pm_registry *r, const char *path,
			 const qopt_plugin_info *info, qir_error *err)
{
	const qopt_pipeline_info *pi = info->pipelines;
	size_t i;

	if (check_names(r, path, info, err) < 0)
		return -1;
	for (i = 0; pi && pi[i].name; i++)
		if (check_one(path, &pi[i], err) < 0)
			return -1;
	return 0;
}

int pm_alias_register(struct pm_registry *r, const struct pm_plugin *pl,
		      qir_error *err)
{
	const qopt_pipeline_info *pi = pl->info->pipelines;
	struct pm_alias **grown;
	size_t n = 0, i;

	while (pi && pi[n].name)
		n++;
	if (!n)
		return 0;
	grown = realloc(r->aliases, (r->naliases + n) * sizeof(*grown));
	if (!grown)
		return qir_fail(err, QIR_ENOMEM, "out of memory");
	r->aliases = grown;
	for (i = 0; i < n; i++) {
		struct pm_alias *a = calloc(1, sizeof(*a));

		if (!a)
			return qir_fail(err, QIR_ENOMEM, "out of memory");
		a->info = &pi[i];
		a->plugin = pl;
		while (a->info->options && a->info->options[a->nopts].name)
			a->nopts++;
		while (a->info->steps[a->nsteps].pass)
			a->nsteps++;
		r->aliases[r->naliases++] = a;
	}
	return 0;
}

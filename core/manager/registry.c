/*
 * core/manager/registry.c - look-ups in a registry: passes and named
 * pipelines by name, their options by name, and the "did you mean"
 * over both (one namespace: a user writes either in a section header
 * or --passes). What fills the registry is loader.c and alias.c.
 */
#include <string.h>
#include <qopt/pass.h>
#include "manager/registry.h"

const struct pm_pass *pm_registry_find(const struct pm_registry *r,
					   const char *name)
{
	size_t i;

	for (i = 0; i < r->npasses; i++)
		if (!strcmp(r->passes[i]->info->name, name))
			return r->passes[i];
	return NULL;
}

const char *pm_registry_did_you_mean(const struct pm_registry *r,
				     const char *name, char *buf)
{
	const char *names[256];
	size_t i, n = 0;

	for (i = 0; i < r->npasses && n < 256; i++)
		names[n++] = r->passes[i]->info->name;
	for (i = 0; i < r->naliases && n < 256; i++)
		names[n++] = r->aliases[i]->info->name;
	return pm_did_you_mean(name, names, n, buf, PM_DID_YOU_MEAN_SIZE);
}

int pm_pass_option_index(const struct pm_pass *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nopts; i++)
		if (!strcmp(p->info->options[i].name, name))
			return (int)i;
	return -1;
}

const struct pm_alias *pm_registry_find_alias(const struct pm_registry *r,
					      const char *name)
{
	size_t i;

	for (i = 0; i < r->naliases; i++)
		if (!strcmp(r->aliases[i]->info->name, name))
			return r->aliases[i];
	return NULL;
}

int pm_registry_has_name(const struct pm_registry *r, const char *name)
{
	return pm_registry_find(r, name) || pm_registry_find_alias(r, name);
}

int pm_alias_option_index(const struct pm_alias *a, const char *name)
{
	size_t i;

	for (i = 0; i < a->nopts; i++)
		if (!strcmp(a->info->options[i].name, name))
			return (int)i;
	return -1;
}


/*
 * core/manager/import.c - the one table importer: a plugin's tables
 * (passes and their options; ABI 3.0 pipelines, their steps and
 * options) read with the entry sizes the plugin was built with into this
 * qopt's layout, fields it lacks zero, and the checks every imported
 * option table and name gets whoever declares it (a pass or a
 * pipeline).
 */
#include <stdlib.h>
#include <string.h>
#include <qopt/pass.h>
#include "manager/options.h"
#include "manager/registry.h"

#define PM_KNOWN_OPT_FLAGS (QOPT_OPT_HAS_MIN | QOPT_OPT_HAS_MAX | \
			    QOPT_OPT_PATH | QOPT_OPT_POW2 | QOPT_OPT_REQUIRED)

/* The offset of the first nonzero byte of the entry past the size bytes
 * this qopt knows, or 0: a later minor's field that is set, and so
 * means something this qopt cannot do. */
static size_t field_used(const char *entry, size_t stride, size_t size)
{
	size_t i;

	for (i = size; i < stride; i++)
		if (entry[i])
			return i;
	return 0;
}

/* A table of entries stride bytes apart, ended by one whose first field
 * (a name) is NULL, copied into entries of size bytes (calloc'd, with a
 * zeroed end). *n: its length. *newer: the index of the first entry
 * that sets a field past size (a later minor's), else *n. NULL when out
 * of memory. */
static void *import_table(const void *src, size_t stride, size_t size,
			  size_t *n, size_t *newer)
{
	const char *p = src;
	char *out;
	size_t i, k = 0;

	while (*(const char *const *)(const void *)(p + k * stride))
		k++;
	out = calloc(k + 1, size);
	if (!out)
		return NULL;
	*newer = k;
	for (i = 0; i < k; i++) {
		memcpy(out + i * size, p + i * stride,
		       stride < size ? stride : size);
		if (*newer == k && field_used(p + i * stride, stride, size))
			*newer = i;
	}
	*n = k;
	return out;
}

/* A plugin of a later minor that sets a field this qopt lacks: what it
 * needs is that minor, so it is refused as the minor check would. */
static int uses_newer(const char *path, const qopt_plugin_info *info,
		      const char *what, const char *name, qir_error *err)
{
	return qir_fail(err, QOPT_EPLUGIN_ABI,
			"%s: plugin needs qopt plugin ABI %u.%u, this qopt (%s) provides %u.%u: upgrade qopt (the plugin sets a field of %s '%s' that ABI %u.%u lacks)",
			path, (unsigned)info->abi_major,
			(unsigned)info->abi_minor, qopt_version(),
			QOPT_ABI_MAJOR, QOPT_ABI_MINOR, what, name ? name : "?",
			QOPT_ABI_MAJOR, QOPT_ABI_MINOR);
}

static int oom(const char *path, qir_error *err)
{
	return qir_fail(err, QIR_ENOMEM, "%s: out of memory", path);
}

static int import_pipelines(const char *path, const qopt_plugin_info *info,
			    struct pm_plugin *pl, qir_error *err)
{
	size_t n = 0, k, m, newer;

	pl->info_copy.pipelines = NULL;
	/* A plugin_info of ABI 2.x ends before the pipeline fields. */
	if (info->info_size < PM_PLUGIN_INFO_SIZE_3_0 || !info->pipelines)
		return 0;
	if (info->pipeline_size < PM_PIPELINE_INFO_SIZE_3_0 ||
	    info->step_size < PM_PIPELINE_STEP_SIZE_3_0 ||
	    info->pipeline_size > pm_entry_size_max(info,
						sizeof(qopt_pipeline_info)) ||
	    info->step_size > pm_entry_size_max(info,
						sizeof(qopt_pipeline_step)))
		return qir_fail(err, QOPT_EPLUGIN_TABLE,
				"%s: malformed plugin table: pipeline entry sizes %u/%u, this qopt knows %zu/%zu",
				path, (unsigned)info->pipeline_size,
				(unsigned)info->step_size,
				sizeof(qopt_pipeline_info),
				sizeof(qopt_pipeline_step));
	pl->pipelines = import_table(info->pipelines, info->pipeline_size,
				     sizeof(qopt_pipeline_info), &n, &newer);
	pl->pipeline_options = calloc(n + 1, sizeof(*pl->pipeline_options));
	pl->steps = calloc(n + 1, sizeof(*pl->steps));
	if (!pl->pipelines || !pl->pipeline_options || !pl->steps)
		return oom(path, err);
	if (newer < n)
		return uses_newer(path, info, "pipeline",
				  pl->pipelines[newer].name, err);
	for (k = 0; k < n; k++) {
		qopt_pipeline_info *pi = &pl->pipelines[k];

		if (pi->steps &&
		    !(pi->steps = pl->steps[k] =
		      import_table(pi->steps, info->step_size,
				   sizeof(qopt_pipeline_step), &m, &newer)))
			return oom(path, err);
		if (pi->steps && newer < m)
			return uses_newer(path, info, "a step of pipeline",
					  pi->name, err);
		if (pi->options &&
		    !(pi->options = pl->pipeline_options[k] =
		      import_table(pi->options, info->option_size,
				   sizeof(qopt_option_spec), &m, &newer)))
			return oom(path, err);
		if (pi->options && newer < m)
			return uses_newer(path, info, "option",
					  pi->options[newer].name, err);
	}
	pl->info_copy.pipelines = pl->pipelines;
	return 0;
}

int pm_import_tables(const char *path, const qopt_plugin_info *info,
		     struct pm_plugin *pl, qir_error *err)
{
	size_t np, i, m, newer;

	memcpy(&pl->info_copy, info,
	       info->info_size < sizeof(pl->info_copy) ? info->info_size :
							  sizeof(pl->info_copy));
	if (field_used((const char *)info, info->info_size,
		       sizeof(pl->info_copy)))
		return uses_newer(path, info, "the plugin table", info->name,
				  err);
	if (!info->passes)
		return import_pipelines(path, info, pl, err);
	pl->passes = import_table(info->passes, info->pass_size,
				  sizeof(qopt_pass_info), &np, &newer);
	pl->options = pl->passes ? calloc(np + 1, sizeof(*pl->options)) :
		      NULL;
	if (!pl->passes || !pl->options)
		return oom(path, err);
	if (newer < np)
		return uses_newer(path, info, "pass", pl->passes[newer].name,
				  err);
	for (i = 0; i < np; i++) {
		if (!pl->passes[i].options)
			continue;
		pl->options[i] = import_table(pl->passes[i].options,
					      info->option_size,
					      sizeof(qopt_option_spec), &m,
					      &newer);
		if (!pl->options[i])
			return oom(path, err);
		pl->passes[i].options = pl->options[i];
		if (newer < m)
			return uses_newer(path, info, "option",
					  pl->options[i][newer].name, err);
	}
	pl->info_copy.passes = pl->passes;
	return import_pipelines(path, info, pl, err);
}

void pm_free_tables(struct pm_plugin *pl)
{
	size_t i, k;

	for (i = 0; pl->options && pl->passes && pl->passes[i].name; i++)
		free(pl->options[i]);
	free(pl->options);
	free(pl->passes);
	pl->options = NULL;
	pl->passes = NULL;
	for (k = 0; pl->pipelines && pl->pipelines[k].name; k++) {
		free(pl->pipeline_options[k]);
		free(pl->steps[k]);
	}
	free(pl->pipelines);
	free(pl->pipeline_options);
	free(pl->steps);
	pl->pipelines = NULL;
	pl->pipeline_options = NULL;
	pl->steps = NULL;
}

/* A pass or pipeline name goes into INI section headers and --passes
 * lists. */
int pm_valid_name(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if (!(('a' <= *s && *s <= 'z') || ('A' <= *s && *s <= 'Z') ||
		      ('0' <= *s && *s <= '9') || *s == '-' || *s == '_' ||
		      *s == '.'))
			return 0;
	return 1;
}

/* choices and bounds make sense for the type (ABI 2.1 fields). */
static int check_accepts(const char *path, const char *kind,
			 const qopt_pass_info *pi, const qopt_option_spec *o,
			 qir_error *err)
{
	size_t k;
	int numeric = o->type == QOPT_OPT_INT || o->type == QOPT_OPT_FLOAT;

	/* A flag bit this qopt does not know means something it cannot do
	 * (a later minor's check); ignoring it would run the pass unchecked. */
	if (o->flags & ~PM_KNOWN_OPT_FLAGS)
		return qir_fail(err, QOPT_EPLUGIN_ABI,
				"%s: %s '%s': option '%s' sets option flags 0x%x that this qopt (%s, plugin ABI %u.%u) does not know: upgrade qopt",
				path, kind, pi->name, o->name,
				o->flags & ~PM_KNOWN_OPT_FLAGS, qopt_version(),
				QOPT_ABI_MAJOR, QOPT_ABI_MINOR);
	if (o->type == QOPT_OPT_ENUM && (!o->choices || !o->choices[0]))
		return qir_fail(err, QOPT_EPLUGIN_TABLE,
				"%s: %s '%s': enum option '%s' lists no choices",
				path, kind, pi->name, o->name);
	if (o->choices && o->type != QOPT_OPT_ENUM &&
	    o->type != QOPT_OPT_LIST)
		return qir_fail(err, QOPT_EPLUGIN_TABLE,
				"%s: %s '%s': option '%s' (%s) cannot list choices",
				path, kind, pi->name, o->name,
				pm_opt_type_name(o->type));
	for (k = 0; o->choices && o->choices[k]; k++)
		if (!*o->choices[k] || strchr(o->choices[k], ','))
			return qir_fail(err, QOPT_EPLUGIN_TABLE,
					"%s: %s '%s': option '%s': choice %zu is empty or has a comma",
					path, kind, pi->name, o->name, k);
	if ((o->flags & (QOPT_OPT_HAS_MIN | QOPT_OPT_HAS_MAX)) && !numeric)
		return qir_fail(err, QOPT_EPLUGIN_TABLE,
				"%s: %s '%s': option '%s' (%s) cannot have a range",
				path, kind, pi->name, o->name,
				pm_opt_type_name(o->type));
	if ((o->flags & QOPT_OPT_POW2) && o->type != QOPT_OPT_INT)
		return qir_fail(err, QOPT_EPLUGIN_TABLE,
				"%s: %s '%s': option '%s' (%s) cannot be a power of two (only an integer can)",
				path, kind, pi->name, o->name,
				pm_opt_type_name(o->type));
	if ((o->flags & QOPT_OPT_REQUIRED) && o->default_value)
		return qir_fail(err, QOPT_EPLUGIN_TABLE,
				"%s: %s '%s': option '%s' is required and has a default (\"%s\"): it can be one or the other",
				path, kind, pi->name, o->name, o->default_value);
	if ((o->flags & QOPT_OPT_PATH) && o->type != QOPT_OPT_STRING)
		return qir_fail(err, QOPT_EPLUGIN_TABLE,
				"%s: %s '%s': option '%s' (%s) cannot be a path (only a string can)",
				path, kind, pi->name, o->name,
				pm_opt_type_name(o->type));
	if ((o->flags & QOPT_OPT_HAS_MIN) && (o->flags & QOPT_OPT_HAS_MAX) &&
	    !(o->min <= o->max))
		return qir_fail(err, QOPT_EPLUGIN_TABLE,
				"%s: %s '%s': option '%s': min %g is above max %g",
				path, kind, pi->name, o->name, o->min, o->max);
	return 0;
}

static int check_options(const char *path, const char *kind,
			 const qopt_pass_info *pi, size_t *nopts, qir_error *err)
{
	const qopt_option_spec *o = pi->options;
	struct pm_value v = { 0 };
	char why[256];
	size_t i, j;

	*nopts = 0;
	if (!o)
		return 0;
	for (i = 0; o[i].name; i++) {
		if (!pm_valid_name(o[i].name))
			return qir_fail(err, QOPT_EPLUGIN_TABLE,
					"%s: %s '%s': option %zu has an invalid name '%s'",
					path, kind, pi->name, i, o[i].name);
		if (!pm_opt_type_name(o[i].type))
			return qir_fail(err, QOPT_EPLUGIN_TABLE,
					"%s: %s '%s': option '%s' has an unknown type %d",
					path, kind, pi->name, o[i].name, (int)o[i].type);
		for (j = 0; j < i; j++)
			if (!strcmp(o[j].name, o[i].name))
				return qir_fail(err, QOPT_EPLUGIN_TABLE,
						"%s: %s '%s': option '%s' declared twice",
						path, kind, pi->name, o[i].name);
		if (check_accepts(path, kind, pi, &o[i], err) < 0)
			return -1;
		if (o[i].default_value &&
		    pm_value_parse(&o[i], o[i].default_value, &v, why,
				     sizeof(why)) < 0) {
			pm_value_clear(&v);
			return qir_fail(err, QOPT_EPLUGIN_TABLE,
					"%s: %s '%s': default of option '%s' %s",
					path, kind, pi->name, o[i].name, why);
		}
		pm_value_clear(&v);
	}
	*nopts = i;
	return 0;
}

/* A pipeline's options follow a pass's rules (alias.c). */
int pm_check_option_table(const char *path, const char *what,
			  const char *name, const qopt_option_spec *o,
			  size_t *nopts, qir_error *err)
{
	qopt_pass_info pi = { .name = name, .options = o };

	return check_options(path, what, &pi, nopts, err);
}


/*
 * core/loader.c - the only dlopen in qopt: loads pass plugins, checks
 * their tables and registers their passes.
 *
 * Plugins are never dlclose()d: the registry keeps pointers into their
 * static tables for the whole run, and an unloaded module would also
 * leave leak reports and backtraces without symbols.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/pass.h>
#include "core.h"

struct qopt_registry *qopt_registry_new(void)
{
	return calloc(1, sizeof(struct qopt_registry));
}

void qopt_registry_free(struct qopt_registry *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->npasses; i++)
		free(r->passes[i]);
	for (i = 0; i < r->nplugins; i++) {
		free(r->plugins[i]->path);
		free(r->plugins[i]->real);
		free(r->plugins[i]);
	}
	free(r->passes);
	free(r->plugins);
	free(r);
}

const struct qopt_pass *qopt_registry_find(const struct qopt_registry *r,
					   const char *name)
{
	size_t i;

	for (i = 0; i < r->npasses; i++)
		if (!strcmp(r->passes[i]->info->name, name))
			return r->passes[i];
	return NULL;
}

const char *qopt_registry_did_you_mean(const struct qopt_registry *r,
				       const char *name)
{
	const char *names[256];
	size_t i, n = 0;

	for (i = 0; i < r->npasses && n < 256; i++)
		names[n++] = r->passes[i]->info->name;
	return qopt_did_you_mean(name, names, n);
}

int qopt_pass_option_index(const struct qopt_pass *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nopts; i++)
		if (!strcmp(p->info->options[i].name, name))
			return (int)i;
	return -1;
}

/* A pass name goes into INI section headers and --passes lists. */
static int valid_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!(('a' <= *s && *s <= 'z') || ('A' <= *s && *s <= 'Z') ||
		      ('0' <= *s && *s <= '9') || *s == '-' || *s == '_' ||
		      *s == '.'))
			return 0;
	return 1;
}

static int check_options(const char *path, const qopt_pass_info *pi,
			 size_t *nopts, qir_error *err)
{
	const qopt_option_spec *o = pi->options;
	struct qopt_value v = { 0 };
	char why[256];
	size_t i, j;

	*nopts = 0;
	if (!o)
		return 0;
	for (i = 0; o[i].name; i++) {
		if (!valid_name(o[i].name))
			return qir_fail(err, QIR_EINVALID,
					"%s: pass '%s': option %zu has an invalid name '%s'",
					path, pi->name, i, o[i].name);
		if (!qopt_opt_type_name(o[i].type))
			return qir_fail(err, QIR_EINVALID,
					"%s: pass '%s': option '%s' has an unknown type %d",
					path, pi->name, o[i].name, (int)o[i].type);
		for (j = 0; j < i; j++)
			if (!strcmp(o[j].name, o[i].name))
				return qir_fail(err, QIR_EINVALID,
						"%s: pass '%s': option '%s' declared twice",
						path, pi->name, o[i].name);
		if (o[i].default_value &&
		    qopt_value_parse(&o[i], o[i].default_value, &v, why,
				     sizeof(why)) < 0) {
			qopt_value_clear(&v);
			return qir_fail(err, QIR_EINVALID,
					"%s: pass '%s': default of option '%s' %s",
					path, pi->name, o[i].name, why);
		}
		qopt_value_clear(&v);
	}
	*nopts = i;
	return 0;
}

/* Validates the whole table before registering anything, so a refused
 * plugin leaves the registry untouched. */
static int check_table(struct qopt_registry *r, const char *path,
		       const qopt_plugin_info *info, size_t *npasses,
		       qir_error *err)
{
	const qopt_pass_info *p = info->passes;
	const struct qopt_pass *other;
	size_t i, j, nopts;

	if (!info->name || !*info->name)
		return qir_fail(err, QIR_EINVALID,
				"%s: malformed plugin table: missing plugin name",
				path);
	if (!p)
		return qir_fail(err, QIR_EINVALID,
				"%s: malformed plugin table: no pass table", path);
	for (i = 0; p[i].name; i++) {
		if (!valid_name(p[i].name))
			return qir_fail(err, QIR_EINVALID,
					"%s: malformed plugin table: pass %zu has an invalid name '%s'",
					path, i, p[i].name);
		if (!p[i].run)
			return qir_fail(err, QIR_EINVALID,
					"%s: malformed plugin table: pass '%s' has no run function",
					path, p[i].name);
		if (!p[i].summary)
			return qir_fail(err, QIR_EINVALID,
					"%s: malformed plugin table: pass '%s' has no summary",
					path, p[i].name);
		if (!strcmp(p[i].name, "qopt"))
			return qir_fail(err, QIR_EINVALID,
					"%s: pass name 'qopt' is reserved for pipeline settings",
					path);
		for (j = 0; j < i; j++)
			if (!strcmp(p[j].name, p[i].name))
				return qir_fail(err, QIR_EINVALID,
						"%s: malformed plugin table: pass '%s' listed twice",
						path, p[i].name);
		other = qopt_registry_find(r, p[i].name);
		if (other)
			return qir_fail(err, QIR_EINVALID,
					"%s: pass '%s' is already registered by %s",
					path, p[i].name, other->plugin->path);
		if (check_options(path, &p[i], &nopts, err) < 0)
			return -1;
	}
	if (i == 0)
		return qir_fail(err, QIR_EINVALID,
				"%s: malformed plugin table: no passes", path);
	*npasses = i;
	return 0;
}

static int add_passes(struct qopt_registry *r, struct qopt_plugin *pl,
		      size_t n, qir_error *err)
{
	struct qopt_pass **grown;
	size_t i;

	grown = realloc(r->passes, (r->npasses + n) * sizeof(*grown));
	if (!grown)
		return qir_fail(err, QIR_ENOMEM, "out of memory");
	r->passes = grown;
	for (i = 0; i < n; i++) {
		struct qopt_pass *p = calloc(1, sizeof(*p));

		if (!p)
			return qir_fail(err, QIR_ENOMEM, "out of memory");
		p->info = &pl->info->passes[i];
		p->plugin = pl;
		check_options(pl->path, p->info, &p->nopts, NULL);
		r->passes[r->npasses++] = p;
	}
	return 0;
}

static int already_loaded(const struct qopt_registry *r, const char *real)
{
	size_t i;

	for (i = 0; i < r->nplugins; i++)
		if (!strcmp(r->plugins[i]->real, real))
			return 1;
	return 0;
}

static int register_plugin(struct qopt_registry *r, const char *path,
			   const char *real, void *h,
			   const qopt_plugin_info *info, size_t n,
			   qir_error *err)
{
	struct qopt_plugin *pl = calloc(1, sizeof(*pl));
	struct qopt_plugin **grown;

	grown = realloc(r->plugins, (r->nplugins + 1) * sizeof(*grown));
	if (!pl || !grown) {
		free(pl);
		return qir_fail(err, QIR_ENOMEM, "out of memory");
	}
	r->plugins = grown;
	pl->path = strdup(path);
	pl->real = strdup(real);
	pl->handle = h;
	pl->info = info;
	if (!pl->path || !pl->real) {
		free(pl->path);
		free(pl->real);
		free(pl);
		return qir_fail(err, QIR_ENOMEM, "out of memory");
	}
	r->plugins[r->nplugins++] = pl;
	return add_passes(r, pl, n, err);
}

int qopt_registry_load_file(struct qopt_registry *r, const char *path,
			    qir_error *err)
{
	char real[PATH_MAX];
	qopt_plugin_entry_fn entry;
	const qopt_plugin_info *info;
	size_t n = 0;
	void *h;

	if (!realpath(path, real))
		return qir_fail(err, QIR_EIO, "%s: cannot open plugin: %s",
				path, strerror(errno));
	if (already_loaded(r, real))
		return 0;
	/* dlopen() searches the library path for names without '/':
	 * the user named a file, so make it one. */
	h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return qir_fail(err, QIR_EIO, "%s: cannot open plugin: %s",
				path, dlerror());
	*(void **)&entry = dlsym(h, QOPT_PLUGIN_ENTRY_SYMBOL);
	if (!entry)
		return qir_fail(err, QIR_EINVALID,
				"%s: not a qopt plugin: entry symbol '%s' not found",
				path, QOPT_PLUGIN_ENTRY_SYMBOL);
	info = entry();
	if (!info)
		return qir_fail(err, QIR_EINVALID,
				"%s: malformed plugin: %s() returned NULL",
				path, QOPT_PLUGIN_ENTRY_SYMBOL);
	/* Only abi_version is known to sit where we look before this
	 * check: the rest of a foreign version's struct may differ. */
	if (info->abi_version != QOPT_ABI_VERSION)
		return qir_fail(err, QIR_EINVALID,
				"%s: plugin ABI version %u does not match qopt's ABI version %u",
				path, (unsigned)info->abi_version,
				(unsigned)QOPT_ABI_VERSION);
	if (check_table(r, path, info, &n, err) < 0)
		return -1;
	return register_plugin(r, path, real, h, info, n, err);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_so(const char *name)
{
	size_t n = strlen(name);

	return n > 3 && !strcmp(name + n - 3, ".so") && name[0] != '.';
}

static int list_so(const char *dir, char ***out, size_t *count,
		   qir_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL, **grown;
	size_t n = 0;

	if (!d)
		return qir_fail(err, QIR_EIO, "%s: cannot open plugin folder: %s",
				dir, strerror(errno));
	while ((e = readdir(d))) {
		if (!is_so(e->d_name))
			continue;
		grown = realloc(names, (n + 1) * sizeof(*grown));
		if (!grown)
			break;
		names = grown;
		names[n] = strdup(e->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	*out = names;
	*count = n;
	return 0;
}

int qopt_registry_load_dir(struct qopt_registry *r, const char *dir,
			   qir_error *err)
{
	char **names = NULL;
	size_t n = 0, i;
	int rc = 0;

	if (list_so(dir, &names, &n, err) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		char *path = malloc(strlen(dir) + strlen(names[i]) + 2);

		if (!path) {
			rc = qir_fail(err, QIR_ENOMEM, "out of memory");
			break;
		}
		sprintf(path, "%s/%s", dir, names[i]);
		rc = qopt_registry_load_file(r, path, err);
		free(path);
		if (rc < 0)
			break;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/*
 * core/manager/loader.c - the only dlopen in qopt: loads pass plugins, checks
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
#include <sys/stat.h>
#include <qopt/pass.h>
#include "manager/core.h"

static void free_tables(struct pm_plugin *pl);

struct pm_registry *pm_registry_new(pm_session *s)
{
	struct pm_registry *r = calloc(1, sizeof(struct pm_registry));

	if (r)
		r->s = s;
	return r;
}

void pm_registry_free(struct pm_registry *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->npasses; i++)
		free(r->passes[i]);
	for (i = 0; i < r->naliases; i++)
		free(r->aliases[i]);
	free(r->aliases);
	for (i = 0; i < r->nplugins; i++) {
		free_tables(r->plugins[i]);
		free(r->plugins[i]->path);
		free(r->plugins[i]->real);
		free(r->plugins[i]);
	}
	for (i = 0; i < r->npending; i++)
		free(r->pending[i]);
	free(r->pending);
	free(r->passes);
	free(r->plugins);
	free(r);
}

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

/* Validates the whole table before registering anything, so a refused
 * plugin leaves the registry untouched. */
static int check_table(struct pm_registry *r, const char *path,
		       const qopt_plugin_info *info, size_t *npasses,
		       qir_error *err)
{
	const qopt_pass_info *p = info->passes;
	const struct pm_pass *other;
	size_t i, j, nopts;

	if (!info->name || !*info->name)
		return qir_fail(err, QOPT_EPLUGIN_TABLE,
				"%s: malformed plugin table: missing plugin name",
				path);
	if (!p && !info->pipelines)
		return qir_fail(err, QOPT_EPLUGIN_TABLE,
				"%s: malformed plugin table: no pass table", path);
	for (i = 0; p && p[i].name; i++) {
		if (!pm_valid_name(p[i].name))
			return qir_fail(err, QOPT_EPLUGIN_TABLE,
					"%s: malformed plugin table: pass %zu has an invalid name '%s'",
					path, i, p[i].name);
		if (!p[i].run)
			return qir_fail(err, QOPT_EPLUGIN_TABLE,
					"%s: malformed plugin table: pass '%s' has no run function",
					path, p[i].name);
		if (!p[i].summary)
			return qir_fail(err, QOPT_EPLUGIN_TABLE,
					"%s: malformed plugin table: pass '%s' has no summary",
					path, p[i].name);
		if (!strcmp(p[i].name, "qopt"))
			return qir_fail(err, QOPT_EPLUGIN_TABLE,
					"%s: pass name 'qopt' is reserved for pipeline settings",
					path);
		for (j = 0; j < i; j++)
			if (!strcmp(p[j].name, p[i].name))
				return qir_fail(err, QOPT_EPLUGIN_TABLE,
						"%s: malformed plugin table: pass '%s' listed twice",
						path, p[i].name);
		other = pm_registry_find(r, p[i].name);
		if (other)
			return qir_fail(err, QOPT_EPLUGIN_DUPLICATE,
					"%s: pass '%s' is already registered by %s",
					path, p[i].name, other->plugin->path);
		if (check_options(path, "pass", &p[i], &nopts, err) < 0)
			return -1;
	}
	if (i == 0 && !info->pipelines)
		return qir_fail(err, QOPT_EPLUGIN_TABLE,
				"%s: malformed plugin table: no passes", path);
	*npasses = i;
	return pm_alias_check_table(r, path, info, err);
}

static int add_passes(struct pm_registry *r, struct pm_plugin *pl,
		      size_t n, qir_error *err)
{
	struct pm_pass **grown;
	size_t i;

	if (!n)
		return 0;	/* a plugin of pipelines only */
	grown = realloc(r->passes, (r->npasses + n) * sizeof(*grown));
	if (!grown)
		return qir_fail(err, QIR_ENOMEM, "out of memory");
	r->passes = grown;
	for (i = 0; i < n; i++) {
		struct pm_pass *p = calloc(1, sizeof(*p));

		if (!p)
			return qir_fail(err, QIR_ENOMEM, "out of memory");
		p->info = &pl->info->passes[i];
		p->plugin = pl;
		check_options(pl->path, "pass", p->info, &p->nopts, NULL);
		r->passes[r->npasses++] = p;
	}
	return 0;
}

static int already_loaded(const struct pm_registry *r, const char *real)
{
	size_t i;

	for (i = 0; i < r->nplugins; i++)
		if (!strcmp(r->plugins[i]->real, real))
			return 1;
	return 0;
}

/* Takes over tmp's tables, also on failure. */
static int register_plugin(struct pm_registry *r, const char *path,
			   const char *real, void *h, struct pm_plugin *tmp,
			   size_t n, qir_error *err)
{
	struct pm_plugin *pl = calloc(1, sizeof(*pl));
	struct pm_plugin **grown;

	grown = realloc(r->plugins, (r->nplugins + 1) * sizeof(*grown));
	if (grown)
		r->plugins = grown;
	if (!pl || !grown) {
		free(pl);
		free_tables(tmp);
		return qir_fail(err, QIR_ENOMEM, "out of memory");
	}
	*pl = *tmp;
	pl->path = strdup(path);
	pl->real = strdup(real);
	pl->handle = h;
	pl->info = &pl->info_copy;
	if (!pl->path || !pl->real) {
		free(pl->path);
		free(pl->real);
		free_tables(pl);
		free(pl);
		return qir_fail(err, QIR_ENOMEM, "out of memory");
	}
	r->plugins[r->nplugins++] = pl;
	if (add_passes(r, pl, n, err) < 0)
		return -1;
	return pm_alias_register(r, pl, err);
}

/* The plugin's first field: its ABI major in every version. */
static int check_version(const char *path, const qopt_plugin_info *info,
			 qir_error *err)
{
	/* The porting notes of each older major lead to the next's. */
	if (info->abi_major < QOPT_ABI_MAJOR)
		return qir_fail(err, QOPT_EPLUGIN_ABI,
				"%s: plugin ABI version %u does not match qopt's plugin ABI version %u.%u (qopt %s): rebuild the plugin against this qopt; see 'Porting a plugin from ABI %u' in docs/plugin-abi.md",
				path, (unsigned)info->abi_major,
				QOPT_ABI_MAJOR, QOPT_ABI_MINOR, qopt_version(),
				(unsigned)info->abi_major);
	if (info->abi_major != QOPT_ABI_MAJOR)
		return qir_fail(err, QOPT_EPLUGIN_ABI,
				"%s: plugin ABI version %u does not match qopt's plugin ABI version %u.%u (qopt %s): rebuild the plugin against this qopt",
				path, (unsigned)info->abi_major,
				QOPT_ABI_MAJOR, QOPT_ABI_MINOR, qopt_version());
	if (info->abi_minor > QOPT_ABI_MINOR)
		return qir_fail(err, QOPT_EPLUGIN_ABI,
				"%s: plugin needs qopt plugin ABI %u.%u, this qopt (%s) provides %u.%u: upgrade qopt",
				path, (unsigned)info->abi_major,
				(unsigned)info->abi_minor, qopt_version(),
				QOPT_ABI_MAJOR, QOPT_ABI_MINOR);
	if (info->info_size < PM_PLUGIN_INFO_SIZE_MIN ||
	    info->pass_size < PM_PASS_INFO_SIZE_MIN ||
	    info->option_size < PM_OPTION_SPEC_SIZE_MIN)
		return qir_fail(err, QOPT_EPLUGIN_TABLE,
				"%s: malformed plugin table: entry sizes %u/%u/%u are smaller than ABI 2.0's (%zu/%zu/%zu), the smallest this qopt reads",
				path, (unsigned)info->info_size,
				(unsigned)info->pass_size,
				(unsigned)info->option_size,
				PM_PLUGIN_INFO_SIZE_MIN, PM_PASS_INFO_SIZE_MIN,
				PM_OPTION_SPEC_SIZE_MIN);
	/* A plugin of this minor or an older one cannot have larger
	 * entries than this loader's: its tables would be walked with a
	 * stride past what it provides. */
	if (info->info_size > sizeof(qopt_plugin_info) ||
	    info->pass_size > sizeof(qopt_pass_info) ||
	    info->option_size > sizeof(qopt_option_spec))
		return qir_fail(err, QOPT_EPLUGIN_TABLE,
				"%s: malformed plugin table: entry sizes %u/%u/%u are larger than ABI %u.%u's (%zu/%zu/%zu), which the plugin claims",
				path, (unsigned)info->info_size,
				(unsigned)info->pass_size,
				(unsigned)info->option_size,
				(unsigned)info->abi_major,
				(unsigned)info->abi_minor,
				sizeof(qopt_plugin_info),
				sizeof(qopt_pass_info),
				sizeof(qopt_option_spec));
	return 0;
}

/* Reads the plugin's tables with the entry sizes it was built with into
 * today's layout (fields it lacks are zero). Caller owns *out. */
static int import_tables(const char *path, const qopt_plugin_info *info,
			 struct pm_plugin *pl, qir_error *err)
{
	const char *src = (const char *)info->passes;
	size_t np = 0, i, no;

	memcpy(&pl->info_copy, info,
	       info->info_size < sizeof(pl->info_copy) ? info->info_size :
							  sizeof(pl->info_copy));
	if (!src)
		return pm_alias_import(path, info, pl, err);
	while (((const qopt_pass_info *)(const void *)
		(src + np * info->pass_size))->name)
		np++;
	pl->passes = calloc(np + 1, sizeof(*pl->passes));
	pl->options = calloc(np + 1, sizeof(*pl->options));
	if (!pl->passes || !pl->options)
		return qir_fail(err, QIR_ENOMEM, "%s: out of memory", path);
	for (i = 0; i < np; i++) {
		const char *osrc;

		memcpy(&pl->passes[i], src + i * info->pass_size,
		       info->pass_size < sizeof(qopt_pass_info) ?
		       info->pass_size : sizeof(qopt_pass_info));
		osrc = (const char *)pl->passes[i].options;
		if (!osrc)
			continue;
		for (no = 0; ((const qopt_option_spec *)(const void *)
			      (osrc + no * info->option_size))->name; no++)
			;
		pl->options[i] = calloc(no + 1, sizeof(qopt_option_spec));
		if (!pl->options[i])
			return qir_fail(err, QIR_ENOMEM, "%s: out of memory",
					path);
		while (no--)
			memcpy(&pl->options[i][no],
			       osrc + no * info->option_size,
			       info->option_size < sizeof(qopt_option_spec) ?
			       info->option_size : sizeof(qopt_option_spec));
		pl->passes[i].options = pl->options[i];
	}
	pl->info_copy.passes = pl->passes;
	return pm_alias_import(path, info, pl, err);
}

static void free_tables(struct pm_plugin *pl)
{
	size_t i;

	for (i = 0; pl->options && pl->passes && pl->passes[i].name; i++)
		free(pl->options[i]);
	free(pl->options);
	free(pl->passes);
	pl->options = NULL;
	pl->passes = NULL;
	pm_alias_free_tables(pl);
}

/* The table of a plugin opened lazily, or NULL. */
static const qopt_plugin_info *entry_table(void *h)
{
	qopt_plugin_entry_fn entry;

	*(void **)&entry = dlsym(h, QOPT_PLUGIN_ENTRY_SYMBOL);
	return entry ? entry() : NULL;
}

/* RTLD_NOW failed with dlerror() text why (for people only). The file
 * is opened again lazily: if that works, the one thing RTLD_NOW adds,
 * binding every function at once, is what failed, so the plugin needs
 * a symbol nothing loaded defines. Its table then says which ABI it
 * was built for, and its symbol table which public function it is
 * (plugin-symbols.c). Always NULL, with err set. */
static void *open_failed(const char *path, const char *real,
			 const char *why, qir_error *err)
{
	const qopt_plugin_info *info;
	char sym[256];
	const char *missing;
	void *h = dlopen(real, RTLD_LAZY | RTLD_LOCAL);

	if (!h)
		return qir_fail(err, QOPT_EPLUGIN_OPEN,
				"%s: cannot open plugin: %s", path, why), NULL;
	missing = pm_plugin_missing_function(real, h, sym, sizeof(sym));
	info = entry_table(h);
	if (info && check_version(path, info, err) < 0) {
		size_t len = err ? strlen(err->msg) : 0;

		/* The version says more than the symbol; both shown. */
		if (missing && err && len + strlen(missing) + 48 <
				      sizeof(err->msg))
			sprintf(err->msg + len,
				"; it uses %s(), which this libqopt lacks",
				missing);
		return NULL;
	}
	if (missing && info)
		return qir_fail(err, QOPT_EPLUGIN_SYMBOL,
				"%s: plugin built for ABI %u.%u uses %s(), which this libqopt (qopt %s, plugin ABI %u.%u) does not provide: it was built against a later qopt",
				path, (unsigned)info->abi_major,
				(unsigned)info->abi_minor, missing,
				qopt_version(), QOPT_ABI_MAJOR,
				QOPT_ABI_MINOR), NULL;
	if (missing)
		return qir_fail(err, QOPT_EPLUGIN_SYMBOL,
				"%s: plugin uses %s(), which this libqopt (qopt %s, plugin ABI %u.%u) does not provide: it was built against a later qopt",
				path, missing, qopt_version(),
				QOPT_ABI_MAJOR, QOPT_ABI_MINOR), NULL;
	return qir_fail(err, QOPT_EPLUGIN_SYMBOL,
			"%s: cannot open plugin: it needs a symbol no loaded library defines (%s)",
			path, why), NULL;
}

/* Opens the file and finds its table. */
static void *open_plugin(const char *path, const char *real,
			 const qopt_plugin_info **info, qir_error *err)
{
	qopt_plugin_entry_fn entry;
	char why[1024];
	void *h;

	*info = NULL;
	h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, sizeof(why), "%s", dlerror());
		return open_failed(path, real, why, err);
	}
	*(void **)&entry = dlsym(h, QOPT_PLUGIN_ENTRY_SYMBOL);
	if (!entry)
		return qir_fail(err, QOPT_EPLUGIN_NOENTRY,
				"%s: not a qopt plugin: entry symbol '%s' not found",
				path, QOPT_PLUGIN_ENTRY_SYMBOL), NULL;
	*info = entry();
	if (!*info)
		return qir_fail(err, QOPT_EPLUGIN_TABLE,
				"%s: malformed plugin: %s() returned NULL",
				path, QOPT_PLUGIN_ENTRY_SYMBOL), NULL;
	return h;
}

int pm_registry_load_file(struct pm_registry *r, const char *path,
			    qir_error *err)
{
	char real[PATH_MAX];
	const qopt_plugin_info *info;
	struct pm_plugin tmp = { 0 };
	struct stat st;
	size_t n = 0;
	void *h;

	if (!realpath(path, real))
		return qir_fail(err, errno == ENOENT ? QOPT_ENOTFOUND :
				QOPT_EPLUGIN_OPEN, "%s: cannot open plugin: %s",
				path, strerror(errno));
	/* dlopen() would block on a FIFO until a writer comes, and read a
	 * device: only regular files are plugins. */
	if (stat(real, &st) < 0)
		return qir_fail(err, QOPT_EPLUGIN_OPEN,
				"%s: cannot open plugin: %s", path,
				strerror(errno));
	if (!S_ISREG(st.st_mode))
		return qir_fail(err, QOPT_EPLUGIN_OPEN,
				"%s: cannot open plugin: %s, not a regular file",
				path, S_ISFIFO(st.st_mode) ? "a FIFO" :
				S_ISDIR(st.st_mode) ? "a folder" :
				S_ISSOCK(st.st_mode) ? "a socket" :
				S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ?
				"a device" : "something else");
	if (already_loaded(r, real))
		return 0;
	/* dlopen() searches the library path for names without '/':
	 * the user named a file, so make it one. */
	h = open_plugin(path, real, &info, err);
	if (!h)
		return -1;
	/* Only abi_major is known to sit where we look before this check:
	 * the rest of a foreign version's table may differ. */
	if (check_version(path, info, err) < 0)
		return -1;
	if (import_tables(path, info, &tmp, err) < 0 ||
	    check_table(r, path, &tmp.info_copy, &n, err) < 0) {
		free_tables(&tmp);
		return -1;
	}
	return register_plugin(r, path, real, h, &tmp, n, err);
}

int pm_registry_add_table(struct pm_registry *r, const char *name,
			  const qopt_plugin_info *info, qir_error *err)
{
	struct pm_plugin tmp = { 0 };
	size_t n = 0;

	if (!info)
		return qir_fail(err, QOPT_EPLUGIN_TABLE, "%s: no plugin table",
				name);
	if (already_loaded(r, name))
		return 0;
	if (check_version(name, info, err) < 0)
		return -1;
	if (import_tables(name, info, &tmp, err) < 0 ||
	    check_table(r, name, &tmp.info_copy, &n, err) < 0) {
		free_tables(&tmp);
		return -1;
	}
	return register_plugin(r, name, name, NULL, &tmp, n, err);
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
		return qir_fail(err, errno == ENOENT ? QOPT_ENOTFOUND : QIR_EIO,
				"%s: cannot open plugin folder: %s", dir,
				strerror(errno));
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

static int add_pending(struct pm_registry *r, const char *dir,
		       const char *name)
{
	char **grown = realloc(r->pending, (r->npending + 1) * sizeof(*grown));
	char *path = malloc(strlen(dir) + strlen(name) + 2);

	if (grown)
		r->pending = grown;
	if (!grown || !path) {
		free(path);
		return -1;
	}
	sprintf(path, "%s/%s", dir, name);
	r->pending[r->npending++] = path;
	return 0;
}

int pm_registry_add_dir(struct pm_registry *r, const char *dir,
			  qir_error *err)
{
	char **names = NULL;
	size_t n = 0, i;
	int rc = 0;

	if (list_so(dir, &names, &n, err) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (!rc && add_pending(r, dir, names[i]) < 0)
			rc = qir_fail(err, QIR_ENOMEM, "out of memory");
		free(names[i]);
	}
	free(names);
	return rc;
}

/* Opens pending file i (and drops it from the list). A file without the
 * entry symbol is a helper library, not an error: warned about and
 * skipped. */
static int load_pending_at(struct pm_registry *r, size_t i, qir_error *err)
{
	char *path = r->pending[i];
	qir_error e = { 0 };
	int rc;

	memmove(&r->pending[i], &r->pending[i + 1],
		(r->npending - i - 1) * sizeof(*r->pending));
	r->npending--;
	rc = pm_registry_load_file(r, path, &e);
	if (rc < 0 && e.code == QOPT_EPLUGIN_NOENTRY) {
		pm_msg(r->s, QOPT_LOG_WARN, NULL,
			 "%s: skipped: a shared object in a plugin folder "
			 "without '%s' (not a qopt plugin)", path,
			 QOPT_PLUGIN_ENTRY_SYMBOL);
		rc = 0;
	} else if (rc < 0 && err) {
		*err = e;
	}
	free(path);
	return rc;
}

int pm_registry_load_pending(struct pm_registry *r, qir_error *err)
{
	while (r->npending)
		if (load_pending_at(r, 0, err) < 0)
			return -1;
	return 0;
}

static int named_after(const char *path, const char *name)
{
	const char *base = strrchr(path, '/');
	size_t n = strlen(name);

	base = base ? base + 1 : path;
	return !strncmp(base, name, n) && !strcmp(base + n, ".so");
}

int pm_registry_need(struct pm_registry *r, const char *name,
		       qir_error *err)
{
	size_t i;

	if (pm_registry_has_name(r, name))
		return 0;
	for (i = 0; i < r->npending; i++) {
		if (!named_after(r->pending[i], name))
			continue;
		if (load_pending_at(r, i, err) < 0)
			return -1;
		if (pm_registry_has_name(r, name))
			return 0;
		break;
	}
	while (r->npending && !pm_registry_has_name(r, name))
		if (load_pending_at(r, 0, err) < 0)
			return -1;
	return 0;
}

int pm_registry_load_dir(struct pm_registry *r, const char *dir,
			   qir_error *err)
{
	if (pm_registry_add_dir(r, dir, err) < 0)
		return -1;
	return pm_registry_load_pending(r, err);
}

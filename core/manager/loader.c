/*
 * core/manager/loader.c - the only dlopen in qopt: loads pass plugins, checks
 * their tables (imported by import.c) and registers their passes; opens
 * the plugin folders' files when a pass they may hold is needed.
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
#include "manager/options.h"
#include "manager/registry.h"


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
		pm_free_tables(r->plugins[i]);
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
		if (pm_check_option_table(path, "pass", p[i].name,
					  p[i].options, &nopts, err) < 0)
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
		pm_check_option_table(pl->path, "pass", p->info->name,
				      p->info->options, &p->nopts, NULL);
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
		pm_free_tables(tmp);
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
		pm_free_tables(pl);
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
	/* A later minor is refused only for what it uses (pm_import_tables
	 * checks the fields, the dynamic linker the functions): a plugin
	 * built against newer headers that uses nothing new loads. */
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
	 * entries than this loader's, and a later minor's grow by a few
	 * fields, not by multiples: either would walk its tables with a
	 * stride past what it provides. */
	if (info->info_size > pm_entry_size_max(info, sizeof(qopt_plugin_info)) ||
	    info->pass_size > pm_entry_size_max(info, sizeof(qopt_pass_info)) ||
	    info->option_size > pm_entry_size_max(info, sizeof(qopt_option_spec)))
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
	/* A later minor's plugin that uses a function this one lacks is
	 * what the minor check is for: refused as needing that minor. */
	if (missing && info && info->abi_major == QOPT_ABI_MAJOR &&
	    info->abi_minor > QOPT_ABI_MINOR)
		return qir_fail(err, QOPT_EPLUGIN_ABI,
				"%s: plugin needs qopt plugin ABI %u.%u, this qopt (%s) provides %u.%u: upgrade qopt; it uses %s(), which this libqopt lacks",
				path, (unsigned)info->abi_major,
				(unsigned)info->abi_minor, qopt_version(),
				QOPT_ABI_MAJOR, QOPT_ABI_MINOR, missing), NULL;
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
	if (pm_import_tables(path, info, &tmp, err) < 0 ||
	    check_table(r, path, &tmp.info_copy, &n, err) < 0) {
		pm_free_tables(&tmp);
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
	if (pm_import_tables(name, info, &tmp, err) < 0 ||
	    check_table(r, name, &tmp.info_copy, &n, err) < 0) {
		pm_free_tables(&tmp);
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

/* Deeper than this the expansion refuses anyway (pipeline-graph.c). */
#define PM_ALIAS_MAX_DEPTH 33

/* Each pipeline is followed once per call (its mark is the call's
 * number): a pipeline naming another twice at every level must not
 * double the walk at each. pm_registry_need may load plugins, adding
 * pipelines (unmarked) as it goes. */
static int need_rec(struct pm_registry *r, const char *name, int depth,
		    qir_error *err)
{
	struct pm_alias *a;
	size_t k;

	if (pm_registry_need(r, name, err) < 0)
		return -1;
	a = (struct pm_alias *)pm_registry_find_alias(r, name);
	if (!a || depth >= PM_ALIAS_MAX_DEPTH || a->mark == r->mark)
		return 0;
	a->mark = r->mark;
	for (k = 0; k < a->nsteps; k++)
		if (need_rec(r, a->info->steps[k].pass, depth + 1, err) < 0)
			return -1;
	return 0;
}

int pm_registry_need_all(struct pm_registry *r, const char *name,
			 qir_error *err)
{
	r->mark++;
	return need_rec(r, name, 0, err);
}

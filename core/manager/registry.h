/*
 * core/manager/registry.h - private to core/manager: plugins (loader.c,
 * plugin-symbols.c, discovery.c), their tables imported and checked
 * (import.c), the pass registry's look-ups (registry.c) and its named
 * pipelines (alias.c).
 */
#ifndef QOPT_PM_REGISTRY_H
#define QOPT_PM_REGISTRY_H

#include <stddef.h>
#include <qopt/pass.h>
#include "manager/msg.h"

/* ---- plugins and the pass registry (core/manager/loader.c,
 * discovery.c) ---- */
struct pm_plugin {
	char *path;		/* as given (owned) */
	char *real;		/* realpath (owned), to load each file once */
	void *handle;
	const qopt_plugin_info *info;	/* &info_copy */
	/* The plugin's tables in this libqopt's layout (owned): read with
	 * the entry sizes the plugin was built with, missing fields 0. */
	qopt_plugin_info info_copy;
	qopt_pass_info *passes;
	qopt_option_spec **options;	/* per pass, or NULL */
	/* Named pipelines (ABI 3.0), the same way (owned, or NULL). */
	qopt_pipeline_info *pipelines;
	qopt_option_spec **pipeline_options;	/* per pipeline, or NULL */
	qopt_pipeline_step **steps;		/* per pipeline, or NULL */
};

/* Bytes of type up to and including field, padded as an array of type
 * would be: the size type had when field was its last. */
#define PM_SIZE_THROUGH(type, field)					\
	((offsetof(type, field) + sizeof(((type *)0)->field) +		\
	  _Alignof(type) - 1) / _Alignof(type) * _Alignof(type))
/* The smallest entries the loader accepts: ABI 2.0's (3.0 only appended
 * fields to its layout); fields past them read as zero. */
#define PM_PLUGIN_INFO_SIZE_MIN PM_SIZE_THROUGH(qopt_plugin_info, passes)
#define PM_PASS_INFO_SIZE_MIN PM_SIZE_THROUGH(qopt_pass_info, flags)
#define PM_OPTION_SPEC_SIZE_MIN offsetof(qopt_option_spec, choices)
/* The largest entry the loader walks for a table whose entries are ours
 * bytes in this qopt: ours for this minor and older ones; for a later
 * minor twice that, since a minor appends a few fields and more is a
 * forged table. The bytes past ours must then be zero (import.c). */
static inline size_t pm_entry_size_max(const qopt_plugin_info *info,
				       size_t ours)
{
	return info->abi_minor > QOPT_ABI_MINOR ? 2 * ours : ours;
}
/* The plugin_info size from which a plugin has pipelines (ABI 3.0);
 * their entries have no older, smaller layout. */
#define PM_PLUGIN_INFO_SIZE_3_0 sizeof(qopt_plugin_info)
#define PM_PIPELINE_INFO_SIZE_3_0 sizeof(qopt_pipeline_info)
#define PM_PIPELINE_STEP_SIZE_3_0 sizeof(qopt_pipeline_step)

struct pm_pass {
	const qopt_pass_info *info;
	const struct pm_plugin *plugin;
	size_t nopts;
};

/* A named pipeline (core/manager/alias.c). */
struct pm_alias {
	const qopt_pipeline_info *info;
	const struct pm_plugin *plugin;
	size_t nopts;
	size_t nsteps;
	unsigned long mark;	/* pm_registry_need_all's walk */
};

struct pm_registry {
	pm_session *s;		/* where its warnings go */
	struct pm_plugin **plugins;
	size_t nplugins;
	struct pm_pass **passes;
	size_t npasses;
	struct pm_alias **aliases;
	size_t naliases;
	unsigned long mark;	/* pm_registry_need_all calls so far */
	/* *.so files of plugin folders not opened yet (owned paths):
	 * opened when a pass they may hold is needed. */
	char **pending;
	size_t npending;
};

/* The first public-prefix function (qopt_, qir_, qk_) the plugin file
 * at path imports that neither the loaded program nor h (the plugin
 * opened lazily) defines, copied into buf[n]; NULL when none, or when
 * the file's symbol table cannot be read. */
const char *pm_plugin_missing_function(const char *path, void *h, char *buf,
				       size_t n);

struct pm_registry *pm_registry_new(pm_session *s);
void pm_registry_free(struct pm_registry *r);
/* Loads one plugin and registers its passes; a file already loaded
 * (same realpath) is skipped. Errors name the file. */
/* Registers a plugin table linked into the program (no file: the
 * pass fuzzer links the built-in passes in), checked as a loaded
 * plugin's is; name stands for the path in messages. */
int pm_registry_add_table(struct pm_registry *r, const char *name,
			  const qopt_plugin_info *info, qir_error *err);
int pm_registry_load_file(struct pm_registry *r, const char *path,
			    qir_error *err);
/* Every *.so in dir, in name order. Missing dir: QIR_EIO. A file that
 * is not a qopt plugin (no entry symbol: a helper library beside the
 * plugins) is skipped with a warning. */
int pm_registry_load_dir(struct pm_registry *r, const char *dir,
			   qir_error *err);
/* Notes dir's *.so files without opening them (missing dir: QIR_EIO);
 * pm_registry_need() and pm_registry_load_pending() open them. */
int pm_registry_add_dir(struct pm_registry *r, const char *dir,
			  qir_error *err);
/* Makes pass name available if a plugin folder has it: first the file
 * named after the pass (NAME.so), then every other pending file.
 * 0 (found or not: pm_registry_find says), -1 on a broken plugin. */
int pm_registry_need(struct pm_registry *r, const char *name,
		       qir_error *err);
/* Opens every pending file (--list-passes, suggestions). */
int pm_registry_load_pending(struct pm_registry *r, qir_error *err);
const struct pm_pass *pm_registry_find(const struct pm_registry *r,
					   const char *name);
/* " (did you mean 'x'?)" over passes and pipelines, or "", into buf
 * (PM_DID_YOU_MEAN_SIZE bytes); returns buf. */
const char *pm_registry_did_you_mean(const struct pm_registry *r,
				     const char *name, char *buf);
/* The installed built-in passes' folder, $(pkglibdir)/passes (a
 * program run from elsewhere, the qopt command from its build tree,
 * names its own with qm_set_builtin_dir). */
#define PM_BUILTIN_PASS_DIR QOPT_PKGLIBDIR "/passes"
/* spec index of option name in pass, or -1. */
int pm_pass_option_index(const struct pm_pass *p, const char *name);
/* 1 when s can name a pass, pipeline or option (letters, digits, -_.). */
int pm_valid_name(const char *s);

/* Said once after "unknown pass": the name may be right and its plugin
 * not loaded. */
#define PM_UNKNOWN_PASS_HINT \
	"qopt: note: a pass that is not built in comes from a plugin: load " \
	"it with --load FILE.so, or name its folder with -L DIR or " \
	"QOPT_PLUGIN_PATH (--list-passes shows the passes found)"

/* 1 when a pass's nonzero return is a qopt_status: its primary code is
 * one of qopt's (fixed within the ABI major), the detail any. */
static inline int pm_status_known(int rc)
{
	return rc > 0 && QOPT_PRIMARY(rc) >= QOPT_EIO &&
	       QOPT_PRIMARY(rc) <= QOPT_EPASS;
}

/* ---- named pipelines in the registry (core/manager/alias.c) ---- */
const struct pm_alias *pm_registry_find_alias(const struct pm_registry *r,
					      const char *name);
/* 1 when a pass or a pipeline is called name. */
int pm_registry_has_name(const struct pm_registry *r, const char *name);
/* spec index of option name in the pipeline's options, or -1. */
int pm_alias_option_index(const struct pm_alias *a, const char *name);
/* Checks a plugin's pipeline table (already imported) before it is
 * registered: names unique across passes and pipelines of every
 * plugin, options valid, each step's `when` a BOOL option of the
 * pipeline, `forward` names options of it, `fixed` items key=value.
 * What depends on other plugins (the steps' passes) is checked when
 * the pipeline is expanded. */
int pm_alias_check_table(const struct pm_registry *r, const char *path,
			 const qopt_plugin_info *info, qir_error *err);
/* Registers the plugin's pipelines (checked). */
int pm_alias_register(struct pm_registry *r, const struct pm_plugin *pl,
		      qir_error *err);
/* pm_registry_need(), and for a pipeline the passes of its steps,
 * recursively. */
int pm_registry_need_all(struct pm_registry *r, const char *name,
			 qir_error *err);
/* Reads the plugin's tables (passes, options, pipelines, steps) with
 * the plugin's entry sizes into pl (owned there; freed by
 * pm_free_tables). import.c, the one table importer. */
int pm_import_tables(const char *path, const qopt_plugin_info *info,
		     struct pm_plugin *pl, qir_error *err);
void pm_free_tables(struct pm_plugin *pl);
/* Options of a pipeline's spec, checked as a pass's are (loader.c). */
int pm_check_option_table(const char *path, const char *what,
			  const char *name, const qopt_option_spec *o,
			  size_t *nopts, qir_error *err);

#endif /* QOPT_PM_REGISTRY_H */

/*
 * core/cli/setup.c - from command line and [qopt] settings to a loaded
 * plugin registry, a resolved pipeline and run options.
 *
 * Plugin search order: the built-in passes, QOPT_PLUGIN_PATH, [qopt]
 * plugin_path, -L, then [qopt] load and --load. Nothing comes from the
 * current folder unless named. Files named with --load / load are
 * opened at once; the folders' *.so only when the run needs a pass
 * they may hold (NAME.so first), or all of them for --list-passes and
 * for suggestions when a pass is not found.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <qopt/upgrade.h>
#include "cli/cli.h"

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int load_dir(struct pm_registry *r, const char *dir)
{
	qir_error err = { 0 };

	if (pm_registry_add_dir(r, dir, &err) < 0) {
		fprintf(stderr, "qopt: error: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int load_file(struct pm_registry *r, const char *file)
{
	qir_error err = { 0 };

	if (pm_registry_load_file(r, file, &err) < 0) {
		fprintf(stderr, "qopt: error: %s\n", err.msg);
		return -1;
	}
	return 0;
}

/* QOPT_PLUGIN_PATH: like PATH, but an empty entry does not mean ".". */
static int load_env_path(struct pm_registry *r)
{
	const char *env = getenv("QOPT_PLUGIN_PATH");
	char *copy, *save = NULL, *tok;
	int rc = 0;

	if (!env || !*env)
		return 0;
	copy = strdup(env);
	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ":", &save); tok && !rc;
	     tok = strtok_r(NULL, ":", &save)) {
		if (!is_dir(tok)) {
			pm_msg(r->s, QOPT_LOG_WARN, "QOPT_PLUGIN_PATH",
				 "'%s' is not a folder", tok);
			continue;
		}
		rc = load_dir(r, tok);
	}
	free(copy);
	return rc;
}

static int load_plugins(const struct pm_cli *c,
			const struct pm_pipeline *pl,
			struct pm_registry *r)
{
	char buf[PATH_MAX];
	const char *builtin = pm_builtin_pass_dir(buf, sizeof(buf));
	size_t i;

	if (is_dir(builtin) && load_dir(r, builtin) < 0)
		return -1;
	if (load_env_path(r) < 0)
		return -1;
	for (i = 0; i < pl->g.nplugin_path; i++)
		if (load_dir(r, pl->g.plugin_path[i]) < 0)
			return -1;
	for (i = 0; i < c->nplugin_dirs; i++)
		if (load_dir(r, c->plugin_dirs[i]) < 0)
			return -1;
	for (i = 0; i < pl->g.nload; i++)
		if (load_file(r, pl->g.load[i]) < 0)
			return -1;
	for (i = 0; i < c->nloads; i++)
		if (load_file(r, c->loads[i]) < 0)
			return -1;
	return 0;
}

/* Opens the folders' plugins this run needs: the pipeline's passes,
 * or every one for listings and when a name is not found (the user
 * then sees all the suggestions). */
static int load_needed(const struct pm_cli *c,
		       const struct pm_pipeline *pl, struct pm_registry *r)
{
	qir_error err = { 0 };
	int all = c->list_passes;
	size_t i;

	for (i = 0; !all && i < pl->nstages; i++) {
		if (pm_registry_need_all(r, pl->stages[i].name, &err) < 0)
			goto fail;
		all = !pm_registry_has_name(r, pl->stages[i].name);
	}
	if (!all && c->help_pass) {
		if (pm_registry_need_all(r, c->help_pass, &err) < 0)
			goto fail;
		all = !pm_registry_has_name(r, c->help_pass);
	}
	if (all && pm_registry_load_pending(r, &err) < 0)
		goto fail;
	return 0;
fail:
	fprintf(stderr, "qopt: error: %s\n", err.msg);
	return -1;
}

int cli_setup(struct pm_cli *c, struct pm_pipeline *pl,
		   struct pm_registry **reg)
{
	int bad = 0;

	*reg = pm_registry_new(c->s);
	if (!*reg)
		return QOPT_EXIT_FAIL;
	if (c->pipeline_file)
		bad = pm_pipeline_parse_ini(pl, c->pipeline_file);
	else if (c->passes_inline)
		bad = pm_pipeline_parse_inline(pl, c->passes_inline);
	if (bad)
		return QOPT_EXIT_USAGE;
	if (load_plugins(c, pl, *reg) < 0 || load_needed(c, pl, *reg) < 0)
		return QOPT_EXIT_FAIL;
	if (pm_pipeline_resolve(pl, *reg))
		return pl->nplugin_errors ? QOPT_EXIT_FAIL : QOPT_EXIT_USAGE;
	return QOPT_EXIT_OK;
}

static qk_device pick_device(const struct pm_cli *c,
			     const struct pm_pipeline *pl)
{
	const char *env = getenv("QOPT_DEVICE");
	const char *name = c->device;

	if (!name && env && *env)
		name = env;
	if (!name)
		name = pl->g.device;
	if (!name)
		return QK_DEVICE_AUTO;
	return (qk_device)qk_device_from_name(name);
}

/* Why CUDA cannot be used, as the kernels tell it (the module's own
 * sentence: no driver, a refused table, no device), for the error. */
static void cuda_reason(char *buf, size_t len)
{
	qk_ctx *k = qk_ctx_new(QK_DEVICE_CUDA, 1);
	float one = 1.0f, a;

	snprintf(buf, len, "not built in, or no device answers");
	if (!k)
		return;
	if (qk_amax(k, QIR_FLOAT, &one, 1, &a) &&
	    qk_ctx_stats(k)->fallback_reason[0])
		snprintf(buf, len, "%s", qk_ctx_stats(k)->fallback_reason);
	qk_ctx_free(k);
}

int cli_run_opts(const struct pm_cli *c,
		      const struct pm_pipeline *pl, struct pm_run_opts *o)
{
	char why[160];

	int dev = pick_device(c, pl);

	memset(o, 0, sizeof(*o));
	if (dev < 0) {
		fprintf(stderr, "qopt: error: QOPT_DEVICE expects cpu, cuda or auto, got '%s'\n",
			getenv("QOPT_DEVICE"));
		return QOPT_EXIT_USAGE;
	}
	if (dev == QK_DEVICE_CUDA && !qk_cuda_available()) {
		cuda_reason(why, sizeof(why));
		fprintf(stderr, "qopt: error: device cuda requested, but CUDA is not available: %s\n",
			why);
		return QOPT_EXIT_FAIL;
	}
	o->device = (qk_device)dev;
	o->threads = c->threads;
	o->verify_each = c->verify_each || pl->g.verify_each > 0;
	o->strict = c->strict || pl->g.strict > 0;
	o->print_after_all = c->print_after_all;
	o->print_changed = c->print_changed;
	o->print_after = (const char *const *)c->print_after;
	o->nprint_after = c->nprint_after;
	o->bisect_limit = c->bisect_given ? c->bisect_limit : -1;
	o->bisect_print = c->bisect_given;
	o->ir_out = stdout;
	return QOPT_EXIT_OK;
}

void cli_save_opts(const struct pm_cli *c,
			const struct pm_pipeline *pl, qir_save_opts *so)
{
	memset(so, 0, sizeof(*so));
	if (c->external_threshold >= 0)
		so->external_threshold = (uint64_t)c->external_threshold;
	else if (pl->g.external_threshold >= 0)
		so->external_threshold = (uint64_t)pl->g.external_threshold;
	so->external_name = c->external_name ? c->external_name :
			    pl->g.external_name;
	so->all_inline = c->all_inline || pl->g.all_inline > 0;
	so->threads = c->threads;
}

/* A later opset may have changed operators this qopt's passes read:
 * they would misread them without a word. */
static void warn_new_opset(pm_session *s, const char *path,
			   const qir_model *m)
{
	int64_t opset = qir_model_opset(m, ""), known = qir_upgrade_max_opset();

	if (opset > known)
		pm_msg(s, QOPT_LOG_WARN, path,
		       "the model's opset %lld is newer than the newest this qopt knows (%lld): operators changed since may be misread",
		       (long long)opset, (long long)known);
}

qir_model *cli_load(pm_session *s, const char *path)
{
	qir_error err = { 0 };
	qir_model *m = NULL;

	if (qir_model_load(path, NULL, &m, &err) < 0) {
		fprintf(stderr, "qopt: %s: error: %s\n", path, err.msg);
		return NULL;
	}
	warn_new_opset(s, path, m);
	if (qir_model_load_reordered(m))
		pm_msg(s, QOPT_LOG_INFO, path,
			 "note: nodes were not in topological order; sorted them (%zu node%s moved)",
			 qir_model_load_reordered(m),
			qir_model_load_reordered(m) == 1 ? "" : "s");
	for (size_t i = 0; i < qir_model_load_notes(m); i++) {
		const char *note = qir_model_load_note(m, i);

		if (!note) {
			pm_msg(s, QOPT_LOG_INFO, path,
			       "note: %zu more declared type%s disagree with inference",
			       qir_model_load_notes(m) - i,
			       qir_model_load_notes(m) - i == 1 ? "" : "s");
			break;
		}
		pm_msg(s, QOPT_LOG_INFO, path, "note: %s", note);
	}
	return m;
}

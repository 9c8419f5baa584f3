/*
 * core/manager/api.c - core/manager/session-api.h over the manager's own
 * pieces: the session's registry (plugins found and opened in qopt's
 * search order), its pipeline, its run, and what the command line
 * reads of them (listings, stage results, bisect points).
 *
 * Plugin search order: the built-in passes, QOPT_PLUGIN_PATH, [qopt]
 * plugin_path, -L, then [qopt] load and --load. Nothing comes from the
 * current folder unless named. Files named with --load / load are
 * opened at once; the folders' *.so only when the run needs a pass
 * they may hold (NAME.so first), or all of them for --list-passes and
 * for suggestions when a pass is not found.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "manager/session.h"
#include "manager/jsonstr.h"
#include "manager/numfmt.h"

const char *qm_unknown_pass_hint(void)
{
	return PM_UNKNOWN_PASS_HINT;
}

int qm_parse(qm_session *s, const char *ini_file, const char *passes)
{
	int bad = 0;

	if (pm_session_busy(s, "qm_parse"))
		return QM_USAGE;
	if (!s->reg && !(s->reg = pm_registry_new(s)))
		return QM_FAIL;
	if (s->have_pl)
		pm_pipeline_free(&s->pl);
	pm_pipeline_init(&s->pl, s);
	s->have_pl = 1;
	if (ini_file)
		bad = pm_pipeline_parse_ini(&s->pl, ini_file);
	else if (passes)
		bad = pm_pipeline_parse_inline(&s->pl, passes);
	return bad ? QM_USAGE : QM_OK;
}

int qm_parse_text(qm_session *s, const char *text, const char *name)
{
	int bad;

	if (pm_session_busy(s, "qm_parse_text"))
		return QM_USAGE;
	if (!s->reg && !(s->reg = pm_registry_new(s)))
		return QM_FAIL;
	if (s->have_pl)
		pm_pipeline_free(&s->pl);
	pm_pipeline_init(&s->pl, s);
	s->have_pl = 1;
	bad = pm_pipeline_parse_ini_text(&s->pl, text, name);
	return bad ? QM_USAGE : QM_OK;
}

int qm_add_stage(qm_session *s, const char *pass, const char *const *kv)
{
	if (pm_session_busy(s, "qm_add_stage"))
		return QM_USAGE;
	if (!s->have_pl && qm_parse(s, NULL, NULL))
		return QM_FAIL;
	return pm_pipeline_add_stage(&s->pl, pass, kv);
}

int qm_set_builtin_dir(qm_session *s, const char *dir)
{
	char *copy = dir ? strdup(dir) : NULL;

	if (dir && !copy)
		return -1;
	free(s->builtin_dir);
	s->builtin_dir = copy;
	return 0;
}

const char *qm_builtin_dir(const qm_session *s)
{
	return s->builtin_dir;
}

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int said(qm_session *s, const qir_error *err)
{
	qm_say(s, QOPT_LOG_ERROR, "qopt: error: %s\n", err->msg);
	return -1;
}

static int load_dir(qm_session *s, const char *dir)
{
	qir_error err = { 0 };

	return pm_registry_add_dir(s->reg, dir, &err) < 0 ? said(s, &err) : 0;
}

static int load_file(qm_session *s, const char *file)
{
	qir_error err = { 0 };

	return pm_registry_load_file(s->reg, file, &err) < 0 ?
	       said(s, &err) : 0;
}

/* QOPT_PLUGIN_PATH: like PATH, but an empty entry does not mean ".". */
static int load_env_path(qm_session *s)
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
			pm_msg(s, QOPT_LOG_WARN, "QOPT_PLUGIN_PATH",
			       "'%s' is not a folder", tok);
			continue;
		}
		rc = load_dir(s, tok);
	}
	free(copy);
	return rc;
}

static int load_all(qm_session *s, const struct qm_plugins *p)
{
	const struct pm_globals *g = &s->pl.g;
	const char *builtin = s->builtin_dir ? s->builtin_dir :
			      PM_BUILTIN_PASS_DIR;
	size_t i;

	if (*builtin && is_dir(builtin) && load_dir(s, builtin) < 0)
		return -1;
	if (load_env_path(s) < 0)
		return -1;
	for (i = 0; i < g->nplugin_path; i++)
		if (load_dir(s, g->plugin_path[i]) < 0)
			return -1;
	for (i = 0; i < p->ndirs; i++)
		if (load_dir(s, p->dirs[i]) < 0)
			return -1;
	for (i = 0; i < g->nload; i++)
		if (load_file(s, g->load[i]) < 0)
			return -1;
	for (i = 0; i < p->nfiles; i++)
		if (load_file(s, p->files[i]) < 0)
			return -1;
	return 0;
}

/* Opens the folders' plugins this run needs: the pipeline's passes,
 * or every one for listings and when a name is not found (the user
 * then sees all the suggestions). */
static int load_needed(qm_session *s, const struct qm_plugins *p)
{
	struct pm_registry *r = s->reg;
	qir_error err = { 0 };
	int all = p->all;
	size_t i;

	for (i = 0; !all && i < s->pl.nstages; i++) {
		if (pm_registry_need_all(r, s->pl.stages[i].name, &err) < 0)
			return said(s, &err);
		all = !pm_registry_has_name(r, s->pl.stages[i].name);
	}
	if (!all && p->need) {
		if (pm_registry_need_all(r, p->need, &err) < 0)
			return said(s, &err);
		all = !pm_registry_has_name(r, p->need);
	}
	if (all && pm_registry_load_pending(r, &err) < 0)
		return said(s, &err);
	return 0;
}

int qm_load_plugins(qm_session *s, const struct qm_plugins *p)
{
	if (pm_session_busy(s, "qm_load_plugins"))
		return QM_USAGE;
	if (!s->have_pl && qm_parse(s, NULL, NULL))
		return QM_FAIL;
	if (load_all(s, p) < 0 || load_needed(s, p) < 0)
		return QM_FAIL;
	return QM_OK;
}

int qm_add_plugin_table(qm_session *s, const char *name,
			const qopt_plugin_info *info)
{
	qir_error err = { 0 };

	if (pm_session_busy(s, "qm_add_plugin_table"))
		return QM_USAGE;
	if (!s->reg && !(s->reg = pm_registry_new(s)))
		return QM_FAIL;
	if (pm_registry_add_table(s->reg, name, info, &err) < 0) {
		said(s, &err);
		return QM_FAIL;
	}
	return QM_OK;
}

int qm_resolve(qm_session *s)
{
	if (pm_session_busy(s, "qm_resolve"))
		return QM_USAGE;
	if (!pm_pipeline_resolve(&s->pl, s->reg))
		return QM_OK;
	return s->pl.nplugin_errors ? QM_FAIL : QM_USAGE;
}

void qm_settings(const qm_session *s, struct qm_settings *o)
{
	const struct pm_globals *g = &s->pl.g;

	o->verify_each = g->verify_each;
	o->strict = g->strict;
	o->all_inline = g->all_inline;
	o->device = g->device;
	o->external_name = g->external_name;
	o->external_threshold = g->external_threshold;
}

const char *qm_pipeline_name(const qm_session *s)
{
	return s->pl.file;
}

int qm_print_pipeline(const qm_session *s, FILE *f, char *why, size_t n)
{
	return pm_pipeline_print(&s->pl, f, why, n);
}

/* ---- the registry ---- */
size_t qm_npasses(const qm_session *s)
{
	return s->reg ? s->reg->npasses : 0;
}

size_t qm_npipelines(const qm_session *s)
{
	return s->reg ? s->reg->naliases : 0;
}

static void entry(struct qm_entry *e, const struct pm_plugin *pl)
{
	e->plugin = pl->info->name;
	e->plugin_path = pl->path;
	e->version = pl->info->version;
}

static void pass_entry(const struct pm_pass *p, struct qm_entry *e)
{
	memset(e, 0, sizeof(*e));
	entry(e, p->plugin);
	e->name = p->info->name;
	e->summary = p->info->summary;
	e->flags = p->info->flags;
	e->options = p->info->options;
	e->nopts = p->nopts;
}

static void pipeline_entry(const struct pm_alias *a, struct qm_entry *e)
{
	memset(e, 0, sizeof(*e));
	entry(e, a->plugin);
	e->name = a->info->name;
	e->summary = a->info->summary;
	e->flags = a->info->flags;
	e->options = a->info->options;
	e->nopts = a->nopts;
	e->steps = a->info->steps;
	e->nsteps = a->nsteps;
}

void qm_pass_at(const qm_session *s, size_t i, struct qm_entry *e)
{
	pass_entry(s->reg->passes[i], e);
}

void qm_pipeline_at(const qm_session *s, size_t i, struct qm_entry *e)
{
	pipeline_entry(s->reg->aliases[i], e);
}

int qm_find(const qm_session *s, const char *name, struct qm_entry *e)
{
	const struct pm_pass *p = s->reg ? pm_registry_find(s->reg, name) :
				  NULL;
	const struct pm_alias *a;

	if (p) {
		pass_entry(p, e);
		return 1;
	}
	a = s->reg ? pm_registry_find_alias(s->reg, name) : NULL;
	if (!a)
		return 0;
	pipeline_entry(a, e);
	return 2;
}

const char *qm_did_you_mean(const qm_session *s, const char *name,
			    char *buf)
{
	if (!s->reg) {
		buf[0] = 0;
		return buf;
	}
	return pm_registry_did_you_mean(s->reg, name, buf);
}

const char *qm_suggest(const char *word, const char *const *cands, size_t n,
		       char *buf, size_t size)
{
	return pm_did_you_mean(word, cands, n, buf, size);
}

const char *qm_opt_type_name(int type)
{
	return pm_opt_type_name(type);
}

int qm_option_accepts(const qopt_option_spec *spec, char *buf, size_t n)
{
	return pm_option_accepts(spec, buf, n);
}

/* ---- a run ---- */
int qm_run_begin(qm_session *s, qk_device device, int threads, int query)
{
	struct pm_run_opts o = s->gate;
	qir_error err = { 0 };

	if (pm_session_busy(s, "qm_run_begin"))
		return QM_USAGE;
	qm_run_end(s);
	o.strict = s->strict_run;
	o.device = device;
	o.threads = threads;
	o.query = query;
	if (pm_run_init(&s->run, &s->pl, &o, &err) < 0) {
		qm_say(s, QOPT_LOG_ERROR, "qopt: error: %s\n", err.msg);
		return QM_FAIL;
	}
	s->have_run = 1;
	return QM_OK;
}

int qm_run(qm_session *s, qir_model *m)
{
	int rc;

	if (pm_session_busy(s, "qm_run"))
		return QM_USAGE;
	if (!s->have_run) {
		qm_say(s, QOPT_LOG_ERROR,
		       "qopt: error: qm_run called without qm_run_begin: refused\n");
		return QM_USAGE;
	}
	s->in_hooks = 1;
	rc = pm_run_model(&s->run, m);
	s->in_hooks = 0;
	return rc < 0 ? QM_FAIL : QM_OK;
}

int qm_run_end(qm_session *s)
{
	if (pm_session_busy(s, "qm_run_end"))
		return QM_USAGE;
	if (s->have_run)
		pm_run_fini(&s->run);
	s->have_run = 0;
	return QM_OK;
}

const char *qm_failed_pass(const qm_session *s)
{
	return s->have_run ? s->run.failed_pass : NULL;
}

void qm_add_time(qm_session *s, int which, double seconds)
{
	if (which == QM_TIME_LOAD)
		s->run.t_load += seconds;
	else
		s->run.t_save += seconds;
}

size_t qm_nstages(const qm_session *s)
{
	return s->have_pl ? s->pl.nstages : 0;
}

void qm_stage_at(const qm_session *s, size_t i, struct qm_stage *st)
{
	const struct pm_stage_result *res = s->have_run ? &s->run.res[i] :
					    NULL;

	memset(st, 0, sizeof(*st));
	st->name = s->pl.stages[i].name;
	st->from = s->pl.stages[i].from;
	if (res) {
		st->ran = res->ran;
		st->changed = res->changed;
		st->seconds = res->seconds;
	}
}

const char *qm_stage_counters(const qm_session *s, size_t i, char *buf,
			      size_t n)
{
	buf[0] = 0;
	return s->have_run ? pm_stage_counters_str(&s->run.res[i], buf, n) :
	       buf;
}

int64_t qm_points(const qm_session *s)
{
	return s->have_run ? s->run.counter : 0;
}

int qm_point_at(const qm_session *s, int64_t num, struct qm_point *out)
{
	size_t i;

	for (i = 0; s->have_run && i < s->run.npoints; i++) {
		const struct pm_point *p = &s->run.points[i];

		if (p->num != num)
			continue;
		out->is_rewrite = p->is_rewrite;
		out->pass_point = p->pass_point;
		out->pass = s->pl.stages[p->stage].name;
		out->desc = p->desc;
		return 0;
	}
	return -1;
}

qm_outfile *qm_write_stats_json(const qm_session *s, const char *path,
				const char *input, qir_error *err)
{
	return pm_run_write_stats_json(&s->run, path, input, err);
}

char *qm_stats_json(const qm_session *s, const char *input)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f;

	if (!s->have_run || !(f = open_memstream(&buf, &n)))
		return NULL;
	pm_run_stats_json(&s->run, input, f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- the process ---- */
qm_outfile *qm_outfile_open(const char *path, FILE **fp, qir_error *err)
{
	return pm_outfile_open(path, fp, err);
}

int qm_outfile_commit(qm_outfile *o, qir_error *err)
{
	return pm_outfile_commit(o, err);
}

void qm_outfile_abort(qm_outfile *o)
{
	pm_outfile_abort(o);
}

double qm_now(void)
{
	return pm_now();
}

void qm_json_str(FILE *f, const char *s)
{
	pm_json_str(f, s);
}

void qm_fmt_double(char *buf, size_t n, double x)
{
	pm_fmt_double(buf, n, x);
}

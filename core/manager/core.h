/*
 * core/manager/core.h - private to core/ and the qopt binary (not installed).
 *
 * The pass manager: a library (core/libpassmgr; the qopt program, the
 * pass fuzzer and the unit tests link it) without mutable globals: what
 * it remembers between calls lives in a pm_session its caller creates
 * and frees, and every registry, pipeline and run belongs to one, so
 * two sessions in one process are independent (tests/manager/session.c;
 * tests/manager/globals.sh checks the objects). The one exception is the
 * signal guard (guard.c), which is the process's by nature. It decides
 * alone what the CLI must not redo: the input and the result verify,
 * and --strict (pm_run_model). It uses libqopt's public API only, and
 * gives passes their context through the ops table of
 * base/ctx-ops.h.
 */
#ifndef QOPT_CORE_H
#define QOPT_CORE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <qopt/pass.h>

/* ---- the session (core/manager/session.c): what the manager keeps
 * between calls, owned by its caller. Every registry, pipeline and run
 * belongs to one; none of the manager's state is global (but for the
 * signal guard, guard.c, which is the process's by nature). ---- */
typedef struct pm_session pm_session;
/* NULL when out of memory. Free after everything made with it. */
pm_session *pm_session_new(void);
void pm_session_free(pm_session *s);

/* ---- messages (core/manager/log.c) ----------------------------------
 * "qopt: <tag>: warning: ...", "qopt: <tag>: error: ...". tag NULL:
 * "qopt: error: ...". Messages above the session's level are dropped.
 * s NULL: level info, not strict, nothing counted.
 */
void pm_msg_setup(pm_session *s, int max_level, int strict);
struct pm_stage_result;
/* report.c: a record as one JSON object, malloc'd (caller frees); NULL
 * when out of memory. */
char *pm_record_json(const char *kind, const qopt_field *fields, size_t n);
char *pm_stage_counters_str(const struct pm_stage_result *res,
			      char *buf, size_t n);
int pm_msg_level(const pm_session *s);
void pm_msg(pm_session *s, int level, const char *tag, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void pm_vmsg(pm_session *s, int level, const char *tag, const char *fmt,
	     va_list ap);
/* A line as given (BISECT: ..., file:line: ...), through the same sink:
 * after wiping a progress bar, on stderr. */
void pm_msg_line(pm_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Warnings printed so far in the session (each one fails the run under
 * --strict). */
unsigned pm_msg_warnings(const pm_session *s);
/* Wipes a progress bar off the terminal line before other output. */
void pm_msg_clear_bar(pm_session *s);
void pm_msg_set_bar(pm_session *s, int shown);
/* 1 when stderr is a terminal (asked once per session). */
int pm_msg_tty(pm_session *s);

/* ---- suggestions (core/manager/suggest.c) ---- */
size_t pm_edit_distance(const char *a, const char *b);
/* Closest candidate within a distance that still looks like a typo, or
 * NULL. Borrowed from cands. */
const char *pm_suggest(const char *word, const char *const *cands,
			 size_t n);
/* " (did you mean 'x'?)" or "" into buf; returns buf. */
const char *pm_did_you_mean(const char *word, const char *const *cands,
			    size_t n, char *buf, size_t size);
/* The size of buffer pm_did_you_mean needs for a name of up to 200
 * bytes (longer ones are cut). */
#define PM_DID_YOU_MEAN_SIZE 256

/* ---- option values (core/manager/options.c) ---- */
struct pm_value {
	int set;		/* given by the pipeline (not the default) */
	int present;		/* set or defaulted */
	char *text;		/* canonical text (owned), NULL if !present */
	int b;
	int64_t i;
	double f;
	char **items;		/* QOPT_OPT_LIST, owned */
	size_t nitems;
};

const char *pm_opt_type_name(int type);
/* Parses text as spec's type into *v (cleared first). On failure
 * returns -1 with a reason ("expects an integer, got 'x'") in why. */
int pm_value_parse(const qopt_option_spec *spec, const char *text,
		     struct pm_value *v, char *why, size_t n);
void pm_value_clear(struct pm_value *v);
/* What spec accepts beyond its type ("one of: real, fake", "range: 1 to
 * 64") into buf; 0 when nothing more. */
int pm_option_accepts(const qopt_option_spec *spec, char *buf, size_t n);
int pm_parse_bool(const char *s, int *out);

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
/* Where the built-in passes live: the build tree's passes/.libs when
 * this binary runs uninstalled from it, else $(pkglibdir)/passes. */
/* buf (PATH_MAX) holds a DESTDIR-staged folder; else a constant. */
const char *pm_builtin_pass_dir(char *buf, size_t len);
/* Run from the build tree: libqopt's CUDA module search goes to this
 * tree's module (QOPT_CUDA_MODULE, unless the user set it), which is
 * how the library itself stays free of build-tree paths. */
void pm_use_build_tree_modules(void);
/* The build tree's top folder when this qopt runs uninstalled from it,
 * else NULL. */
const char *pm_build_tree(void);
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
/* Reads the plugin's pipeline tables with the plugin's entry sizes into
 * pl (owned there; freed by pm_alias_free_tables). */
int pm_alias_import(const char *path, const qopt_plugin_info *info,
		    struct pm_plugin *pl, qir_error *err);
void pm_alias_free_tables(struct pm_plugin *pl);
/* Options of a pipeline's spec, checked as a pass's are (loader.c). */
int pm_check_option_table(const char *path, const char *what,
			  const char *name, const qopt_option_spec *o,
			  size_t *nopts, qir_error *err);

/* ---- pipelines (core/manager/pipeline.c, pipeline-ini.c,
 * pipeline-print.c) ---- */
struct pm_rawopt {
	char *key, *value;	/* owned */
	/* --passes: the value with each ';' outside quotes turned into
	 * ',', the list separator, for an option of type list (owned; NULL
	 * when it has no such ';'). Other types take value as written. */
	char *list;
	int line;
};

/* The text o gives an option of type spec->type. */
static inline const char *pm_rawopt_text(const struct pm_rawopt *o,
					 const qopt_option_spec *spec)
{
	return o->list && spec->type == QOPT_OPT_LIST ? o->list : o->value;
}

struct pm_stage {
	char *name;		/* owned */
	int line;		/* 0 for --passes */
	struct pm_rawopt *raw;
	size_t nraw;
	/* A step of a named pipeline (pm_pipeline_resolve expands it):
	 * the name the user wrote (owned), else NULL. Stages of one
	 * expansion share group (1-based) and the pipeline's flags. */
	char *from;
	size_t group;
	unsigned from_flags;
	/* after pm_pipeline_resolve: */
	const struct pm_pass *pass;
	struct pm_value *vals; /* one per option spec of the pass */
};

/* [qopt] settings; -1 / NULL = not given. */
struct pm_globals {
	char **plugin_path;	/* absolute or relative to the INI's folder */
	size_t nplugin_path;
	char **load;
	size_t nload;
	int verify_each;
	int strict;
	char *device;
	int64_t external_threshold;
	char *external_name;
	int all_inline;
	/* Opset policy, the same for every pass (qopt_policy_*()). */
	int64_t max_opset;	/* -1: no limit */
	int allow_upgrade;	/* -1: not given (yes) */
};

struct pm_pipeline {
	pm_session *s;		/* where its problems are reported */
	char *file;		/* name for messages: the INI path or "--passes" */
	char *dir;		/* folder relative [qopt] paths start from */
	struct pm_stage *stages;
	size_t nstages;
	struct pm_rawopt *global_raw; /* [qopt] keys as written */
	size_t nglobal;
	struct pm_globals g;
	unsigned nerrors;	/* problems reported so far (pm_pl_error) */
	/* Of those, problems of a plugin's pipeline table found while
	 * expanding it (not the user's to fix). */
	unsigned nplugin_errors;
	unsigned nunknown;	/* of those, unknown passes */
};

void pm_pipeline_init(struct pm_pipeline *p, pm_session *s);
void pm_pipeline_free(struct pm_pipeline *p);
/* Syntax only (passes are not known yet): sections, keys, [qopt].
 * Prints every problem as "qopt: FILE:LINE: ..."; returns the number
 * of problems (0 = fine). */
int pm_pipeline_parse_ini(struct pm_pipeline *p, const char *path);
/* "name[:key=val...][,name...]"; list items inside use ';'. */
int pm_pipeline_parse_inline(struct pm_pipeline *p, const char *spec);
/* Checks stages against the registry, parses every value. Prints
 * problems; returns their number. */
int pm_pipeline_resolve(struct pm_pipeline *p,
			  const struct pm_registry *r);
/* INI text that parses back to the same pipeline. */
/* Prints p as INI that reads back to it; -1 (nothing printed) with the
 * reason in why[n] when a value cannot be written so. */
int pm_pipeline_print(const struct pm_pipeline *p, FILE *f, char *why,
		      size_t n);

/* ---- running a pipeline (core/manager/manager.c, ctx.c, report.c) ---- */
struct pm_run_opts {
	int verify_each;
	int strict;
	int print_after_all;
	int print_changed;
	const char *const *print_after; /* pass names */
	size_t nprint_after;
	int64_t bisect_limit;	/* -1: unlimited */
	int bisect_print;	/* print BISECT: lines */
	int record_points;	/* keep a list of every numbered point */
	qk_device device;
	int threads;
	FILE *ir_out;		/* --print-after* destination */
};

struct pm_counter {
	char *name;
	int64_t value;
};

struct pm_stage_result {
	int ran;		/* 0 when bisect skipped the pass */
	int changed;
	double seconds;
	unsigned warnings;
	uint64_t rewrites;	/* gate said yes */
	uint64_t denied;	/* gate said no (bisect limit) */
	int64_t point;		/* bisect number of this pass run */
	struct pm_counter *counters;
	size_t ncounters;
	char **records;		/* qopt_record: JSON objects (owned) */
	size_t nrecords;
};

struct pm_point {
	int64_t num;
	int is_rewrite;
	size_t stage;
	int64_t pass_point;	/* number of the pass run it belongs to */
	int ran;
	char *desc;		/* rewrite description (owned) or NULL */
};

struct pm_run {
	pm_session *s;		/* the pipeline's */
	const struct pm_pipeline *pl;
	struct pm_run_opts o;
	qk_ctx *kctx;
	int64_t counter;	/* last bisect number handed out */
	struct pm_point *points;
	size_t npoints, cappoints;
	struct pm_stage_result *res;
	double t_load, t_save, t_verify;
	unsigned warnings;
	const char *failed_pass; /* first failure, for reports */
	/* A bisect point or statistic could not be recorded (out of
	 * memory): the run fails after the pass, since a dropped point
	 * would make `qopt bisect` blame the wrong rewrite. */
	int lost_record;
	/* qopt_require_opset: the lowest opset whose upgrade bisect
	 * declined (0: none), so that the run asks the gate once. */
	int64_t opset_declined;
};

/* Values a pass's calibration_targets asked to measure (in the order
 * asked; values borrowed from the model). */
struct pm_want {
	qir_value **values;	/* owned array */
	size_t n, cap;
	/* The model's values by address, to tell one of another model
	 * (pm_calibration_targets frees them). */
	qir_value **own;
	size_t nown, capown;
	int own_ready;
};

struct ctx_ops;
/* The manager's pass context; starts as base/ctx-ops.h's ctx_head. */
struct qopt_ctx {
	const struct ctx_ops *ops;	/* &pm_ctx_ops */
	struct pm_run *run;
	size_t stage;
	const struct pm_stage *st;
	struct pm_stage_result *res;
	/* The pass broke the API contract: the first misuse's status
	 * (QOPT_ENOTFOUND: an undeclared option; QOPT_EUSAGE: read as
	 * another type), QOPT_OK when none. */
	qopt_status misuse;
	qir_model *m;		/* the model the pass runs on */
	unsigned errors;	/* qopt_error() calls */
	unsigned warnings;
	double bar_last;	/* progress throttle */
	int bar_pct;
	/* Set only while calibration_targets runs: qopt_want_range()
	 * fails elsewhere. */
	struct pm_want *want;
};

int pm_run_init(struct pm_run *r, const struct pm_pipeline *pl,
		  const struct pm_run_opts *o, qir_error *err);
/* Verifies m, runs every stage on it, verifies the result and applies
 * --strict to the session's warnings; prints what goes wrong (naming
 * the pass, and r->failed_pass says which when a pass failed) and
 * returns -1 then: the caller must not write an output. */
int pm_run_model(struct pm_run *r, qir_model *m);
void pm_run_fini(struct pm_run *r);
void pm_run_print_stats(const struct pm_run *r, FILE *f);
void pm_run_print_times(const struct pm_run *r, FILE *f);
/* Writes the statistics as JSON to a temporary file beside path and
 * returns it written and synced but not yet in place: the caller
 * commits it once the model is, so a failure leaves neither. */
struct pm_outfile *pm_run_write_stats_json(const struct pm_run *r,
					       const char *path,
					       const char *input,
					       qir_error *err);

/* ---- core/manager/calib-query.c: what `qopt calibrate` measures ---- */

/* Calls calibration_targets of every stage's pass that has one, with
 * the stage's options, on m (which none may change). *want gets the
 * values asked for, in order, duplicates included; *nasked the number
 * of passes asked. -1 after a message naming the pass when one fails
 * or changes m. */
int pm_calibration_targets(struct pm_run *r, qir_model *m,
			   struct pm_want *want, size_t *nasked);

/* ---- core/manager/guard.c: signals, crashes and exit() inside a pass ---- */

/* Installs the handlers (once): SIGINT/SIGTERM/SIGHUP remove the
 * temporary output files and re-raise; a crash or an exit() while a
 * pass runs names the pass. Nonzero when atexit fails. */
int pm_guard_install(void);
/* The pass running now, for those messages (the manager sets it). */
void pm_guard_enter(const char *pass);
void pm_guard_leave(void);
/* A stop signal also ends this child's process group (SIGTERM) and
 * waits for the child before the cleanup; 0: none. */
void pm_guard_child(pid_t pgid);
/* ... and removes these files (at most 2, replacing the last list;
 * n = 0 clears). -1 when a path does not fit (it is not removed). */
int pm_guard_files(const char *const *paths, size_t n);
/* Async-signal-safe: SIGTERM to pid (to its process group with group)
 * and waits for pid. For stop handlers. */
void pm_child_stop(pid_t pid, int group);

/* ---- core/manager/outfile.c: qopt's own outputs, atomically ------ */

/* A temporary file beside path (QIR_EUSAGE when path is there and is
 * not a regular file or a symlink); *fp writes to it. */
typedef struct pm_outfile pm_outfile;
pm_outfile *pm_outfile_open(const char *path, FILE **fp, qir_error *err);
/* Closes *fp, checking every write, and syncs; still temporary. */
int pm_outfile_ready(pm_outfile *o, qir_error *err);
/* Ready, then renamed over its path; frees o either way. */
int pm_outfile_commit(pm_outfile *o, qir_error *err);
/* Removes the temporary file; frees o. NULL is fine. */
void pm_outfile_abort(pm_outfile *o);
double pm_now(void);
/* The gate for a whole pass run (core/manager/gate.c); 1: run it. */
int pm_gate_pass(struct pm_run *r, size_t stage);
/* Ends a progress bar of the context's pass, if one is shown. */
void pm_ctx_finish_progress(qopt_ctx *ctx);
/* The ops behind qopt_may_rewrite() and qopt_progress(). */
int pm_gate_rewrite(qopt_ctx *ctx, const char *desc);
void pm_ctx_progress(qopt_ctx *ctx, uint64_t done, uint64_t total,
		       const char *what);
/* qopt_require_opset() (core/manager/require-opset.c). */
qopt_status pm_ctx_require_opset(qopt_ctx *ctx, int64_t opset,
				 const char *why);
/* The table every manager context points to (core/manager/ctx.c). */
extern const struct ctx_ops pm_ctx_ops;

#endif /* QOPT_CORE_H */

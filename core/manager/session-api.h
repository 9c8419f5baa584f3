/*
 * core/manager/session-api.h - the pass manager as its users see it: the
 * one core/manager header the qopt command line (core/cli) includes.
 * Prefix qm_ (qopt_ is the plugin ABI, qir_/qk_ libqopt, pm_ the
 * manager's own files). See docs/manager-api.md.
 *
 * A qm_session owns a registry (plugins), a pipeline and its last run,
 * as MLIR's PassManager does: qm_parse, qm_load_plugins, qm_resolve,
 * then qm_run_begin / qm_run / qm_run_end. Instrumentation (verify-each,
 * --print-after, --time-passes, --stats, --strict, bisect, the progress
 * bar, calibration) is a set of hooks registered on the session
 * (before / after / after-failed each pass). Every message goes through
 * the session's sink; data (IR prints, listings) to qm_data().
 * Behind it, private headers per concept: msg.h, options.h,
 * registry.h, pipeline.h, run.h, sys.h.
 */
#ifndef QOPT_QM_SESSION_API_H
#define QOPT_QM_SESSION_API_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <qopt/pass.h>

typedef struct qm_session qm_session;
typedef struct qm_outfile qm_outfile;
/* Results of the calls below, the qopt command's exit statuses. */
enum { QM_OK = 0, QM_FAIL = 1, QM_USAGE = 2 };

/* ---- the session and its output ---- */
qm_session *qm_session_new(void);	/* NULL: out of memory */
void qm_session_free(qm_session *s);
/* All text qopt shows goes through fn (default: stderr, after
 * flushing stdout): text is whole lines as written, level QOPT_LOG_*,
 * or QM_LOG_PROGRESS for the progress bar's terminal control. */
#define QM_LOG_PROGRESS (-1)
typedef void qm_sink_fn(void *arg, int level, const char *text);
void qm_set_sink(qm_session *s, qm_sink_fn *fn, void *arg);
/* Structured: qm_msg's messages (the manager's and the passes') go to
 * fn instead of the sink, as tag (NULL or a pass or file name) and the
 * escaped text without prefix or newline, after the level filter;
 * strict: a warning --strict shows as an error. qm_say's text still
 * goes to the sink. fn NULL: back to the sink. */
typedef void qm_diag_fn(void *arg, int level, int strict, const char *tag,
			const char *text);
void qm_set_diag(qm_session *s, qm_diag_fn *fn, void *arg);
/* Messages above max_level are dropped; strict shows warnings as
 * errors. */
void qm_set_verbosity(qm_session *s, int max_level, int strict);
int qm_verbosity(const qm_session *s);
/* "qopt: TAG: error: ..." (tag NULL: "qopt: error: ..."), escaped,
 * filtered by level, counted (warnings). */
void qm_msg(qm_session *s, int level, const char *tag, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* fmt's text as it is (newlines included), never filtered. */
void qm_say(qm_session *s, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "WHO: " and fmt's text, as qm_say ("out of memory" when the text
 * cannot be made). */
void qm_say_as(qm_session *s, int level, const char *who, const char *fmt,
	       ...) __attribute__((format(printf, 4, 5)));
/* Where data goes: stdout unless set. */
FILE *qm_data(const qm_session *s);
void qm_set_data(qm_session *s, FILE *f);

/* ---- plugins and the pipeline ---- */
int qm_parse(qm_session *s, const char *ini_file, const char *passes);
/* INI text as a pipeline (name: what messages call it; relative paths
 * start from the current folder). QM_USAGE after messages. */
int qm_parse_text(qm_session *s, const char *text, const char *name);
/* One more stage: pass with options kv (key, value, ..., NULL; NULL:
 * none), values as INI writes them; starts an empty pipeline when none
 * was parsed. QM_USAGE after a message; QM_FAIL out of memory. */
int qm_add_stage(qm_session *s, const char *pass, const char *const *kv);
/* Where the built-in passes are: NULL the installed folder (the
 * default), "" none. Copied; -1 out of memory. */
int qm_set_builtin_dir(qm_session *s, const char *dir);
/* What qm_set_builtin_dir set (NULL: the installed folder). */
const char *qm_builtin_dir(const qm_session *s);
struct qm_plugins {
	const char *const *dirs;	/* -L, in order */
	size_t ndirs;
	const char *const *files;	/* --load */
	size_t nfiles;
	const char *need;	/* a name to make available (--help-pass) */
	int all;		/* open every plugin found (--list-passes) */
};
/* The built-in passes, QOPT_PLUGIN_PATH, [qopt] plugin_path, dirs,
 * [qopt] load, files; then what the pipeline needs. */
int qm_load_plugins(qm_session *s, const struct qm_plugins *p);
/* A plugin table linked into the program (tests, the pass fuzzer),
 * checked as a loaded one is; name stands for its path. */
int qm_add_plugin_table(qm_session *s, const char *name,
			const qopt_plugin_info *info);
int qm_resolve(qm_session *s);
/* The pipeline's [qopt] settings; -1 / NULL: not given. */
struct qm_settings {
	int verify_each, strict, all_inline;
	const char *device, *external_name;
	int64_t external_threshold;
};
void qm_settings(const qm_session *s, struct qm_settings *g);
const char *qm_pipeline_name(const qm_session *s);
int qm_print_pipeline(const qm_session *s, FILE *f, char *why, size_t n);

/* ---- passes and pipelines of the registry (--list-passes) ---- */
struct qm_entry {
	const char *name, *summary, *plugin, *plugin_path, *version;
	unsigned flags;		/* QOPT_PASS_* */
	const qopt_option_spec *options;
	size_t nopts;
	const qopt_pipeline_step *steps;	/* a pipeline's; else NULL */
	size_t nsteps;
};
size_t qm_npasses(const qm_session *s);
size_t qm_npipelines(const qm_session *s);
void qm_pass_at(const qm_session *s, size_t i, struct qm_entry *e);
void qm_pipeline_at(const qm_session *s, size_t i, struct qm_entry *e);
/* 1 pass, 2 pipeline, 0 unknown. */
int qm_find(const qm_session *s, const char *name, struct qm_entry *e);
#define QM_DID_YOU_MEAN_SIZE 256
const char *qm_did_you_mean(const qm_session *s, const char *name,
			    char *buf);
const char *qm_suggest(const char *word, const char *const *cands, size_t n,
		       char *buf, size_t size);
const char *qm_unknown_pass_hint(void);
const char *qm_opt_type_name(int type);
int qm_option_accepts(const qopt_option_spec *spec, char *buf, size_t n);

/* ---- hooks: instrumentation around each pass ---- */
struct qm_pass_event {
	size_t index;		/* the stage, 0-based */
	const char *name, *from; /* from: the named pipeline, or NULL */
	int last_step;		/* the last step of from's expansion */
	qopt_ctx *ctx;		/* the pass's context */
	int changed;		/* after: the pass changed the IR */
	unsigned warnings;	/* after: warnings it gave */
	int status;		/* after-failed: the pass's status */
};
enum { QM_HOOK_RUN = 0, QM_HOOK_SKIP = 1 };
struct qm_hook {
	/* QM_HOOK_RUN, QM_HOOK_SKIP (not run), -1 (the run fails) */
	int (*before)(void *arg, qm_session *s, const struct qm_pass_event *e,
		      qir_model *m);
	/* 0, or -1: the pass fails (after the message) */
	int (*after)(void *arg, qm_session *s, const struct qm_pass_event *e,
		     qir_model *m);
	void (*after_failed)(void *arg, qm_session *s,
			     const struct qm_pass_event *e, qir_model *m);
	/* qopt_may_rewrite(): 1 allows */
	int (*may_rewrite)(void *arg, qm_session *s,
			   const struct qm_pass_event *e, int64_t point,
			   const char *desc);
	int (*run_end)(void *arg, qm_session *s, qir_model *m); /* -1 fails */
	void (*report)(void *arg, qm_session *s);	/* qm_report() */
	void (*free)(void *arg);
	void *arg;
};
/* Copied; called in the order added until the session ends, then its
 * free runs once. A hook with the free and arg of one already added
 * is refused (QM_USAGE, said: its free would run twice); -1 out of
 * memory. */
int qm_add_hook(qm_session *s, const struct qm_hook *h);
/* The built-in hooks (core/manager/hooks.c); -1 when out of memory. */
int qm_hook_strict(qm_session *s);
int qm_hook_verify_each(qm_session *s);
int qm_hook_print(qm_session *s, int all, int changed,
		  const char *const *names, size_t n);
int qm_hook_stats(qm_session *s);
int qm_hook_time_passes(qm_session *s);
int qm_hook_progress(qm_session *s);
/* Again: new settings. limit -1: every point. */
int qm_hook_bisect(qm_session *s, int64_t limit, int print, int record);
int qm_hook_calibration(qm_session *s);
/* The one-command form (qopt --calibration-data): before each pass that
 * reads a calibration file, the values it asks for on the model as it
 * is at that point go to fn, which measures them and writes a
 * calibration file for that model (its hash as now) at a path it puts
 * in path[pathn]; the pass, and the later steps of its pipeline that
 * take the option, then read that file as option `calibration`. fn
 * returns 0, or -1 (the run fails; fn said why), and leaves m as it
 * was; stage is the asking pass's index (qm_stage_at). A pass that asks
 * for nothing runs as before. Returns how many stages of the pipeline
 * read a calibration file; -1 out of memory; -2
 * when one of them was given calibration= too (*pass names it, *from
 * its pipeline or NULL; nothing registered, nothing said). */
typedef int qm_calibrate_fn(void *arg, qm_session *s, size_t stage,
			    qir_model *m, qir_value *const *values, size_t n,
			    char *path, size_t pathn);
int qm_hook_calibrate(qm_session *s, qm_calibrate_fn *fn, void *arg,
		      const char **pass, const char **from);

/* ---- a run ---- */
int qm_run_begin(qm_session *s, qk_device device, int threads, int query);
/* Verifies m, runs the stages with the hooks, verifies the result;
 * QM_FAIL after messages (qm_failed_pass names a failed pass). A query
 * run (calibration) runs no pass and checks nothing. */
int qm_run(qm_session *s, qir_model *m);
int qm_run_end(qm_session *s);
/* Misuse is QM_USAGE, said, nothing done: qm_run without qm_run_begin;
 * from inside a hook (while qm_run or qm_report calls it), qm_run,
 * qm_run_begin, qm_run_end, qm_parse, qm_load_plugins,
 * qm_add_plugin_table and qm_resolve, which would free what the running
 * call holds. qm_session_free must not be called from a hook. */
const char *qm_failed_pass(const qm_session *s);
enum { QM_TIME_LOAD, QM_TIME_SAVE };
void qm_add_time(qm_session *s, int which, double seconds);
void qm_report(qm_session *s);		/* each hook's report */
struct qm_stage {
	const char *name, *from;
	int ran, changed;
	double seconds;
};
size_t qm_nstages(const qm_session *s);
void qm_stage_at(const qm_session *s, size_t i, struct qm_stage *st);
const char *qm_stage_counters(const qm_session *s, size_t i, char *buf,
			      size_t n);
/* Bisect: points numbered by the last run; point num's pass (-1: the
 * last). 0, or -1 when not recorded. */
int64_t qm_points(const qm_session *s);
struct qm_point {
	int is_rewrite;
	int64_t pass_point;
	const char *pass, *desc;
};
int qm_point_at(const qm_session *s, int64_t num, struct qm_point *p);
/* Calibration: the values the passes asked for (borrowed, in order),
 * the stage that asked for each (*stage, borrowed, indices for
 * qm_stage_at) and how many passes asked. */
qir_value *const *qm_calibration_values(const qm_session *s, size_t *n,
					size_t *nasked, const size_t **stage);
/* The same text, malloc'ed; NULL before a run or out of memory. */
char *qm_stats_json(const qm_session *s, const char *input);
/* --stats-json: written and synced beside path, not yet in place. */
qm_outfile *qm_write_stats_json(const qm_session *s, const char *path,
				const char *input, qir_error *err);

/* ---- the process: files, signals, the clock, the build tree ---- */
qm_outfile *qm_outfile_open(const char *path, FILE **fp, qir_error *err);
int qm_outfile_commit(qm_outfile *o, qir_error *err);
void qm_outfile_abort(qm_outfile *o);
int qm_guard_install(int fatal_too);
/* A stop signal ends pid (its group with group), removes the files
 * (at most 10) and then dir; NULL / 0 clears. -1: a path too long. */
void qm_guard_child(pid_t pid, int group);
int qm_guard_files(const char *const *paths, size_t n, const char *dir);
/* A stop also removes every file of dir (flat) and dir; NULL clears.
 * -1: a path too long. */
int qm_guard_folder(const char *dir);
/* dir's files (flat) and dir removed, errors ignored (tmpdir.c). */
void qm_remove_folder(const char *dir);
double qm_now(void);
void qm_json_str(FILE *f, const char *s);
void qm_fmt_double(char *buf, size_t n, double x);

/* ---- a public session (qopt/session.h, session-pub.c), for libqopt's
 * modules that extend it (core/calib/calib-session.c): the manager's
 * session under it, its settings, a run's preparation and a slot for
 * state that lives as long as it ---- */
typedef struct qopt_session qopt_session;
qm_session *qm_pub_manager(qopt_session *s);
/* The session's thread count, and whether it runs --strict. */
void qm_pub_params(const qopt_session *s, int *threads, int *strict);
/* What a run does before qm_run_begin: the pipeline resolved, the
 * device picked (*dev), the session's hooks added (once). A status,
 * said. */
qopt_status qm_pub_prepare(qopt_session *s, qk_device *dev);
/* ext lives until qopt_session_free, which calls free_fn(ext) first;
 * one per session (a second: QOPT_EUSAGE, said). */
qopt_status qm_pub_attach(qopt_session *s, void *ext,
			  void (*free_fn)(void *ext));
/* The path of the model the session's run is on (a buffer of s whose
 * text each run sets). */
const char *qm_pub_input(qopt_session *s);
/* An error said through the session's diagnostics; code returned. */
qopt_status qm_pub_fail(qopt_session *s, qopt_status code, const char *msg);
/* A new session (the caller frees it) with the settings of parent
 * (plugin folders and files, threads, device, the built-in folder), or,
 * parent NULL, with qm's built-in folder: the sessions a module runs
 * steps in (the plan's candidates). NULL out of memory. */
qopt_session *qm_pub_child(const qopt_session *parent, const qm_session *qm);
/* qopt_session_run_file, but out refers to in's unchanged external data
 * in place (qir_save_opts.link_external: hard links beside out) instead
 * of copying it: for throwaway models only ONNX Runtime reads (the
 * plan's candidates), removed with their folder. in's data files may
 * have more than one link (the earlier runs' links): the caller has
 * loaded in with the default check before the first such run. */
qopt_status qm_pub_run_file_linked(qopt_session *s, const char *in,
				   const char *out);

#endif /* QOPT_QM_SESSION_API_H */

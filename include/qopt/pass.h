/*
 * qopt/pass.h - the plugin contract: what a pass .so exports and the
 * context API it is given. Public, versioned (qopt/version.h; the rules
 * and how to port an ABI 1 plugin are in docs/plugin-abi.md).
 *
 * A plugin declares its tables and ends with QOPT_PLUGIN, which defines
 * the exported entry function (QOPT_PLUGIN_ENTRY_SYMBOL) and records
 * the ABI version and the size of each table entry it was built with:
 *
 *	static const qopt_option_spec my_opts[] = {
 *		{ .name = "block_size", .type = QOPT_OPT_INT,
 *		  .default_value = "16", .help = "elements per block" },
 *		{ .name = NULL }
 *	};
 *	static const qopt_pass_info my_passes[] = {
 *		{ .name = "my-pass", .summary = "does one thing",
 *		  .options = my_opts, .run = my_run },
 *		{ .name = NULL }
 *	};
 *	QOPT_PLUGIN("my-plugin", "1.0", my_passes)
 *
 * (Designated initializers: -Wextra warns about the fields a positional
 * one leaves out, and later ABI minors add fields at the end.)
 *
 * The manager refuses a plugin of another ABI major, or of a newer
 * minor than the running libqopt, naming both versions.
 *
 * A pass's run function rewrites the model in place, asks
 * qopt_may_rewrite() before every single rewrite (bisect), reports
 * through the context, sets *changed, and returns a qopt_status
 * (qopt/status.h, ABI 3.0): QOPT_OK, or the code of what failed, after
 * qopt_error() says why. Any other value than QOPT_OK fails the pass
 * (the manager names the code); warnings do not, and whether --strict
 * turns them into a failure is the manager's decision alone. It never
 * exits the process and never writes files.
 *
 * What a pass may assume when run() is called:
 * - the model verifies (qir_verify): the manager checks the input
 *   before the first pass and refuses it otherwise, and under
 *   --verify-each checks again after every pass. A pass leaves the
 *   model verifying too (the manager fails the run when it does not);
 * - the nodes of every graph are in topological order (producers
 *   first): the load sorts them, and after every pass that changed
 *   the IR (*changed, or a changed hash) the manager re-sorts every
 *   graph, stably (nodes already in order keep it), before the
 *   verifier, --print-after or the next pass look. A pass therefore
 *   need not maintain order: it may append nodes anywhere (qir_node_new
 *   appends) and rewire inputs freely. Within its own run, order is
 *   what the pass made it (call qir_graph_toposort() to walk a sorted
 *   graph again). A real cycle still fails the run, naming the pass
 *   and the nodes;
 * - every value a node produces carries the element type and shape
 *   the file declared or, where it declared none, what inference gives
 *   (qir_model_infer, docs/shape-inference.md), as of the pass's start:
 *   the manager types what the previous pass created. Read them from
 *   the value (dtype, rank, dims) whatever their source; they may
 *   still be unknown (QIR_UNDEFINED, rank -1) where no rule applies.
 *   Values the pass creates are typed only after it ends (or when it
 *   calls qir_model_infer itself);
 * - options have the declared type and satisfy the declared choices
 *   and ranges; reading one the pass did not declare fails the pass;
 * - the model's opset may be raised only within the pipeline policy
 *   (qopt_policy_*), and only with a qopt_may_rewrite() of its own:
 *   qopt_require_opset() (ABI 3.0) does both.
 * Nothing else: not the opset, not that every intermediate value is
 * typed, not which passes ran before.
 *
 * Threads: a context belongs to one run() call. Every qopt_* function
 * taking a qopt_ctx must be called from the thread that run() was
 * called on; a pass that uses threads of its own (the kernels do) calls
 * back into the context only from that thread. The IR is not locked:
 * only one thread may use a model while it changes. Functions that take
 * no qopt_ctx (qir_*, qk_*) may run in different threads on different
 * objects; a qk_ctx is used by one thread at a time (qopt/kernels.h).
 *
 * Strings: every string a qopt_/qir_/qk_ function returns is either
 * borrowed from an object that owns it (valid while that object lives
 * and is not changed; documented "borrowed") or written into a buffer
 * the caller passes (buf, size; truncated to fit, always terminated),
 * or documented as static (constant text such as type names). No
 * function returns a static or thread-local buffer it reuses.
 *
 * More: docs/plugin-abi.md (versions, what may change, porting from
 * ABI 1), docs/graph-forms.md (what each built-in pass emits).
 */
#ifndef QOPT_PASS_H
#define QOPT_PASS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <qopt/ir.h>
#include <qopt/kernels.h>
#include <qopt/status.h>
#include <qopt/version.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QOPT_PLUGIN_ENTRY_SYMBOL "qopt_plugin_entry"
#define QOPT_EXPORT __attribute__((visibility("default")))

typedef enum qopt_opt_type {
	QOPT_OPT_BOOL = 1,	/* yes/no, true/false, on/off, 1/0 */
	QOPT_OPT_INT,		/* decimal int64 */
	QOPT_OPT_FLOAT,		/* double */
	QOPT_OPT_STRING,
	QOPT_OPT_LIST,		/* comma-separated strings (globs...) */
	QOPT_OPT_ENUM,		/* one word of .choices (ABI 2.1) */
} qopt_opt_type;

/* qopt_option_spec.flags (ABI 2.1) */
enum qopt_opt_flags {
	QOPT_OPT_HAS_MIN = 1u << 0,	/* INT/FLOAT: value >= .min */
	QOPT_OPT_HAS_MAX = 1u << 1,	/* INT/FLOAT: value <= .max */
	/* (ABI 3.1) STRING: a file path. Written relative in a pipeline file, the
	 * pass reads it relative to that file's folder (the manager joins
	 * them); on --passes, relative to the current folder. A qopt that
	 * predates the flag ignores it (the path stays as written). */
	QOPT_OPT_PATH = 1u << 2,
	/* (ABI 4.1) INT: a power of two from 2, or 0 (a block or group
	 * size; 0 usually lets the pass choose). The manager checks it
	 * with the range when it reads the pipeline, so --print-pipeline
	 * and bisect refuse a bad value before any pass runs; a 4.1 plugin
	 * loads only into a qopt that checks it. */
	QOPT_OPT_POW2 = 1u << 3,
	/* (ABI 4.4) The pipeline must give this option: the manager refuses
	 * a stage without it when it reads the pipeline, naming the pass and
	 * the option, and --help-pass marks it. It has no default_value (a
	 * table error). A qopt that predates the flag refuses the plugin as
	 * needing 4.4 (every flag bit is checked against what it knows). */
	QOPT_OPT_REQUIRED = 1u << 4,
};

/* Tables grow only at their end, in a new ABI minor; the loader reads
 * each entry with the size the plugin was built with, and fields a
 * plugin's version lacks read as zero. */
typedef struct qopt_option_spec {
	const char *name;	/* NULL ends the table */
	qopt_opt_type type;
	const char *default_value; /* as text; NULL = unset */
	const char *help;
	/* ---- ABI 2.1; zero in a 2.0 plugin, meaning "not checked" ----
	 * The manager checks these before the pass runs (a bad value is a
	 * pipeline error naming file, line and the allowed values), so a
	 * pass reads its options without validating them again. */
	/* ENUM: the allowed words; LIST: if set, the allowed items.
	 * NULL-terminated. --help-pass lists them. */
	const char *const *choices;
	unsigned flags;		/* enum qopt_opt_flags */
	double min, max;	/* inclusive bounds, with HAS_MIN/HAS_MAX */
} qopt_option_spec;

typedef struct qopt_ctx qopt_ctx;

typedef qopt_status (*qopt_pass_run_fn)(qopt_ctx *ctx, qir_model *m,
					int *changed);

enum qopt_pass_flags {
	/* The pass's options name targets: warn when it changes nothing. */
	QOPT_PASS_HAS_TARGETS = 1u << 0,
};

typedef struct qopt_pass_info {
	const char *name;	/* NULL ends the table */
	const char *summary;	/* one line */
	const qopt_option_spec *options; /* NULL-name-terminated, or NULL */
	qopt_pass_run_fn run;
	unsigned flags;
	/* ---- ABI 3.0 ---- */
	/* What `qopt calibrate` must measure for this pass with its options: calls
	 * qopt_want_range() for every value whose range the pass reads from a
	 * calibration file. Must not change m. NULL: the pass reads none. */
	qopt_status (*calibration_targets)(qopt_ctx *ctx, qir_model *m);
} qopt_pass_info;

/* ---- named pipelines (ABI 3.0): a name users write like a pass's,
 * expanding to a sequence of passes (LLVM's default<O2>). ---- */
typedef struct qopt_pipeline_step {
	const char *pass;     /* NULL ends the table; a pass of any loaded plugin */
	/* A BOOL option of the pipeline enabling this step; NULL: always runs. */
	const char *when;
	/* Pipeline options handed to this pass under the same name, NULL-terminated,
	 * or NULL. Each is passed when the user set it or the pipeline's spec has a
	 * default (the pipeline's value wins over the pass's own default). */
	const char *const *forward;
	/* "key=value" options fixed for this step, NULL-terminated, or NULL. */
	const char *const *fixed;
} qopt_pipeline_step;

typedef struct qopt_pipeline_info {
	const char *name;     /* NULL ends the table */
	const char *summary;  /* one line */
	const qopt_option_spec *options; /* what users set on the name, or NULL */
	const qopt_pipeline_step *steps; /* NULL-pass-terminated */
	unsigned flags;       /* QOPT_PASS_HAS_TARGETS: warn when no step changed anything */
} qopt_pipeline_info;

typedef struct qopt_plugin_info {
	/* abi_major stays the first field in every ABI, so a plugin of
	 * any version can be told apart (ABI 1 called it abi_version). */
	uint32_t abi_major;	/* QOPT_ABI_MAJOR */
	uint32_t abi_minor;	/* QOPT_ABI_MINOR */
	uint32_t info_size;	/* sizeof(qopt_plugin_info) */
	uint32_t pass_size;	/* sizeof(qopt_pass_info): stride of passes */
	uint32_t option_size;	/* sizeof(qopt_option_spec): stride of options */
	const char *name;
	const char *version;
	const qopt_pass_info *passes; /* NULL-name-terminated */
	/* ---- ABI 3.0 ---- */
	uint32_t pipeline_size; /* sizeof(qopt_pipeline_info) */
	uint32_t step_size;     /* sizeof(qopt_pipeline_step) */
	const qopt_pipeline_info *pipelines; /* NULL-name-terminated, or NULL */
} qopt_plugin_info;

typedef const qopt_plugin_info *(*qopt_plugin_entry_fn)(void);

/* Defined by the plugin (QOPT_PLUGIN does it), not by libqopt. */
QOPT_EXPORT const qopt_plugin_info *qopt_plugin_entry(void);

/* The entry tail of every plugin: QOPT_PLUGIN("name", "1.0", passes) at
 * file scope, once per plugin. A plugin that also defines named
 * pipelines (ABI 3.0) ends with QOPT_PLUGIN_PIPELINES("name", "1.0",
 * passes, pipelines) instead. */
#define QOPT_PLUGIN_PIPELINES(plugin_name, plugin_version, pass_table,	\
			      pipeline_table)				\
	static const qopt_plugin_info qopt_plugin_info_of_this_plugin = { \
		QOPT_ABI_MAJOR, QOPT_ABI_MINOR,				\
		(uint32_t)sizeof(qopt_plugin_info),			\
		(uint32_t)sizeof(qopt_pass_info),			\
		(uint32_t)sizeof(qopt_option_spec),			\
		(plugin_name), (plugin_version), (pass_table),		\
		(uint32_t)sizeof(qopt_pipeline_info),			\
		(uint32_t)sizeof(qopt_pipeline_step),			\
		(pipeline_table)					\
	};								\
	QOPT_EXPORT const qopt_plugin_info *qopt_plugin_entry(void)	\
	{								\
		return &qopt_plugin_info_of_this_plugin;		\
	}
#define QOPT_PLUGIN(plugin_name, plugin_version, pass_table)		\
	QOPT_PLUGIN_PIPELINES(plugin_name, plugin_version, pass_table, NULL)

/* ---- context: logging (tagged with the pass name) ---- */
enum qopt_log_level {
	QOPT_LOG_ERROR = 0,
	QOPT_LOG_WARN = 1,
	QOPT_LOG_INFO = 2,	/* what the pass did; shown by default */
	QOPT_LOG_DEBUG = 3,	/* shown with -v */
};
void qopt_log(qopt_ctx *ctx, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void qopt_vlog(qopt_ctx *ctx, int level, const char *fmt, va_list ap);
/* Shorthands. A warning counts toward --strict. */
#define qopt_error(ctx, ...) qopt_log((ctx), QOPT_LOG_ERROR, __VA_ARGS__)
#define qopt_warn(ctx, ...) qopt_log((ctx), QOPT_LOG_WARN, __VA_ARGS__)
#define qopt_info(ctx, ...) qopt_log((ctx), QOPT_LOG_INFO, __VA_ARGS__)
#define qopt_debug(ctx, ...) qopt_log((ctx), QOPT_LOG_DEBUG, __VA_ARGS__)
/* 1 under --strict. The manager owns the --strict policy: it shows
 * every warning as an error and fails the pass once it returns (no
 * output is written), so a pass reports with qopt_warn() and does not
 * test this to do the same. Left for a pass that must stop before
 * costly work it would otherwise do anyway. */
int qopt_strict(const qopt_ctx *ctx);
const char *qopt_pass_name(const qopt_ctx *ctx);

/* ---- options: validated by the manager against the spec ---- */
int qopt_opt_bool(qopt_ctx *ctx, const char *name);
int64_t qopt_opt_int(qopt_ctx *ctx, const char *name);
double qopt_opt_float(qopt_ctx *ctx, const char *name);
/* Borrowed; NULL when unset with no default. */
const char *qopt_opt_string(qopt_ctx *ctx, const char *name);
/* ENUM option: index of the value in the spec's choices, -1 when unset
 * with no default (ABI 2.1). qopt_opt_string() gives the word. */
int qopt_opt_enum(qopt_ctx *ctx, const char *name);
/* Borrowed array of *count items (empty list: count 0). */
const char *const *qopt_opt_list(qopt_ctx *ctx, const char *name,
				 size_t *count);
/* 1 when the pipeline set the option explicitly. */
int qopt_opt_is_set(qopt_ctx *ctx, const char *name);

/* ---- pipeline policy: [qopt] settings every pass obeys alike, so the
 * same request gets the same answer whatever other passes run (ABI
 * 2.1). A pass that would raise the model's default-domain opset asks
 * these first, and names the setting when it refuses. ---- */
/* [qopt] max_opset: the highest opset any pass may raise the model to;
 * 0 when the pipeline sets no limit. */
int64_t qopt_policy_max_opset(qopt_ctx *ctx);
/* [qopt] allow_upgrade: 0 when the pipeline forbids raising the opset
 * at all (default 1). */
int qopt_policy_allow_upgrade(qopt_ctx *ctx);
/* ABI 3.0. The pass needs the default-domain opset >= opset (why: "FP8 Q/DQ", used in
 * messages). QOPT_OK: the model is at >= opset now (raised if needed: a bisect
 * point of its own, a real upgrade (qir_model_upgrade_opset), logged and counted
 * "opset upgraded to N"). QOPT_EPOLICY: [qopt] max_opset or allow_upgrade forbid
 * it (an error is logged naming the setting and why). QOPT_ESKIPPED: bisect
 * declined the upgrade (nothing logged; skip what needed it). Other codes: the
 * upgrade failed (logged). On QOPT_OK the IR version is at least the one
 * that opset came with (qir_opset_min_ir_version). */
qopt_status qopt_require_opset(qopt_ctx *ctx, int64_t opset, const char *why);

/* ---- statistics: "nvfp4-weights: 96 weights quantized, 2 skipped
 * (not constant)"; counters print in first-use order ---- */
void qopt_stat_add(qopt_ctx *ctx, const char *counter, int64_t delta);

/* ---- records (ABI 2.4): what a pass judged item by item (fp8-mha:
 * one per attention block), so a user checks a large model without
 * reading logs. --stats-json lists them under the pass as
 * "records": [{"kind": KIND, KEY: VALUE, ...}], in call order. A field
 * whose str is NULL is the number num (null in JSON when not finite),
 * else the string str. kind, keys and strings are copied. ---- */
typedef struct qopt_field {
	const char *key;
	const char *str;
	double num;
} qopt_field;
void qopt_record(qopt_ctx *ctx, const char *kind, const qopt_field *fields,
		 size_t nfields);

/* ---- the rewrite gate (bisect): call before every single rewrite
 * with a description; returns 1 to go ahead, 0 to skip it (leave the
 * IR as if the rewrite did not apply). ---- */
int qopt_may_rewrite(qopt_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- progress: a bar on stderr when it is a terminal ---- */
void qopt_progress(qopt_ctx *ctx, uint64_t done, uint64_t total,
		   const char *what);

/* ---- calibration (ABI 3.0) ---- */
/* Inside calibration_targets only: ask `qopt calibrate` to measure v's range.
 * QOPT_EUSAGE elsewhere. */
qopt_status qopt_want_range(qopt_ctx *ctx, qir_value *v);

/* ---- kernels: the run's kernel context (device choice, threads) ---- */
qk_ctx *qopt_kernels(qopt_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif /* QOPT_PASS_H */

/*
 * core/plan/plan.h - the plan as a module (below the command line,
 * above the manager): the formats `qopt plan` offers (plan-formats.c),
 * the candidate layers with their measurements, the solver
 * (plan-knapsack.h) and what a plan writes (plan-write.c: the INI
 * pipeline and the JSON report). The flow (plan-engine.c) is libqopt's:
 * the candidate layers (plan-layers.c), each format on each layer alone
 * (plan-candidates.c, through sessions of this process: plan-step.c),
 * their measurement through the front end's runner (plan-measure.c),
 * the choice (plan-solve.c). Front ends: `qopt plan`
 * (core/cli/cmd-plan.c) and qopt_session_plan (plan-session.c,
 * <qopt/plan.h>).
 */
#ifndef QOPT_PLAN_PLAN_H
#define QOPT_PLAN_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <qopt/calib.h>
#include "manager/session-api.h"

/* The formats, in this order; bits per weight as ModelOpt counts them
 * (NVFP4: 4 bits + one FP8 scale per 16 = 4.5; MXFP8: 8 + one E8M0 per
 * 32 = 8.25; none: the float weight, counted as 16; hadamard+nvfp4:
 * hadamard-rotate then nvfp4-weights on the layer, 4.5; w4a4: the pass
 * nvfp4 with activations = yes, the weight counted as nvfp4's 4.5, its
 * activation quantized at run time, which stores no weight bits). */
enum { PF_NONE, PF_FP8, PF_NVFP4, PF_MXFP8, PF_HNVFP4, PF_W4A4, PF_INT8,
       PF_COUNT };

struct plan_format {
	const char *name;	/* --formats spelling */
	double bits;
	int quarter_bits;	/* bits x 4, the solver's integer cost */
	const char *pass;	/* NULL: none */
	const char *options;	/* fixed options, INI "key = value" lines */
};
extern const struct plan_format plan_formats[PF_COUNT];

/* The INI reader's longest line (core/manager/pipeline-ini.c: inih's
 * 200-byte buffer less the newline and the NUL). */
#define PLAN_INI_LINE_MAX 198
/* What selects one node by its name alone, exactly (include and
 * exclude, passes/support/targets.h): no other name of the model, such
 * as a value named like the layer, can match it. */
#define PLAN_NODE_KEY "node="

struct plan_layer {
	char *node;		/* the node's name */
	char *key;		/* the include item: PLAN_NODE_KEY node */
	char *op;		/* the node's op_type */
	char *weight;
	int64_t params;
	int holds[PF_COUNT];	/* the format's pass quantized it alone */
	char *why[PF_COUNT];	/* why not (malloc'd), or NULL */
	double score[PF_COUNT], cosine[PF_COUNT], top1[PF_COUNT];
	int cand[PF_COUNT];	/* index in the candidate list, or -1 */
	int pick;		/* the chosen format */
	char *fallback;		/* "nvfp4 -> fp8" note, or NULL */
};

/* The calibration files a plan may write, in this order (p->calib_text). */
enum { PLAN_CALIB_FP8, PLAN_CALIB_INT8, PLAN_CALIB_W4A4, PLAN_NCALIB };

struct plan {
	qm_session *s;		/* where the plan's messages go */
	/* the public session whose settings the steps' sessions take
	 * (qopt_session_plan), or NULL (the qopt command: s's) */
	const qopt_session *parent;
	const char *input, *data, *output, *json, *save_model;
	int fmt[PF_COUNT];	/* --formats in order, nfmt of them */
	size_t nfmt;
	double budget;		/* --effective-bits, or -1 */
	double max_loss;	/* --max-loss, or -1 */
	int verbose, quiet;
	struct plan_layer *layers;
	size_t nlayers;
	int64_t total_params;	/* every candidate's weights */
	int64_t float_params;	/* those of the layers left out of the
				 * plan (float, 16 bits each) */
	char tmp[4096];		/* the temporary folder */
	/* The calibration files beside the INI, named by their sections
	 * (empty: not written): fp8's (PLAN.calib.json) and w4a4's
	 * (PLAN.w4a4.calib.json). Each is for the hash of the model its
	 * pass receives: w4a4's for the input model, fp8's for the model
	 * the [nvfp4] step makes when the plan holds w4a4 layers. */
	char calib_name[1024];
	char w4a4_calib_name[1024];
	/* int8's (PLAN.int8.calib.json): for the model [fp8] makes when the
	 * plan holds fp8 layers, else for the input model. */
	char int8_calib_name[1024];
	/* plan_write_ini: only the sections before this format's, the
	 * steps whose output a later section's file is measured on
	 * (PF_NONE: all). */
	int before_fmt;
	long samples;
	size_t sessions;	/* ORT sessions created */
	double predicted, measured, measured_cos, measured_top1;
	double bits;		/* the plan's effective bits */
	/* --autocast: the low type of everything the quantized sections
	 * leave (NULL: FLOAT stays FLOAT), and --max-float-layers (-1:
	 * none): what TensorRT 11, strongly typed, runs in it. */
	const char *autocast;
	long max_float;
	size_t forced;		/* layers --max-float-layers took off none */
	int64_t unit;		/* the solver's cost unit in quarter bits */
	/* What runs ONNX Runtime's jobs (calibration and the plan's
	 * measurements: qopt/calib.h's runner, which tells them apart by
	 * the job's "candidates"), the front end's. */
	qopt_calib_runner *runner;
	void *runner_arg;
	/* The calibration files the INI names (calib_name,
	 * w4a4_calib_name, int8_calib_name), their text (malloc'd), read
	 * from the temporary folder before it goes; NULL: not written. */
	char *calib_text[PLAN_NCALIB];
};

/* ---- the flow (plan-engine.c) ----
 * p filled as the front end's options say (s, input, data, output: the
 * INI's path, whose name the calibration files' are made from; fmt,
 * budget or max_loss, autocast, max_float, save_model, runner), then
 * plan_run on the input model m (loaded as the front end loads it;
 * plan_run frees it once the layers are found): the layers found,
 * measured, chosen, the plan's model made (written at save_model when
 * set) and measured. QM_OK, QM_FAIL or
 * QM_USAGE after saying why. plan_free frees what p holds. */
void plan_init(struct plan *p, qm_session *s);
int plan_run(struct plan *p, qir_model *m);
void plan_free(struct plan *p);
/* The checks of the options, each said ("qopt plan: error: ...") with
 * QM_USAGE: the formats of a "fp8,none" list into p->fmt (an unknown
 * one or one given twice), the budget against them. */
int plan_parse_formats(struct plan *p, const char *list, char *why, size_t n);
int plan_check_budget(struct plan *p);
int plan_has_format(const struct plan *p, int k);
/* PLAN.ini -> PLAN + suffix (".calib.json") into buf: the name of a
 * calibration file beside the INI; "" out of memory. */
void plan_calib_name(const struct plan *p, const char *suffix, char *buf,
		     size_t n);
/* The name can stand in the INI's "calibration = NAME". */
int plan_ini_value_ok(const char *cname);
/* The closing line: "N layers (...): bits, scores, sessions -> INI". */
void plan_summary(const struct plan *p, char *buf, size_t n);

/* ---- the steps (plan-layers.c, plan-candidates.c, plan-solve.c) ---- */
int plan_find_layers(struct plan *p, qir_model *m);
void plan_progress(struct plan *p, const char *what, size_t done,
		   size_t total);
int plan_make_candidates(struct plan *p, const char *calib, char ***files,
			 size_t *nfiles);
int plan_measure_candidates(struct plan *p, char **files, size_t n);
/* Removes the candidate models (each with its data file and its links
 * to the input's data, PLAN_STEP_LINK) and frees files: once measured,
 * before anything loads the input again, since the input's data files
 * count the links (qir_load_opts.links_ok). */
void plan_drop_candidates(char **files, size_t n);
int plan_solve(struct plan *p);
int plan_bound_float(struct plan *p);
int plan_note_fallbacks(struct plan *p);

/* ---- this process's sessions (plan-step.c) ----
 * Each runs as the qopt command would (`qopt --strict -q --passes SPEC
 * IN -o OUT`, `qopt -p INI IN -o OUT`, `qopt calibrate IN --data DIR
 * --passes P -o OUT`), in a session with the settings of p->s, its
 * messages kept in log (the lines the command would print; malloc'd,
 * freed with plan_log_free) rather than shown. 0 when the step ran,
 * 1 when it failed (log says why), -1 out of memory (said). */
struct plan_log {
	char *text;
	size_t len, cap;
	char *stats;	/* the run's --stats-json text, when asked */
};
/* PLAN_STEP_LINK: out refers to in's unchanged weights in place
 * (qm_pub_run_file_linked), for models only ONNX Runtime reads. */
enum { PLAN_STEP_STRICT = 1, PLAN_STEP_QUIET = 2, PLAN_STEP_STATS = 4,
       PLAN_STEP_LINK = 8 };
int plan_step_passes(struct plan *p, const char *spec, const char *in,
		     const char *out, unsigned flags, struct plan_log *log);
int plan_step_ini(struct plan *p, const char *ini, const char *in,
		  const char *out, unsigned flags, struct plan_log *log);
int plan_step_calibrate(struct plan *p, const char *in, const char *passes,
			const char *out, struct plan_log *log);
void plan_log_free(struct plan_log *log);
/* The first "error:" line of log (qopt's prefix cut) into buf. */
void plan_log_reason(const struct plan_log *log, char *buf, size_t n);
/* The first line of log holding needle ("qopt: " cut) into buf; 0, or
 * -1 when there is none (buf then says so). */
int plan_log_line(const struct plan_log *log, const char *needle, char *buf,
		  size_t n);
/* The counter name of pass stats in log's stats text, summed over the
 * passes that report it; -1 when there is none to read. */
long plan_stat(const struct plan_log *log, const char *name);

/* ---- ONNX Runtime's measurement (plan-measure.c) ----
 * The float model and files[0..n) over p->data, through p->runner in
 * one job: fills nmse, cos, top1 (top1 NaN when no output has rows).
 * 0, or -1 after saying why. */
int plan_measure(struct plan *p, const char *const *files, size_t n,
		 double *nmse, double *cos, double *top1);

/* plan-write.c: 0, or -1 after saying why. */
int plan_write_ini(const struct plan *p, const char *path);
int plan_write_json(const struct plan *p, const char *path);
/* The same texts (malloc'd), or NULL out of memory. */
char *plan_ini_text(const struct plan *p);
char *plan_json_text(const struct plan *p);
/* text at path through qm_outfile (atomic); 0, or -1 after saying why. */
int plan_write_text(const struct plan *p, const char *path, const char *text);
/* A copy of src at dst through qm_outfile (atomic). */
int plan_copy(const struct plan *p, const char *src, const char *dst);

#endif

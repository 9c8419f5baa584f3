/*
 * core/plan/plan.h - the plan as a module (below the command line,
 * above the manager): the formats `qopt plan` offers (plan-formats.c),
 * the candidate layers with their measurements, the solver
 * (plan-knapsack.h) and what a plan writes (plan-write.c: the INI
 * pipeline and the JSON report). The command's flow (core/cli/cmd-plan.c)
 * and its child processes (core/cli/plan-run.c) fill it.
 */
#ifndef QOPT_PLAN_PLAN_H
#define QOPT_PLAN_PLAN_H

#include <stddef.h>
#include <stdint.h>
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

struct plan {
	qm_session *s;
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
};

/* plan-write.c: 0, or -1 after saying why. */
int plan_write_ini(const struct plan *p, const char *path);
int plan_write_json(const struct plan *p, const char *path);
/* A copy of src at dst through qm_outfile (atomic). */
int plan_copy(const struct plan *p, const char *src, const char *dst);

#endif

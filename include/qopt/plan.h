/*
 * qopt/plan.h - a format per layer, chosen by measurement (what
 * `qopt plan` does; docs/plan.md), for programs built on libqopt.
 *
 * Each constant weight of the main graph's MatMul, Gemm, Conv and
 * ConvTranspose nodes is quantized alone in each format offered, the
 * models are measured in ONNX Runtime over the samples through the
 * caller's runner (qopt/calib.h's qopt_calib_runner: libqopt writes a
 * job whose JSON lists "candidates", which tools/qopt-plan.js runs, and
 * calibration jobs, which tools/qopt-calibrate.js runs), and a
 * multiple-choice knapsack picks the format per layer: the least summed
 * score within the effective-bits budget, or the fewest bits within the
 * loss allowed. The result is the INI pipeline, the calibration files
 * it names beside it, and the JSON report `qopt plan --json` writes.
 * Since plugin ABI 4.4.
 */
#ifndef QOPT_PLAN_H
#define QOPT_PLAN_H

#include <stddef.h>
#include <qopt/status.h>
#include <qopt/calib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque: a finished plan. */
typedef struct qopt_plan qopt_plan;

typedef struct qopt_plan_opts {
	unsigned size;		/* sizeof(qopt_plan_opts) */
	const char *samples;	/* the sample folder (`qopt plan --data`) */
	const char *formats;	/* "nvfp4,fp8,none": fallback order */
	double effective_bits;	/* the budget; < 0: not given */
	double max_loss;	/* or the loss allowed; < 0: not given */
	const char *autocast;	/* NULL, "float16" or "bfloat16" */
	long max_float_layers;	/* < 0: no bound */
	/* The INI's path (`-o`): the calibration files are named after
	 * it (PLAN.calib.json ...) and the summary names it. NULL:
	 * MODEL.plan.ini beside the model. Nothing is written there. */
	const char *output;
	/* Where the plan's model is written (atomically), or NULL. */
	const char *save_model;
} qopt_plan_opts;

/* Plans the model at model_path with the session's settings (plugin
 * folders, threads, device; its pipeline is not used). Messages go
 * through the session's diagnostics, as `qopt plan` says them.
 * QOPT_OK with *out (the caller frees it: qopt_plan_free);
 * QOPT_EUSAGE: bad options (said); QOPT_EINVALID: no plan (no layer,
 * no plan within the bound, a step or a measurement failed: said);
 * QOPT_ENOMEM. */
qopt_status qopt_session_plan(qopt_session *s, const char *model_path,
			      const qopt_plan_opts *o,
			      qopt_calib_runner *runner, void *arg,
			      qopt_plan **out);

/* The INI text `qopt plan -o` writes; borrowed until qopt_plan_free. */
const char *qopt_plan_ini(const qopt_plan *p);
/* The JSON text `qopt plan --json` writes; borrowed likewise. */
const char *qopt_plan_report_json(const qopt_plan *p);
/* The closing line `qopt plan` prints (layers per format, effective
 * bits, scores); borrowed likewise. */
const char *qopt_plan_summary(const qopt_plan *p);
/* The calibration files the INI names, to be written beside it: i in
 * [0, count), the file's name and its text (each out may be NULL;
 * borrowed likewise). QOPT_EUSAGE for i out of range. */
size_t qopt_plan_ncalib(const qopt_plan *p);
qopt_status qopt_plan_calib_at(const qopt_plan *p, size_t i,
			       const char **name, const char **text);
/* NULL is a no-op. */
void qopt_plan_free(qopt_plan *p);

#ifdef __cplusplus
}
#endif
#endif /* QOPT_PLAN_H */

/*
 * core/cli/tune.h - `qopt autocast-tune` (docs/autocast.md,
 * "Error-driven"): the nodes of a model that autocast keeps FLOAT
 * chosen by the error the low type adds, measured in ONNX Runtime on
 * the pass's fake form. cmd-autocast-tune.c reads the command line,
 * chooses and writes the keep file; tune-run.c runs the children (qopt
 * itself for the fake model, node with tools/qopt-autocast-tune.js)
 * and reads back what they measured.
 */
#ifndef QOPT_CLI_TUNE_H
#define QOPT_CLI_TUNE_H

#include <stddef.h>
#include "cli/cli.h"

struct tune {
	qm_session *s;
	const char *input, *output, *data, *to;
	const char **opts;	/* --option KEY=VALUE, for [autocast] */
	size_t nopts;
	double max_error;	/* the outputs' normalised MSE */
	double min_cosine;	/* 0: not asked */
	long rounds;		/* measurements after the first */
	int quiet, verbose;
	char tmp[4096];		/* the temporary folder */
	/* the FLOAT model with its tensors exposed (tune_ref; owned): the
	 * same every round, loaded once */
	qir_model *ref;
	/* its tensors over the samples are cached in tmp by the first
	 * measurement's node process; every later one reads them back */
	int ref_cached;
	/* the kept nodes (names owned) and why, in order */
	char **keep, **why;
	size_t nkeep;
	/* the cost: ONNX Runtime sessions (and runs, one per sample) as
	 * the node processes report them, qopt children */
	long calib_runs, ref_sessions, ref_runs, fake_sessions, fake_runs;
	long qopt_runs, samples;
	double t0;
};

/* One measurement of the fake model against FLOAT. */
struct tune_probe {
	qir_model *fake;	/* the fake model as autocast made it */
	qir_value **val;	/* its FLOAT tensors measured */
	double *nmse;		/* each one's error against FLOAT */
	size_t n;
	double out_nmse, out_cosine;	/* the graph outputs' means */
};

/* Runs autocast's fake mode on t->input with the keep list so far and
 * measures it in ONNX Runtime against ref (the file tune_ref wrote):
 * the first call runs the FLOAT model and caches its tensors, later
 * ones reuse them. 0, or -1 after saying why. */
int tune_measure(struct tune *t, const char *ref, struct tune_probe *p);
void tune_probe_free(struct tune_probe *p);
/* The FLOAT model with every FLOAT tensor a graph output, in t->tmp,
 * and loaded into t->ref (the activation ranges measured first). 0, or
 * -1 after saying why. */
int tune_ref(struct tune *t, char *path, size_t n);
/* The tensor the probe's v stands for in the FLOAT model: v, or X when
 * v is X rounded through the low type (Cast(Cast(X, low), FLOAT)). */
qir_value *tune_rounded_from(qir_value *v);
/* A node's name for the keep file: its name, or its first output's. */
const char *tune_node_name(const qir_node *n);

#endif

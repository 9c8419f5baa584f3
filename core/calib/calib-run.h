/*
 * core/calib/calib-run.h - measuring activation ranges for the values
 * passes ask for, through a runner (qopt_calib_runner: the qopt
 * program's spawns node running qopt-calibrate-ort; another front end
 * supplies its own), and writing them as a calibration file or handing
 * them back in memory. One code path for `qopt calibrate`, the
 * one-command form (`qopt MODEL --calibration-data DIR`: a range
 * measured before each pass that asks, on the model as it is then), any
 * other command that calibrates (`qopt plan`) and libqopt's
 * qopt_session_calibrate / qopt_session_calibration.
 *
 * The samples are a's: a->data (a folder), or a->random samples with
 * a->seed and a->dims (a smoke test); reduced by a->method and
 * a->percentile; a->verbose asks the script for ORT's own log.
 * Messages start with who ("qopt calibrate", "qopt: fp8"); errors are
 * said before returning -1 or an exit status (QM_OK, QM_FAIL,
 * QM_USAGE).
 */
#ifndef QOPT_CALIB_RUN_H
#define QOPT_CALIB_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <qopt/calib.h>
#include "manager/session-api.h"

/* What measuring needs to know: filled by the front end (the qopt
 * program from its command line, libqopt from qopt_calib_opts). */
struct calib_settings {
	qm_session *s;
	const char *input;	/* the model's path: messages, the file's "model" */
	const char *data;	/* the sample folder, or NULL: random */
	long random, seed;
	const char *const *dims;	/* NAME=VALUE each, for random samples */
	size_t ndims;
	const char *method;	/* max, percentile, entropy, mse; never NULL */
	double percentile;	/* 100: plain max */
	long ort_timeout;	/* seconds (0: none); -1: $QOPT_ORT_TIMEOUT or the default */
	int verbose;		/* ORT's own log */
	int strict;		/* the one-command form with nothing to measure fails */
	int threads;
	/* A script stopped by ^C ends the process by SIGINT too (the qopt
	 * program: the shell sees 130); else the call fails with
	 * QOPT_EINTERRUPTED. */
	int raise_sigint;
	/* The query run's start: the front end's hooks and its device. An
	 * exit status. */
	int (*begin)(void *arg, qk_device *dev);
	void *begin_arg;
	qopt_calib_runner *runner;
	void *runner_arg;
	const char *runner_name;	/* in messages; NULL: "the runner" */
	/* While runner runs: who asks, the job's folder and the files a
	 * stop signal removes (qm_guard_files), so that a runner that
	 * spawns can add its child's own files to them. */
	const char *who;
	const char *tmpdir;
	const char *const *guard;
	size_t nguard;
	qopt_status failed;	/* the runner's status when it failed */
	void *inline_state;	/* calib_inline_begin's */
};

/* Checks the sample folder a->data (no-op for random samples) before
 * any work: every file one the script can read; out (when not NULL)
 * must not be one of them. An exit status (0 fine). */
int calib_check_samples(struct calib_settings *a, const char *who,
			const char *out);

/* Measures sel[0..n) (values of m; duplicates fine) over the samples:
 * amax[k] (the caller's, n entries) for sel[k], *samples the count; a
 * value that held no element in any sample gets 0, with a warning
 * naming stage[k], the pass that asked for it (qm_stage_at).
 * m is CHANGED (each value exposed as a graph output, values inside If
 * or Loop bodies hoisted): give a copy you may change. model_name names
 * the model in the script's messages. 0, or -1 after saying why
 * (a value inside a Scan, a sample that does not fit the model, the
 * runner failed, a Conv ORT would never return from: calib_ort_refuse,
 * ORT past its bound); -2 for a usage error the script found (--dim
 * naming no dimension of the model) or a malformed $QOPT_ORT_TIMEOUT;
 * a stop signal ends qopt by it (130 for SIGINT) when a->raise_sigint. */
int calib_measure(struct calib_settings *a, const char *who,
		  const char *model_name, qir_model *m, qir_value **sel,
		  const size_t *stage, size_t n, double *amax, long *samples);

/* Writes the calibration file for a model of hash (qir_model_hash of
 * the model the pass will see) at path, atomically; keys from keys[]
 * (qopt_calib_keys, computed before the probe changed the model, each
 * one distinct), types from sel; model_name is the file's "model" (its
 * basename). path "/dev/null" (discard) writes nothing. 0, or -1 after
 * saying why. */
int calib_write(struct calib_settings *a, const char *who, const char *path,
		const char *model_name, uint64_t hash, qir_value **sel,
		char *const *keys, size_t n, const double *amax,
		long samples);

/* What `qopt calibrate` does, for any command: the pipeline already set
 * up in a->s, asked which values its passes read on m (a query run:
 * calls a->begin and registers the calibration hook, so once per
 * session), those measured on m (CHANGED) and written at path
 * ("/dev/null": nothing written) for m's hash as given. An exit
 * status: QM_USAGE when no pass of the pipeline reads a calibration
 * file. */
int calib_pipeline_file(struct calib_settings *a, const char *who,
			qir_model *m, const char *path);
/* The same, the ranges handed back (*out, the caller frees) instead of
 * written. */
int calib_pipeline_ranges(struct calib_settings *a, const char *who,
			  qir_model *m, qopt_calib **out);

/* The one-command form: registers the hook that, before each pass of
 * the pipeline (set up in a->s) that reads a calibration file, measures
 * what it asks for on the model as it is at that point, writes a
 * temporary calibration file and gives it to the pass (and to the later
 * steps of its pipeline) as option `calibration`. Call after the front
 * end's hooks are added; a must live until calib_inline_end. An exit
 * status: QM_USAGE (said) when such a pass was given calibration= too,
 * or when none reads a calibration file and a->strict or [qopt] strict
 * is on (without: a warning and the run goes on). */
int calib_inline_begin(struct calib_settings *a);
/* Removes the temporary files calib_inline_begin's hook made. */
void calib_inline_end(struct calib_settings *a);

#endif

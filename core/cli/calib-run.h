/*
 * core/cli/calib-run.h - measuring activation ranges in ONNX Runtime
 * (the node script qopt-calibrate-ort) for the values passes ask for,
 * and writing them as a calibration file (binary only). One code path
 * for `qopt calibrate`, the one-command form (`qopt MODEL
 * --calibration-data DIR`: a range measured before each pass that asks,
 * on the model as it is then) and any other command that calibrates
 * (`qopt plan`).
 *
 * The samples are a's: a->data (--data / --calibration-data DIR), or
 * a->random samples with a->seed and a->dims (a smoke test); reduced by
 * a->percentile (100: plain max); a->verbose shows ORT's own log.
 * Messages start with who ("qopt calibrate", "qopt: fp8"); errors are
 * said before returning -1 or an exit status.
 */
#ifndef QOPT_CLI_CALIB_RUN_H
#define QOPT_CLI_CALIB_RUN_H

#include <stddef.h>
#include <stdint.h>
#include "cli/cli.h"

/* Checks the sample folder a->data (no-op for random samples) before
 * any work: every file one the script can read; out (when not NULL)
 * must not be one of them. An exit status (0 fine). */
int calib_check_samples(struct cli_opts *a, const char *who,
			const char *out);

/* Measures sel[0..n) (values of m; duplicates fine) over the samples:
 * amax[k] (the caller's, n entries) for sel[k], *samples the count; a
 * value that held no element in any sample gets 0, with a warning
 * naming stage[k], the pass that asked for it (qm_stage_at).
 * m is CHANGED (each value exposed as a graph output, values inside If
 * or Loop bodies hoisted): give a copy you may change. model_name names
 * the model in the script's messages. 0, or -1 after saying why
 * (a value inside a Scan, a sample that does not fit the model, ORT
 * failed, a Conv ORT would never return from: cli_ort_refuse, ORT
 * past its bound: cli_ort_timeout); -2 for a usage error the script
 * found (--dim naming no dimension of the model) or a malformed
 * $QOPT_ORT_TIMEOUT; a stop signal ends qopt by it (130 for SIGINT). */
int calib_measure(struct cli_opts *a, const char *who,
		  const char *model_name, qir_model *m, qir_value **sel,
		  const size_t *stage, size_t n, double *amax, long *samples);

/* Writes the calibration file for a model of hash (qir_model_hash of
 * the model the pass will see) at path, atomically (qm_outfile); keys
 * from keys[] (qopt_calib_keys, computed before the probe changed the
 * model, each one distinct), types from sel; model_name is
 * the file's "model" (its basename). path "/dev/null" (discard) writes
 * nothing. 0, or -1 after saying why. */
int calib_write(struct cli_opts *a, const char *who, const char *path,
		const char *model_name, uint64_t hash, qir_value **sel,
		char *const *keys, size_t n, const double *amax,
		long samples);

/* What `qopt calibrate` does, for any command: the pipeline already set
 * up in a->s (cli_setup), asked which values its passes read on m (a
 * query run: calls cli_run_begin and registers the calibration hook,
 * so once per session), those measured on m (CHANGED) and written at
 * path ("/dev/null": nothing written) for m's hash as given. An exit
 * status: QOPT_EXIT_USAGE when no pass of the pipeline reads a
 * calibration file. */
int calib_pipeline_file(struct cli_opts *a, const char *who, qir_model *m,
			const char *path);

/* The one-command form: registers the hook that, before each pass of
 * the pipeline (set up in a->s) that reads a calibration file, measures
 * what it asks for on the model as it is at that point, writes a
 * temporary calibration file and gives it to the pass (and to the later
 * steps of its pipeline) as option `calibration`. Call after
 * cli_run_begin. An exit status: QOPT_EXIT_USAGE (said) when such a pass
 * was given calibration= too, or when none reads a calibration file and
 * --strict is on (without --strict: a warning and the run goes on). */
int calib_inline_begin(struct cli_opts *a);
/* Removes the temporary files calib_inline_begin's hook made. */
void calib_inline_end(struct cli_opts *a);

#endif

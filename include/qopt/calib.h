/*
 * qopt/calib.h - calibration ranges, in memory and in files: the one
 * owner of the calibration file's format (docs/calibration.md), its
 * reader and its writer, the key of a tensor in it, range queries and
 * merging.
 *
 * For passes (a pass reads the file its `calibration` option names:
 * qopt_calib_read, then qopt_calib_find_value) and for programs built on
 * libqopt (qopt calibrate writes the file; `qopt calibrate --merge`
 * merges files measured on several machines).
 *
 * Errors: the functions that can fail return a qopt_status and, when
 * they take one, fill err (may be NULL) with a message naming the file,
 * the tensor or the field.
 */
#ifndef QOPT_CALIB_H
#define QOPT_CALIB_H

#include <stddef.h>
#include <stdint.h>
#include <qopt/status.h>
#include <qopt/ir.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The histogram's bin count of the methods other than max: the job
 * tells the measuring script, the file records it (results depend on
 * it). */
#define QOPT_CALIB_BINS 4096

/* Opaque: the content of one calibration file. Entries keep the order
 * they were added or read in (the writer writes them in that order). */
typedef struct qopt_calib qopt_calib;

/* ---- files ---- */

/* Reads and parses a calibration file, every field checked (a file of
 * another format or version, a key given twice, a malformed byte: an
 * error with its byte offset). err->msg names the path: "'PATH': WHY"
 * for a malformed file (QOPT_EPARSE; QOPT_EINVALID for a well-formed
 * file that is no calibration), qir_read_file's message for one that
 * cannot be read (QOPT_EIO, QOPT_EUSAGE). */
qopt_status qopt_calib_read(const char *path, qopt_calib **out,
			    qir_error *err);
/* Writes c at path atomically (temp file + rename: the old file stays
 * whole on any failure). */
qopt_status qopt_calib_write(const qopt_calib *c, const char *path,
			     qir_error *err);
/* The file's text, as qopt_calib_write writes it (malloc'd, the caller
 * frees it; *len its length, may be NULL). */
qopt_status qopt_calib_text(const qopt_calib *c, char **out, size_t *len,
			    qir_error *err);
/* NULL is a no-op. */
void qopt_calib_free(qopt_calib *c);

/* ---- in memory ---- */

/* An empty set of ranges for the model of hash (qir_model_hash):
 * model (the model's file name, for people; NULL ""), method (NULL:
 * "max"), percentile (the method percentile's; 100 for max), samples,
 * source (the data folder, or what made the samples; NULL ""). */
qopt_status qopt_calib_new(const char *model, uint64_t hash,
			   const char *method, double percentile,
			   long samples, const char *source,
			   qopt_calib **out);
/* Adds a range: key (a tensor name or a scoped key, qopt_calib_keys),
 * dtype an ONNX element type name ("FLOAT"; "UNDEFINED" where none is
 * known), amax finite and >= 0. A key already there, an amax the file
 * cannot hold or an unknown dtype: QOPT_EINVALID naming it. */
qopt_status qopt_calib_add(qopt_calib *c, const char *key,
			   const char *dtype, double amax, qir_error *err);

const char *qopt_calib_model_hash(const qopt_calib *c);	/* lower-case hex */
const char *qopt_calib_method(const qopt_calib *c);	/* "max", "percentile", ... */
const char *qopt_calib_model(const qopt_calib *c);	/* "" when the file has none */
const char *qopt_calib_source(const qopt_calib *c);	/* "" when the file has none */
double qopt_calib_percentile(const qopt_calib *c);	/* 100 when the file has none */
long qopt_calib_samples(const qopt_calib *c);
size_t qopt_calib_count(const qopt_calib *c);
/* i in [0, count): the key, its dtype name and amax (each out may be
 * NULL). Borrowed until free. QOPT_EUSAGE for i out of range. */
qopt_status qopt_calib_at(const qopt_calib *c, size_t i, const char **key,
			  const char **dtype, double *amax);

/* ---- range queries ---- */

/* By key. QOPT_ENOTFOUND when absent. */
qopt_status qopt_calib_find(const qopt_calib *c, const char *key,
			    double *amax);
/* For a value of the model the file was made for: a tensor of an If
 * branch or a Loop body whose name another graph of the model shares is
 * found by its scoped key (docs/calibration.md). Which names are shared
 * is taken from m at qopt_calib_bind, or at the first query when c was
 * not bound: bind before a pass adds values, since the writer saw the
 * model as the pass received it. QOPT_ENOTFOUND when absent. */
qopt_status qopt_calib_find_value(const qopt_calib *c, const qir_model *m,
				  const qir_value *v, double *amax);
/* Takes the value names of m for qopt_calib_find_value (again: the
 * names as they are now). QOPT_ENOMEM. */
qopt_status qopt_calib_bind(qopt_calib *c, const qir_model *m);

/* The keys of sel[0..n), values of m, as the file writes them (the
 * writer's side of the scheme qopt_calib_find_value reads): keys[k]
 * malloc'd, freed by the caller (qopt_calib_keys_free). On failure
 * (QOPT_ENOMEM) keys[] are all NULL. */
qopt_status qopt_calib_keys(const qir_model *m, qir_value *const *sel,
			    size_t n, char **keys);
void qopt_calib_keys_free(char **keys, size_t n);

/* ---- merging ---- */

/* Merges src into dst: both for the same model hash and both of method
 * "max" (max is associative: files measured on parts of the samples
 * merge into the file of all of them; percentile, entropy and mse are
 * not, and are refused with QOPT_EINVALID saying so). amax = the max
 * of the two, samples add up, keys are unioned (dst's order, then
 * src's new keys), a key's dtype must agree. On failure dst is
 * unchanged. */
qopt_status qopt_calib_merge(qopt_calib *dst, const qopt_calib *src,
			     qir_error *err);


/* ---- measuring: the model run through a runner ----
 *
 * libqopt writes a probe model (the values to measure exposed as graph
 * outputs) and a job file (JSON: the script tools/qopt-calibrate.js
 * reads it) into a private temporary folder and calls the runner, which
 * must run the job so that the file `result` holds what that script
 * writes (docs/calibration.md, "the runner's job and result files").
 * The qopt program's runner is node running qopt-calibrate-ort; another
 * front end may supply its own. timeout_s: the bound on the run
 * (QOPT_ORT_TIMEOUT, else the default for the model's size and the
 * sample count; 0: none). Returns QOPT_OK, or a status with err->msg
 * saying why (empty: the runner said it itself): QOPT_EUSAGE for a
 * problem of the options the job carries (a --dim naming no dimension),
 * QOPT_EINTERRUPTED when the run was stopped. */
typedef struct qopt_session qopt_session;
typedef qopt_status qopt_calib_runner(void *arg, const char *job,
				      const char *result, double timeout_s,
				      qir_error *err);

typedef struct qopt_calib_opts {
	unsigned size;		/* sizeof(qopt_calib_opts) */
	const char *samples;	/* a folder as `qopt calibrate --data` takes, or NULL */
	long random;		/* > 0: that many random samples instead (smoke test) */
	uint64_t seed;		/* of the random samples, < 2^32 */
	const char *dims;	/* random samples: "NAME=VALUE,..." (--dim), or NULL */
	const char *method;	/* max, percentile, entropy, mse; NULL: "max"
				 * (or "percentile" for a percentile below 100) */
	double percentile;	/* 50..100 for method percentile; 0: 100 */
} qopt_calib_opts;

/* What `qopt calibrate` does: the session's pipeline (qopt/session.h)
 * asked which values its passes read on the model at model_path (loaded
 * as a run loads it), those measured through runner, the ranges
 * returned (*out, the caller frees it: qopt_calib_text gives the file
 * qopt calibrate writes). Messages through the session's diagnostics,
 * as `qopt calibrate` says them. QOPT_EUSAGE: bad options, or no pass
 * of the pipeline reads a calibration file; QOPT_EINVALID: the samples
 * or the measurement failed (said); else the runner's status. The
 * session's pipeline is used for this query: run no model with it
 * after. */
qopt_status qopt_session_calibrate(qopt_session *s, const char *model_path,
				   const qopt_calib_opts *o,
				   qopt_calib_runner *runner, void *arg,
				   qopt_calib **out);
/* The one-command form (`qopt --passes fp8 --calibration-data DIR`) for
 * the session's next runs: before each pass that reads a calibration
 * file, what it asks for is measured on the model as it is then,
 * through runner over the sample folder `samples`, and handed to the
 * pass. Once per session, after the pipeline; runner and arg must stay
 * valid until qopt_session_free. QOPT_EUSAGE when such a pass is given
 * calibration= too, or (strict) when no pass reads one. */
qopt_status qopt_session_calibration(qopt_session *s, const char *samples,
				     qopt_calib_runner *runner, void *arg);

#ifdef __cplusplus
}
#endif
#endif /* QOPT_CALIB_H */

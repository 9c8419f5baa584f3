/*
 * passes/support/calib_file.h - the calibration file `qopt calibrate`
 * writes (docs/calibration.md), read for every pass that takes one
 * (fp8, fp8-mha, int8, nvfp4 activations, autocast): one reader, one
 * lookup, in the toolkit, so no pass includes another's files.
 */
#ifndef PASSES_SUPPORT_CALIB_FILE_H
#define PASSES_SUPPORT_CALIB_FILE_H

#include <stddef.h>

#include <qopt/qopt.h>

struct ps_calib_entry {
	char *name;		/* owned */
	double amax;		/* as written; checked when used */
};

struct ps_calib_names;

/* A parsed calibration file. Owned by whoever loaded it. */
struct ps_calib {
	char hash[32];		/* model_hash, lower-case hex */
	struct ps_calib_entry *e;	/* owned, sorted by name */
	size_t n;
	char *method;		/* owned; NULL when the file has none (max) */
	struct ps_calib_names *names;	/* owned; ps_calib_bind */
};

/* calib_file.c. Parses path (a JSON file from `qopt calibrate`); on
 * failure -1 with why (the caller adds the file name), or
 * PS_CALIB_UNREADABLE when the file cannot be read (why names it). */
#define PS_CALIB_UNREADABLE (-2)
int ps_calib_load(const char *path, struct ps_calib **out,
		      char *why, size_t n);
const struct ps_calib_entry *
ps_calib_find(const struct ps_calib *c, const char *name);
void ps_calib_free(struct ps_calib *c);

/* calib_key.c: binds c to the model it was made for (after the hash
 * check, before anything is placed), so that a tensor of a sub-graph
 * whose name another graph shares is looked up by its scoped key
 * (docs/calibration.md). 0, or -1 out of memory. */
int ps_calib_bind(struct ps_calib *c, const qir_model *m);
/* v's entry: by its key once bound, else by its name. */
const struct ps_calib_entry *
ps_calib_find_value(const struct ps_calib *c, const qir_value *v);
void ps_calib_names_free(struct ps_calib_names *ns);

#endif

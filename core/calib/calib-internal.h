/*
 * core/calib/calib-internal.h - the calibration module's own view of a
 * qopt_calib (qopt/calib.h): entries in file order, a hash index by key
 * for the queries, the model's names for scoped keys (calib-key.c).
 */
#ifndef QOPT_CORE_CALIB_INTERNAL_H
#define QOPT_CORE_CALIB_INTERNAL_H

#include <stddef.h>
#include <qopt/calib.h>

#define CAL_BINS QOPT_CALIB_BINS

struct cal_entry {
	char *key;		/* owned */
	char *dtype;		/* owned; NULL when the file gave none */
	double amax;
};

struct cal_names;

struct qopt_calib {
	char hash[32];		/* model_hash, lower-case hex */
	char *model, *method, *source;	/* owned; NULL when absent */
	double percentile;	/* 100 unless the file says */
	long bins;		/* the file's, else CAL_BINS */
	long samples;
	struct cal_entry *e;	/* owned, in file order */
	size_t n, cap;
	size_t *slot;		/* open addressing: index + 1, 0 empty */
	size_t nslot;		/* a power of two, > 2 n */
	struct cal_names *names;	/* owned; qopt_calib_bind */
};

/* calib.c: an empty calibration (hash ""); NULL out of memory. */
struct qopt_calib *cal_alloc(void);
/* Appends key (copied) with dtype (copied, may be NULL): 0, 1 when the
 * key is there already (nothing added), -1 out of memory. */
int cal_append(struct qopt_calib *c, const char *key, const char *dtype,
	       double amax);
/* The index of key, or (size_t)-1. */
size_t cal_lookup(const struct qopt_calib *c, const char *key);
/* The method as the file means it: "max" when absent. */
const char *cal_method(const struct qopt_calib *c);

/* calib-key.c */
void cal_names_free(struct cal_names *ns);

#endif

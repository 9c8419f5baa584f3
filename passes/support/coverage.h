/*
 * passes/support/coverage.h - what fraction of the model a quantizing
 * pass quantized. The pass feeds one entry per candidate weight (its
 * name, elements, bytes, the include pattern that selected it, and the
 * format it got or why it stayed float); the report says the totals per
 * format and per reason, per include pattern the pipeline set, and per
 * repeated structure (the weight's name with its numbered parts
 * replaced by '*': "model.layers.*.mlp.experts.*.w1.weight"), so that
 * 50 GB of expert weights left float are said, not silent.
 */
#ifndef PASSES_SUPPORT_COVERAGE_H
#define PASSES_SUPPORT_COVERAGE_H

#include <stddef.h>
#include <stdint.h>

#include <qopt/qopt.h>

#include "skip.h"
#include "targets.h"

struct ps_cov_item;

struct ps_coverage {
	const char *what;		/* "weight" (static), for messages */
	/* what the pass does and what is left (static): "quantized" and
	 * "left float" by default; hadamard-rotate: "rotated", "not
	 * rotated" (set after ps_coverage_init) */
	const char *verb, *left;
	const struct ps_targets *tg;	/* borrowed: include's patterns */
	struct ps_cov_item *v;		/* owned */
	size_t n, cap;
	size_t *slot, nslot;		/* owned: name hash -> index + 1 */
	int oom;			/* an entry was lost: said in the report */
};

/* Lines of repeated-structure groups the report prints at most. */
#define PS_COV_GROUP_LINES 8
/* Names a --strict warning lists per pattern at most. */
#define PS_COV_NAMES 3

/* tg may be NULL (no patterns). Nothing to free until the first add. */
void ps_coverage_init(struct ps_coverage *c, const struct ps_targets *tg,
		      const char *what);
void ps_coverage_fini(struct ps_coverage *c);

/* One candidate, once: a name added before keeps its first outcome (a
 * weight two consumers reach is counted once). pattern: the index of the include pattern that
 * selected it (ps_globs_match), -1 for none. format: what it became
 * ("nvfp4", "fp8", ...; static), or NULL when skipped, then skip says
 * why (its kind and sentence are copied). A weight the targets leave
 * alone (not included, excluded, op type, below min_size) counts in
 * the totals but never against a pattern. Out of memory loses the
 * entry and is said by the report. */
void ps_coverage_add(struct ps_coverage *c, const char *name, uint64_t numel,
		     uint64_t nbytes, int pattern, const char *format,
		     const struct ps_skip *skip);

/* Elements and bytes of v: its constant when it has one, else its
 * declared static shape; 0 and 0 when unknown. */
void ps_coverage_size(const qir_value *v, uint64_t *numel, uint64_t *nbytes);

/* The group key of name into buf (truncated to fit): every run of
 * digits that is a whole part of the name (no letter either side) is
 * '*'. "layers.12.experts.3.w1" -> "layers.*.experts.*.w1". */
void ps_coverage_group_key(const char *name, char *buf, size_t size);

/* Weights counted for include pattern p (the targets' own refusals
 * aside) and how many of them were quantized. */
void ps_coverage_pattern(const struct ps_coverage *c, int p,
			 uint64_t *matched, uint64_t *quantized);

/* A repeated structure: the candidates sharing a group key. */
struct ps_cov_group {
	const char *key;	/* borrowed from c */
	uint64_t members, quantized, bytes;
	/* members no include pattern matched (ps_skip_not_included), and
	 * the first of them (borrowed) */
	uint64_t missed;
	const char *missed_name;
};
/* The groups of more than one member, in the report's order: those
 * not all quantized first, then by bytes, members, key. *out is the
 * caller's to free(). 0, or -1 when out of memory. */
int ps_coverage_groups(const struct ps_coverage *c, struct ps_cov_group **out,
		       size_t *nout);

/* Says it all through ctx: info lines "coverage: ...", the counters
 * "candidate weights", "candidate bytes", "FORMAT weights", "FORMAT
 * bytes", "float weights left", "float bytes left", a record per
 * pattern ("coverage-pattern") and group ("coverage-group"), and a
 * warning per include pattern the pipeline set that matched weights it
 * quantized fewer than all of, and per group of which the pattern
 * the pipeline set quantized some members and matched not others (an
 * expert the pattern misses), so --strict fails. Nothing when no
 * candidate was added. */
void ps_coverage_report(qopt_ctx *ctx, const struct ps_coverage *c);

#endif

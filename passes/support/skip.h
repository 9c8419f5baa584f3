/*
 * passes/support/skip.h - why a pass leaves a candidate alone: a kind
 * (the statistics counter and how loudly to say it) and a sentence.
 * The kinds several passes share are defined here, so that the same
 * refusal reads the same in every pass; a pass defines its own beside
 * them. A pass decides by the kind's level, never by its counter text.
 */
#ifndef PASSES_SUPPORT_SKIP_H
#define PASSES_SUPPORT_SKIP_H

#include <qopt/qopt.h>

enum ps_skip_level {
	PS_SKIP_INFO = 0,	/* said as info */
	PS_SKIP_QUIET,		/* not asked for (targets): debug only */
	PS_SKIP_WARN		/* the user asked for it and it cannot be done:
				 * a warning, so --strict fails the run */
};

struct ps_skip_kind {
	const char *counter;	/* "skipped (K odd)" */
	int level;		/* enum ps_skip_level */
};

struct ps_skip {
	const struct ps_skip_kind *kind;	/* NULL: not skipped */
	char why[512];
};

/* Shared kinds (skip.c). */
extern const struct ps_skip_kind ps_skip_not_included, ps_skip_excluded,
	ps_skip_op_type, ps_skip_below_min_size, ps_skip_empty,
	ps_skip_not_float, ps_skip_not_constant, ps_skip_nonfinite,
	ps_skip_unreadable, ps_skip_layout, ps_skip_shared,
	ps_skip_k_disagree, ps_skip_bisect, ps_skip_activation,
	ps_skip_quantized, ps_skip_fake_quantized;

/* Sets s to kind with a sentence. */
void ps_skip_set(struct ps_skip *s, const struct ps_skip_kind *kind,
		 const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same, unless s already holds a skip (the first reason wins). */
void ps_skip_first(struct ps_skip *s, const struct ps_skip_kind *kind,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Counts s's counter and says "WHAT 'NAME' COUNTER: WHY" at its level. */
void ps_skip_report(qopt_ctx *ctx, const struct ps_skip *s, const char *what,
		    const char *name);

#endif

/*
 * passes/support/targets.h - target selection: which nodes and weights
 * a pass rewrites, from the options users write the same way in every
 * pass that has them:
 *   include  = GLOB,...  (LIST) names to rewrite; a node or weight is
 *              in when a glob matches any of the names the pass offers
 *              for it (the node's, the weight's, ...); node=NAME: the
 *              node named exactly NAME, its name alone (no glob)
 *   exclude  = GLOB,...  (LIST) names to leave alone (wins)
 *   op_types = OP,...    (LIST) consumer op types
 *   min_size = N         (INT)  fewer elements: left alone
 * A pattern the pipeline set that matched nothing is a warning (so a
 * misspelt name does not pass silently, and --strict fails the run).
 */
#ifndef PASSES_SUPPORT_TARGETS_H
#define PASSES_SUPPORT_TARGETS_H

#include <stddef.h>
#include <stdint.h>

#include <qopt/qopt.h>

struct ps_globs {
	const char *option;		/* "include" (static) */
	const char *const *pat;		/* borrowed from the context */
	size_t n;
	uint64_t *hits;			/* per pattern (owned) */
	int set;			/* the pipeline set the option */
	/* Per pattern without a hit yet: the nearest name offered
	 * (suggest.h; owned copies, NULL none) and its score. */
	char **near;
	size_t *near_score;
};

struct ps_targets {
	struct ps_globs include, exclude;
	const char *const *op_types;	/* borrowed */
	size_t nop_types;
	int64_t min_size;
};

/* Which of the options above the pass declares. */
#define PS_TARGET_INCLUDE 1u
#define PS_TARGET_EXCLUDE 2u
#define PS_TARGET_OP_TYPES 4u
#define PS_TARGET_MIN_SIZE 8u
#define PS_TARGET_ALL 15u

/* Reads the options of `which` from ctx (the others read as empty,
 * min_size 0). 0, or -1 when out of memory (reported).
 * ps_targets_fini frees what it holds either way. */
int ps_targets_init(struct ps_targets *t, qopt_ctx *ctx, unsigned which);
void ps_targets_fini(struct ps_targets *t);

/* Index of the first pattern of g matching any of names (NULL or ""
 * names are ignored), or -1. Every pattern that matches counts a hit.
 * names[0] is the candidate node's name: a pattern PS_NODE_PREFIX NAME
 * is compared with it alone, exactly. */
#define PS_NODE_PREFIX "node="
int ps_globs_match(struct ps_globs *g, const char *const *names,
		   size_t nnames);
/* 1 when op is one of t's op_types. */
int ps_targets_op(const struct ps_targets *t, const char *op);

/* Warns for every pattern of an option the pipeline set that matched
 * nothing: "include pattern 'X' matches no WHAT", with the nearest name
 * offered to it (" (did you mean 'NAME'?)") when one is near. */
void ps_targets_report(qopt_ctx *ctx, const struct ps_targets *t,
		       const char *what);

#endif

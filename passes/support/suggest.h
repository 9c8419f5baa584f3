/*
 * passes/support/suggest.h - near names for a target pattern that
 * matched nothing ("did you mean '/lm_head/MatMul'?"). The manager has
 * its own suggester for pass names (core/manager/suggest.c), but passes
 * must not call up into the manager: this is the passes' small one.
 */
#ifndef PASSES_SUPPORT_SUGGEST_H
#define PASSES_SUPPORT_SUGGEST_H

#include <stddef.h>

/* How near name is to glob pattern pat, lower is nearer: 0 when pat's
 * literal part (pat without * ? [ ], 3 bytes or more) is a substring
 * of name (users write "lm_head" for "/lm_head/MatMul"), 1 + the edit
 * distance to the nearest part of name when that is at most a third of
 * the literal's length (a typo: "lm_haed"), else (size_t)-1. */
size_t ps_near_score(const char *pat, const char *name);

/* Optimal string alignment distance (Levenshtein plus adjacent
 * transpositions) from a to b, or with within to the nearest substring
 * of b; (size_t)-1 for strings over 255 bytes. */
size_t ps_edit_distance(const char *a, const char *b, int within);

#endif

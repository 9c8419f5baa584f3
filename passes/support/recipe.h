/*
 * passes/support/recipe.h - a weight's deferred recipe
 * (qir_tensor_new_deferred), written once for every pass.
 *
 * A pass's recipe is its own struct whose first member is a struct
 * ps_recipe: the weight's name for messages, the run's device (kept
 * when the recipe is made: the fill runs after the pass returned, see
 * device.h) and the pass's run function. The fill around it is shared:
 * it reads the input's bytes, opens a kernel context on the device for
 * this one fill, calls run, frees the context, tells the source's
 * mapping its pages are done with (a hint), and turns a kernel code
 * into the message "weight 'W': STEP failed: REASON".
 */
#ifndef PASSES_SUPPORT_RECIPE_H
#define PASSES_SUPPORT_RECIPE_H

#include <stddef.h>

#include <qopt/qopt.h>

struct ps_recipe;

/* Writes every output of the recipe into dst from src, the bytes of
 * its input in. kc: ps_recipe_kernels' context on r's device (NULL: the
 * CPU on this thread). 0; a kernel code, with *step naming what failed;
 * or -1 with err set. */
typedef int (*ps_recipe_run_fn)(struct ps_recipe *r, qk_ctx *kc,
				const qir_tensor *in, const void *src,
				void *const *dst, const char **step,
				qir_error *err);

struct ps_recipe {
	ps_recipe_run_fn run;
	void (*fini)(struct ps_recipe *r); /* the pass's part, or NULL */
	char *name;		/* the weight, for messages (owned) */
	qk_device dev;		/* ps_recipe_device when made */
};

/* A zeroed recipe of size bytes (the pass's struct, ps_recipe first)
 * for the weight called name, on ctx's device (NULL ctx: the CPU).
 * NULL when out of memory. */
void *ps_recipe_new(qopt_ctx *ctx, size_t size, const char *name,
		    ps_recipe_run_fn run, void (*fini)(struct ps_recipe *));
/* fini, then the name and r itself (a struct ps_recipe, or the pass's
 * struct starting with one); NULL: nothing. */
void ps_recipe_free(void *r);
/* The nout deferred tensors r fills (out[], caller owns each) from src:
 * a shared view of it (qir_tensor_share) when own is 0, src itself
 * when own is 1 (an evaluated constant the caller hands over). Takes r,
 * and src when own, on failure too. 0, or -1 with err set. */
int ps_recipe_defer(qir_model *m, struct ps_recipe *r, qir_tensor *src,
		    int own, const qir_tensor_spec *specs, size_t nout,
		    qir_tensor **out, qir_error *err);
/* Makes the initializer v a recipe of its own name, type and shape
 * that reads the bytes v holds now (a fake-quantized weight: the same
 * size, computed by the writer straight into the output, no copy in
 * the heap or the spill file). The value keeps its place among the
 * initializers, its name and its uses; its old tensor is freed, the
 * recipe reading a shared view of it (qir_tensor_share: external and
 * inline bytes are not copied); the new tensor keeps the old one's
 * doc_string and metadata (qir_tensor_keep_fields). Takes r, on failure
 * too. 0, or -1 with
 * err set and v unchanged. */
int ps_recipe_replace(qir_model *m, struct ps_recipe *r, qir_value *v,
		      qir_error *err);

#endif

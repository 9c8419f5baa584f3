/*
 * passes/support/recipe.c - a weight's deferred recipe (recipe.h).
 */
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "recipe.h"

void *ps_recipe_new(qopt_ctx *ctx, size_t size, const char *name,
		    ps_recipe_run_fn run, void (*fini)(struct ps_recipe *))
{
	struct ps_recipe *r = calloc(1, size);

	if (!r)
		return NULL;
	r->name = strdup(name);
	if (!r->name) {
		free(r);
		return NULL;
	}
	r->run = run;
	r->fini = fini;
	r->dev = ctx ? ps_recipe_device(ctx) : QK_DEVICE_CPU;
	return r;
}

void ps_recipe_free(void *state)
{
	struct ps_recipe *r = state;

	if (!r)
		return;
	if (r->fini)
		r->fini(r);
	free(r->name);
	free(r);
}

static int recipe_fill(void *state, qir_tensor *const *in, size_t nin,
		       void *const *dst, qir_error *err)
{
	struct ps_recipe *r = state;
	const void *src = qir_tensor_data(in[0], err);
	const char *step = "kernel";
	qk_ctx *kc;
	int rc;

	(void)nin;
	if (!src)
		return -1;
	kc = ps_recipe_kernels(r->dev);
	rc = r->run(r, kc, in[0], src, dst, &step, err);
	qk_ctx_free(kc);
	/* The recipe read its source once: its pages can go. */
	(void)qir_tensor_advise(in[0], QIR_ADVISE_DONE, NULL);
	if (rc > 0)
		return qir_fail(err, QIR_EINVALID, "weight '%s': %s failed: %s",
				r->name, step, qk_strerror(rc));
	return rc ? -1 : 0;
}

static const qir_recipe_ops recipe_ops = { recipe_fill, ps_recipe_free };

int ps_recipe_defer(qir_model *m, struct ps_recipe *r, qir_tensor *src,
		    int own, const qir_tensor_spec *specs, size_t nout,
		    qir_tensor **out, qir_error *err)
{
	qir_tensor *in = own ? src : qir_tensor_share(m, src, err);

	if (!in) {
		ps_recipe_free(r);
		return -1;
	}
	return qir_tensor_new_deferred(m, &recipe_ops, r, &in, 1, specs, nout,
				       out, err) ? -1 : 0;
}

int ps_recipe_replace(qir_model *m, struct ps_recipe *r, qir_value *v,
		      qir_error *err)
{
	qir_tensor *old = v->init, *out = NULL;
	const qir_tensor_spec spec = { v->name, old->dtype, old->rank,
				       old->dims };

	if (ps_recipe_defer(m, r, old, 0, &spec, 1, &out, err))
		return -1;
	/* Nothing else points at the tensor: the value owns it. Its
	 * doc_string and metadata stay with the weight. */
	qir_tensor_keep_fields(out, old);
	v->init = out;
	qir_tensor_free(old);
	return 0;
}

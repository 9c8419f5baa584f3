/*
 * util.c - helpers of the cast-fold pass: scale conversion with range
 * checks, node cloning, output take-over that keeps value names.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cast_fold.h"
#include "../support/cleanup.h"
#include "../support/fail.h"

qir_tensor *cast_fold_const_f32(qir_value *v)
{
	qir_tensor *t = v ? qir_value_const(v) : NULL;

	return t && t->dtype == QIR_FLOAT ? t : NULL;
}

qir_tensor *cast_fold_convert_scale(struct cast_fold_state *s, qir_tensor *t,
			     const char *name, const char *newname, int dtype)
{
	uint64_t i, n = qir_tensor_numel(t);
	qir_error err = { 0 };
	/* Tensor bytes may sit at any address (ir.h): read by memcpy. */
	const unsigned char *src = qir_tensor_data(t, &err);
	qir_tensor *out;
	uint16_t *dst;

	if (!src && n) {
		if (s->report)
			qopt_warn(s->ctx, "scale '%s': %s", name, err.msg);
		return NULL;
	}
	out = qir_tensor_new(newname, dtype, t->rank, t->dims, &err);
	if (!out) {
		if (s->report)
			qopt_warn(s->ctx, "scale '%s': %s", name, err.msg);
		return NULL;
	}
	dst = qir_tensor_mutable_data(out, &err);
	if (!dst && n) {
		qopt_error(s->ctx, "scale '%s': %s", name, err.msg);
		qir_tensor_free(out);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		float f, x;

		memcpy(&x, src + i * sizeof(x), sizeof(x));
		dst[i] = dtype == QIR_FLOAT16 ? qk_f32_to_f16(x) :
			 qk_f32_to_bf16(x);
		f = dtype == QIR_FLOAT16 ? qk_f16_to_f32(dst[i]) :
		    qk_bf16_to_f32(dst[i]);
		if (!isfinite(f) || f == 0.0f) {
			if (s->report)
				qopt_warn(s->ctx, "scale '%s'[%llu] = %g is %s in %s; "
				  "not folded", name, (unsigned long long)i,
				  (double)x, f == 0.0f ? "zero" :
				  "not finite", qir_dtype_name(dtype));
			qir_tensor_free(out);
			return NULL;
		}
	}
	return out;
}

qir_node *cast_fold_clone_node(qir_node *n, qir_node *before)
{
	qir_node *c = qir_node_new(n->graph, n->op_type, n->domain, n->name);
	size_t i;

	if (!c)
		return NULL;
	qir_node_move_before(c, before);
	for (i = 0; i < n->ninputs; i++)
		if (qir_node_add_input(c, n->inputs[i]) < 0)
			goto fail;
	for (i = 0; i < n->nattrs; i++)
		if (qir_node_copy_attr(c, &n->attrs[i], NULL) < 0)
			goto fail;
	for (i = 0; i < n->noutputs; i++)
		if (!qir_node_add_output(c, NULL, n->outputs[i] ?
					 n->outputs[i]->name : "unused"))
			goto fail;
	return c;
fail:
	/* Its outputs are new and unused, so erasing it cannot fail. */
	if (qir_node_erase(c, NULL) < 0)
		return NULL;
	return NULL;
}

int cast_fold_set_type_like(qir_value *v, int dtype, const qir_value *like)
{
	int64_t dims[16];
	int r, rank = like ? like->rank : -1;

	if (rank > 16)
		rank = -1;
	for (r = 0; r < rank; r++) {
		if (like->dims[r].value < 0) {
			rank = -1;	/* symbolic: keep the type only */
			break;
		}
		dims[r] = like->dims[r].value;
	}
	return qir_value_set_type(v, dtype, rank, rank > 0 ? dims : NULL,
				  NULL);
}

int cast_fold_take_over(struct cast_fold_state *s, qir_node *n, qir_value *old,
		 qir_value *repl)
{
	qir_error err = { 0 };
	char *name = strdup(old->name);

	if (!name)
		return -1;
	if (qir_value_replace_all_uses(old, repl) < 0) {
		ps_fail(s->ctx, QOPT_ENOMEM, "out of memory moving the uses of '%s'",
			   old->name);
		free(name);
		return -1;
	}
	if (qir_node_erase(n, &err) < 0) {
		ps_fail(s->ctx, err.code, "%s", err.msg);
		free(name);
		return -1;
	}
	/* Consumers and graph outputs keep seeing the same name. */
	if (qir_value_rename(repl, name, &err) < 0)
		qopt_debug(s->ctx, "kept name '%s': %s", repl->name, err.msg);
	free(name);
	return 0;
}

int cast_fold_follow(const qir_node *p, void *arg)
{
	(void)arg;
	return qir_node_is(p, "DequantizeLinear") || qir_node_is(p, "Constant");
}

void cast_fold_drop_if_unused(qir_value *v)
{
	/* The conditions are removal's only reasons to fail. */
	(void)ps_drop_unused_initializer(v, NULL);
}

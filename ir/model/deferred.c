/*
 * ir/model/deferred.c - tensors whose bytes are a recipe (qir_recipe_ops)
 * until someone reads them.
 *
 * A pass that transforms weights would otherwise compute every result
 * during the pass and park it (in the heap or the spill file) until the
 * save copies it to the output: each byte written twice. A recipe holds
 * what is needed to compute its outputs later (its inputs, owned, and
 * the pass's state) and is shared by its output tensors, so that one
 * evaluation fills all of them (a quantizer's codes, block scales and
 * global scale come from one pass over the weight). Readers evaluate it
 * into owned bytes (ir_deferred_materialize); the writer evaluates it
 * into the output's data file and leaves the tensors deferred
 * (ir_deferred_write), so a model saved twice (bisect) computes twice
 * rather than holding results.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "model/internal.h"

struct ir_recipe {
	pthread_mutex_t lock;	/* one evaluation at a time */
	size_t refs;		/* tensors listed in tensors */
	qir_tensor *tensors;	/* via ir_tensor_priv.recipe_next */
	qir_model *m;
	const qir_recipe_ops *ops;
	void *state;
	qir_tensor **inputs;
	size_t ninputs;
	size_t nout;
	uint64_t *nbytes;	/* of each output */
};

/* Spilling a reader's result pays from this size on (as the passes'). */
#define DEFERRED_SPILL_MIN (64u << 10)

static void recipe_free(struct ir_recipe *r)
{
	if (r->ops && r->ops->free_state)
		r->ops->free_state(r->state);
	for (size_t i = 0; i < r->ninputs; i++)
		qir_tensor_free(r->inputs[i]);
	free(r->inputs);
	free(r->nbytes);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

static void attach(struct ir_recipe *r, qir_tensor *t, size_t out)
{
	struct ir_tensor_priv *p = QIR_TPRIV(t);

	p->recipe = r;
	p->recipe_out = out;
	p->recipe_next = r->tensors;
	r->tensors = t;
	r->refs++;
	t->storage = QIR_STORE_OWNED;
}

/* Unlinks t; the caller holds r->lock. 1 when r has no tensor left. */
static int unlink_locked(struct ir_recipe *r, qir_tensor *t)
{
	qir_tensor **pp = &r->tensors;

	while (*pp && *pp != t)
		pp = &QIR_TPRIV(*pp)->recipe_next;
	if (*pp)
		*pp = QIR_TPRIV(t)->recipe_next;
	QIR_TPRIV(t)->recipe = NULL;
	QIR_TPRIV(t)->recipe_next = NULL;
	return --r->refs == 0;
}

void ir_deferred_detach(qir_tensor *t)
{
	struct ir_recipe *r = t->priv ? QIR_TPRIV(t)->recipe : NULL;
	int last;

	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	last = unlink_locked(r, t);
	pthread_mutex_unlock(&r->lock);
	if (last)
		recipe_free(r);
}

int qir_tensor_new_deferred(qir_model *m, const qir_recipe_ops *ops,
			    void *state, qir_tensor **inputs, size_t ninputs,
			    const qir_tensor_spec *specs, size_t nout,
			    qir_tensor **out, qir_error *err)
{
	struct ir_recipe *r = calloc(1, sizeof(*r));
	size_t i;

	if (r) {
		r->inputs = calloc(ninputs ? ninputs : 1, sizeof(*r->inputs));
		r->nbytes = calloc(nout ? nout : 1, sizeof(*r->nbytes));
	}
	if (!r || !r->inputs || !r->nbytes) {
		if (r) {
			free(r->inputs);
			free(r->nbytes);
		}
		free(r);
		for (i = 0; i < ninputs; i++)
			qir_tensor_free(inputs[i]);
		if (ops && ops->free_state)
			ops->free_state(state);
		return qir_fail(err, QIR_ENOMEM, "out of memory");
	}
	pthread_mutex_init(&r->lock, NULL);
	r->m = m;
	r->ops = ops;
	r->state = state;
	r->ninputs = ninputs;
	r->nout = nout;
	for (i = 0; i < ninputs; i++)
		r->inputs[i] = inputs[i];
	for (i = 0; i < nout; i++)
		out[i] = NULL;
	if (!ops || !ops->fill || !nout) {
		qir_fail(err, QIR_EUSAGE,
			 "qir_tensor_new_deferred: no fill function or no output");
		goto fail;
	}
	for (i = 0; i < nout; i++) {
		const qir_tensor_spec *s = &specs[i];

		if (s->dtype == QIR_STRING) {
			qir_fail(err, QIR_EUSAGE, "tensor '%s': STRING tensors "
				 "cannot be deferred", s->name ? s->name : "");
			goto fail;
		}
		out[i] = ir_tensor_shell(s->name, s->dtype, s->rank, s->dims,
					 err);
		if (!out[i])
			goto fail;
		r->nbytes[i] = out[i]->nbytes;
		attach(r, out[i], i);
	}
	return 0;
fail:
	if (!r->refs) {
		recipe_free(r);
		return -1;
	}
	for (i = 0; i < nout; i++) {
		qir_tensor_free(out[i]);	/* the last one frees r */
		out[i] = NULL;
	}
	return -1;
}

int qir_tensor_deferred(const qir_tensor *t)
{
	return t->priv && QIR_TPRIV(t)->recipe != NULL;
}

uint64_t ir_deferred_input_bytes(const qir_tensor *t)
{
	const struct ir_recipe *r = QIR_TPRIV(t)->recipe;
	uint64_t n = 0;

	for (size_t i = 0; r && i < r->ninputs; i++)
		n += r->inputs[i]->nbytes;
	return n;
}

const void *ir_deferred_recipe(const qir_tensor *t, size_t *out,
			       size_t *nout)
{
	const struct ir_recipe *r = QIR_TPRIV(t)->recipe;

	*out = QIR_TPRIV(t)->recipe_out;
	*nout = r ? r->nout : 0;
	return r;
}

/* Gives t the bytes buf[t's output] (taking the buffer when it is the
 * first tensor of that output, else copying); caller holds the lock. */
static int adopt(struct ir_recipe *r, qir_tensor *t, uint8_t **buf,
		 int *taken)
{
	struct ir_tensor_priv *p = QIR_TPRIV(t);
	size_t j = p->recipe_out;
	void *mine = buf[j];

	if (taken[j]) {
		mine = malloc(r->nbytes[j] ? r->nbytes[j] : 1);
		if (!mine)
			return -1;
		memcpy(mine, buf[j], r->nbytes[j]);
	}
	taken[j] = 1;
	free(p->owned);
	p->owned = mine;
	p->data = mine;
	return 0;
}

/* Runs the fill with dst[j], or a heap buffer where dst[j] is NULL,
 * and gives the tensors of those outputs their bytes (they stop being
 * deferred). Caller holds the lock; *last: r lost its last tensor. */
static int eval_locked(struct ir_recipe *r, void *const *dst, int *last,
		       qir_error *err)
{
	uint8_t **buf = calloc(r->nout, sizeof(*buf));
	void **d = calloc(r->nout, sizeof(*d));
	int *taken = calloc(r->nout, sizeof(*taken));
	qir_tensor *t, *next;
	int rc = -1;
	size_t j;

	*last = 0;
	if (!buf || !d || !taken) {
		qir_fail(err, QIR_ENOMEM, "out of memory");
		goto out;
	}
	for (j = 0; j < r->nout; j++) {
		if (dst && dst[j]) {
			d[j] = dst[j];
			taken[j] = 2;	/* not ours */
			continue;
		}
		buf[j] = malloc(r->nbytes[j] ? r->nbytes[j] : 1);
		if (!buf[j]) {
			qir_fail(err, QIR_ENOMEM, "out of memory evaluating "
				 "a deferred tensor (%" PRIu64 " bytes)",
				 r->nbytes[j]);
			goto out;
		}
		d[j] = buf[j];
	}
	if (r->ops->fill(r->state, r->inputs, r->ninputs, d, err))
		goto out;
	for (t = r->tensors; t; t = next) {
		next = QIR_TPRIV(t)->recipe_next;
		if (taken[QIR_TPRIV(t)->recipe_out] == 2)
			continue;
		if (adopt(r, t, buf, taken)) {
			qir_fail(err, QIR_ENOMEM, "out of memory");
			goto out;
		}
		*last = unlink_locked(r, t);
	}
	rc = 0;
out:
	for (j = 0; buf && j < r->nout; j++)
		if (!taken[j])
			free(buf[j]);
	free(buf);
	free(d);
	free(taken);
	return rc;
}

int ir_deferred_write(qir_tensor *t, void *const *dst, qir_error *err)
{
	struct ir_recipe *r = QIR_TPRIV(t)->recipe;
	int rc, last;

	if (!r)
		return qir_fail(err, QIR_EUSAGE, "tensor '%s' is not deferred",
				t->name);
	pthread_mutex_lock(&r->lock);
	rc = eval_locked(r, dst, &last, err);
	pthread_mutex_unlock(&r->lock);
	if (last)
		recipe_free(r);
	return rc;
}

/* Big results leave the heap for the spill file, as a pass's would;
 * where that fails they stay in the heap (nothing is lost). */
static void spill_big(qir_model *m, qir_tensor *t)
{
	qir_error e = { 0 };

	if (m && t->nbytes >= DEFERRED_SPILL_MIN && qir_tensor_spill(m, t, &e))
		return;	/* kept in the heap */
}

int ir_deferred_materialize(qir_tensor *t, qir_error *err)
{
	struct ir_recipe *r = QIR_TPRIV(t)->recipe;
	qir_tensor **done;
	size_t n = 0;
	qir_model *m;
	int rc, last;

	if (!r)
		return 0;
	m = r->m;
	done = calloc(r->refs, sizeof(*done));
	if (!done)
		return qir_fail(err, QIR_ENOMEM, "out of memory");
	pthread_mutex_lock(&r->lock);
	for (qir_tensor *s = r->tensors; s; s = QIR_TPRIV(s)->recipe_next)
		done[n++] = s;
	rc = eval_locked(r, NULL, &last, err);
	pthread_mutex_unlock(&r->lock);
	if (last)
		recipe_free(r);
	for (size_t i = 0; !rc && i < n; i++)
		spill_big(m, done[i]);
	free(done);
	return rc;
}

qir_tensor *qir_tensor_share(qir_model *m, qir_tensor *t, qir_error *err)
{
	struct ir_tensor_priv *p = QIR_TPRIV(t), *q;
	qir_tensor *c;

	if (t->dtype == QIR_STRING || t->storage == QIR_STORE_NONE ||
	    !t->nbytes || (t->storage == QIR_STORE_OWNED && !p->recipe &&
			   !p->spill_addr)) {
		c = qir_tensor_clone(t, err);
		if (c && m && c->dtype != QIR_STRING)
			spill_big(m, c);
		return c;
	}
	c = ir_tensor_shell(t->name, t->dtype, t->rank, t->dims, err);
	if (!c)
		return NULL;
	q = QIR_TPRIV(c);
	if (p->recipe) {
		pthread_mutex_lock(&p->recipe->lock);
		attach(p->recipe, c, p->recipe_out);
		pthread_mutex_unlock(&p->recipe->lock);
		return c;
	}
	if (p->spill_addr) {
		if (ir_spill_share(m, c, t, err)) {
			qir_tensor_free(c);
			return NULL;
		}
		c->storage = QIR_STORE_OWNED;
		return c;
	}
	if (t->storage == QIR_STORE_EXTERNAL) {
		ir_tensor_set_external(c, p->map, p->ext_location,
				       p->ext_offset);
		if (p->ext_location && !q->ext_location) {
			qir_tensor_free(c);
			qir_fail(err, QIR_ENOMEM, "out of memory");
			return NULL;
		}
		return c;
	}
	ir_tensor_set_borrowed(c, p->data);
	return c;
}

int ir_deferred_prepare(qir_tensor *t, qir_error *err)
{
	struct ir_recipe *r = QIR_TPRIV(t)->recipe;

	for (size_t i = 0; r && i < r->ninputs; i++) {
		qir_tensor *in = r->inputs[i];

		if (qir_tensor_deferred(in) && !qir_tensor_data(in, err) &&
		    in->nbytes)
			return -1;
	}
	return 0;
}

/*
 * passes/autocast/rewrite.c - the decisions applied.
 *
 * Real mode: the float outputs of low nodes change type; a FLOAT value
 * a low node reads is converted once (a weight in place, or duplicated
 * when FLOAT nodes read it too; anything else through one Cast shared
 * by its low consumers); a low value a FLOAT consumer reads goes
 * through one Cast back. A graph output keeps its name and, with
 * keep_io_types, its type. A Cast(to = FLOAT) feeding only low nodes
 * becomes a Cast to the low type, and disappears when its input is of
 * that type already: never two Casts in a row.
 *
 * Fake mode: types stay FLOAT; every tensor real mode stores in the
 * low type is rounded through Cast(low) -> Cast(FLOAT) where it is
 * made, weights by their recipe, so the values are exactly real mode's
 * and ONNX Runtime runs them.
 *
 * Each graph is rewritten on its own, the main graph first, then every
 * If/Loop/Scan body at any depth: a body is a graph whose inputs and
 * outputs keep their types whatever keep_io_types says (the node
 * holding it and its sibling branches are typed by them), and a value
 * it captures from an enclosing graph is, seen from inside, one more
 * FLOAT input: the enclosing graph's run gave it a Cast back to FLOAT
 * outside when it made it low, and the body's low readers get their
 * Cast (or rounding) inside the body.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autocast.h"
#include "memo.h"

/* Every graph of the model, main first (pre-order). */
struct graphs {
	qir_graph **g;
	size_t n, cap;
	/* values a graph lists as outputs that an enclosing graph
	 * defines (an If branch giving an outer tensor as it is) */
	struct autocast_memo foreign;
};

struct rw {
	struct autocast_cfg *cfg;
	struct graphs *all;
	qir_graph *g;		/* the graph this run rewrites */
	int keep_io;		/* its inputs and outputs keep their types */
	struct autocast_memo down, up, cast_low;
	qir_value **lowered;	/* values real mode retyped */
	size_t nlowered, caplowered;
	qir_node **dead;	/* Casts that went: erased at the end (shared
				 * by the runs over every graph) */
	size_t *ndead;
};

static int oom(struct rw *w)
{
	qopt_error(w->cfg->ctx, "out of memory");
	return -1;
}

static int irerr(struct rw *w, const qir_error *err)
{
	qopt_error(w->cfg->ctx, "%s", err->msg[0] ? err->msg : "out of memory");
	return -1;
}

/* A Cast(to = FLOAT) the pass turns into a Cast to the low type. */
static int is_cast_low(struct rw *w, const qir_node *n)
{
	return autocast_memo_get(&w->cast_low, n) != NULL;
}

/* 1 when v is a low node's output of type T (in real mode: retyped). */
static int made_low(struct rw *w, const qir_value *v)
{
	struct autocast_node *r;

	if (!v->producer || v->producer->graph != w->g)
		return 0;
	if (is_cast_low(w, v->producer))
		return 1;
	r = autocast_node_of(w->cfg, v->producer);
	return r && r->low && ps_slot(r->op->t_out, (size_t)v->producer_index);
}

/* 1 when the use reads a value of the low type as it is: a T input of a
 * low node, or a Cast (which takes any type). */
static int use_takes_low(struct rw *w, const qir_use *u)
{
	struct autocast_node *r;

	if (u->node->graph != w->g)
		return 0;
	if (qir_node_is(u->node, "Cast"))
		return 1;
	r = autocast_node_of(w->cfg, u->node);
	return r && r->low && ps_slot(r->op->t_in, (size_t)u->index);
}

static int all_uses_take_low(struct rw *w, const qir_value *v)
{
	size_t i;

	if (v->is_output)
		return 0;
	for (i = 0; i < v->nuses; i++)
		if (!use_takes_low(w, &v->uses[i]))
			return 0;
	return 1;
}

/* A new Cast(v, to) in the graph of the run; its output, typed like v. */
static qir_value *new_cast(struct rw *w, qir_value *v, int to,
			   const char *suffix)
{
	char hint[256];
	qir_node *c;
	qir_value *out;
	qir_error err = { 0 };

	snprintf(hint, sizeof(hint), "%s_%s", v->name, suffix);
	c = qir_node_new(w->g, "Cast", NULL, hint);
	if (!c || qir_node_set_attr_int(c, "to", to) ||
	    qir_node_add_input(c, v) ||
	    !(out = qir_node_add_output(c, NULL, hint)))
		return oom(w), NULL;
	if (qir_value_copy_shape(out, v, to, &err))
		return irerr(w, &err), NULL;
	w->cfg->casts++;
	return out;
}

/* Fake mode: v rounded through the low type, once. */
static qir_value *rounded(struct rw *w, qir_value *v)
{
	qir_value *r = autocast_memo_get(&w->down, v), *a;

	if (r)
		return r;
	a = new_cast(w, v, w->cfg->low, w->cfg->low == QIR_FLOAT16 ?
		     "fp16" : "bf16");
	r = a ? new_cast(w, a, QIR_FLOAT, "rounded") : NULL;
	if (!r || autocast_memo_put(&w->down, v, r))
		return r ? (oom(w), NULL) : NULL;
	return r;
}

/* A weight read by low nodes: converted (or rounded) in place when
 * only they read it, else a converted copy for them. */
static qir_value *weight_down(struct rw *w, qir_value *v)
{
	struct autocast_cfg *cfg = w->cfg;
	int fake = cfg->mode == AUTOCAST_FAKE;
	qir_tensor *old = v->init, *t;
	qir_error err = { 0 };
	qir_value *nv;
	char name[256];

	cfg->weights++;
	cfg->weight_bytes_in += old->nbytes;
	if (all_uses_take_low(w, v)) {
		t = autocast_weight_convert(cfg, old, v->name, fake);
		if (!t)
			return NULL;
		v->init = t;
		qir_tensor_free(old);
		cfg->weight_bytes_out += t->nbytes;
		if (!fake && qir_value_copy_shape(v, v, cfg->low, &err))
			return irerr(w, &err), NULL;
		return v;
	}
	snprintf(name, sizeof(name), "%s_%s", v->name,
		 fake ? "rounded" : cfg->low == QIR_FLOAT16 ? "fp16" : "bf16");
	t = autocast_weight_convert(cfg, old, name, fake);
	if (!t)
		return NULL;
	cfg->weight_bytes_out += t->nbytes;
	cfg->dup_weights++;
	nv = qir_graph_add_initializer(w->g, t);
	if (!nv)
		return oom(w), NULL;
	return nv;
}

/* A Constant (or ConstantOfShape) read only by low nodes: its value converted (real) or
 * rounded (fake) in place, through the kernels. 1 done, 0 not such a
 * Constant, -1 failed (said). */
static int constant_down(struct rw *w, qir_value *v)
{
	struct autocast_cfg *cfg = w->cfg;
	int fake = cfg->mode == AUTOCAST_FAKE;
	qir_node *c = v->producer;
	qir_attr *a = c ? qir_node_attr(c, "value") : NULL;
	qir_tensor *t = a && a->type == QIR_ATTR_TENSOR ? a->t : NULL, *nt;
	qir_error err = { 0 };
	const void *src;
	uint16_t *tmp;
	uint64_t n;
	int rc;

	if (!c || c->graph != w->g || !t ||
	    (!qir_node_is(c, "Constant") && !qir_node_is(c, "ConstantOfShape")) ||
	    t->dtype != QIR_FLOAT || c->nattrs != 1 || !all_uses_take_low(w, v))
		return 0;
	n = qir_tensor_numel(t);
	src = n ? qir_tensor_data(t, &err) : NULL;
	nt = qir_tensor_new(t->name, fake ? QIR_FLOAT : cfg->low, t->rank,
			    t->dims, &err);
	tmp = malloc((n ? n : 1) * sizeof(*tmp));
	if ((n && !src) || !nt || !tmp) {
		free(tmp);
		qir_tensor_free(nt);
		return irerr(w, &err);
	}
	rc = n ? qk_convert(cfg->qk, cfg->low, tmp, QIR_FLOAT, src, n) : 0;
	if (!rc && n && cfg->clamp) {
		autocast_saturate(cfg->low, tmp, src, (size_t)n);
		cfg->clamped += autocast_weight_beyond(cfg, t);
	}
	if (!rc && n)
		rc = qk_convert(cfg->qk, fake ? QIR_FLOAT : cfg->low,
				qir_tensor_mutable_data(nt, &err), cfg->low,
				tmp, n);
	free(tmp);
	if (rc) {
		qir_tensor_free(nt);
		qopt_error(cfg->ctx, "%s: %s", QIR_NODE_LABEL(c), qk_strerror(rc));
		return -1;
	}
	if (qir_node_set_attr_tensor(c, "value", nt))
		return oom(w);
	if (!fake && qir_value_copy_shape(v, v, cfg->low, &err))
		return irerr(w, &err);
	cfg->constants++;
	return 1;
}

/* The low-type stand-in of a FLOAT value a low node reads. */
static qir_value *down(struct rw *w, qir_value *v)
{
	struct autocast_cfg *cfg = w->cfg;
	qir_value *r = autocast_memo_get(&w->down, v);
	qir_error err = { 0 };
	int k;

	if (r)
		return r;
	if (v->init && !v->is_input && v->graph == w->g)
		r = weight_down(w, v);
	else if ((k = constant_down(w, v)) != 0)
		r = k > 0 ? v : NULL;
	else if (cfg->mode == AUTOCAST_FAKE)
		return rounded(w, v);
	else if (v->is_input && !w->keep_io && v->graph == w->g &&
		 all_uses_take_low(w, v))
		r = qir_value_copy_shape(v, v, cfg->low, &err) ?
		    (irerr(w, &err), NULL) : v;
	else
		r = new_cast(w, v, cfg->low,
			     cfg->low == QIR_FLOAT16 ? "fp16" : "bf16");
	if (r && autocast_memo_put(&w->down, v, r))
		return oom(w), NULL;
	return r;
}

/* The FLOAT stand-in of a value real mode made low. */
static qir_value *up(struct rw *w, qir_value *v)
{
	qir_value *r = autocast_memo_get(&w->up, v);

	if (r)
		return r;
	r = new_cast(w, v, QIR_FLOAT, "fp32");
	if (r && autocast_memo_put(&w->up, v, r))
		return oom(w), NULL;
	return r;
}

/* The low node n's T inputs that are not low yet get their stand-in. */
static int inputs_down(struct rw *w, qir_node *n, const struct ps_float_op *op)
{
	size_t i;

	for (i = 0; i < n->ninputs; i++) {
		qir_value *v = n->inputs[i], *d;

		if (!v || !ps_slot(op->t_in, i) || made_low(w, v))
			continue;
		d = down(w, v);
		if (!d)
			return -1;
		if (d != v && qir_node_set_input(n, i, d))
			return oom(w);
	}
	return 0;
}

static int remember(struct rw *w, qir_value *v)
{
	if (w->nlowered == w->caplowered) {
		size_t cap = w->caplowered ? 2 * w->caplowered : 64;
		qir_value **g = realloc(w->lowered, cap * sizeof(*g));

		if (!g)
			return oom(w);
		w->lowered = g;
		w->caplowered = cap;
	}
	w->lowered[w->nlowered++] = v;
	return 0;
}

/* Real mode: n's T outputs change type (fake: they are remembered to
 * be rounded). */
static int outputs_low(struct rw *w, qir_node *n, uint32_t t_out)
{
	qir_error err = { 0 };
	size_t i;

	for (i = 0; i < n->noutputs; i++) {
		qir_value *v = n->outputs[i];

		if (!v || !ps_slot(t_out, i) || v->dtype != QIR_FLOAT)
			continue;
		if (w->cfg->mode == AUTOCAST_REAL &&
		    qir_value_copy_shape(v, v, w->cfg->low, &err))
			return irerr(w, &err);
		if (remember(w, v))
			return -1;
	}
	return 0;
}

/* A graph output keeps its name: v (now low) is renamed and its FLOAT
 * stand-in s takes the name and the output's place. */
static int keep_output(struct rw *w, qir_value *v, qir_value *s)
{
	char *name = strdup(v->name), alt[300];
	qir_error err = { 0 };
	size_t i;
	int k, rc = -1;

	if (!name)
		return oom(w);
	for (k = 0; k < 1000; k++) {
		snprintf(alt, sizeof(alt), k ? "%s_%s_%d" : "%s_%s", name,
			 w->cfg->mode == AUTOCAST_FAKE ? "unrounded" :
			 w->cfg->low == QIR_FLOAT16 ? "fp16" : "bf16", k);
		if (!qir_value_rename(v, alt, &err))
			break;
	}
	if (k == 1000 || qir_value_rename(s, name, &err)) {
		irerr(w, &err);
		goto out;
	}
	for (i = 0; i < w->g->noutputs; i++)
		if (w->g->outputs[i] == v && qir_graph_set_output(w->g, i, s))
			goto out;
	/* no longer an output: its type goes to value_info, so a reader
	 * of the file (or of a body, where inference does not reach)
	 * sees it */
	if (qir_value_copy_shape(v, v, v->dtype, &err)) {
		irerr(w, &err);
		goto out;
	}
	rc = 0;
out:
	free(name);
	return rc;
}

/* Every consumer of v that needs FLOAT (real) or every consumer (fake)
 * reads s instead, but the Cast skip that makes s from v. */
static int redirect(struct rw *w, qir_value *v, qir_value *s,
		    const qir_node *skip, int all)
{
	qir_use *uses = NULL;
	size_t i, n = v->nuses;
	int rc = 0;

	if (n) {
		uses = malloc(n * sizeof(*uses));
		if (!uses)
			return oom(w);
		memcpy(uses, v->uses, n * sizeof(*uses));
	}
	for (i = 0; i < n && !rc; i++) {
		if (uses[i].node == skip)
			continue;
		if (!all && use_takes_low(w, &uses[i]))
			continue;
		if (qir_value_replace_use(v, uses[i], s))
			rc = oom(w);
	}
	free(uses);
	return rc;
}

/* v is one of g's outputs (is_output counts the listings of every
 * graph: a body may list a value of an enclosing graph). */
static int listed(const qir_graph *g, const qir_value *v)
{
	size_t i;

	for (i = 0; v->is_output && i < g->noutputs; i++)
		if (g->outputs[i] == v)
			return 1;
	return 0;
}

/* A body that lists v, a value of an enclosing graph, as its output
 * keeps that output's type: it lists the FLOAT stand-in s instead. */
static int relist(struct rw *w, qir_value *v, qir_value *s)
{
	qir_error err = { 0 };
	size_t i, k;

	if (!autocast_memo_get(&w->all->foreign, v))
		return 0;
	for (i = 0; i < w->all->n; i++) {
		qir_graph *h = w->all->g[i];

		for (k = 0; h != v->graph && k < h->noutputs; k++)
			if (h->outputs[k] == v && qir_graph_set_output(h, k, s))
				return oom(w);
	}
	/* no longer listed: its type goes to value_info */
	if (!v->is_output && qir_value_copy_shape(v, v, v->dtype, &err))
		return irerr(w, &err);
	return 0;
}

static int needs_float(struct rw *w, const qir_value *v)
{
	size_t i;

	if (listed(w->g, v) && (w->keep_io || w->cfg->mode == AUTOCAST_FAKE))
		return 1;
	if (autocast_memo_get(&w->all->foreign, v))
		return 1;
	for (i = 0; i < v->nuses; i++)
		if (!use_takes_low(w, &v->uses[i]))
			return 1;
	return 0;
}

/* Consumers of the values made low: real mode gives the FLOAT ones a
 * Cast back; fake mode gives every one the rounded value. */
static int consumers(struct rw *w)
{
	size_t i;

	for (i = 0; i < w->nlowered; i++) {
		qir_value *v = w->lowered[i], *s;
		int fake = w->cfg->mode == AUTOCAST_FAKE;

		if (!fake && !needs_float(w, v))
			continue;
		s = fake ? rounded(w, v) : up(w, v);
		if (!s)
			return -1;
		/* fake: s = Cast(Cast(v, low), FLOAT) */
		if (redirect(w, v, s, fake ? s->producer->inputs[0]->producer :
			     s->producer, fake) || relist(w, v, s))
			return -1;
		if (listed(w->g, v) && (fake || w->keep_io) &&
		    keep_output(w, v, s))
			return -1;
	}
	return 0;
}

/* The input of a Cast after the rewrite: its type, as far as it can be
 * told now. */
static int type_after(struct rw *w, const qir_value *v)
{
	if (w->cfg->mode == AUTOCAST_REAL && made_low(w, v))
		return w->cfg->low;
	return qir_value_elem_type((qir_value *)v);
}

/* A Cast(to = FLOAT) whose every consumer is low, from a type that
 * reaches the low type through FLOAT as it would directly: any integer
 * for FLOAT16 (FLOAT holds every integer up to 2^24 exactly, and above
 * FLOAT16's 65504 both ways give Inf), the narrow ones for BFLOAT16. */
static int cast_goes_low(struct rw *w, qir_node *c)
{
	int from, to = qir_node_attr_dtype(c, "to");

	if (to != QIR_FLOAT || c->ninputs != 1 || !c->inputs[0] ||
	    c->noutputs != 1 || !c->outputs[0] || !c->outputs[0]->nuses ||
	    !all_uses_take_low(w, c->outputs[0]))
		return 0;
	from = type_after(w, c->inputs[0]);
	if (from == QIR_FLOAT || from == QIR_BOOL || from == w->cfg->low ||
	    from == QIR_INT8 || from == QIR_UINT8 || from == QIR_INT16 ||
	    from == QIR_UINT16)
		return 1;
	return w->cfg->low == QIR_FLOAT16 &&
	       (from == QIR_INT32 || from == QIR_INT64 ||
		from == QIR_UINT32 || from == QIR_UINT64);
}

static int decide_casts(struct rw *w, qir_node *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (qir_node_is(v[i], "Cast") && cast_goes_low(w, v[i]) &&
		    autocast_memo_put(&w->cast_low, v[i], v[i]))
			return oom(w);
	return 0;
}

/* Real mode: the Cast now casts to the low type; from the low type it
 * does nothing and goes. */
static int cast_low(struct rw *w, qir_node *c)
{
	qir_value *in = c->inputs[0], *out = c->outputs[0];
	qir_error err = { 0 };

	if (w->cfg->mode == AUTOCAST_FAKE)
		return outputs_low(w, c, 1u);
	if (type_after(w, in) == w->cfg->low) {
		if (qir_value_replace_all_uses(out, in))
			return oom(w);
		w->cfg->removed_casts++;
		w->dead[(*w->ndead)++] = c;
		return 0;
	}
	if (qir_node_set_attr_int(c, "to", w->cfg->low))
		return oom(w);
	if (qir_value_copy_shape(out, out, w->cfg->low, &err))
		return irerr(w, &err);
	return 0;
}

static int apply(struct rw *w, qir_node *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct autocast_node *r = autocast_node_of(w->cfg, v[i]);

		if (is_cast_low(w, v[i])) {
			if (cast_low(w, v[i]))
				return -1;
			continue;
		}
		if (!r || !r->low)
			continue;
		if (inputs_down(w, v[i], r->op) ||
		    outputs_low(w, v[i], r->op->t_out))
			return -1;
	}
	return 0;
}

/* One graph's run: g's own nodes, its values and the values it reads
 * from enclosing graphs. */
static int rewrite_graph(struct autocast_cfg *cfg, struct graphs *all,
			 qir_graph *g, qir_node **dead, size_t *ndead)
{
	struct rw w = { .cfg = cfg, .all = all, .g = g, .dead = dead,
			.ndead = ndead,
			.keep_io = cfg->keep_io || g != cfg->m->graph };
	qir_node **v = NULL;
	size_t n = 0;
	int rc = -1;

	if (qir_graph_nodes(g, NULL, NULL, 0, &v, &n, NULL)) {
		qopt_error(cfg->ctx, "out of memory");
		return -1;
	}
	if (decide_casts(&w, v, n) == 0 && apply(&w, v, n) == 0 &&
	    consumers(&w) == 0)
		rc = 0;
	cfg->lowered += w.nlowered;
	free(v);
	free(w.lowered);
	autocast_memo_fini(&w.down);
	autocast_memo_fini(&w.up);
	autocast_memo_fini(&w.cast_low);
	return rc;
}

static int add_graph(qir_graph *g, void *arg)
{
	struct graphs *l = arg;

	for (size_t i = 0; i < g->noutputs; i++)
		if (g->outputs[i]->graph != g &&
		    autocast_memo_put(&l->foreign, g->outputs[i], g))
			return -1;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		qir_graph **p = realloc(l->g, cap * sizeof(*p));

		if (!p)
			return -1;
		l->g = p;
		l->cap = cap;
	}
	l->g[l->n++] = g;
	return 0;
}

int autocast_rewrite(struct autocast_cfg *cfg, int *changed)
{
	struct graphs l = { 0 };
	qir_node **dead;
	qir_error err = { 0 };
	size_t i, ndead = 0;
	int rc = -1;

	/* Every graph listed first: the runs add Casts to them. Pre-order,
	 * so an enclosing graph has given its captured values their Cast
	 * back before a body reads them. */
	dead = calloc(cfg->nnodes ? cfg->nnodes : 1, sizeof(*dead));
	if (!dead || qir_graph_walk(cfg->m->graph, add_graph, &l)) {
		qopt_error(cfg->ctx, "out of memory");
		goto out;
	}
	for (i = 0; i < l.n; i++)
		if (rewrite_graph(cfg, &l, l.g[i], dead, &ndead))
			goto out;
	*changed = cfg->lowered || cfg->weights || cfg->casts;
	/* Erased only now: a freed node's address may come back as a new
	 * Cast's, and the maps (cfg->nodes too) are keyed by address. */
	for (i = 0; i < ndead; i++)
		if (qir_node_erase(dead[i], &err)) {
			qopt_error(cfg->ctx, "%s", err.msg[0] ? err.msg :
				   "out of memory");
			goto out;
		}
	if (qir_graph_toposort(cfg->m->graph, &err)) {
		qopt_error(cfg->ctx, "%s", err.msg[0] ? err.msg : "out of memory");
		goto out;
	}
	rc = 0;
out:
	free(l.g);
	autocast_memo_fini(&l.foreign);
	free(dead);
	return rc;
}

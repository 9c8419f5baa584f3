/*
 * passes/hadamard_rotate/fold.c - fold = yes: instead of computing
 * x R online, fold R into the producer of x when the path is linear
 * along the rotated axis (QuaRot/SpinQuant): a constant-weight
 * MatMul/Gemm producing x gets W <- W R on its output columns (and its
 * bias b <- b R: Gemm's C, or a constant Add right after a MatMul), and
 * attention's P @ V passes it on, P (V R) = (P V) R, to the producer
 * of V. Only when every consumer of every value on the way is
 * accounted for: x feeds only targets rotated with the same block, V
 * only the P @ V MatMul. Never across anything else (a nonlinearity, a
 * norm gain, a residual): those keep the online rotation. Layout
 * nodes on the way (Identity, Transpose keeping the last axis, Reshape
 * between last dims that are multiples of the block, as in multi-head
 * attention's head split and merge) keep the blocks intact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hadamard_rotate.h"
#include "../support/fail.h"

struct fold_site {
	qir_node *mm;		/* MatMul/Gemm whose output columns rotate */
	qir_node *bias_add;	/* Add(mm, bias) after a MatMul, or NULL */
	int bias_slot;		/* its constant input */
};

static int only_use(qir_value *v, qir_node *n)
{
	return v && !v->is_output && v->nuses == 1 && v->uses[0].node == n;
}

static int std_op(const qir_node *n, const char *op)
{
	return !n->domain[0] && !strcmp(n->op_type, op);
}

static qir_tensor *const_of(qir_value *v)
{
	return v ? qir_value_const(v) : NULL;
}

/* The output axis of mm's weight, or -1: MatMul B[.., K', N] -> last;
 * Gemm B[K', N] -> 1, transB: B[N, K'] -> 0. */
static int out_axis(qir_node *mm, qir_tensor *w)
{
	if (w->rank < 2)
		return -1;
	if (std_op(mm, "Gemm"))
		return w->rank == 2 ? (qir_node_attr_int(mm, "transB", 0) ? 0 : 1) : -1;
	return w->rank - 1;
}

static int is_float_t(const qir_tensor *t)
{
	return t->dtype == QIR_FLOAT || t->dtype == QIR_FLOAT16 ||
	       t->dtype == QIR_BFLOAT16;
}

/* A constant bias whose last axis is the K columns (not broadcast). */
static int bias_ok(qir_value *v, int64_t k)
{
	qir_tensor *c = const_of(v);

	return c && is_float_t(c) && c->rank >= 1 && c->dims[c->rank - 1] == k;
}

/* Last dimension of v from its declared shape, or -1. */
static int64_t last_dim(const qir_value *v)
{
	return v->rank >= 1 ? v->dims[v->rank - 1].value : -1;
}

/* A layout node that keeps blocks of b along the last axis intact:
 * Identity, Transpose leaving the last axis last, Reshape whose input
 * and output last dims are both multiples of b (row-major order keeps
 * every aligned run of b elements together). Its input, or NULL. */
static qir_value *through_layout(qir_node *p, size_t b, int64_t k)
{
	qir_value *in = p->ninputs ? p->inputs[0] : NULL;
	qir_attr *perm;
	int64_t kin;

	if (!in || !only_use(in, p) || const_of(in))
		return NULL;
	if (std_op(p, "Identity"))
		return in;
	if (std_op(p, "Transpose")) {
		perm = qir_node_attr(p, "perm");
		return perm && perm->n >= 1 &&
		       perm->ints[perm->n - 1] == (int64_t)perm->n - 1 ? in : NULL;
	}
	if (std_op(p, "Reshape")) {
		kin = last_dim(in);
		return kin > 0 && kin % (int64_t)b == 0 &&
		       k % (int64_t)b == 0 ? in : NULL;
	}
	return NULL;
}

/* Where x's rotation (last axis, blocks of b, x's last dim k) can go,
 * or a reason in why. */
static int find_site(qir_value *x, int64_t k, size_t b, struct fold_site *s,
		     char *why, size_t len, int pv_done)
{
	qir_node *p = x->producer;
	qir_value *in;
	qir_tensor *w;
	int hops = 0;

	memset(s, 0, sizeof(*s));
	while (p && hops++ < 8 && (in = through_layout(p, b, k)) != NULL) {
		k = last_dim(in) > 0 ? last_dim(in) : k;
		x = in;
		p = x->producer;
	}
	if (!p) {
		snprintf(why, len, "'%s' has no producer", x->name);
		return 0;
	}
	if (std_op(p, "Add") && p->ninputs == 2) {
		int bs = const_of(p->inputs[1]) ? 1 : 0;
		qir_value *m = p->inputs[1 - bs];

		if (!bias_ok(p->inputs[bs], k) || !m || !m->producer ||
		    !std_op(m->producer, "MatMul") || !only_use(m, p)) {
			snprintf(why, len, "'%s' comes from Add '%s', not a "
				 "MatMul plus a [.., %lld] constant bias",
				 x->name, p->name, (long long)k);
			return 0;
		}
		s->bias_add = p;
		s->bias_slot = bs;
		p = m->producer;
	}
	if (!std_op(p, "MatMul") && !std_op(p, "Gemm")) {
		snprintf(why, len, "'%s' comes from %s '%s' (not linear "
			 "along K, or a layout that splits blocks of %zu)",
			 x->name, p->op_type, p->name, b);
		return 0;
	}
	w = p->ninputs >= 2 ? const_of(p->inputs[1]) : NULL;
	if (!w && std_op(p, "MatMul") && !s->bias_add && !pv_done &&
	    p->inputs[1] && !const_of(p->inputs[0]) &&
	    only_use(p->inputs[1], p))
		/* P @ V: (P V) R = P (V R), V's last axis is x's */
		return find_site(p->inputs[1], k, b, s, why, len, 1);
	if (!w || !is_float_t(w) || out_axis(p, w) < 0 ||
	    w->dims[out_axis(p, w)] != k || k % (int64_t)b) {
		snprintf(why, len, "producer %s '%s' has no constant float "
			 "weight with %lld output columns", p->op_type,
			 p->name, (long long)k);
		return 0;
	}
	if (std_op(p, "Gemm") && p->ninputs >= 3 && p->inputs[2] &&
	    !bias_ok(p->inputs[2], k)) {
		snprintf(why, len, "Gemm '%s' has a broadcast bias", p->name);
		return 0;
	}
	s->mm = p;
	return 1;
}

int hadamard_rotate_consumers_agree(struct hadamard_rotate_cfg *cfg, struct hadamard_rotate_target *t, qir_value *x,
		       char *why, size_t len)
{
	if (x->is_output) {
		snprintf(why, len, "'%s' is a graph output", x->name);
		return 0;
	}
	for (size_t i = 0; i < x->nuses; i++) {
		qir_node *n = x->uses[i].node;
		struct hadamard_rotate_target o = { 0 };	/* released even when unselected */
		int ok;

		if (n == t->node)
			continue;
		/* A reader in a subgraph (a Loop or If body) is never
		 * rotated: the pass walks the top-level graph only. */
		ok = n->graph == t->node->graph && x->uses[i].index == 0 &&
		     hadamard_rotate_select(cfg, n, &o) == 1 && o.block == t->block;
		hadamard_rotate_target_release(&o);
		if (!ok && n->graph != t->node->graph) {
			snprintf(why, len, "'%s' is also read by %s '%s' in "
				 "a subgraph, which the pass does not rotate",
				 x->name, n->op_type, n->name);
			return 0;
		}
		if (!ok) {
			snprintf(why, len, "'%s' is also read by %s '%s', "
				 "which is not rotated with block %zu",
				 x->name, n->op_type, n->name, t->block);
			return 0;
		}
	}
	return 1;
}

/* v's constant rotated along axis into a new initializer that replaces
 * input slot of n. */
static int rotate_input(struct hadamard_rotate_cfg *cfg, qir_node *n, int slot, int axis,
			size_t block)
{
	qir_value *v = n->inputs[slot], *nv;
	qir_tensor *c = qir_tensor_clone(qir_value_const(v), NULL);
	size_t outer = 1, inner = 1;
	char name[512];
	void *p;
	int rc;

	if (!c)
		return -1;
	for (int i = 0; i < axis; i++)
		outer *= (size_t)c->dims[i];
	for (int i = axis + 1; i < c->rank; i++)
		inner *= (size_t)c->dims[i];
	p = qir_tensor_mutable_data(c, NULL);
	rc = p ? qk_hadamard(cfg->qk, c->dtype, p, outer,
			     (size_t)c->dims[axis], inner, block) : -1;
	snprintf(name, sizeof(name), "%s_hadamard%zu_out", v->name, block);
	free(c->name);
	c->name = strdup(name);
	nv = !rc && c->name ? qir_graph_add_initializer(n->graph, c) : NULL;
	if (!nv) {
		qir_tensor_free(c);
		return -1;
	}
	hadamard_rotate_spill(cfg, c);
	if (qir_node_set_input(n, (size_t)slot, nv))
		return -1;
	ps_sweep_value(&cfg->sweep, v);
	return hadamard_rotate_record(cfg, nv->name, axis, block);
}

int hadamard_rotate_fold(struct hadamard_rotate_cfg *cfg, struct hadamard_rotate_target *t, char *why, size_t len)
{
	struct fold_site s;
	char key[600];
	qir_tensor *w;

	if (!hadamard_rotate_consumers_agree(cfg, t, t->act, why, len) ||
	    !find_site(t->act, t->k, t->block, &s, why, len, 0))
		return 0;
	w = qir_value_const(s.mm->inputs[1]);
	if (rotate_input(cfg, s.mm, 1, out_axis(s.mm, w), t->block) ||
	    (s.bias_add && rotate_input(cfg, s.bias_add, s.bias_slot,
					qir_value_const(s.bias_add->inputs[s.bias_slot])->rank - 1,
					t->block)) ||
	    (!s.bias_add && std_op(s.mm, "Gemm") && s.mm->ninputs >= 3 &&
	     s.mm->inputs[2] &&
	     rotate_input(cfg, s.mm, 2,
			  qir_value_const(s.mm->inputs[2])->rank - 1, t->block))) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "node '%s': folding the rotation into '%s' "
			   "failed (out of memory or kernel error)",
			   t->node->name, s.mm->name);
		return -1;
	}
	/* x is now x R for every consumer: later targets reuse it */
	snprintf(key, sizeof(key), "a:%s:%zu", t->act->name, t->block);
	if (hadamard_rotate_memo_put(&cfg->memo, key, t->act)) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
		return -1;
	}
	snprintf(why, len, "%s '%s'", s.mm->op_type, s.mm->name);
	return 1;
}

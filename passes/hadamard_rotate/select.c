/*
 * passes/hadamard_rotate/select.c - which MatMul/Gemm nodes are
 * rotated: op types, include/exclude globs over the node's and the
 * weight's names, min_size, a constant weight (initializer, Constant
 * node, or a constant subgraph such as Transpose of one), and a block
 * that divides K. Every refusal names its reason.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hadamard_rotate.h"

static int skip(struct hadamard_rotate_target *t, const struct ps_skip_kind *kind,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Sets t's skip; 0 (hadamard_rotate_select's "not a target"). */
static int skip(struct hadamard_rotate_target *t, const struct ps_skip_kind *kind,
		const char *fmt, ...)
{
	va_list ap;

	t->skip.kind = kind;
	va_start(ap, fmt);
	vsnprintf(t->skip.why, sizeof(t->skip.why), fmt, ap);
	va_end(ap);
	return 0;
}

const struct ps_skip_kind
	hadamard_rotate_skip_is_hadamard = { "skipped (is a Hadamard rotation)",
				PS_SKIP_INFO },
	hadamard_rotate_skip_already = { "skipped (already rotated)", PS_SKIP_INFO },
	/* K that cannot take the block: the user selected the node and
	 * it cannot be rotated, so a warning (--strict fails the run). */
	hadamard_rotate_skip_k_odd = { "skipped (K odd)", PS_SKIP_WARN },
	hadamard_rotate_skip_block_k = { "skipped (block does not divide K)",
			    PS_SKIP_WARN },
	hadamard_rotate_skip_block_large = { "skipped (block too large)", PS_SKIP_INFO },
	hadamard_rotate_skip_quantized_act = { "skipped (quantized activation)",
				  PS_SKIP_INFO },
	hadamard_rotate_skip_type = { "skipped (type mismatch)", PS_SKIP_INFO },
	hadamard_rotate_skip_act_shape = { "skipped (activation shape mismatch)",
			      PS_SKIP_INFO },
	hadamard_rotate_skip_constant_subgraph = { "skipped (constant subgraph)",
				      PS_SKIP_INFO },
	hadamard_rotate_skip_cannot_judge = { "skipped (quantizer cannot judge)",
				 PS_SKIP_INFO },
	hadamard_rotate_skip_no_help = { "skipped (rotation would not help)",
			    PS_SKIP_INFO };

void hadamard_rotate_target_release(struct hadamard_rotate_target *t)
{
	if (t->folded && t->w)
		qir_tensor_free(t->w);
	t->w = NULL;
	t->folded = 0;
}

/* The weight's value: borrowed constant, or an evaluated constant
 * subgraph (owned). 0, or 1 when it is not constant (skipped). */
static int weight_value(struct hadamard_rotate_target *t)
{
	t->w = ps_weight_tensor(t->wv, HADAMARD_ROTATE_FOLD_MAX_BYTES, &t->folded,
				&t->skip);
	return t->w ? 0 : 1;
}

/* K axis, or a skip: MatMul reads B[.., K, N]; Gemm B[K, N] or, with
 * transB = 1, B[N, K]. */
static int k_axis(struct hadamard_rotate_target *t)
{
	qir_node *n = t->node;

	if (!strcmp(n->op_type, "Gemm")) {
		if (qir_node_attr_int(n, "transA", 0))
			return skip(t, &ps_skip_layout,
				    "Gemm with transA = 1"), 1;
		if (t->w->rank != 2)
			return skip(t, &ps_skip_layout,
				    "Gemm weight of rank %d", t->w->rank), 1;
	} else if (t->w->rank < 2) {
		/* A = x R needs K as A's last axis and B's rows */
		return skip(t, &ps_skip_layout,
			    "MatMul weight of rank %d", t->w->rank), 1;
	}
	t->kaxis = ps_reduce_axis(n, 1, t->w->rank);
	t->k = t->w->dims[t->kaxis];
	return 0;
}

/* The block for K, or a skip (an explicit block that does not divide K
 * is a skip too, and a warning: --strict fails the run). */
static int pick_block(struct hadamard_rotate_cfg *cfg, struct hadamard_rotate_target *t)
{
	uint64_t k = (uint64_t)t->k;
	uint64_t b = cfg->block ? (uint64_t)cfg->block : k & (~k + 1);

	if (k % 2)
		return skip(t, &hadamard_rotate_skip_k_odd, "K = %lld has no Hadamard "
			    "block of 2 or more", (long long)t->k), 1;
	if (k % b)
		return skip(t, &hadamard_rotate_skip_block_k,
			    "block_size %llu does not divide K = %lld",
			    (unsigned long long)b, (long long)t->k), 1;
	if (b > (uint64_t)HADAMARD_ROTATE_DENSE_MAX * HADAMARD_ROTATE_DENSE_MAX)
		return skip(t, &hadamard_rotate_skip_block_large, "block %llu: the "
			    "two-factor activation rotation covers blocks up "
			    "to %d", (unsigned long long)b,
			    HADAMARD_ROTATE_DENSE_MAX * HADAMARD_ROTATE_DENSE_MAX), 1;
	t->block = (size_t)b;
	return 0;
}

/* 0, or 1 with a skip when the weight holds Inf or NaN: R would spread
 * it over its whole block (and the quantizer cannot judge it), so the
 * weight stays as it is and the skip is a warning. */
static int all_finite(struct hadamard_rotate_cfg *cfg, struct hadamard_rotate_target *t)
{
	qir_error err = { 0 };
	const char *what;
	uint64_t at;
	int rc = ps_nonfinite(cfg->qk, t->w, &at, &what, NULL, &err);

	if (rc < 0)
		return skip(t, &ps_skip_unreadable, "'%s': %s",
			    t->wv->name, err.msg[0] ? err.msg : "no data"), 1;
	if (rc > 0)
		return skip(t, &ps_skip_nonfinite, "'%s' holds %s "
			    "at element %llu; the rotation would spread it "
			    "over its block", t->wv->name, what,
			    (unsigned long long)at), 1;
	return 0;
}

/* A per-tensor scale: a constant with one element. */
static int per_tensor(qir_node *n)
{
	qir_tensor *s = n->ninputs >= 2 && n->inputs[1] ?
				qir_value_const(n->inputs[1]) : NULL;

	return s && qir_tensor_numel(s) == 1;
}

/* A = DequantizeLinear(QuantizeLinear(x)), both per tensor, the Q read
 * only by that DQ: the rotation goes on x, before the Q (a per-tensor
 * grid is the same for every channel, so rotating before it is what
 * the rotated MatMul needs). 0 (t->quant set) or 1 with a skip. */
static int qdq_ok(struct hadamard_rotate_target *t)
{
	qir_node *dq = t->act->producer, *q;
	qir_value *qv = dq->ninputs ? dq->inputs[0] : NULL;
	int dt;

	q = qv ? qv->producer : NULL;
	if (strcmp(dq->op_type, "DequantizeLinear") || !q || q->domain[0] ||
	    strcmp(q->op_type, "QuantizeLinear") || !q->ninputs ||
	    !q->inputs[0] || qv->nuses != 1 || qv->is_output ||
	    !per_tensor(q) || !per_tensor(dq))
		return skip(t, &hadamard_rotate_skip_quantized_act, "A '%s' comes "
			    "from %s '%s', not a per-tensor QuantizeLinear -> "
			    "DequantizeLinear pair the rotation can precede",
			    t->act->name, dq->op_type, dq->name), 1;
	dt = qir_value_elem_type(q->inputs[0]);
	if (dt != QIR_UNDEFINED && dt != t->w->dtype)
		return skip(t, &hadamard_rotate_skip_type, "the input of "
			    "QuantizeLinear '%s' is %s, the weight %s", q->name,
			    qir_dtype_name(dt) ? qir_dtype_name(dt) : "?",
			    qir_dtype_name(t->w->dtype)), 1;
	t->quant = q;
	return 0;
}

static int act_ok(struct hadamard_rotate_target *t)
{
	qir_value *a = t->act;
	int dt = qir_value_elem_type(a);

	if (qir_value_const(a) || (a->producer &&
				   !strcmp(a->producer->op_type, "Constant")))
		return skip(t, &hadamard_rotate_skip_constant_subgraph,
			    "input A '%s' is constant too", a->name), 1;
	if (dt != QIR_UNDEFINED && dt != t->w->dtype)
		return skip(t, &hadamard_rotate_skip_type, "A '%s' has type "
			    "%s, the weight %s", a->name,
			    qir_dtype_name(dt) ? qir_dtype_name(dt) : "unknown",
			    qir_dtype_name(t->w->dtype)), 1;
	if (a->rank >= 1 && a->dims[a->rank - 1].value >= 0 &&
	    a->dims[a->rank - 1].value != t->k)
		return skip(t, &hadamard_rotate_skip_act_shape,
			    "A '%s' ends in %lld, K is %lld", a->name,
			    (long long)a->dims[a->rank - 1].value,
			    (long long)t->k), 1;
	if (a->producer && !a->producer->domain[0] &&
	    (!strcmp(a->producer->op_type, "DequantizeLinear") ||
	     !strcmp(a->producer->op_type, "QuantizeLinear")))
		return qdq_ok(t);
	return 0;
}

int hadamard_rotate_select(struct hadamard_rotate_cfg *cfg, qir_node *n, struct hadamard_rotate_target *t)
{
	const char *wname, *names[2];
	qir_node *h;

	memset(t, 0, sizeof(*t));
	t->node = n;
	t->pattern = -1;
	if (n->domain[0] || (strcmp(n->op_type, "MatMul") &&
			     strcmp(n->op_type, "Gemm")) || n->ninputs < 2 ||
	    !n->inputs[0] || !n->inputs[1])
		return 0;
	t->act = n->inputs[0];
	t->wv = n->inputs[1];
	wname = t->wv->name;
	if (!ps_targets_op(&cfg->tg, n->op_type))
		return skip(t, &ps_skip_op_type, "%s",
			    n->op_type);
	names[0] = n->name;
	names[1] = wname;
	/* excluded before not included, as the other passes count it:
	 * exclude is how a pipeline leaves a group's member out on purpose
	 * (coverage, --strict) */
	t->pattern = ps_globs_match(&cfg->tg.include, names, 2);
	if (ps_globs_match(&cfg->tg.exclude, names, 2) >= 0)
		return skip(t, &ps_skip_excluded, "an exclude glob matches "
			    "'%s' or '%s'", n->name, wname);
	if (t->pattern < 0)
		return skip(t, &ps_skip_not_included, "no include glob "
			    "matches '%s' or '%s'", n->name, wname);
	if (qir_value_const(t->act) && hadamard_rotate_is_sylvester(qir_value_const(t->act)))
		return skip(t, &hadamard_rotate_skip_is_hadamard,
			    "'%s' is a normalized Sylvester matrix",
			    t->act->name);
	if (ps_skip_if_activation(n, 1, &t->skip) || weight_value(t))
		return 0;
	if (!ps_float_weight_type(t->w->dtype))
		return skip(t, &ps_skip_not_float, "'%s' has type "
			    "%s", wname, qir_dtype_name(t->w->dtype) ?
			    qir_dtype_name(t->w->dtype) : "?");
	if (t->w->rank == 2 && t->w->dims[0] == t->w->dims[1] &&
	    hadamard_rotate_is_sylvester(t->w))
		return skip(t, &hadamard_rotate_skip_is_hadamard,
			    "'%s' is a normalized Sylvester matrix", wname);
	if (hadamard_rotate_recorded(cfg, wname))
		return skip(t, &hadamard_rotate_skip_already, "'%s' is recorded "
			    "in metadata %s", wname, HADAMARD_ROTATE_META_KEY);
	h = hadamard_rotate_upstream_hadamard(t->act);
	if (h)
		return skip(t, &hadamard_rotate_skip_already, "A '%s' already "
			    "comes from the Hadamard rotation '%s'",
			    t->act->name, h->name);
	if (k_axis(t) || act_ok(t))
		return 0;
	if (!qir_tensor_numel(t->w))
		return skip(t, &ps_skip_empty, "'%s' has no elements "
			    "(K = %lld)", wname, (long long)t->k);
	if ((int64_t)qir_tensor_numel(t->w) < cfg->tg.min_size)
		return skip(t, &ps_skip_below_min_size, "'%s': %llu "
			    "elements < %lld", wname,
			    (unsigned long long)qir_tensor_numel(t->w),
			    (long long)cfg->tg.min_size);
	if (pick_block(cfg, t) || all_finite(cfg, t))
		return 0;
	return 1;
}

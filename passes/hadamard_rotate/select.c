/*
 * passes/hadamard_rotate/select.c - which MatMul/Gemm nodes are
 * rotated: op types, include/exclude globs over the node's and the
 * weight's names, min_size, a constant weight (initializer, Constant
 * node, or a constant subgraph such as Transpose of one), and a block
 * that divides K. Every refusal names its reason.
 */
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hadamard_rotate.h"
#include "../support/support.h"

static int skip(struct hr_target *t, const char *counter, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int skip(struct hr_target *t, const char *counter, const char *fmt, ...)
{
	va_list ap;

	t->skip = counter;
	va_start(ap, fmt);
	vsnprintf(t->why, sizeof(t->why), fmt, ap);
	va_end(ap);
	return 0;
}

int hr_match(const char *const *globs, size_t n, const char *a, const char *b,
	     uint64_t *hits)
{
	int any = 0;

	for (size_t i = 0; i < n; i++)
		if ((a && !fnmatch(globs[i], a, 0)) ||
		    (b && !fnmatch(globs[i], b, 0))) {
			any = 1;
			if (!hits)
				break;
			hits[i]++;
		}
	return any;
}

void hr_target_release(struct hr_target *t)
{
	if (t->folded && t->w)
		qir_tensor_free(t->w);
	t->w = NULL;
	t->folded = 0;
}

static int is_float(int dt)
{
	return dt == QIR_FLOAT || dt == QIR_FLOAT16 || dt == QIR_BFLOAT16;
}

/* The weight's value: borrowed constant, or an evaluated constant
 * subgraph (owned). 0, or 1 when it is not constant (skipped). */
static int weight_value(struct hr_target *t)
{
	qir_error err = { 0 };

	t->w = qir_value_const(t->wv);
	if (t->w)
		return 0;
	if (!t->wv->producer)
		return skip(t, "skipped (weight not constant)", "'%s' is %s",
			    t->wv->name, t->wv->is_input ? "a graph input" :
			    "not a constant"), 1;
	if (qir_const_eval(t->wv, HR_FOLD_MAX_BYTES, &t->w, &err))
		return skip(t, "skipped (weight not constant)",
			    "'%s' is computed by %s node '%s' (%s)",
			    t->wv->name, t->wv->producer->op_type,
			    t->wv->producer->name, err.msg), 1;
	t->folded = 1;
	return 0;
}

/* K axis, or a skip: MatMul reads B[.., K, N]; Gemm B[K, N] or, with
 * transB = 1, B[N, K]. */
static int k_axis(struct hr_target *t)
{
	qir_node *n = t->node;

	if (!strcmp(n->op_type, "Gemm")) {
		if (qir_node_attr_int(n, "transA", 0))
			return skip(t, "skipped (unsupported layout)",
				    "Gemm with transA = 1"), 1;
		if (t->w->rank != 2)
			return skip(t, "skipped (unsupported layout)",
				    "Gemm weight of rank %d", t->w->rank), 1;
		t->kaxis = qir_node_attr_int(n, "transB", 0) ? 1 : 0;
	} else {
		if (t->w->rank < 2)
			return skip(t, "skipped (unsupported layout)",
				    "MatMul weight of rank %d", t->w->rank), 1;
		t->kaxis = t->w->rank - 2;
	}
	t->k = t->w->dims[t->kaxis];
	return 0;
}

/* The block for K, or a skip (an explicit block that does not divide K
 * is a skip too; run.c turns skips into errors under --strict). */
static int pick_block(struct hr_cfg *cfg, struct hr_target *t)
{
	uint64_t k = (uint64_t)t->k;
	uint64_t b = cfg->block ? (uint64_t)cfg->block : k & (~k + 1);

	if (k % 2)
		return skip(t, "skipped (K odd)", "K = %lld has no Hadamard "
			    "block of 2 or more", (long long)t->k), 1;
	if (k % b)
		return skip(t, "skipped (block does not divide K)",
			    "block_size %llu does not divide K = %lld",
			    (unsigned long long)b, (long long)t->k), 1;
	if (b > (uint64_t)HR_DENSE_MAX * HR_DENSE_MAX)
		return skip(t, "skipped (block too large)", "block %llu: the "
			    "two-factor activation rotation covers blocks up "
			    "to %d", (unsigned long long)b,
			    HR_DENSE_MAX * HR_DENSE_MAX), 1;
	t->block = (size_t)b;
	return 0;
}

/* 0, or 1 with a skip when the weight holds Inf or NaN: R would spread
 * it over its whole block (and the quantizer cannot judge it), so the
 * weight stays as it is and the skip is a warning. */
static int all_finite(struct hr_cfg *cfg, struct hr_target *t)
{
	qir_error err = { 0 };
	const char *what;
	uint64_t at;
	int rc = ps_nonfinite(cfg->qk, t->w, &at, &what, NULL, &err);

	if (rc < 0)
		return skip(t, "skipped (weight unreadable)", "'%s': %s",
			    t->wv->name, err.msg[0] ? err.msg : "no data"), 1;
	if (rc > 0)
		return skip(t, "skipped (non-finite weight)", "'%s' holds %s "
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
static int qdq_ok(struct hr_target *t)
{
	qir_node *dq = t->act->producer, *q;
	qir_value *qv = dq->ninputs ? dq->inputs[0] : NULL;
	int dt;

	q = qv ? qv->producer : NULL;
	if (strcmp(dq->op_type, "DequantizeLinear") || !q || q->domain[0] ||
	    strcmp(q->op_type, "QuantizeLinear") || !q->ninputs ||
	    !q->inputs[0] || qv->nuses != 1 || qv->is_output ||
	    !per_tensor(q) || !per_tensor(dq))
		return skip(t, "skipped (quantized activation)", "A '%s' comes "
			    "from %s '%s', not a per-tensor QuantizeLinear -> "
			    "DequantizeLinear pair the rotation can precede",
			    t->act->name, dq->op_type, dq->name), 1;
	dt = qir_value_elem_type(q->inputs[0]);
	if (dt != QIR_UNDEFINED && dt != t->w->dtype)
		return skip(t, "skipped (type mismatch)", "the input of "
			    "QuantizeLinear '%s' is %s, the weight %s", q->name,
			    qir_dtype_name(dt) ? qir_dtype_name(dt) : "?",
			    qir_dtype_name(t->w->dtype)), 1;
	t->quant = q;
	return 0;
}

static int act_ok(struct hr_target *t)
{
	qir_value *a = t->act;
	int dt = qir_value_elem_type(a);

	if (qir_value_const(a) || (a->producer &&
				   !strcmp(a->producer->op_type, "Constant")))
		return skip(t, "skipped (constant subgraph)",
			    "input A '%s' is constant too", a->name), 1;
	if (dt != QIR_UNDEFINED && dt != t->w->dtype)
		return skip(t, "skipped (type mismatch)", "A '%s' has type "
			    "%s, the weight %s", a->name,
			    qir_dtype_name(dt) ? qir_dtype_name(dt) : "unknown",
			    qir_dtype_name(t->w->dtype)), 1;
	if (a->rank >= 1 && a->dims[a->rank - 1].value >= 0 &&
	    a->dims[a->rank - 1].value != t->k)
		return skip(t, "skipped (activation shape mismatch)",
			    "A '%s' ends in %lld, K is %lld", a->name,
			    (long long)a->dims[a->rank - 1].value,
			    (long long)t->k), 1;
	if (a->producer && !a->producer->domain[0] &&
	    (!strcmp(a->producer->op_type, "DequantizeLinear") ||
	     !strcmp(a->producer->op_type, "QuantizeLinear")))
		return qdq_ok(t);
	return 0;
}

int hr_select(struct hr_cfg *cfg, qir_node *n, struct hr_target *t)
{
	const char *wname;
	qir_node *h;

	memset(t, 0, sizeof(*t));
	t->node = n;
	if (n->domain[0] || (strcmp(n->op_type, "MatMul") &&
			     strcmp(n->op_type, "Gemm")) || n->ninputs < 2 ||
	    !n->inputs[0] || !n->inputs[1])
		return 0;
	t->act = n->inputs[0];
	t->wv = n->inputs[1];
	wname = t->wv->name;
	if (!hr_match(cfg->op_types, cfg->nop_types, n->op_type, NULL, NULL))
		return skip(t, "skipped (op type not selected)", "%s",
			    n->op_type);
	if (!hr_match(cfg->include, cfg->ninclude, n->name, wname,
		      cfg->include_hits))
		return skip(t, "skipped (not included)", "no include glob "
			    "matches '%s' or '%s'", n->name, wname);
	if (hr_match(cfg->exclude, cfg->nexclude, n->name, wname,
		     cfg->exclude_hits))
		return skip(t, "skipped (excluded)", "an exclude glob matches "
			    "'%s' or '%s'", n->name, wname);
	if (qir_value_const(t->act) && hr_is_sylvester(qir_value_const(t->act)))
		return skip(t, "skipped (is a Hadamard rotation)",
			    "'%s' is a normalized Sylvester matrix",
			    t->act->name);
	if (weight_value(t))
		return 0;
	if (!is_float(t->w->dtype))
		return skip(t, "skipped (not a float weight)", "'%s' has type "
			    "%s", wname, qir_dtype_name(t->w->dtype) ?
			    qir_dtype_name(t->w->dtype) : "?");
	if (t->w->rank == 2 && t->w->dims[0] == t->w->dims[1] &&
	    hr_is_sylvester(t->w))
		return skip(t, "skipped (is a Hadamard rotation)",
			    "'%s' is a normalized Sylvester matrix", wname);
	if (hr_recorded(cfg, wname))
		return skip(t, "skipped (already rotated)", "'%s' is recorded "
			    "in metadata %s", wname, HR_META_KEY);
	h = hr_upstream_hadamard(t->act);
	if (h)
		return skip(t, "skipped (already rotated)", "A '%s' already "
			    "comes from the Hadamard rotation '%s'",
			    t->act->name, h->name);
	if (k_axis(t) || act_ok(t))
		return 0;
	if (!qir_tensor_numel(t->w))
		return skip(t, "skipped (empty weight)", "'%s' has no elements "
			    "(K = %lld)", wname, (long long)t->k);
	if ((int64_t)qir_tensor_numel(t->w) < cfg->min_size)
		return skip(t, "skipped (below min_size)", "'%s': %llu "
			    "elements < %lld", wname,
			    (unsigned long long)qir_tensor_numel(t->w),
			    (long long)cfg->min_size);
	if (pick_block(cfg, t) || all_finite(cfg, t))
		return 0;
	return 1;
}

/*
 * passes/fp8/report.c - the attention report (fp8-report), on the
 * blocks attn.c finds. A block is in the form TensorRT's fused FP8 attention needs when a
 * per-tensor FP8 DequantizeLinear feeds both BMM1 inputs and V directly,
 * Q/DQ sit between the Softmax and BMM2, and the head size is in
 * 9..256. For each block the first reason it is not is printed, quoting
 * the note a skipped rewrite left on the node in the way.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp8.h"

/* Layout ops rewrite 3b moves a Q/DQ below (besides is_layout's); a
 * Concat is followed through its first input. */
static int moves_data(const qir_node *n)
{
	return (fp8_is_op(n, "Expand") || fp8_is_op(n, "Slice") ||
		fp8_is_op(n, "Gather") || fp8_is_op(n, "Split") ||
		fp8_is_op(n, "Concat")) &&
	       n->ninputs >= 1 && n->inputs[0];
}

static int fp8_dq(const qir_node *p)
{
	int t;

	if (!fp8_is_dq(p))
		return 0;
	t = qir_value_elem_type(p->inputs[0]);
	return t == QIR_FLOAT8E4M3FN || t == QIR_FLOAT8E5M2;
}

/* Why the input of `at` named `what` is not fed by an FP8 DQ directly,
 * or NULL when it is. */
static const char *input_reason(const struct fp8_cfg *cfg, qir_value *v,
				const char *what, char *buf, size_t len)
{
	qir_node *p = v->producer, *first = p;
	qir_tensor *s;
	const char *note;
	char label[160];
	int hops;
	double c;

	if (fp8_dq(p)) {
		s = qir_value_const(p->inputs[1]);
		if (s && qir_tensor_numel(s) != 1) {
			snprintf(buf, len, "per-axis Q/DQ on %s", what);
			return buf;
		}
		return NULL;
	}
	note = NULL;
	for (hops = 0; p && hops < FP8_MAX_HOPS && !fp8_dq(p); hops++) {
		int k = 0;

		if ((fp8_is_op(p, "Mul") || fp8_is_op(p, "Div")) &&
		    p->ninputs == 2 && !fp8_scalar(p->inputs[0], &c))
			k = 1;
		if (!(fp8_attn_is_layout(p) || moves_data(p) || fp8_is_op(p, "Mul") ||
		      fp8_is_op(p, "Div")) || !p->inputs[k])
			break;
		/* the first note on the way: the rewrite skipped there */
		if (!note)
			note = fp8_note_for(cfg, p);
		p = p->inputs[k]->producer;
	}
	if (!fp8_dq(p)) {
		snprintf(buf, len, "no FP8 Q/DQ on %s", what);
		return buf;
	}
	snprintf(buf, len, "%s%s between DQ and %s%s%s",
		 fp8_is_op(first, "Cast") ? "a Cast " : "",
		 qir_node_label(first, label, sizeof(label)), what,
		 note ? " (" : "", note ? note : "");
	if (note && strlen(buf) + 2 < len)
		strcat(buf, ")");
	return buf;
}

static const char *softmax_reason(const struct fp8_cfg *cfg,
				  qir_node *sm, qir_node *bmm2, char *buf,
				  size_t len)
{
	qir_node *dq = bmm2->inputs[0]->producer, *q;
	const char *note;

	if (fp8_dq(dq) && (q = dq->inputs[0]->producer) && fp8_is_q(q))
		return NULL;
	note = fp8_note_for(cfg, sm);
	snprintf(buf, len, "no Q/DQ between Softmax and BMM2%s%s%s",
		 note ? " (" : "", note ? note : "", note ? ")" : "");
	return buf;
}

struct block {
	qir_node *bmm1, *sm, *bmm2;
	int64_t head;
	const char *why, *kind;
	char buf[512];
	char kindbuf[64];
};

/* The first reason, and its kind for the stats counter (so
 * --stats-json tells the reasons apart without parsing the log). */
static void judge(const struct fp8_cfg *cfg, struct block *b)
{
	static const char *const what[] = { "BMM1 input A (query)",
		"BMM1 input B (key)", NULL, "BMM2 input B (value)" };
	static const char *const kinds[] = { "query", "key", "softmax",
		"value" };
	qir_value *in[4];
	char tmp[512];
	int k;

	b->why = NULL;
	b->kind = NULL;
	b->head = fp8_attn_head_size(b->bmm1);
	if (b->head >= 0 && !fp8_head_fusible(b->head)) {
		snprintf(b->buf, sizeof(b->buf), "head size %lld outside %d..%d",
			 (long long)b->head, FP8_HEAD_MIN, FP8_HEAD_MAX);
		b->why = b->buf;
		b->kind = "attention blocks not fusible (head size)";
		return;
	}
	in[0] = b->bmm1->inputs[0];
	in[1] = b->bmm1->inputs[1];
	in[2] = NULL;
	in[3] = b->bmm2->inputs[1];
	for (k = 0; k < 4 && !b->why; k++)
		b->why = what[k] ? input_reason(cfg, in[k], what[k], tmp,
						sizeof(tmp)) :
			 softmax_reason(cfg, b->sm, b->bmm2, tmp, sizeof(tmp));
	if (!b->why)
		return;
	snprintf(b->buf, sizeof(b->buf), "%s", tmp);
	b->why = b->buf;
	snprintf(b->kindbuf, sizeof(b->kindbuf),
		 "attention blocks not fusible (%s)", kinds[k - 1]);
	b->kind = b->kindbuf;
}

static void print_block(struct fp8_cfg *cfg, size_t i, const struct block *b)
{
	char head[32];

	if (b->head >= 0)
		snprintf(head, sizeof(head), "%lld", (long long)b->head);
	else
		snprintf(head, sizeof(head), "unknown");
	if (!b->why) {
		qopt_info(cfg->ctx, "attention block %zu (BMM1 '%s', Softmax "
			  "'%s', BMM2 '%s', head size %s): fusible", i,
			  b->bmm1->name, b->sm->name, b->bmm2->name, head);
		return;
	}
	/* A warning: --strict fails on a block TensorRT will not fuse. */
	qopt_warn(cfg->ctx, "attention block %zu (BMM1 '%s', Softmax '%s', "
		  "BMM2 '%s', head size %s): not fusible: %s", i,
		  b->bmm1->name, b->sm->name, b->bmm2->name, head, b->why);
}

/* The scale of the per-tensor FP8 DQ feeding v directly; NAN when none. */
static double dq_scale(qir_value *v)
{
	qir_node *p = v ? v->producer : NULL;
	qir_tensor *s;
	double d;

	if (!fp8_dq(p) || !(s = qir_value_const(p->inputs[1])) ||
	    qir_tensor_numel(s) != 1 || qir_tensor_get_f64(s, 0, &d, NULL))
		return NAN;
	return d;
}

/* One --stats-json record per block: what the log line says, and the
 * scales TensorRT will use. */
static void record_block(struct fp8_cfg *cfg, size_t i,
			 const struct block *b)
{
	qopt_field f[11];
	size_t n = 0;

	f[n++] = (qopt_field){ "block", NULL, (double)i };
	f[n++] = (qopt_field){ "bmm1", b->bmm1->name, 0 };
	f[n++] = (qopt_field){ "softmax", b->sm->name, 0 };
	f[n++] = (qopt_field){ "bmm2", b->bmm2->name, 0 };
	f[n++] = (qopt_field){ "head_size", NULL,
			       b->head >= 0 ? (double)b->head : NAN };
	f[n++] = (qopt_field){ "fusible", b->why ? "no" : "yes", 0 };
	if (b->why)
		f[n++] = (qopt_field){ "reason", b->why, 0 };
	f[n++] = (qopt_field){ "scale_query", NULL,
			       dq_scale(b->bmm1->inputs[0]) };
	f[n++] = (qopt_field){ "scale_key", NULL,
			       dq_scale(b->bmm1->inputs[1]) };
	f[n++] = (qopt_field){ "scale_softmax", NULL,
			       dq_scale(b->bmm2->inputs[0]) };
	f[n++] = (qopt_field){ "scale_value", NULL,
			       dq_scale(b->bmm2->inputs[1]) };
	qopt_record(cfg->ctx, "attention block", f, n);
}

static int judge_all(struct fp8_cfg *cfg, size_t *blocks, size_t *fusible)
{
	qir_node **sms;
	size_t i, count;
	qir_error err = { 0 };

	*blocks = *fusible = 0;
	if (qir_graph_nodes(cfg->m->graph, "", "Softmax", 1, &sms, &count,
			    &err))
		return fp8_fail(cfg, NULL, &err);
	for (i = 0; i < count; i++) {
		struct block b;

		memset(&b, 0, sizeof(b));
		b.sm = sms[i];
		if (b.sm->ninputs < 1 || !b.sm->inputs[0] ||
		    b.sm->noutputs != 1 || !b.sm->outputs[0])
			continue;
		b.bmm1 = fp8_attn_bmm1(b.sm);
		b.bmm2 = fp8_attn_bmm2(b.sm);
		if (!b.bmm1 || !b.bmm2 || b.bmm1->ninputs != 2 ||
		    b.bmm2->ninputs != 2)
			continue;
		judge(cfg, &b);
		++*blocks;
		print_block(cfg, *blocks, &b);
		record_block(cfg, *blocks, &b);
		qopt_stat_add(cfg->ctx, "attention blocks", 1);
		qopt_stat_add(cfg->ctx, "attention blocks fusible", !b.why);
		if (b.kind)
			qopt_stat_add(cfg->ctx, b.kind, 1);
		if (!b.why)
			++*fusible;
	}
	free(sms);
	return 0;
}

/* Why the rewrites left what the report finds in the way: the motion
 * and Softmax rewrites matched again on the final model with their
 * gate closed, so their skips become notes (no log, no counter) that
 * the report quotes. Derived from the model alone: the report needs
 * nothing from the steps that ran before it. */
static int explain(struct fp8_cfg *cfg)
{
	/* Each rewrite as its pass runs by default: a place it could still
	 * change gets the gate's note (FP8_MAY). */
	static const struct fp8_switch on = { 1 };
	static const struct fp8_softmax_opts softmax = { 1, 0 };
	int changed = 0, rc;

	cfg->explain = 1;
	rc = fp8_move_transposes(cfg, &on, &changed);
	if (!rc)
		rc = fp8_sink_layout(cfg, &on, &changed);
	if (!rc)
		rc = fp8_move_scales(cfg, &on, &changed);
	if (!rc)
		rc = fp8_softmax_qdq(cfg, &softmax, &changed);
	cfg->explain = 0;
	return rc;
}

int fp8_report(struct fp8_cfg *cfg)
{
	size_t blocks = 0, fusible = 0, n;
	int found = 0;

	if (explain(cfg) || judge_all(cfg, &blocks, &fusible))
		return -1;
	found = blocks > 0;
	if (!found && fp8_survey(cfg, &found, &n))
		return -1;
	if (!found)
		qopt_warn(cfg->ctx, "no FP8 Q/DQ, custom FP8 op or attention "
			  "block found: nothing to do");
	else if (blocks)
		qopt_info(cfg->ctx, "attention: %zu of %zu blocks fusible",
			  fusible, blocks);
	return 0;
}

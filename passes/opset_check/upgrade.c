/*
 * upgrade.c - raises the default-domain opset of a model, walking every
 * node of every graph across each change of its operator's definition
 * between the two opsets (rules.c says what each change needs).
 *
 * Two passes over the nodes: a dry run that checks every rule's
 * preconditions, so an op we cannot upgrade fails the pass before the
 * model is touched, then the rewrite.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opset_check.h"

int oc_default_domain(const char *domain)
{
	return !domain || !*domain || !strcmp(domain, "ai.onnx");
}

const struct oc_op_history *oc_history(const char *op)
{
	const struct oc_op_history *h;

	for (h = oc_op_history; h->op; h++)
		if (!strcmp(h->op, op))
			return h;
	return NULL;
}

int oc_version_at(const struct oc_op_history *h, int opset)
{
	int i, v = 0;

	for (i = 0; h->since[i]; i++)
		if (h->since[i] <= opset)
			v = h->since[i];
	return v;
}

int oc_next_change(const struct oc_op_history *h, int v, int limit)
{
	int i;

	for (i = 0; h->since[i]; i++)
		if (h->since[i] > v && h->since[i] <= limit)
			return h->since[i];
	return 0;
}

int oc_ir_for_opset(int opset)
{
	static const int ir[] = {
		/* opset 0..25 -> IR of the ONNX release that introduced it */
		3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 5, 6, 7, 7, 7, 8, 8, 8, 8,
		9, 9, 10, 10, 11, 12, 13
	};

	if (opset < 0)
		return 3;
	if (opset >= (int)(sizeof(ir) / sizeof(ir[0])))
		return ir[sizeof(ir) / sizeof(ir[0]) - 1];
	return ir[opset];
}

struct node_list {
	qir_node **v;
	size_t n, cap;
};

static int collect(qir_graph *g, void *arg)
{
	struct node_list *l = arg;
	qir_node *n;

	qir_graph_for_each_node(g, n) {
		if (!oc_default_domain(n->domain))
			continue;
		if (l->n == l->cap) {
			size_t cap = l->cap ? l->cap * 2 : 64;
			qir_node **v = realloc(l->v, cap * sizeof(*v));

			if (!v)
				return -1;
			l->v = v;
			l->cap = cap;
		}
		l->v[l->n++] = n;
	}
	return 0;
}

/* Carries one node from opset `from` to `u->to`. */
static int upgrade_node(struct oc_up *u, qir_node *n, int from)
{
	const struct oc_op_history *h = oc_history(n->op_type);
	const char *op = n->op_type;
	int cur, next;

	if (!h) {
		snprintf(u->err, u->errlen, "cannot upgrade %s: unsupported "
			 "op: %s is not an ai.onnx operator known up to "
			 "opset %d",
			 oc_node_label(n), op, OC_MAX_OPSET);
		return -1;
	}
	cur = oc_version_at(h, from);
	if (!cur) {
		snprintf(u->err, u->errlen, "%s: %s does not exist in opset "
			 "%d (first defined in %d)", oc_node_label(n), op,
			 from, h->since[0]);
		return -1;
	}
	while ((next = oc_next_change(h, cur, u->to))) {
		const struct oc_rule *r = oc_rule_find(op, next);

		if (next == 6 && !u->dry && qir_node_attr(n, "consumed_inputs"))
			qir_node_remove_attr(n, "consumed_inputs");
		if (r && !r->fn) {
			snprintf(u->err, u->errlen, "cannot upgrade %s from "
				 "%s-%d to %s-%d: unsupported: %s",
				 oc_node_label(n), op,
				 cur, op, next, r->what);
			return -1;
		}
		if (r) {
			if (r->fn(u, &n, next) < 0)
				return -1;
			if (!u->dry)
				u->rewritten++;
			if (r->rename) {
				op = r->rename;
				h = oc_history(op);
				if (!h)
					return -1;
			}
		}
		cur = next;
	}
	return 0;
}

int oc_upgrade(qopt_ctx *ctx, qir_model *m, int from, int to,
	       char *errmsg, size_t errlen)
{
	struct node_list l = { 0 };
	struct oc_up u = { 0 };
	size_t i;
	int ret = -1;

	u.ctx = ctx;
	u.m = m;
	u.to = to;
	u.err = errmsg;
	u.errlen = errlen;
	if (qir_graph_walk(m->graph, collect, &l) < 0) {
		snprintf(errmsg, errlen, "out of memory");
		goto out;
	}
	u.dry = 1;
	for (i = 0; i < l.n; i++)
		if (upgrade_node(&u, l.v[i], from) < 0)
			goto out;
	u.dry = 0;
	for (i = 0; i < l.n; i++) {
		if (upgrade_node(&u, l.v[i], from) < 0)
			goto out;
		qopt_progress(ctx, i + 1, l.n, "upgrading nodes");
	}
	for (i = 0; i < m->nopsets; i++)
		if (oc_default_domain(m->opsets[i].domain))
			break;
	if (qir_model_set_opset(m, i < m->nopsets ? m->opsets[i].domain : "",
				to) < 0) {
		snprintf(errmsg, errlen, "cannot set the opset import");
		goto out;
	}
	if (m->ir_version < oc_ir_for_opset(to))
		m->ir_version = oc_ir_for_opset(to);
	qopt_stat_add(ctx, "nodes rewritten for the new opset", u.rewritten);
	qopt_stat_add(ctx, "nodes checked for upgrade", (int64_t)l.n);
	ret = 0;
out:
	free(l.v);
	return ret;
}

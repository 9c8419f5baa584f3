/*
 * ir/transforms/opset_upgrade.c - raises the default-domain opset of a model,
 * carrying every node of every graph across each change of its
 * operator's definition between the two opsets (opset_history.c lists
 * the changes, opset_rules.c says what each needs).
 *
 * Two walks over the nodes: a dry run that checks every rule's
 * preconditions, so a model we cannot upgrade is refused before it is
 * touched, then the rewrite.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transforms/opset_upgrade.h"

struct node_list {
	qir_node **v;
	size_t n;
};

static void report_rule(qir_upgrade_report *rep, const char *label,
			const struct ir_rule *r, int step)
{
	if (rep && rep->on_rewrite)
		rep->on_rewrite(rep->arg, label, r->op, step, r->what);
}

/* Carries one node from opset `from` to u->to. */
static int upgrade_node(struct ir_up *u, qir_node *n, int from,
			qir_upgrade_report *rep, int64_t *rewritten)
{
	const struct ir_op_history *h = ir_op_history(n->op_type);
	const char *op = n->op_type;
	char label[256];
	int cur, next;

	if (!h)
		return qir_fail(u->err, QIR_EUNSUPPORTED, "cannot upgrade %s: "
				"unsupported op: %s is not an ai.onnx operator "
				"known up to opset %d", ir_up_label(n), op,
				IR_UPGRADE_MAX_OPSET);
	cur = ir_op_version_at(h, from);
	if (!cur)
		return qir_fail(u->err, QIR_EINVALID, "%s: %s does not exist "
				"in opset %d (first defined in %d)",
				ir_up_label(n), op, from, h->since[0]);
	while ((next = ir_op_next_change(h, cur, u->to))) {
		const struct ir_rule *r = ir_rule_find(op, next);

		if (!r)
			return qir_fail(u->err, QIR_EUNSUPPORTED,
					"cannot upgrade %s from %s-%d to %s-%d: "
					"no rule for that change",
					ir_up_label(n), op, cur, op, next);
		if (next == 6 && !u->dry && qir_node_attr(n, "consumed_inputs"))
			qir_node_remove_attr(n, "consumed_inputs");
		if (r->keep) {
			cur = next;
			continue;
		}
		if (!r->fn)
			return qir_fail(u->err, QIR_EUNSUPPORTED,
					"cannot upgrade %s from %s-%d to "
					"%s-%d: unsupported: %s",
					ir_up_label(n), op, cur, op, next,
					r->what);
		/* The rule may replace the node: name it first. */
		snprintf(label, sizeof(label), "%s", ir_up_label(n));
		if (r->fn(u, &n, next) < 0)
			return -1;
		if (!u->dry) {
			(*rewritten)++;
			report_rule(rep, label, r, next);
		}
		if (r->rename) {
			op = r->rename;
			h = ir_op_history(op);
			if (!h)
				return qir_fail(u->err, QIR_EUSAGE,
						"%s: %s has no history",
						label, op);
		}
		cur = next;
	}
	return 0;
}

/* Model-local functions are not IR: their bodies would keep the old
 * operator definitions under the new opset. */
static int check_functions(const qir_model *m, qir_error *err)
{
	size_t nf = qir_model_function_count(m);
	char buf[512];
	const char *first;

	if (!nf)
		return 0;
	first = qir_model_function_name(m, 0, buf, sizeof(buf));
	return qir_fail(err, QIR_EUNSUPPORTED, "cannot upgrade the model: "
			"unsupported: it holds %zu model-local function%s "
			"(first '%s') whose bodies would not be upgraded", nf,
			nf == 1 ? "" : "s", first ? first : "");
}

static int check_target(const qir_model *m, int64_t from, int64_t target,
			qir_error *err)
{
	if (target > IR_UPGRADE_MAX_OPSET)
		return qir_fail(err, QIR_EUSAGE, "target opset %lld: operator "
				"changes are known only up to opset %d",
				(long long)target, IR_UPGRADE_MAX_OPSET);
	if (from <= 0)
		return qir_fail(err, QIR_EINVALID, "the model imports no "
				"ai.onnx opset to upgrade");
	if (target < from)
		return qir_fail(err, QIR_EUSAGE, "target opset %lld is below "
				"the declared opset %lld: downgrading is not "
				"supported", (long long)target,
				(long long)from);
	return target > from ? check_functions(m, err) : 0;
}

static void report_start(qir_upgrade_report *rep, const qir_model *m,
			 int64_t from)
{
	if (!rep)
		return;
	rep->from_opset = rep->to_opset = from;
	rep->ir_before = rep->ir_after = m->ir_version;
	rep->nodes_checked = rep->nodes_rewritten = 0;
}

/* Sets the version of the default-domain import, keeping the domain
 * spelling the model uses ("" or "ai.onnx"). */
static int set_opset(qir_model *m, int64_t to, qir_error *err)
{
	size_t i;

	for (i = 0; i < m->nopsets; i++)
		if (ir_default_domain(m->opsets[i].domain))
			break;
	if (qir_model_set_opset(m, i < m->nopsets ? m->opsets[i].domain : "",
				to) < 0)
		return qir_fail(err, QIR_ENOMEM, "cannot set the opset import");
	if (m->ir_version < qir_opset_min_ir_version(to))
		m->ir_version = qir_opset_min_ir_version(to);
	return 0;
}

static int run_rules(struct ir_up *u, const struct node_list *l, int from,
		     qir_upgrade_report *rep, int64_t *rewritten)
{
	size_t i;

	u->dry = 1;
	for (i = 0; i < l->n; i++)
		if (upgrade_node(u, l->v[i], from, rep, rewritten) < 0)
			return -1;
	u->dry = 0;
	for (i = 0; i < l->n; i++) {
		if (upgrade_node(u, l->v[i], from, rep, rewritten) < 0)
			return -1;
		if (rep && rep->on_progress)
			rep->on_progress(rep->arg, i + 1, l->n);
	}
	return 0;
}

static int upgrade(qir_model *m, int64_t target, qir_upgrade_report *rep,
		   qir_error *err)
{
	int64_t from = qir_model_opset(m, ""), rewritten = 0;
	struct node_list l = { 0 };
	qir_error local = { 0 };
	struct ir_up u = { 0 };
	int ret = -1;

	if (!err)
		err = &local;
	report_start(rep, m, from);
	if (check_target(m, from, target, err) < 0)
		return -1;
	if (target == from)
		return 0;
	u.m = m;
	u.to = (int)target;
	u.err = err;
	if (qir_graph_nodes(m->graph, "", NULL, 1, &l.v, &l.n, err) < 0)
		goto out;
	if (run_rules(&u, &l, (int)from, rep, &rewritten) < 0 ||
	    set_opset(m, target, err) < 0)
		goto out;
	if (rep) {
		rep->to_opset = target;
		rep->ir_after = m->ir_version;
		rep->nodes_checked = (int64_t)l.n;
		rep->nodes_rewritten = rewritten;
	}
	ret = 0;
out:
	free(l.v);
	return ret;
}

int qir_model_upgrade_opset(qir_model *m, int64_t target,
			    qir_upgrade_report *rep, qir_error *err)
{
	qir_upgrade_report r;
	int rc;

	if (!rep)
		return upgrade(m, target, NULL, err);
	if (ir_opts_read(&r, sizeof(r), rep, IR_UPGRADE_REPORT_4_0,
			 "qir_upgrade_report", err) < 0)
		return -1;
	rc = upgrade(m, target, &r, err);
	ir_opts_write(rep, &r, sizeof(r), IR_UPGRADE_REPORT_4_0);
	return rc;
}

int64_t qir_upgrade_max_opset(void)
{
	return IR_UPGRADE_MAX_OPSET;
}

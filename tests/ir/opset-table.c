/*
 * tests/ir/opset-table.c - the opset upgrade's rule table covers the
 * operator history by construction: every version step of every
 * ai.onnx operator has exactly one row (a rewrite, a refusal, or a
 * keep row saying why the node crosses unchanged), and no row names a
 * step the history does not have. The upgrade refuses a step without a
 * row, so a history entry added without its review fails here first.
 */
#include <string.h>
#include "transforms/opset_upgrade.h"
#include "../lib/tap.h"

static int in_history(const char *op, int step)
{
	const struct ir_op_history *h = ir_op_history(op);
	int i;

	for (i = 1; h && i < (int)(sizeof(h->since) / sizeof(h->since[0])) &&
		    h->since[i]; i++)
		if (h->since[i] == step)
			return 1;
	return 0;
}

static size_t rows_for(const struct ir_rule *t, const char *op, int step)
{
	size_t n = 0;

	for (; t->op; t++)
		n += t->step == step && !strcmp(t->op, op);
	return n;
}

int main(void)
{
	const struct ir_op_history *h;
	const struct ir_rule *r;
	size_t i, steps = 0, missing = 0, doubled = 0, stale = 0, keeps = 0;
	size_t unsaid = 0;
	int k;

	for (i = 0; (h = ir_op_history_at(i)); i++) {
		for (k = 1; k < (int)(sizeof(h->since) / sizeof(h->since[0])) &&
			    h->since[k]; k++) {
			size_t n = rows_for(ir_rules(), h->op, h->since[k]) +
				   rows_for(ir_keep_rules, h->op, h->since[k]);

			steps++;
			if (n == 0) {
				missing++;
				tap_diag("no row for %s-%d", h->op, h->since[k]);
			} else if (n > 1) {
				doubled++;
				tap_diag("%zu rows for %s-%d", n, h->op,
					 h->since[k]);
			}
		}
	}
	tap_ok(i > 150 && steps > 300, "history: %zu operators, %zu steps",
	       i, steps);
	tap_ok(missing == 0, "every step has a row (%zu missing)", missing);
	tap_ok(doubled == 0, "no step has two rows (%zu doubled)", doubled);
	for (r = ir_rules(); r->op; r++)
		if (!in_history(r->op, r->step)) {
			stale++;
			tap_diag("rule %s-%d: no such step", r->op, r->step);
		}
	for (r = ir_keep_rules; r->op; r++, keeps++) {
		if (!in_history(r->op, r->step)) {
			stale++;
			tap_diag("keep row %s-%d: no such step", r->op, r->step);
		}
		if (!r->keep || r->fn || !r->what || !r->what[0])
			unsaid++;
	}
	tap_ok(stale == 0, "no row names a step the history lacks (%zu)",
	       stale);
	tap_ok(keeps > 0 && unsaid == 0,
	       "%zu keep rows, each saying why the node is unchanged", keeps);
	r = ir_rule_find("Abs", 25);
	tap_ok(!r, "a step that does not exist has no row");
	r = ir_rule_find("Cast", 24);
	tap_ok(r && r->keep && strstr(r->what, "type-only"),
	       "Cast-24 is a type-only keep row");
	r = ir_rule_find("Pad", 11);
	tap_ok(r && !r->keep && r->fn, "Pad-11 is a rewrite");
	return tap_done();
}

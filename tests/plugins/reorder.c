/*
 * tests/plugins/reorder.c - t-reverse: appends a chain of Neg nodes
 * fed by the first graph input, consumer first (reverse dependency
 * order), and makes its end a new graph output. It places nothing:
 * the manager's re-sort (pass.h) must leave a verified, sorted model.
 */
#include <stdio.h>
#include <qopt/qopt.h>

static const qopt_option_spec reverse_opts[] = {
	{ .name = "count", .type = QOPT_OPT_INT, .default_value = "4",
	  .help = "nodes in the chain" },
	{ 0 }
};

#define MAXCHAIN 64

static int reverse_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	qir_graph *g = m->graph;
	int64_t count = qopt_opt_int(ctx, "count");
	qir_value *v[MAXCHAIN + 1];
	qir_node *n;
	int64_t i;

	if (!g->ninputs || count < 1 || count > MAXCHAIN) {
		qopt_error(ctx, "needs a graph input and 1..%d nodes", MAXCHAIN);
		return -1;
	}
	v[0] = g->inputs[0];
	for (i = 1; i <= count; i++)
		if (!(v[i] = qir_value_new(g, "rev"))) {
			qopt_error(ctx, "out of memory");
			return -1;
		}
	/* the last link first: each node is appended before its producer */
	for (i = count; i >= 1; i--) {
		n = qir_node_new(g, "Neg", NULL, "rev_neg");
		if (!n || qir_node_add_input(n, v[i - 1]) < 0 ||
		    !qir_node_add_output(n, v[i], NULL)) {
			qopt_error(ctx, "out of memory");
			return -1;
		}
	}
	if (qir_graph_add_output(g, v[count]) < 0) {
		qopt_error(ctx, "out of memory");
		return -1;
	}
	qopt_stat_add(ctx, "nodes appended in reverse order", count);
	*changed = 1;
	return 0;
}

/* t-cycle: two Neg nodes that read each other's output, a real cycle
 * that no order can fix. */
static int cycle_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	qir_graph *g = m->graph;
	qir_value *a = qir_value_new(g, "cyc"), *b = qir_value_new(g, "cyc");
	qir_node *n1 = qir_node_new(g, "Neg", NULL, "cyc_a");
	qir_node *n2 = qir_node_new(g, "Neg", NULL, "cyc_b");

	if (!a || !b || !n1 || !n2 || qir_node_add_input(n1, b) < 0 ||
	    !qir_node_add_output(n1, a, NULL) || qir_node_add_input(n2, a) < 0 ||
	    !qir_node_add_output(n2, b, NULL)) {
		qopt_error(ctx, "out of memory");
		return -1;
	}
	*changed = 1;
	return 0;
}

static const qopt_pass_info passes[] = {
	{ .name = "t-cycle", .summary = "adds two nodes that feed each other", .options = NULL,
	  .run = cycle_run, .flags = 0 },
	{ .name = "t-reverse", .summary = "appends a Neg chain consumer first", .options = reverse_opts,
	  .run = reverse_run, .flags = 0 },
	{ 0 }
};

QOPT_PLUGIN("test-reorder", "0.1", passes)

/*
 * core/cli/summary.c - `--summary` (on by default when stderr is a
 * terminal): what a pipeline run did to the model, as onnxsim prints it.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli/summary.h"
#include "manager/session-api.h"

static int op_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cli_op_count *)a)->op,
		      ((const struct cli_op_count *)b)->op);
}

/* Counts one node of op under s->ops (linear: a few dozen op types). */
static int count_op(struct cli_summary *s, const qir_node *n)
{
	char name[512];
	struct cli_op_count *grown;
	size_t i;

	if (n->domain && *n->domain && strcmp(n->domain, "ai.onnx"))
		snprintf(name, sizeof(name), "%s::%s", n->domain, n->op_type);
	else
		snprintf(name, sizeof(name), "%s", n->op_type);
	for (i = 0; i < s->nops; i++)
		if (!strcmp(s->ops[i].op, name)) {
			s->ops[i].n++;
			return 0;
		}
	grown = realloc(s->ops, (s->nops + 1) * sizeof(*grown));
	if (!grown)
		return -1;
	s->ops = grown;
	s->ops[s->nops].op = strdup(name);
	if (!s->ops[s->nops].op)
		return -1;
	s->ops[s->nops++].n = 1;
	return 0;
}

int cli_summary_take(struct cli_summary *s, const qir_model *m)
{
	qir_node *n;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->opset = -1;
	s->file_bytes = -1;
	s->data_bytes = -1;
	for (i = 0; i < m->nopsets; i++)
		if (!*m->opsets[i].domain ||
		    !strcmp(m->opsets[i].domain, "ai.onnx"))
			s->opset = m->opsets[i].version;
	if (!m->graph)
		return 0;
	qir_graph_for_each_node(m->graph, n)
		if (count_op(s, n) < 0)
			return -1;
	s->nnodes = m->graph->nnodes;
	s->ninits = m->graph->ninits;
	for (i = 0; i < m->graph->ninits; i++)
		s->init_bytes += m->graph->inits[i]->init->nbytes;
	if (s->nops)
		qsort(s->ops, s->nops, sizeof(*s->ops), op_cmp);
	return 0;
}

void cli_summary_files(struct cli_summary *s, const char *path,
		       const char *data_path)
{
	struct stat st;

	if (path && stat(path, &st) == 0)
		s->file_bytes = st.st_size;
	if (data_path && stat(data_path, &st) == 0)
		s->data_bytes = st.st_size;
}

void cli_summary_free(struct cli_summary *s)
{
	size_t i;

	for (i = 0; i < s->nops; i++)
		free(s->ops[i].op);
	free(s->ops);
	memset(s, 0, sizeof(*s));
}

static size_t count_of(const struct cli_summary *s, const char *op)
{
	size_t i;

	for (i = 0; i < s->nops; i++)
		if (!strcmp(s->ops[i].op, op))
			return s->ops[i].n;
	return 0;
}

static void row(FILE *f, int w, const char *what, int64_t a, int64_t b)
{
	char x[32] = "-", y[32] = "-";

	if (a >= 0)
		snprintf(x, sizeof(x), "%lld", (long long)a);
	if (b >= 0)
		snprintf(y, sizeof(y), "%lld", (long long)b);
	fprintf(f, "  %-*s %14s %14s%s\n", w, what, x, y,
		a != b ? "  *" : "");
}

/* Op types of either side, each once, in order. */
static void op_rows(FILE *f, int w, const struct cli_summary *a,
		    const struct cli_summary *b)
{
	size_t i = 0, j = 0;

	while (i < a->nops || j < b->nops) {
		int c = i == a->nops ? 1 : j == b->nops ? -1 :
			strcmp(a->ops[i].op, b->ops[j].op);
		const char *op = c <= 0 ? a->ops[i].op : b->ops[j].op;

		row(f, w, op, (int64_t)count_of(a, op),
		    (int64_t)count_of(b, op));
		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
	}
}

static int label_width(const struct cli_summary *a,
		       const struct cli_summary *b)
{
	size_t i, w = strlen("initializer bytes");

	for (i = 0; i < a->nops; i++)
		if (strlen(a->ops[i].op) > w)
			w = strlen(a->ops[i].op);
	for (i = 0; i < b->nops; i++)
		if (strlen(b->ops[i].op) > w)
			w = strlen(b->ops[i].op);
	return (int)(w > 40 ? 40 : w);
}

static void pass_lines(FILE *f, const qm_session *s)
{
	char counters[1024];
	struct qm_stage st;
	size_t i;

	for (i = 0; i < qm_nstages(s); i++) {
		qm_stage_at(s, i, &st);
		fprintf(f, "  %-20s %-9s %8.3f s  %s\n", st.name,
			!st.ran ? "not run" : st.changed ? "changed" :
			"unchanged", st.seconds,
			qm_stage_counters(s, i, counters, sizeof(counters)));
	}
}

static void print_table(FILE *f, const struct cli_summary *before,
			const struct cli_summary *after, const qm_session *s)
{
	int w = label_width(before, after);

	fprintf(f, "qopt: summary (* changed)\n");
	fprintf(f, "  %-*s %14s %14s\n", w, "", "before", "after");
	op_rows(f, w, before, after);
	row(f, w, "nodes", (int64_t)before->nnodes, (int64_t)after->nnodes);
	row(f, w, "initializers", (int64_t)before->ninits,
	    (int64_t)after->ninits);
	row(f, w, "initializer bytes", (int64_t)before->init_bytes,
	    (int64_t)after->init_bytes);
	row(f, w, "opset (ai.onnx)", before->opset, after->opset);
	row(f, w, "model file bytes", before->file_bytes, after->file_bytes);
	if (before->data_bytes >= 0 || after->data_bytes >= 0)
		row(f, w, "external data bytes", before->data_bytes,
		    after->data_bytes);
	if (qm_nstages(s)) {
		fprintf(f, "passes:\n");
		pass_lines(f, s);
	}
}

void cli_summary_print(qm_session *s, const struct cli_summary *before,
		       const struct cli_summary *after)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	print_table(f, before, after, s);
	if (fclose(f) == 0)
		qm_say(s, QOPT_LOG_INFO, "%s", buf);
	free(buf);
}

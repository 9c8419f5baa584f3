/*
 * ir/model/print.c - readable listing of a model (qopt dump, --print-after).
 */
#include <inttypes.h>
#include <string.h>
#include "model/internal.h"

static void pad(FILE *f, int indent)
{
	fprintf(f, "%*s", indent, "");
}

/* Names come from the file: control bytes (ESC, newline, ...) are
 * shown as \xNN, so a name can neither drive the terminal nor fake a
 * line of the listing. Well-formed UTF-8 passes through; broken UTF-8
 * and C1 controls are escaped too, and so is '\\' (unambiguous). */
static void put_name(FILE *f, const char *s)
{
	while (*s) {
		size_t k = *s == '\\' ? 0 : ir_utf8_shown(s);

		if (k) {
			fwrite(s, 1, k, f);
			s += k;
		} else {
			fprintf(f, "\\x%02x", (unsigned char)*s++);
		}
	}
}

static void print_value_type(const qir_value *v, FILE *f)
{
	const char *dt = qir_dtype_name(v->dtype);
	int i;

	fprintf(f, "%s", v->dtype && dt ? dt : "?");
	if (v->rank < 0)
		return;		/* shape unknown (rank 0 prints "[]") */
	fputc('[', f);
	for (i = 0; i < v->rank; i++) {
		const qir_dim *d = &v->dims[i];

		if (i)
			fputc(',', f);
		if (d->param && d->param[0])
			put_name(f, d->param);
		else if (d->value >= 0)
			fprintf(f, "%" PRId64, d->value);
		else
			fputc('?', f);
	}
	fputc(']', f);
}

static void print_string(const char *s, size_t len, FILE *f)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < len && i < 64; i++) {
		unsigned char ch = s[i];

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			fprintf(f, "\\x%02x", ch);
		else
			fputc(ch, f);
	}
	if (len > 64)
		fprintf(f, "...");
	fputc('"', f);
}

/* Element i of t: integers exactly (%g would round 16777217), floats
 * with %g. */
static int print_elem(qir_tensor *t, uint64_t i, FILE *f)
{
	const unsigned char *d;
	int64_t v;
	uint64_t u;
	double x;

	if (t->dtype == QIR_UINT64) {
		/* beyond int64: read the bits */
		d = qir_tensor_data(t, NULL);
		if (!d)
			return -1;
		memcpy(&u, d + 8 * i, sizeof(u));
		return fprintf(f, "%" PRIu64, u) < 0 ? -1 : 0;
	}
	if (!qir_dtype_is_float(t->dtype)) {
		if (qir_tensor_get_i64(t, i, &v, NULL) < 0)
			return -1;
		return fprintf(f, "%" PRId64, v) < 0 ? -1 : 0;
	}
	if (qir_tensor_get_f64(t, i, &x, NULL) < 0)
		return -1;
	return fprintf(f, "%g", x) < 0 ? -1 : 0;
}

static void print_tensor_brief(qir_tensor *t, FILE *f)
{
	char buf[256], where[4200];

	fprintf(f, "%s (%" PRIu64 " bytes, %s)",
		qir_tensor_type_str(t->dtype, t->rank, t->dims, buf, sizeof(buf)),
		t->nbytes, qir_tensor_location(t, where, sizeof(where)));
	/* Small numeric tensors are worth seeing (shapes, axes, scales). */
	if (qir_tensor_numel(t) <= 8 && t->dtype != QIR_STRING &&
	    t->storage != QIR_STORE_NONE) {
		uint64_t i, n = qir_tensor_numel(t);

		fputs(" {", f);
		for (i = 0; i < n; i++) {
			if (i)
				fputs(", ", f);
			if (print_elem(t, i, f) < 0) {
				fputs("...", f);
				break;
			}
		}
		fputc('}', f);
	}
}

static void print_attr(qir_attr *a, FILE *f, int indent)
{
	size_t i;

	fputc(' ', f);
	put_name(f, a->name);
	fputc('=', f);
	if (a->ref_attr_name) {
		fputc('@', f);
		put_name(f, a->ref_attr_name);
		return;
	}
	switch (a->type) {
	case QIR_ATTR_FLOAT:
		fprintf(f, "%g", a->f);
		break;
	case QIR_ATTR_INT:
		fprintf(f, "%" PRId64, a->i);
		break;
	case QIR_ATTR_STRING:
		print_string(a->s ? a->s : "", a->s ? a->slen : 0, f);
		break;
	case QIR_ATTR_TENSOR:
		if (a->t)
			print_tensor_brief(a->t, f);
		break;
	case QIR_ATTR_FLOATS:
	case QIR_ATTR_INTS:
	case QIR_ATTR_STRINGS:
		fputc('[', f);
		for (i = 0; i < a->n; i++) {
			if (i)
				fputc(',', f);
			if (a->type == QIR_ATTR_FLOATS)
				fprintf(f, "%g", a->floats[i]);
			else if (a->type == QIR_ATTR_INTS)
				fprintf(f, "%" PRId64, a->ints[i]);
			else
				print_string(a->strings[i], a->string_lens ?
					     a->string_lens[i] : strlen(a->strings[i]), f);
		}
		fputc(']', f);
		break;
	case QIR_ATTR_TENSORS:
		fprintf(f, "<%zu tensors>", a->n);
		break;
	case QIR_ATTR_GRAPH:
		fputs("{\n", f);
		if (a->g)
			qir_print_graph(a->g, f, indent + 4);
		pad(f, indent + 2);
		fputc('}', f);
		break;
	case QIR_ATTR_GRAPHS:
		fputs("[\n", f);
		for (i = 0; i < a->n; i++) {
			pad(f, indent + 2);
			fputs("{\n", f);
			qir_print_graph(a->graphs[i], f, indent + 4);
			pad(f, indent + 2);
			fputs("}\n", f);
		}
		pad(f, indent + 2);
		fputc(']', f);
		break;
	default:
		fprintf(f, "<attribute type %d>", a->type);
	}
}

static void print_node(qir_node *n, FILE *f, int indent)
{
	size_t i;

	pad(f, indent);
	for (i = 0; i < n->noutputs; i++) {
		fputs(i ? ", " : "", f);
		put_name(f, n->outputs[i] ? n->outputs[i]->name : "_");
	}
	fprintf(f, "%s", n->noutputs ? " = " : "");
	if (n->domain[0] && strcmp(n->domain, "ai.onnx") != 0) {
		put_name(f, n->domain);
		fputs("::", f);
	}
	put_name(f, n->op_type);
	fputc('(', f);
	for (i = 0; i < n->ninputs; i++) {
		fputs(i ? ", " : "", f);
		put_name(f, n->inputs[i] ? n->inputs[i]->name : "_");
	}
	fputc(')', f);
	for (i = 0; i < n->nattrs; i++)
		print_attr(&n->attrs[i], f, indent);
	if (n->name[0]) {
		fputs("  # ", f);
		put_name(f, n->name);
	}
	fputc('\n', f);
}

static void print_values(const char *title, qir_value **vs, size_t n,
			 FILE *f, int indent)
{
	size_t i;

	if (!n)
		return;
	pad(f, indent);
	fprintf(f, "%s:\n", title);
	for (i = 0; i < n; i++) {
		pad(f, indent + 2);
		put_name(f, vs[i]->name);
		fputs(": ", f);
		print_value_type(vs[i], f);
		fputc('\n', f);
	}
}

/* What every node output is: declared (value_info), inferred at load or
 * after a pass, or unknown ("?"): the types passes see, which the file
 * alone does not show for exporter models that carry no value_info. */
static void print_node_types(qir_graph *g, FILE *f, int indent)
{
	qir_node *n;
	size_t i;

	if (!g->nnodes)
		return;
	pad(f, indent);
	fputs("types:\n", f);
	qir_graph_for_each_node(g, n) {
		for (i = 0; i < n->noutputs; i++) {
			qir_value *v = n->outputs[i];

			if (!v)
				continue;
			pad(f, indent + 2);
			put_name(f, v->name);
			fputs(": ", f);
			print_value_type(v, f);
			fputs(qir_value_type_inferred(v) ? " (inferred)\n" :
							   "\n", f);
		}
	}
}

void qir_print_graph(qir_graph *g, FILE *f, int indent)
{
	qir_node *n;
	size_t i;

	pad(f, indent);
	fputs("graph ", f);
	put_name(f, g->name[0] ? g->name : "\"\"");
	fprintf(f, " (%zu nodes)\n", g->nnodes);
	print_values("inputs", g->inputs, g->ninputs, f, indent);
	print_values("outputs", g->outputs, g->noutputs, f, indent);
	if (g->ninits) {
		pad(f, indent);
		fprintf(f, "initializers:\n");
	}
	for (i = 0; i < g->ninits; i++) {
		pad(f, indent + 2);
		put_name(f, g->inits[i]->name);
		fputs(": ", f);
		print_tensor_brief(g->inits[i]->init, f);
		fputc('\n', f);
	}
	if (g->nnodes) {
		pad(f, indent);
		fprintf(f, "nodes:\n");
	}
	qir_graph_for_each_node(g, n)
		print_node(n, f, indent + 2);
	print_node_types(g, f, indent);
}

void qir_print(qir_model *m, FILE *f)
{
	size_t i;

	fprintf(f, "ir_version: %" PRId64 "\n", m->ir_version);
	fprintf(f, "opset_import:");
	for (i = 0; i < m->nopsets; i++) {
		fputc(' ', f);
		put_name(f, m->opsets[i].domain && m->opsets[i].domain[0] ?
			 m->opsets[i].domain : "ai.onnx");
		fprintf(f, "=%" PRId64, m->opsets[i].version);
	}
	fputc('\n', f);
	if ((m->producer_name && m->producer_name[0]) ||
	    (m->producer_version && m->producer_version[0]))
	{
		fputs("producer: ", f);
		put_name(f, m->producer_name ? m->producer_name : "");
		fputc(' ', f);
		put_name(f, m->producer_version ? m->producer_version : "");
		fputc('\n', f);
	}
	if (m->domain && m->domain[0]) {
		fputs("domain: ", f);
		put_name(f, m->domain);
		fputc('\n', f);
	}
	if (m->model_version)
		fprintf(f, "model_version: %" PRId64 "\n", m->model_version);
	for (i = 0; i < m->nmetadata; i++) {
		fputs("metadata: ", f);
		put_name(f, m->metadata[i].key);
		fputs(" = ", f);
		put_name(f, m->metadata[i].value);
		fputc('\n', f);
	}
	qir_print_graph(m->graph, f, 0);
}

/*
 * tests/lib/ir-compare.c - semantic comparison of two ONNX models.
 *
 *   ir-compare [-q] A.onnx B.onnx
 *
 * Loads both with libqopt and compares what a model means: IR version,
 * model domain and version, opset imports (as a set), metadata (as a
 * set), and the graph recursively: inputs and outputs with element
 * types and shapes, the type of every node output, nodes in order
 * (name, op, domain, inputs, outputs, attributes in order with their
 * values, subgraphs recursively) and initializers (name, type, dims,
 * bytes). Producer name/version and doc strings are not compared: a
 * tool that rewrites a model may stamp itself.
 *
 * Exit 0 when equal, 1 with the first difference on stdout, 2 when a
 * model does not load.
 *
 *   ir-compare --batch
 *
 * compares many pairs in one process: "TAG<TAB>A<TAB>B" lines on stdin,
 * one "TAG<TAB>same|differ|error<TAB>message" line each on stdout.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/ir.h>

/* Where in the model we are, for the difference message. */
static char where[4096];

/* Batch mode (--batch) keeps the first difference of a pair here, to
 * print it on the pair's one result line; otherwise NULL. */
static char *first_diff;
static size_t first_diff_size;

static int differ(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int differ(const char *fmt, ...)
{
	va_list ap;

	if (first_diff) {
		size_t len;

		if (first_diff[0])
			return 1;
		snprintf(first_diff, first_diff_size, "%s: ",
			 where[0] ? where : "model");
		len = strlen(first_diff);
		va_start(ap, fmt);
		vsnprintf(first_diff + len, first_diff_size - len, fmt, ap);
		va_end(ap);
		return 1;
	}
	printf("differ: %s: ", where[0] ? where : "model");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return 1;
}

/* Appends a path component; returns the old length to restore. */
static size_t push(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static size_t push(const char *fmt, ...)
{
	size_t len = strlen(where);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(where + len, sizeof(where) - len, fmt, ap);
	va_end(ap);
	return len;
}

static void pop(size_t len)
{
	where[len] = '\0';
}

static const char *nz(const char *s)
{
	return s ? s : "";
}

static int str_differ(const char *what, const char *a, const char *b)
{
	if (strcmp(nz(a), nz(b)) == 0)
		return 0;
	return differ("%s \"%s\" vs \"%s\"", what, nz(a), nz(b));
}

static int cmp_graph(qir_graph *a, qir_graph *b);

static int cmp_tensor(qir_tensor *a, qir_tensor *b)
{
	qir_error ea = { 0 }, eb = { 0 };
	const void *da, *db;
	int i;

	if (str_differ("tensor name", a->name, b->name))
		return 1;
	if (a->dtype != b->dtype)
		return differ("tensor %s: dtype %d vs %d", a->name, a->dtype,
			      b->dtype);
	if (a->rank != b->rank)
		return differ("tensor %s: rank %d vs %d", a->name, a->rank,
			      b->rank);
	for (i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return differ("tensor %s: dim %d is %" PRId64
				      " vs %" PRId64, a->name, i, a->dims[i],
				      b->dims[i]);
	if (a->dtype == QIR_STRING) {
		uint64_t k;

		if (a->nstrings != b->nstrings)
			return differ("tensor %s: %" PRIu64 " vs %" PRIu64
				      " strings", a->name, a->nstrings,
				      b->nstrings);
		for (k = 0; k < a->nstrings; k++)
			if (a->string_lens[k] != b->string_lens[k] ||
			    memcmp(a->strings[k], b->strings[k],
				   a->string_lens[k]))
				return differ("tensor %s: string %" PRIu64
					      " differs", a->name, k);
		return 0;
	}
	if (a->nbytes != b->nbytes)
		return differ("tensor %s: %" PRIu64 " vs %" PRIu64 " bytes",
			      a->name, a->nbytes, b->nbytes);
	if ((a->storage == QIR_STORE_NONE) != (b->storage == QIR_STORE_NONE))
		return differ("tensor %s: data present in one model only",
			      a->name);
	if (a->nbytes == 0 || a->storage == QIR_STORE_NONE)
		return 0;
	da = qir_tensor_data(a, &ea);
	db = qir_tensor_data(b, &eb);
	if (!da || !db)
		return differ("tensor %s: cannot read data: %s", a->name,
			      !da ? ea.msg : eb.msg);
	if (memcmp(da, db, a->nbytes)) {
		const unsigned char *pa = da, *pb = db;
		uint64_t k = 0;

		while (pa[k] == pb[k])
			k++;
		return differ("tensor %s: bytes differ at offset %" PRIu64
			      " (0x%02x vs 0x%02x)", a->name, k, pa[k], pb[k]);
	}
	return 0;
}

static int cmp_value_type(qir_value *a, qir_value *b)
{
	int i;

	if (str_differ("value name", a->name, b->name))
		return 1;
	if (a->dtype != b->dtype)
		return differ("value %s: dtype %d vs %d", a->name, a->dtype,
			      b->dtype);
	if (a->rank != b->rank)
		return differ("value %s: rank %d vs %d", a->name, a->rank,
			      b->rank);
	for (i = 0; i < a->rank; i++) {
		if (a->dims[i].value != b->dims[i].value)
			return differ("value %s: dim %d is %" PRId64 " vs %"
				      PRId64, a->name, i, a->dims[i].value,
				      b->dims[i].value);
		if (str_differ("dim_param", a->dims[i].param,
			       b->dims[i].param))
			return 1;
	}
	return 0;
}

static int cmp_value_list(const char *what, qir_value **a, size_t na,
			  qir_value **b, size_t nb)
{
	size_t i, len;
	int r = 0;

	if (na != nb)
		return differ("%zu vs %zu %s", na, nb, what);
	for (i = 0; i < na && !r; i++) {
		len = push(" %s[%zu]", what, i);
		if (!a[i] || !b[i]) {
			if (a[i] || b[i])
				r = differ("empty in one model only");
		} else {
			r = cmp_value_type(a[i], b[i]);
		}
		pop(len);
	}
	return r;
}

static int cmp_floats(const float *a, const float *b, size_t n)
{
	/* Bitwise: NaN payloads and -0.0 must survive a round trip. */
	return memcmp(a, b, n * sizeof(*a)) != 0;
}

static int cmp_attr(qir_attr *a, qir_attr *b)
{
	size_t k;

	if (str_differ("attribute name", a->name, b->name))
		return 1;
	if (a->type != b->type)
		return differ("attribute %s: type %d vs %d", a->name, a->type,
			      b->type);
	if (str_differ("ref_attr_name", a->ref_attr_name, b->ref_attr_name))
		return 1;
	switch (a->type) {
	case QIR_ATTR_FLOAT:
		if (cmp_floats(&a->f, &b->f, 1))
			return differ("attribute %s: %g vs %g", a->name,
				      a->f, b->f);
		return 0;
	case QIR_ATTR_INT:
		if (a->i != b->i)
			return differ("attribute %s: %" PRId64 " vs %" PRId64,
				      a->name, a->i, b->i);
		return 0;
	case QIR_ATTR_STRING:
		if (a->slen != b->slen || memcmp(nz(a->s), nz(b->s), a->slen))
			return differ("attribute %s: strings differ", a->name);
		return 0;
	case QIR_ATTR_TENSOR:
		if (!a->t || !b->t)
			return (a->t || b->t) ?
				differ("attribute %s: tensor missing", a->name) : 0;
		return cmp_tensor(a->t, b->t);
	case QIR_ATTR_GRAPH:
		if (!a->g || !b->g)
			return (a->g || b->g) ?
				differ("attribute %s: graph missing", a->name) : 0;
		return cmp_graph(a->g, b->g);
	default:
		break;
	}
	if (a->n != b->n)
		return differ("attribute %s: %zu vs %zu elements", a->name,
			      a->n, b->n);
	switch (a->type) {
	case QIR_ATTR_FLOATS:
		if (a->n && cmp_floats(a->floats, b->floats, a->n))
			return differ("attribute %s: floats differ", a->name);
		break;
	case QIR_ATTR_INTS:
		if (a->n && memcmp(a->ints, b->ints, a->n * sizeof(*a->ints)))
			return differ("attribute %s: ints differ", a->name);
		break;
	case QIR_ATTR_STRINGS:
		for (k = 0; k < a->n; k++)
			if (a->string_lens[k] != b->string_lens[k] ||
			    memcmp(a->strings[k], b->strings[k],
				   a->string_lens[k]))
				return differ("attribute %s: string %zu differs",
					      a->name, k);
		break;
	case QIR_ATTR_TENSORS:
		for (k = 0; k < a->n; k++)
			if (cmp_tensor(a->tensors[k], b->tensors[k]))
				return 1;
		break;
	case QIR_ATTR_GRAPHS:
		for (k = 0; k < a->n; k++)
			if (cmp_graph(a->graphs[k], b->graphs[k]))
				return 1;
		break;
	default:
		/* Sparse tensors and type protos are kept verbatim by the
		 * IR (not modelled): nothing public to compare. */
		break;
	}
	return 0;
}

static int cmp_node(qir_node *a, qir_node *b)
{
	size_t k, len;
	int r = 0;

	if (str_differ("op_type", a->op_type, b->op_type) ||
	    str_differ("domain", a->domain, b->domain) ||
	    str_differ("node name", a->name, b->name))
		return 1;
	if (cmp_value_list("input", a->inputs, a->ninputs, b->inputs,
			   b->ninputs))
		return 1;
	if (cmp_value_list("output", a->outputs, a->noutputs, b->outputs,
			   b->noutputs))
		return 1;
	if (a->nattrs != b->nattrs)
		return differ("%zu vs %zu attributes", a->nattrs, b->nattrs);
	for (k = 0; k < a->nattrs && !r; k++) {
		len = push(" attr %s", a->attrs[k].name);
		r = cmp_attr(&a->attrs[k], &b->attrs[k]);
		pop(len);
	}
	return r;
}

static int cmp_graph(qir_graph *a, qir_graph *b)
{
	qir_node *na, *nb;
	size_t i, len;
	int r = 0;

	len = push("%sgraph %s", where[0] ? " > " : "", nz(a->name));
	if (str_differ("graph name", a->name, b->name) ||
	    cmp_value_list("input", a->inputs, a->ninputs, b->inputs,
			   b->ninputs) ||
	    cmp_value_list("output", a->outputs, a->noutputs, b->outputs,
			   b->noutputs)) {
		pop(len);
		return 1;
	}
	if (a->nnodes != b->nnodes) {
		r = differ("%zu vs %zu nodes", a->nnodes, b->nnodes);
		pop(len);
		return r;
	}
	for (na = a->first, nb = b->first, i = 0; na && nb && !r;
	     na = na->next, nb = nb->next, i++) {
		size_t l2 = push(" node %zu (%s %s)", i, na->op_type,
				 nz(na->name));
		r = cmp_node(na, nb);
		pop(l2);
	}
	if (!r && (na || nb))
		r = differ("node lists end differently");
	if (!r && a->ninits != b->ninits)
		r = differ("%zu vs %zu initializers", a->ninits, b->ninits);
	for (i = 0; i < a->ninits && !r; i++) {
		size_t l2 = push(" initializer %zu", i);

		if (!a->inits[i]->init || !b->inits[i]->init)
			r = differ("value without tensor");
		else
			r = cmp_value_type(a->inits[i], b->inits[i]) ||
			    cmp_tensor(a->inits[i]->init, b->inits[i]->init);
		pop(l2);
	}
	pop(len);
	return r;
}

static int opset_cmp(const void *x, const void *y)
{
	const qir_opset *a = x, *b = y;

	return strcmp(a->domain, b->domain);
}

/* Sorted copy with "ai.onnx" spelled "" (the same domain). */
static qir_opset *norm_opsets(const qir_model *m)
{
	qir_opset *o = calloc(m->nopsets + 1, sizeof(*o));
	size_t i;

	if (!o)
		return NULL;
	for (i = 0; i < m->nopsets; i++) {
		o[i] = m->opsets[i];
		if (!o[i].domain || strcmp(o[i].domain, "ai.onnx") == 0)
			o[i].domain = "";
	}
	qsort(o, m->nopsets, sizeof(*o), opset_cmp);
	return o;
}

static int kv_cmp(const void *x, const void *y)
{
	const qir_kv *a = x, *b = y;
	int r = strcmp(nz(a->key), nz(b->key));

	return r ? r : strcmp(nz(a->value), nz(b->value));
}

static int cmp_metadata(qir_model *a, qir_model *b)
{
	qir_kv *ka, *kb;
	size_t i;
	int r = 0;

	if (a->nmetadata != b->nmetadata)
		return differ("%zu vs %zu metadata entries", a->nmetadata,
			      b->nmetadata);
	ka = calloc(a->nmetadata + 1, sizeof(*ka));
	kb = calloc(b->nmetadata + 1, sizeof(*kb));
	if (!ka || !kb) {
		free(ka);
		free(kb);
		return differ("out of memory");
	}
	memcpy(ka, a->metadata, a->nmetadata * sizeof(*ka));
	memcpy(kb, b->metadata, b->nmetadata * sizeof(*kb));
	qsort(ka, a->nmetadata, sizeof(*ka), kv_cmp);
	qsort(kb, b->nmetadata, sizeof(*kb), kv_cmp);
	for (i = 0; i < a->nmetadata && !r; i++)
		if (kv_cmp(&ka[i], &kb[i]))
			r = differ("metadata %s=%s vs %s=%s", nz(ka[i].key),
				   nz(ka[i].value), nz(kb[i].key),
				   nz(kb[i].value));
	free(ka);
	free(kb);
	return r;
}

static int cmp_model(qir_model *a, qir_model *b)
{
	qir_opset *oa, *ob;
	size_t i;
	int r = 0;

	if (a->ir_version != b->ir_version)
		return differ("ir_version %" PRId64 " vs %" PRId64,
			      a->ir_version, b->ir_version);
	if (a->model_version != b->model_version)
		return differ("model_version %" PRId64 " vs %" PRId64,
			      a->model_version, b->model_version);
	if (str_differ("model domain", a->domain, b->domain))
		return 1;
	if (a->nopsets != b->nopsets)
		return differ("%zu vs %zu opset imports", a->nopsets,
			      b->nopsets);
	oa = norm_opsets(a);
	ob = norm_opsets(b);
	if (!oa || !ob)
		r = differ("out of memory");
	for (i = 0; i < a->nopsets && !r; i++)
		if (strcmp(oa[i].domain, ob[i].domain) ||
		    oa[i].version != ob[i].version)
			r = differ("opset import \"%s\" %" PRId64 " vs \"%s\" %"
				   PRId64, oa[i].domain, oa[i].version,
				   ob[i].domain, ob[i].version);
	free(oa);
	free(ob);
	if (r || cmp_metadata(a, b))
		return 1;
	if (!a->graph || !b->graph)
		return (a->graph || b->graph) ? differ("graph missing") : 0;
	return cmp_graph(a->graph, b->graph);
}

/* Compares one pair; 0 same, 1 differ, 2 a model does not load. In
 * batch mode the message (first difference or load error) goes to msg. */
static int compare_files(const char *fa, const char *fb, char *msg,
			 size_t msg_size)
{
	qir_model *a = NULL, *b = NULL;
	qir_error err = { 0 };
	int r;

	if (qir_model_load(fa, NULL, &a, &err)) {
		snprintf(msg, msg_size, "%s: %s", fa, err.msg);
		return 2;
	}
	if (qir_model_load(fb, NULL, &b, &err)) {
		snprintf(msg, msg_size, "%s: %s", fb, err.msg);
		qir_model_free(a);
		return 2;
	}
	where[0] = '\0';
	r = cmp_model(a, b);
	qir_model_free(a);
	qir_model_free(b);
	return r ? 1 : 0;
}

/*
 * --batch: one process for a whole corpus (tests/e2e/corpus-roundtrip.sh),
 * not two loads in a process per model. Reads "TAG<TAB>A<TAB>B" lines
 * on stdin, writes "TAG<TAB>same|differ|error<TAB>message" lines.
 */
static int batch(void)
{
	static char line[3 * 4096], msg[4096];
	static const char *const verdict[] = { "same", "differ", "error" };

	first_diff = msg;
	first_diff_size = sizeof(msg);
	while (fgets(line, sizeof(line), stdin)) {
		char *tag = line, *fa, *fb, *nl;
		int r;

		nl = strchr(line, '\n');
		if (!nl) {
			fprintf(stderr, "ir-compare: input line too long\n");
			return 2;
		}
		*nl = '\0';
		fa = strchr(tag, '\t');
		fb = fa ? strchr(fa + 1, '\t') : NULL;
		if (!fb) {
			fprintf(stderr, "ir-compare: expected TAG<TAB>A<TAB>B, "
				"got '%s'\n", line);
			return 2;
		}
		*fa++ = '\0';
		*fb++ = '\0';
		msg[0] = '\0';
		r = compare_files(fa, fb, msg, sizeof(msg));
		for (char *c = msg; *c; c++)
			if (*c == '\t' || *c == '\n')
				*c = ' ';
		printf("%s\t%s\t%s\n", tag, verdict[r], msg);
	}
	return ferror(stdin) || fflush(stdout) ? 2 : 0;
}

int main(int argc, char **argv)
{
	char msg[4096];
	int quiet = 0, r;

	if (argc == 2 && strcmp(argv[1], "--batch") == 0)
		return batch();
	if (argc > 1 && strcmp(argv[1], "-q") == 0) {
		quiet = 1;
		argc--;
		argv++;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: ir-compare [-q] A.onnx B.onnx\n"
			"       ir-compare --batch  (TAG<TAB>A<TAB>B lines on stdin)\n");
		return 2;
	}
	if (quiet) {	/* the difference is kept, not printed */
		first_diff = msg;
		first_diff_size = sizeof(msg);
	}
	msg[0] = '\0';
	r = compare_files(argv[1], argv[2], msg, sizeof(msg));
	if (r == 2)
		printf("error: %s\n", msg);
	return r;
}

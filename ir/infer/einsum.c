/*
 * ir/infer/einsum.c - Einsum: the equation names each input dim by a
 * letter (or a run of them by "..."); the output's dims are those of
 * its letters, explicit after "->" or implicit (the ellipsis, then
 * the letters used once, in alphabetical order). The equation comes
 * from the file: anything malformed leaves the shape unknown.
 */
#include <string.h>
#include "infer/infer.h"

/* Longest equation (spaces dropped) read; longer ones stay unknown. */
#define EIN_MAXEQ 1024
#define EIN_LABELS 52

struct ein {
	int count[EIN_LABELS];		/* uses on the left-hand side */
	int64_t d[EIN_LABELS];
	const char *p[EIN_LABELS];
	int nell;			/* dims of "...", -1 before one */
	int64_t ed[IRI_MAXRANK];
	const char *ep[IRI_MAXRANK];
};

/* A letter's slot: a-z 0..25, A-Z 26..51; -1 for anything else. */
static int label(char ch)
{
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a';
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A' + 26;
	return -1;
}

/* Two unknown dims keep a name only when both have the same one. */
static const char *same_name(const char *a, const char *b)
{
	return a && b && !strcmp(a, b) ? a : NULL;
}

/* One more use of label l with dim d: every use has the same size. */
static int merge_label(struct ein *e, int l, int64_t d, const char *p)
{
	if (!e->count[l]++) {
		e->d[l] = d;
		e->p[l] = p;
	} else if (d >= 0 && e->d[l] >= 0) {
		return d == e->d[l];
	} else if (d >= 0) {
		e->d[l] = d;
		e->p[l] = NULL;
	} else if (e->d[l] < 0) {
		e->p[l] = same_name(e->p[l], p);
	}
	return 1;
}

/* Ellipsis dim k of one more input: they broadcast (1 gives way). */
static int merge_ell(struct ein *e, int k, int first, int64_t d,
		     const char *p)
{
	int64_t *o = &e->ed[k];

	if (first || *o == 1) {
		*o = d;
		e->ep[k] = p;
	} else if (d == 1) {
		return 1;
	} else if (d >= 0 && *o >= 0) {
		return d == *o;
	} else if (d >= 0) {
		*o = d;
		e->ep[k] = NULL;
	} else if (*o < 0) {
		e->ep[k] = same_name(e->ep[k], p);
	}
	return 1;
}

/* Letters in t[0..len), and where "..." is (-1: none); 0 when t has
 * another character or a second ellipsis. */
static int scan_term(const char *t, size_t len, int *nl, int *ell)
{
	*nl = 0;
	*ell = -1;
	for (size_t i = 0; i < len; i++) {
		if (label(t[i]) >= 0) {
			(*nl)++;
		} else if (*ell < 0 && i + 2 < len && t[i] == '.' &&
			   t[i + 1] == '.' && t[i + 2] == '.') {
			*ell = *nl;
			i += 2;
		} else {
			return 0;
		}
	}
	return 1;
}

/* One input's term against its shape s. Every "..." stands for the
 * same number of dims (the spec's rule, not numpy's broadcasting of
 * differing counts). */
static int term(struct ein *e, const char *t, size_t len, const iri_shape *s)
{
	int nl, ell, ne, k = 0, first;

	if (s->rank < 0 || !scan_term(t, len, &nl, &ell))
		return 0;
	ne = ell < 0 ? 0 : s->rank - nl;
	if (ne < 0 || (ell < 0 && nl != s->rank))
		return 0;
	if (ell >= 0 && e->nell >= 0 && e->nell != ne)
		return 0;
	first = ell >= 0 && e->nell < 0;
	if (ell >= 0)
		e->nell = ne;
	for (size_t i = 0; i < len; i++) {
		if (t[i] == '.') {
			for (int j = 0; j < ne; j++, k++)
				if (!merge_ell(e, j, first, s->d[k], s->p[k]))
					return 0;
			i += 2;
			continue;
		}
		if (!merge_label(e, label(t[i]), s->d[k], s->p[k]))
			return 0;
		k++;
	}
	return 1;
}

/* The left-hand side: one term per input, comma separated. */
static int lhs(struct ein *e, const qir_node *n, const char *eq, size_t len)
{
	size_t start = 0, i = 0;
	iri_shape s;

	for (size_t at = 0; at <= len; at++) {
		if (at < len && eq[at] != ',')
			continue;
		if (i >= n->ninputs)
			return 0;
		iri_input(n, i++, &s);
		if (!term(e, eq + start, at - start, &s))
			return 0;
		start = at + 1;
	}
	return i == n->ninputs;
}

/* Appends the ellipsis dims to out. */
static int put_ell(const struct ein *e, iri_shape *out)
{
	for (int k = 0; k < e->nell; k++) {
		if (out->rank >= IRI_MAXRANK)
			return 0;
		out->d[out->rank] = e->ed[k];
		out->p[out->rank++] = e->ep[k];
	}
	return 1;
}

static int put_label(const struct ein *e, int l, iri_shape *out)
{
	if (out->rank >= IRI_MAXRANK)
		return 0;
	out->d[out->rank] = e->d[l];
	out->p[out->rank++] = e->d[l] < 0 ? e->p[l] : NULL;
	return 1;
}

/* Explicit output: letters of the inputs, each once, one "...". */
static int rhs(const struct ein *e, const char *t, size_t len, iri_shape *out)
{
	char used[EIN_LABELS] = { 0 };
	int nl, ell;

	if (!scan_term(t, len, &nl, &ell))
		return 0;
	for (size_t i = 0; i < len; i++) {
		int l = label(t[i]);

		if (t[i] == '.') {
			if (!put_ell(e, out))
				return 0;
			i += 2;
		} else if (!e->count[l] || used[l]++ || !put_label(e, l, out)) {
			return 0;
		}
	}
	return 1;
}

/* Implicit output: the ellipsis, then the letters used once in
 * alphabetical order. Runtimes order upper against lower case
 * differently (numpy: upper first, ONNX Runtime: lower first), so a
 * mix of both is left unknown. */
static int implicit(const struct ein *e, iri_shape *out)
{
	int lower = 0, upper = 0;

	for (int l = 0; l < EIN_LABELS; l++)
		if (e->count[l] == 1)
			*(l < 26 ? &lower : &upper) = 1;
	if ((lower && upper) || !put_ell(e, out))
		return 0;
	for (int l = 0; l < EIN_LABELS; l++)
		if (e->count[l] == 1 && !put_label(e, l, out))
			return 0;
	return 1;
}

/* The equation without its spaces into buf; 0 when too long. */
static int strip(const char *eq, char *buf, size_t *len)
{
	size_t k = 0;

	for (; *eq; eq++) {
		if (*eq == ' ')
			continue;
		if (k + 1 >= EIN_MAXEQ)
			return 0;
		buf[k++] = *eq;
	}
	buf[k] = 0;
	*len = k;
	return 1;
}

int iri_einsum(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	       size_t nout)
{
	const char *eq = qir_node_attr_string(n, "equation", NULL);
	char buf[EIN_MAXEQ];
	struct ein e = { .nell = -1 };
	iri_shape o;
	const char *arrow;
	size_t len;

	(void)c;
	(void)nout;
	out[0].dtype = iri_input_dtype(n, 0);
	if (!eq || !n->ninputs || !strip(eq, buf, &len))
		return 0;
	arrow = strstr(buf, "->");
	if (!lhs(&e, n, buf, arrow ? (size_t)(arrow - buf) : len))
		return 0;
	o.rank = 0;
	if (arrow ? !rhs(&e, arrow + 2, len - (size_t)(arrow + 2 - buf), &o) :
		    !implicit(&e, &o))
		return 0;
	iri_copy_shape(&out[0], &o);
	return 0;
}

/*
 * passes/support/coverage.c - coverage accounting (coverage.h).
 *
 * Entries are kept until the report (a model has thousands of weights
 * at most: a name and a few numbers each), so that the groups and the
 * patterns are counted from the same list, in one place.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"

struct ps_cov_item {
	char *name;			/* owned */
	char *group;			/* owned: ps_coverage_group_key */
	uint64_t numel, nbytes;
	int pattern;			/* include index or -1 */
	const char *format;		/* static; NULL: left float */
	const struct ps_skip_kind *kind;	/* why, when left float */
	char *why;			/* owned, or NULL */
};

void ps_coverage_init(struct ps_coverage *c, const struct ps_targets *tg,
		      const char *what)
{
	memset(c, 0, sizeof(*c));
	c->tg = tg;
	c->what = what ? what : "weight";
	c->verb = "quantized";
	c->left = "left float";
}

void ps_coverage_fini(struct ps_coverage *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].name);
		free(c->v[i].group);
		free(c->v[i].why);
	}
	free(c->v);
	free(c->slot);
	c->v = NULL;
	c->slot = NULL;
	c->n = c->cap = c->nslot = 0;
}

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

void ps_coverage_group_key(const char *name, char *buf, size_t size)
{
	size_t o = 0;

	if (!size)
		return;
	for (size_t i = 0; name[i] && o + 1 < size;) {
		size_t j = i;

		while (isdigit((unsigned char)name[j]))
			j++;
		/* a whole numbered part: "layers.12.", "MatMul_7", not the
		 * "1" of "w1" or the "2" of "conv2d" */
		if (j > i && (i == 0 || !isalpha((unsigned char)name[i - 1])) &&
		    !isalpha((unsigned char)name[j])) {
			buf[o++] = '*';
			i = j;
			continue;
		}
		if (j == i)
			j = i + 1;
		while (i < j && o + 1 < size)
			buf[o++] = name[i++];
	}
	buf[o] = '\0';
}

void ps_coverage_size(const qir_value *v, uint64_t *numel, uint64_t *nbytes)
{
	const qir_tensor *t = v ? qir_value_const((qir_value *)v) : NULL;
	uint64_t n = 1;

	*numel = *nbytes = 0;
	if (t) {
		*numel = qir_tensor_numel(t);
		*nbytes = t->nbytes;
		return;
	}
	if (!v || v->rank < 0)
		return;
	for (int i = 0; i < v->rank; i++) {
		int64_t d = v->dims[i].value;

		if (d < 0 || (d && n > UINT64_MAX / (uint64_t)d))
			return;
		n *= (uint64_t)d;
	}
	if (qir_dtype_nbytes(v->dtype, n, nbytes) < 0) {
		*nbytes = 0;
		return;
	}
	*numel = n;
}

/* ---- names seen: open addressing, at most half full ---- */

static size_t hash(const char *s)
{
	uint64_t h = 1469598103934665603u;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211u;
	return (size_t)h;
}

/* The slot of name: holding it, or the empty one where it goes. */
static size_t *find(const struct ps_coverage *c, const char *name)
{
	size_t i = hash(name) & (c->nslot - 1);

	while (c->slot[i] && strcmp(c->v[c->slot[i] - 1].name, name))
		i = (i + 1) & (c->nslot - 1);
	return &c->slot[i];
}

/* Room for one more name; -1 when out of memory. */
static int reserve(struct ps_coverage *c)
{
	size_t *old = c->slot, nold = c->nslot, n = nold ? 2 * nold : 128;

	if (2 * (c->n + 1) <= nold)
		return 0;
	c->slot = calloc(n, sizeof(*c->slot));
	if (!c->slot) {
		c->slot = old;
		return -1;
	}
	c->nslot = n;
	for (size_t i = 0; i < nold; i++)
		if (old[i])
			*find(c, c->v[old[i] - 1].name) = old[i];
	free(old);
	return 0;
}

void ps_coverage_add(struct ps_coverage *c, const char *name, uint64_t numel,
		     uint64_t nbytes, int pattern, const char *format,
		     const struct ps_skip *skip)
{
	struct ps_cov_item *it;
	char key[512];
	size_t *at;

	name = name ? name : "";
	if (reserve(c)) {
		c->oom = 1;
		return;
	}
	at = find(c, name);
	if (*at)
		return;		/* counted at its first consumer */
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct ps_cov_item *nv = realloc(c->v, cap * sizeof(*nv));

		if (!nv) {
			c->oom = 1;
			return;
		}
		c->v = nv;
		c->cap = cap;
	}
	it = &c->v[c->n];
	memset(it, 0, sizeof(*it));
	ps_coverage_group_key(name, key, sizeof(key));
	it->name = dup_str(name);
	it->group = dup_str(key);
	if (!format && skip && skip->kind) {
		it->kind = skip->kind;
		it->why = dup_str(skip->why);
	}
	if (!it->name || !it->group || (it->kind && !it->why)) {
		free(it->name);
		free(it->group);
		free(it->why);
		c->oom = 1;
		return;
	}
	it->numel = numel;
	it->nbytes = nbytes;
	it->pattern = pattern;
	it->format = format;
	*at = ++c->n;
}

/* ---- what the report counts ---- */

/* The targets left it alone on purpose: not held against a pattern. */
static int by_targets(const struct ps_cov_item *it)
{
	return it->kind == &ps_skip_not_included ||
	       it->kind == &ps_skip_excluded || it->kind == &ps_skip_op_type ||
	       it->kind == &ps_skip_below_min_size;
}

/* "K not a multiple of 16" of "skipped (K not a multiple of 16)". */
static void reason(const struct ps_skip_kind *k, char *buf, size_t size)
{
	const char *s = k ? k->counter : "not quantized";
	size_t n = strlen(s);

	if (!strncmp(s, "skipped (", 9) && n > 10 && s[n - 1] == ')')
		snprintf(buf, size, "%.*s", (int)(n - 10), s + 9);
	else
		snprintf(buf, size, "%s", s);
}

static void human(uint64_t b, char *buf, size_t size)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double x = (double)b;
	int u = 0;

	while (x >= 1024.0 && u < 4) {
		x /= 1024.0;
		u++;
	}
	if (u)
		snprintf(buf, size, "%.1f %s", x, unit[u]);
	else
		snprintf(buf, size, "%" PRIu64 " B", b);
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 100.0;
}

/* Weights and bytes of every item whose format (or, left float, kind)
 * equals the first's; said once, at that first item. */
static void totals_line(qopt_ctx *ctx, const struct ps_coverage *c, size_t i)
{
	const struct ps_cov_item *a = &c->v[i];
	uint64_t w = 0, b = 0;
	char hb[32], why[128], counter[160];

	for (size_t j = 0; j < i; j++) {
		const struct ps_cov_item *p = &c->v[j];

		if (a->format ? p->format && !strcmp(p->format, a->format) :
		    !p->format && p->kind == a->kind)
			return;	/* said at p */
	}
	for (size_t j = i; j < c->n; j++) {
		const struct ps_cov_item *p = &c->v[j];

		if (a->format ? p->format && !strcmp(p->format, a->format) :
		    !p->format && p->kind == a->kind) {
			w++;
			b += p->nbytes;
		}
	}
	human(b, hb, sizeof(hb));
	if (a->format) {
		qopt_info(ctx, "coverage: %s: %" PRIu64 " %s%s, %s", a->format,
			  w, c->what, w == 1 ? "" : "s", hb);
		snprintf(counter, sizeof(counter), "%s weights", a->format);
		qopt_stat_add(ctx, counter, (int64_t)w);
		snprintf(counter, sizeof(counter), "%s bytes", a->format);
		qopt_stat_add(ctx, counter, (int64_t)b);
	} else {
		reason(a->kind, why, sizeof(why));
		qopt_info(ctx, "coverage: %s (%s): %" PRIu64 " %s%s, %s",
			  c->left, why, w, c->what, w == 1 ? "" : "s", hb);
	}
}

static void totals(qopt_ctx *ctx, const struct ps_coverage *c)
{
	uint64_t w = 0, b = 0, qw = 0, qb = 0;
	char hq[32], hb[32];

	for (size_t i = 0; i < c->n; i++) {
		w++;
		b += c->v[i].nbytes;
		if (c->v[i].format) {
			qw++;
			qb += c->v[i].nbytes;
		}
	}
	human(qb, hq, sizeof(hq));
	human(b, hb, sizeof(hb));
	/* "quantized 11 of 15 weights": the verb first, so that the
	 * counters' "N weights quantized" stays the only line saying so */
	qopt_info(ctx, "coverage: %s %" PRIu64 " of %" PRIu64 " %ss (%s of "
		  "%s, %.1f%%)", c->verb, qw, w, c->what, hq, hb, pct(qb, b));
	qopt_stat_add(ctx, "candidate weights", (int64_t)w);
	qopt_stat_add(ctx, "candidate bytes", (int64_t)b);
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].format)
			totals_line(ctx, c, i);
	for (size_t i = 0; i < c->n; i++)
		if (!c->v[i].format)
			totals_line(ctx, c, i);
	qopt_stat_add(ctx, "float weights left", (int64_t)(w - qw));
	qopt_stat_add(ctx, "float bytes left", (int64_t)(b - qb));
}

/* ---- per include pattern ---- */

/* "a (K not a multiple of 16: K = 40 (axis 0)), b (...), ... (N more)" */
static void left_names(const struct ps_coverage *c, int p, char *buf,
		       size_t size)
{
	size_t o = 0, shown = 0, more = 0;
	char why[128];

	buf[0] = '\0';
	for (size_t i = 0; i < c->n; i++) {
		const struct ps_cov_item *it = &c->v[i];
		int k;

		if (it->pattern != p || it->format || by_targets(it))
			continue;
		if (shown == PS_COV_NAMES) {
			more++;
			continue;
		}
		reason(it->kind, why, sizeof(why));
		k = snprintf(buf + o, size - o, "%s%s (%s%s%s)", shown ? ", " : "",
			     it->name, why, it->why && it->why[0] ? ": " : "",
			     it->why ? it->why : "");
		if (k < 0 || (size_t)k >= size - o)
			return;
		o += (size_t)k;
		shown++;
	}
	if (more)
		snprintf(buf + o, size - o, ", ... (%zu more)", more);
}

void ps_coverage_pattern(const struct ps_coverage *c, int p, uint64_t *matched,
			 uint64_t *quantized)
{
	*matched = *quantized = 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct ps_cov_item *it = &c->v[i];

		if (it->pattern != p || by_targets(it))
			continue;
		++*matched;
		*quantized += it->format != NULL;
	}
}

static void patterns(qopt_ctx *ctx, const struct ps_coverage *c)
{
	const struct ps_globs *g = c->tg ? &c->tg->include : NULL;
	char names[1024];

	if (!g || !g->set)
		return;
	for (size_t i = 0; i < g->n; i++) {
		uint64_t matched, quantized;
		qopt_field f[3];

		ps_coverage_pattern(c, (int)i, &matched, &quantized);
		if (!matched)
			continue;	/* targets.c: "matches no weight" */
		f[0] = (qopt_field){ "pattern", g->pat[i], 0 };
		f[1] = (qopt_field){ "matched", NULL, (double)matched };
		f[2] = (qopt_field){ "quantized", NULL, (double)quantized };
		qopt_record(ctx, "coverage-pattern", f, 3);
		if (matched == quantized) {
			qopt_info(ctx, "coverage: include '%s': %" PRIu64 " of %"
				  PRIu64 " matched %ss %s", g->pat[i],
				  quantized, matched, c->what, c->verb);
			continue;
		}
		left_names(c, (int)i, names, sizeof(names));
		qopt_warn(ctx, "include '%s': %" PRIu64 " of %" PRIu64 " matched "
			  "%ss %s; %" PRIu64 " %s: %s", g->pat[i], quantized,
			  matched, c->what, c->verb, matched - quantized, c->left,
			  names);
	}
}

/* ---- per repeated structure ---- */

static int by_key(const void *a, const void *b)
{
	const struct ps_cov_item *const *x = a, *const *y = b;
	int r = strcmp((*x)->group, (*y)->group);

	/* stable on ties: the order the pass added them */
	return r ? r : (*x < *y ? -1 : *x > *y);
}

/* Incomplete groups first, then the largest, then by name. */
static int by_interest(const void *a, const void *b)
{
	const struct ps_cov_group *x = a, *y = b;
	int xi = x->quantized < x->members, yi = y->quantized < y->members;

	if (xi != yi)
		return yi - xi;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->members != y->members)
		return x->members > y->members ? -1 : 1;
	return strcmp(x->key, y->key);
}

int ps_coverage_groups(const struct ps_coverage *c, struct ps_cov_group **out,
		       size_t *nout)
{
	const struct ps_cov_item **s = NULL;
	struct ps_cov_group *g = NULL;
	size_t ng = 0;

	*out = NULL;
	*nout = 0;
	if (!c->n)
		return 0;
	s = malloc(c->n * sizeof(*s));
	g = malloc(c->n * sizeof(*g));	/* at most one group per item */
	if (!s || !g) {
		free(s);
		free(g);
		return -1;
	}
	for (size_t i = 0; i < c->n; i++)
		s[i] = &c->v[i];
	qsort(s, c->n, sizeof(*s), by_key);
	for (size_t i = 0, j; i < c->n; i = j) {
		struct ps_cov_group x = { s[i]->group, 0, 0, 0, 0, NULL };

		for (j = i; j < c->n && !strcmp(s[j]->group, s[i]->group); j++) {
			x.members++;
			x.quantized += s[j]->format != NULL;
			x.bytes += s[j]->nbytes;
			if (s[j]->kind == &ps_skip_not_included && !x.missed++)
				x.missed_name = s[j]->name;
		}
		if (x.members > 1)
			g[ng++] = x;
	}
	free(s);
	qsort(g, ng, sizeof(*g), by_interest);
	*out = g;
	*nout = ng;
	return 0;
}

/* Some of a repeated structure quantized, some matched by none of the
 * patterns the user wrote. A few members missed (at most a quarter: 255
 * of 256 experts) looks like a pattern that misses an expert by accident,
 * a warning (exclude is how to leave members out on purpose); more missed
 * looks like narrowing on purpose (include = layers 0-3 of 32, or one
 * layer as qopt plan measures it), a note. */
static void group_missed(qopt_ctx *ctx, const struct ps_coverage *c,
			 const struct ps_cov_group *g)
{
	int level = g->missed * 4 > g->members ? QOPT_LOG_INFO : QOPT_LOG_WARN;

	if (!c->tg || !c->tg->include.set || !g->quantized || !g->missed)
		return;
	qopt_log(ctx, level, "%s: %" PRIu64 " of %" PRIu64 " %s; %" PRIu64
		  " matched by no include pattern: %s%s (exclude = leaves "
		  "members out on purpose)", g->key, g->quantized, g->members,
		  c->verb, g->missed, g->missed_name,
		  g->missed > 1 ? ", ..." : "");
}

static void groups(qopt_ctx *ctx, const struct ps_coverage *c)
{
	struct ps_cov_group *g;
	size_t n;

	if (ps_coverage_groups(c, &g, &n)) {
		qopt_info(ctx, "coverage: out of memory grouping the %ss",
			  c->what);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		qopt_field f[4] = {
			{ "group", g[i].key, 0 },
			{ "members", NULL, (double)g[i].members },
			{ "quantized", NULL, (double)g[i].quantized },
			{ "bytes", NULL, (double)g[i].bytes },
		};

		qopt_record(ctx, "coverage-group", f, 4);
		if (i < PS_COV_GROUP_LINES)
			qopt_info(ctx, "coverage: %s: %" PRIu64 " of %" PRIu64
				  " %s", g[i].key, g[i].quantized,
				  g[i].members, c->verb);
		group_missed(ctx, c, &g[i]);
	}
	if (n > PS_COV_GROUP_LINES)
		qopt_info(ctx, "coverage: ... %zu more groups (--stats-json "
			  "lists them)", n - PS_COV_GROUP_LINES);
	free(g);
}

void ps_coverage_report(qopt_ctx *ctx, const struct ps_coverage *c)
{
	if (c->oom)
		qopt_warn(ctx, "coverage: out of memory: some %ss are not "
			  "counted below", c->what);
	if (!c->n)
		return;
	totals(ctx, c);
	patterns(ctx, c);
	groups(ctx, c);
}

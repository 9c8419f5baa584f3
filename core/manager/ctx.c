/*
 * core/manager/ctx.c - the manager's side of the context a pass sees: logging,
 * options, statistics; the rewrite gate (gate.c) and progress
 * (progress.c) complete the ops table libqopt forwards to.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <qopt/pass.h>
#include "manager/run.h"
#include "manager/ctx-ops.h"

static void ctx_vlog(qopt_ctx *ctx, int level, const char *fmt,
		     va_list ap)
{
	const char *tag = ctx && ctx->st ? ctx->st->name : NULL;

	if (ctx && level == QOPT_LOG_ERROR)
		ctx->errors++;
	if (ctx && level == QOPT_LOG_WARN)
		ctx->warnings++;
	pm_vmsg(ctx && ctx->run ? ctx->run->s : NULL, level, tag, fmt, ap);
}

static int ctx_strict(const qopt_ctx *ctx)
{
	return ctx && ctx->run ? ctx->run->o.strict : 0;
}

static const char *ctx_pass_name(const qopt_ctx *ctx)
{
	return ctx && ctx->st ? ctx->st->name : NULL;
}

/* The first misuse decides the status the pass fails with. */
static void record_misuse(qopt_ctx *ctx, qopt_status why)
{
	if (!ctx->misuse)
		ctx->misuse = why;
}

/* A pass asking for an option it did not declare, or with the wrong
 * type, is a bug in the pass: it fails once it returns. */
static const struct pm_value *opt(qopt_ctx *ctx, const char *name,
				    int type)
{
	const qopt_option_spec *spec;
	int idx;

	if (!ctx || !ctx->st || !ctx->st->pass)
		return NULL;
	idx = pm_pass_option_index(ctx->st->pass, name);
	if (idx < 0) {
		qopt_error(ctx, "asked for option '%s', which it does not declare",
			   name);
		record_misuse(ctx, QOPT_ENOTFOUND);
		return NULL;
	}
	spec = &ctx->st->pass->info->options[idx];
	if (type && (int)spec->type != type) {
		qopt_error(ctx, "read option '%s' (%s) as %s", name,
			   pm_opt_type_name(spec->type),
			   pm_opt_type_name(type));
		record_misuse(ctx, QOPT_EUSAGE);
		return NULL;
	}
	return &ctx->st->vals[idx];
}

static int ctx_opt_bool(qopt_ctx *ctx, const char *name)
{
	const struct pm_value *v = opt(ctx, name, QOPT_OPT_BOOL);

	return v && v->present ? v->b : 0;
}

static int64_t ctx_opt_int(qopt_ctx *ctx, const char *name)
{
	const struct pm_value *v = opt(ctx, name, QOPT_OPT_INT);

	return v && v->present ? v->i : 0;
}

static double ctx_opt_float(qopt_ctx *ctx, const char *name)
{
	const struct pm_value *v = opt(ctx, name, QOPT_OPT_FLOAT);

	return v && v->present ? v->f : 0.0;
}

static const char *ctx_opt_string(qopt_ctx *ctx, const char *name)
{
	/* Any option reads as its canonical text. */
	const struct pm_value *v = opt(ctx, name, 0);

	return v && v->present ? v->text : NULL;
}

static int ctx_opt_enum(qopt_ctx *ctx, const char *name)
{
	const struct pm_value *v = opt(ctx, name, QOPT_OPT_ENUM);

	return v && v->present ? (int)v->i : -1;
}

static const char *const *ctx_opt_list(qopt_ctx *ctx, const char *name,
					size_t *count)
{
	static const char *const empty[1] = { NULL };
	const struct pm_value *v = opt(ctx, name, QOPT_OPT_LIST);

	*count = v && v->present ? v->nitems : 0;
	if (!*count)
		return empty;
	return (const char *const *)v->items;
}

static int ctx_opt_is_set(qopt_ctx *ctx, const char *name)
{
	const struct pm_value *v = opt(ctx, name, 0);

	return v ? v->set : 0;
}

static int64_t ctx_max_opset(qopt_ctx *ctx)
{
	const struct pm_globals *g = &ctx->run->pl->g;

	return g->max_opset > 0 ? g->max_opset : 0;
}

static int ctx_allow_upgrade(qopt_ctx *ctx)
{
	return ctx->run->pl->g.allow_upgrade != 0;
}

static void ctx_stat_add(qopt_ctx *ctx, const char *counter, int64_t delta)
{
	struct pm_stage_result *r;
	struct pm_counter *grown;
	size_t i;

	if (!ctx || !ctx->res || !counter)
		return;
	r = ctx->res;
	for (i = 0; i < r->ncounters; i++) {
		if (!strcmp(r->counters[i].name, counter)) {
			r->counters[i].value += delta;
			return;
		}
	}
	grown = realloc(r->counters, (r->ncounters + 1) * sizeof(*grown));
	if (!grown)
		goto lost;
	r->counters = grown;
	grown[r->ncounters].name = strdup(counter);
	grown[r->ncounters].value = delta;
	if (!grown[r->ncounters].name)
		goto lost;
	r->ncounters++;
	return;
lost:
	/* A statistic silently missing would misreport the run. */
	if (ctx->run)
		ctx->run->lost_record = 1;
}

static void ctx_record(qopt_ctx *ctx, const char *kind,
			const qopt_field *fields, size_t nfields)
{
	struct pm_stage_result *r;
	char **grown, *json;

	if (!ctx || !ctx->res || !kind)
		return;
	r = ctx->res;
	json = pm_record_json(kind, fields, nfields);
	grown = json ? realloc(r->records, (r->nrecords + 1) *
			       sizeof(*grown)) : NULL;
	if (!grown) {
		free(json);
		if (ctx->run)
			ctx->run->lost_record = 1;
		return;
	}
	r->records = grown;
	r->records[r->nrecords++] = json;
}

static qk_ctx *ctx_kernels(qopt_ctx *ctx)
{
	return ctx && ctx->run ? ctx->run->kctx : NULL;
}

static int by_address(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(qir_value *const *)a;
	uintptr_t y = (uintptr_t)*(qir_value *const *)b;

	return (x > y) - (x < y);
}

static int add_own(struct pm_want *w, qir_value *v)
{
	qir_value **grown;

	if (!v)
		return 0;
	if (w->nown == w->capown) {
		size_t cap = w->capown ? 2 * w->capown : 64;

		grown = realloc(w->own, cap * sizeof(*grown));
		if (!grown)
			return -1;
		w->own = grown;
		w->capown = cap;
	}
	w->own[w->nown++] = v;
	return 0;
}

/* Every value of g and the graphs nested in it. */
static int collect_own(struct pm_want *w, const qir_graph *g)
{
	const qir_node *n;
	size_t i, j, k;

	for (i = 0; i < g->ninputs; i++)
		if (add_own(w, g->inputs[i]) < 0)
			return -1;
	for (i = 0; i < g->ninits; i++)
		if (add_own(w, g->inits[i]) < 0)
			return -1;
	qir_graph_for_each_node(g, n) {
		for (i = 0; i < n->noutputs; i++)
			if (add_own(w, n->outputs[i]) < 0)
				return -1;
		for (j = 0; j < n->nattrs; j++) {
			const qir_attr *a = &n->attrs[j];

			if (a->type == QIR_ATTR_GRAPH && a->g &&
			    collect_own(w, a->g) < 0)
				return -1;
			for (k = 0; a->type == QIR_ATTR_GRAPHS && k < a->n; k++)
				if (a->graphs[k] && collect_own(w, a->graphs[k]) < 0)
					return -1;
		}
	}
	return 0;
}

/* 1 when v is a value of m: compared by address only, since a value
 * of another model may be freed already. The model's values, sorted,
 * are gathered at the first call (the query must not change m). */
static int owns(struct pm_want *w, const qir_model *m, qir_value *v)
{
	if (!w->own_ready) {
		w->nown = 0;
		if (collect_own(w, m->graph) < 0)
			return -1;
		if (w->nown)
			qsort(w->own, w->nown, sizeof(*w->own), by_address);
		w->own_ready = 1;
	}
	return w->nown && bsearch(&v, w->own, w->nown, sizeof(*w->own),
				  by_address) != NULL;
}

/* Only a context made for calibration_targets collects values, and
 * only values of the model it asks about. */
static qopt_status ctx_want_range(qopt_ctx *ctx, qir_value *v)
{
	qir_value **grown;
	struct pm_want *w = ctx ? ctx->want : NULL;
	int own;

	if (!w || !v)
		return QOPT_EUSAGE;
	own = ctx->m ? owns(w, ctx->m, v) : 0;
	if (own < 0)
		return QOPT_ENOMEM;
	if (!own) {
		pm_msg(ctx->run->s, QOPT_LOG_ERROR, ctx->st->name,
		       "qopt_want_range() was given a value that is not one of the model being calibrated (another model's, or one freed)");
		if (!ctx->misuse)
			ctx->misuse = QOPT_EUSAGE;
		return QOPT_EUSAGE;
	}
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;

		grown = realloc(w->values, cap * sizeof(*grown));
		if (!grown)
			return QOPT_ENOMEM;
		w->values = grown;
		w->cap = cap;
	}
	w->values[w->n++] = v;
	return QOPT_OK;
}

const struct ctx_ops pm_ctx_ops = {
	.vlog = ctx_vlog,
	.strict = ctx_strict,
	.pass_name = ctx_pass_name,
	.opt_bool = ctx_opt_bool,
	.opt_int = ctx_opt_int,
	.opt_float = ctx_opt_float,
	.opt_string = ctx_opt_string,
	.opt_enum = ctx_opt_enum,
	.opt_list = ctx_opt_list,
	.opt_is_set = ctx_opt_is_set,
	.stat_add = ctx_stat_add,
	.record = ctx_record,
	.may_rewrite = pm_ctx_may_rewrite,
	.progress = pm_ctx_progress,
	.kernels = ctx_kernels,
	.max_opset = ctx_max_opset,
	.allow_upgrade = ctx_allow_upgrade,
	.want_range = ctx_want_range,
	.require_opset = pm_ctx_require_opset,
};

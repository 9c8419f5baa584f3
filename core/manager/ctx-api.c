/*
 * core/manager/ctx-api.c - the pass context API exported by libqopt
 * (qopt/pass.h): each call forwards to the ops table of the context
 * (core/manager/ctx-ops.h), which the manager's context carries. It
 * lives with the manager, whose context it serves: nothing below the
 * manager calls it, so no call goes down and comes back up. A NULL
 * context is accepted everywhere, so a pass can be unit-tested without
 * a manager: logging goes nowhere, options read as unset, every
 * rewrite is allowed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <qopt/pass.h>
#include "manager/ctx-ops.h"

static const struct ctx_ops *ops_of(const qopt_ctx *ctx)
{
	return ctx ? ((const struct ctx_head *)ctx)->ops : NULL;
}

void qopt_vlog(qopt_ctx *ctx, int level, const char *fmt, va_list ap)
{
	const struct ctx_ops *o = ops_of(ctx);

	static const char *const kind[] = { "error: ", "warning: ", "", "" };

	if (o) {
		o->vlog(ctx, level, fmt, ap);
		return;
	}
	/* No manager: plain stderr, debug output dropped. */
	if (level < QOPT_LOG_ERROR || level >= QOPT_LOG_DEBUG)
		return;
	fprintf(stderr, "qopt: %s", kind[level]);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void qopt_log(qopt_ctx *ctx, int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	qopt_vlog(ctx, level, fmt, ap);
	va_end(ap);
}

int qopt_strict(const qopt_ctx *ctx)
{
	const struct ctx_ops *o = ops_of(ctx);

	return o ? o->strict(ctx) : 0;
}

const char *qopt_pass_name(const qopt_ctx *ctx)
{
	const struct ctx_ops *o = ops_of(ctx);

	return o ? o->pass_name(ctx) : NULL;
}

int qopt_opt_bool(qopt_ctx *ctx, const char *name)
{
	const struct ctx_ops *o = ops_of(ctx);

	return o ? o->opt_bool(ctx, name) : 0;
}

int64_t qopt_opt_int(qopt_ctx *ctx, const char *name)
{
	const struct ctx_ops *o = ops_of(ctx);

	return o ? o->opt_int(ctx, name) : 0;
}

double qopt_opt_float(qopt_ctx *ctx, const char *name)
{
	const struct ctx_ops *o = ops_of(ctx);

	return o ? o->opt_float(ctx, name) : 0.0;
}

const char *qopt_opt_string(qopt_ctx *ctx, const char *name)
{
	const struct ctx_ops *o = ops_of(ctx);

	return o ? o->opt_string(ctx, name) : NULL;
}

int qopt_opt_enum(qopt_ctx *ctx, const char *name)
{
	const struct ctx_ops *o = ops_of(ctx);

	return o ? o->opt_enum(ctx, name) : -1;
}

const char *const *qopt_opt_list(qopt_ctx *ctx, const char *name,
				 size_t *count)
{
	static const char *const empty[1] = { NULL };
	const struct ctx_ops *o = ops_of(ctx);

	if (o)
		return o->opt_list(ctx, name, count);
	*count = 0;
	return empty;
}

int qopt_opt_is_set(qopt_ctx *ctx, const char *name)
{
	const struct ctx_ops *o = ops_of(ctx);

	return o ? o->opt_is_set(ctx, name) : 0;
}

void qopt_stat_add(qopt_ctx *ctx, const char *counter, int64_t delta)
{
	const struct ctx_ops *o = ops_of(ctx);

	if (o)
		o->stat_add(ctx, counter, delta);
}

void qopt_record(qopt_ctx *ctx, const char *kind, const qopt_field *fields,
		 size_t nfields)
{
	const struct ctx_ops *o = ops_of(ctx);

	if (o && o->record)
		o->record(ctx, kind, fields, nfields);
}

int qopt_may_rewrite(qopt_ctx *ctx, const char *fmt, ...)
{
	const struct ctx_ops *o = ops_of(ctx);
	char desc[512];
	va_list ap;

	if (!o)
		return 1;
	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	return o->may_rewrite(ctx, desc);
}

void qopt_progress(qopt_ctx *ctx, uint64_t done, uint64_t total,
		   const char *what)
{
	const struct ctx_ops *o = ops_of(ctx);

	if (o)
		o->progress(ctx, done, total, what);
}

int64_t qopt_policy_max_opset(qopt_ctx *ctx)
{
	const struct ctx_ops *o = ops_of(ctx);

	return o ? o->max_opset(ctx) : 0;
}

int qopt_policy_allow_upgrade(qopt_ctx *ctx)
{
	const struct ctx_ops *o = ops_of(ctx);

	return o ? o->allow_upgrade(ctx) : 1;
}

/* Without a manager there is no model to raise, nor a policy to ask. */
qopt_status qopt_require_opset(qopt_ctx *ctx, int64_t opset, const char *why)
{
	const struct ctx_ops *o = ops_of(ctx);

	return o && o->require_opset ? o->require_opset(ctx, opset, why) :
	       QOPT_EUSAGE;
}

qk_ctx *qopt_kernels(qopt_ctx *ctx)
{
	const struct ctx_ops *o = ops_of(ctx);

	return o ? o->kernels(ctx) : NULL;
}

qopt_status qopt_want_range(qopt_ctx *ctx, qir_value *v)
{
	const struct ctx_ops *o = ops_of(ctx);

	return o ? o->want_range(ctx, v) : QOPT_EUSAGE;
}

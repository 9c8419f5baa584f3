/*
 * core/manager/ctx-ops.h - private to core/manager: the table a pass
 * context starts with. Each public function of the context API
 * (core/manager/ctx-api.c) forwards to it, so a NULL context (a pass
 * unit-tested without a manager) and the manager's own context
 * (core/manager/ctx.c) share one entry point, and a plugin binds to the
 * one libqopt.
 */
#ifndef QOPT_PM_CTX_OPS_H
#define QOPT_PM_CTX_OPS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <qopt/pass.h>

struct ctx_ops {
	void (*vlog)(qopt_ctx *ctx, int level, const char *fmt, va_list ap);
	int (*strict)(const qopt_ctx *ctx);
	const char *(*pass_name)(const qopt_ctx *ctx);
	int (*opt_bool)(qopt_ctx *ctx, const char *name);
	int64_t (*opt_int)(qopt_ctx *ctx, const char *name);
	double (*opt_float)(qopt_ctx *ctx, const char *name);
	const char *(*opt_string)(qopt_ctx *ctx, const char *name);
	int (*opt_enum)(qopt_ctx *ctx, const char *name);
	const char *const *(*opt_list)(qopt_ctx *ctx, const char *name,
				       size_t *count);
	int (*opt_is_set)(qopt_ctx *ctx, const char *name);
	void (*stat_add)(qopt_ctx *ctx, const char *counter, int64_t delta);
	void (*record)(qopt_ctx *ctx, const char *kind,
		       const qopt_field *fields, size_t nfields);
	/* desc: the formatted rewrite description. */
	int (*may_rewrite)(qopt_ctx *ctx, const char *desc);
	void (*progress)(qopt_ctx *ctx, uint64_t done, uint64_t total,
			 const char *what);
	qk_ctx *(*kernels)(qopt_ctx *ctx);
	int64_t (*max_opset)(qopt_ctx *ctx);
	int (*allow_upgrade)(qopt_ctx *ctx);
	qopt_status (*want_range)(qopt_ctx *ctx, qir_value *v);
	/* ABI 3.0: qopt_require_opset. */
	qopt_status (*require_opset)(qopt_ctx *ctx, int64_t opset,
				     const char *why);
};

/* Every context handed to a pass begins with this. */
struct ctx_head {
	const struct ctx_ops *ops;
};

#endif /* QOPT_PM_CTX_OPS_H */

/*
 * base/ctx-ops.h - the seam between libqopt and whoever runs passes
 * (not installed).
 *
 * libqopt exports the pass context API (qopt_log, qopt_opt_int, ...)
 * but does not run passes: the pass manager, linked into the qopt
 * program, does. Its context starts with a pointer to this table, and
 * each public function in base/ctx-api.c forwards to it, so plugins
 * bind to the one libqopt while the manager keeps its own state.
 */
#ifndef CORE_CTX_OPS_H
#define CORE_CTX_OPS_H

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

#endif /* CORE_CTX_OPS_H */

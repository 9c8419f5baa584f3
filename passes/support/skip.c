/*
 * passes/support/skip.c - skip kinds and their report.
 */
#include <stdarg.h>
#include <stdio.h>

#include "skip.h"

const struct ps_skip_kind
	ps_skip_not_included = { "skipped (not included)", PS_SKIP_QUIET },
	ps_skip_excluded = { "skipped (excluded)", PS_SKIP_INFO },
	ps_skip_op_type = { "skipped (op type not selected)", PS_SKIP_QUIET },
	ps_skip_below_min_size = { "skipped (below min_size)", PS_SKIP_INFO },
	ps_skip_empty = { "skipped (empty weight)", PS_SKIP_INFO },
	ps_skip_not_float = { "skipped (not a float weight)", PS_SKIP_INFO },
	ps_skip_not_constant = { "skipped (not constant)", PS_SKIP_INFO },
	/* Inf or NaN would spread through a rotation and has no code in
	 * the low-precision formats: the weight stays, said loudly. */
	ps_skip_nonfinite = { "skipped (non-finite weight)", PS_SKIP_WARN },
	ps_skip_unreadable = { "skipped (weight unreadable)", PS_SKIP_WARN },
	ps_skip_layout = { "skipped (unsupported layout)", PS_SKIP_INFO },
	ps_skip_shared = { "skipped (shared with a non-weight use)",
			   PS_SKIP_INFO },
	ps_skip_k_disagree = { "skipped (consumers disagree on K)",
			       PS_SKIP_INFO },
	ps_skip_bisect = { "skipped (bisect)", PS_SKIP_INFO },
	/* attention's MatMuls read two activations: nothing to store */
	ps_skip_activation = { "skipped (activation)",
			       PS_SKIP_INFO },
	ps_skip_quantized = { "skipped (quantized already)", PS_SKIP_INFO },
	/* A second format over fake-quantized values rounds twice: the
	 * pipeline asked for two, said loudly (fakequant.h). */
	ps_skip_fake_quantized = { "skipped (fake-quantized already)",
				   PS_SKIP_WARN };

static void vset(struct ps_skip *s, const struct ps_skip_kind *kind,
		 const char *fmt, va_list ap)
{
	s->kind = kind;
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
}

void ps_skip_set(struct ps_skip *s, const struct ps_skip_kind *kind,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(s, kind, fmt, ap);
	va_end(ap);
}

void ps_skip_first(struct ps_skip *s, const struct ps_skip_kind *kind,
		   const char *fmt, ...)
{
	va_list ap;

	if (s->kind)
		return;
	va_start(ap, fmt);
	vset(s, kind, fmt, ap);
	va_end(ap);
}

void ps_skip_report(qopt_ctx *ctx, const struct ps_skip *s, const char *what,
		    const char *name)
{
	static const int level[] = {
		[PS_SKIP_INFO] = QOPT_LOG_INFO,
		[PS_SKIP_QUIET] = QOPT_LOG_DEBUG,
		[PS_SKIP_WARN] = QOPT_LOG_WARN,
	};

	qopt_stat_add(ctx, s->kind->counter, 1);
	qopt_log(ctx, level[s->kind->level], "%s '%s' %s: %s", what, name,
		 s->kind->counter, s->why);
}

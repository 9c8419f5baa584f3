/*
 * passes/fp8/build.c - what a rewrite needs around what it builds
 * (constants and Q/DQ come from the toolkit, passes/support/qdq.h): the
 * opset FP8 (or INT8) Q/DQ need, and the removal of what a rewrite left unused.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fp8.h"

/* v and what only it kept alive, once nothing reads v (the pass
 * toolkit's sweep, passes/support/cleanup.h): its producer when every
 * output is unused, then theirs, and its initializers (marked: removed
 * by fp8_flush_dead in one walk, so that thousands of weights cost a
 * linear time). DequantizeLinear nodes are never erased here (the
 * rewrites walk snapshots of them). */
void fp8_erase_unused(struct fp8_cfg *cfg, qir_value *v)
{
	cfg->sweep.follow = ps_follow_not_dq;
	ps_sweep_value(&cfg->sweep, v);
	ps_sweep_nodes(&cfg->sweep);
}

void fp8_flush_dead(struct fp8_cfg *cfg)
{
	qir_error err = { 0 };

	/* A refusal only leaves dead initializers, which the writer keeps
	 * and nothing reads. */
	if (ps_sweep_inits(&cfg->sweep, &err))
		qopt_debug(cfg->ctx, "dead initializers kept: %s", err.msg);
}

int fp8_prepare_opset(struct fp8_cfg *cfg)
{
	return fp8_prepare_opset_for(cfg, FP8_OPSET, "FP8 Q/DQ");
}

int fp8_prepare_opset_for(struct fp8_cfg *cfg, int64_t opset,
			     const char *why)
{
	qopt_status rc = qopt_require_opset(cfg->ctx, opset, why);

	if (rc == QOPT_ESKIPPED)
		return 1;
	return rc ? -1 : 0;
}

/*
 * passes/fp8/notes.c - skipped rewrites: a stats counter and a log
 * line naming the node, or, in the report's explain run, a note the
 * report quotes; errors.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fp8.h"
#include "../support/fail.h"

static void vnote(struct fp8_cfg *cfg, const qir_node *n,
		  const char *fmt, va_list ap)
{
	struct fp8_note *nn;

	if (cfg->nnotes == cfg->capnotes) {
		size_t cap = cfg->capnotes ? 2 * cfg->capnotes : 16;

		nn = realloc(cfg->notes, cap * sizeof(*nn));
		if (!nn)
			return;
		cfg->notes = nn;
		cfg->capnotes = cap;
	}
	nn = &cfg->notes[cfg->nnotes++];
	nn->node = n;
	vsnprintf(nn->why, sizeof(nn->why), fmt, ap);
}

void fp8_note(struct fp8_cfg *cfg, const qir_node *n,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(cfg, n, fmt, ap);
	va_end(ap);
}

const char *fp8_note_for(const struct fp8_cfg *cfg, const qir_node *n)
{
	size_t i;

	for (i = cfg->nnotes; i > 0; i--)
		if (cfg->notes[i - 1].node == n)
			return cfg->notes[i - 1].why;
	return NULL;
}

void fp8_note_forget(struct fp8_cfg *cfg, const qir_node *n)
{
	size_t i, k = 0;

	for (i = 0; i < cfg->nnotes; i++)
		if (cfg->notes[i].node != n)
			cfg->notes[k++] = cfg->notes[i];
	cfg->nnotes = k;
}

void fp8_skip(struct fp8_cfg *cfg, const qir_node *n,
		 const char *counter, const char *fmt, ...)
{
	char label[160], why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (cfg->explain) {	/* the report asks why: it quotes the note */
		fp8_note(cfg, n, "%s: %s", counter, why);
		return;
	}
	qopt_stat_add(cfg->ctx, counter, 1);
	qopt_info(cfg->ctx, "%s: %s: %s",
		  qir_node_label(n, label, sizeof(label)), counter, why);
}

int fp8_fail(struct fp8_cfg *cfg, const qir_node *n, const qir_error *e)
{
	char label[160];

	ps_fail(cfg->ctx, QOPT_ENOMEM, "%s: %s", n ? qir_node_label(n, label,
		   sizeof(label)) : "model", e && e->msg[0] ? e->msg :
		   "out of memory");
	return -1;
}

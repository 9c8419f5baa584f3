/*
 * core/manager/pipeline-stages.c - a pipeline's stages and raw options:
 * made (by the parsers, pipeline-ini.c and pipeline.c, and by the
 * expansion of named pipelines, pipeline-expand.c), reported, freed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/pass.h>
#include "manager/pipeline.h"
#include "manager/pipeline-internal.h"

void pm_pipeline_init(struct pm_pipeline *p, pm_session *s)
{
	memset(p, 0, sizeof(*p));
	p->s = s;
	p->g.verify_each = -1;
	p->g.strict = -1;
	p->g.external_threshold = -1;
	p->g.all_inline = -1;
	p->g.max_opset = -1;
	p->g.allow_upgrade = -1;
}

static void free_strv(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void free_raw(struct pm_rawopt *raw, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(raw[i].key);
		free(raw[i].value);
		free(raw[i].list);
	}
	free(raw);
}

void pm_pipeline_free(struct pm_pipeline *p)
{
	size_t i, j;

	for (i = 0; i < p->nstages; i++) {
		struct pm_stage *s = &p->stages[i];

		free(s->name);
		free(s->from);
		free_raw(s->raw, s->nraw);
		if (s->vals)
			for (j = 0; j < s->pass->nopts; j++)
				pm_value_clear(&s->vals[j]);
		free(s->vals);
	}
	free(p->stages);
	free_raw(p->global_raw, p->nglobal);
	free_strv(p->g.plugin_path, p->g.nplugin_path);
	free_strv(p->g.load, p->g.nload);
	free(p->g.device);
	free(p->g.external_name);
	free(p->file);
	free(p->dir);
	pm_pipeline_init(p, p->s);
}

/* Like a compiler's error limit: a file with thousands of bad lines
 * gets the first ones and a line saying the rest were not shown (the
 * count returned to the caller still includes them). */
#define PM_PL_MAX_SHOWN 20

void pm_pl_error(struct pm_pipeline *p, int line, const char *fmt, ...)
{
	char raw[2048], esc[4 * sizeof(raw)];
	va_list ap;

	if (++p->nerrors > PM_PL_MAX_SHOWN) {
		if (p->nerrors == PM_PL_MAX_SHOWN + 1)
			pm_msg_line(p->s, "qopt: %s: more problems not shown (the "
				    "first %d are above)", p->file,
				    PM_PL_MAX_SHOWN);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* Text quoted from the file may hold control bytes. */
	qir_escape_text(esc, sizeof(esc), raw);
	if (line > 0)
		pm_msg_line(p->s, "qopt: %s:%d: %s", p->file, line, esc);
	else
		pm_msg_line(p->s, "qopt: %s: %s", p->file, esc);
}

/* Arrays grow geometrically: their capacity is n rounded up to a power
 * of two, so room is made only when n is one (no capacity field, and
 * 100,000 sections cost 17 reallocations, not 100,000 copies). */
static int full(size_t n)
{
	return (n & (n - 1)) == 0;
}

static size_t grown_cap(size_t n)
{
	return n ? 2 * n : 1;
}

struct pm_stage *pm_pl_add_stage(struct pm_pipeline *p,
				     const char *name, int line)
{
	struct pm_stage *grown = p->stages;

	if (full(p->nstages)) {
		grown = realloc(p->stages,
				grown_cap(p->nstages) * sizeof(*grown));
		if (!grown)
			return NULL;
		p->stages = grown;
	}
	memset(&grown[p->nstages], 0, sizeof(*grown));
	grown[p->nstages].name = strdup(name);
	grown[p->nstages].line = line;
	if (!grown[p->nstages].name)
		return NULL;
	return &p->stages[p->nstages++];
}

int pm_pl_add_raw(struct pm_rawopt **raw, size_t *n, const char *key,
		    const char *value, int line)
{
	struct pm_rawopt *grown = *raw;

	if (full(*n)) {
		grown = realloc(*raw, grown_cap(*n) * sizeof(*grown));
		if (!grown)
			return -1;
		*raw = grown;
	}
	grown[*n].key = strdup(key);
	grown[*n].value = strdup(value);
	grown[*n].list = NULL;
	grown[*n].line = line;
	if (!grown[*n].key || !grown[*n].value)
		return -1;
	(*n)++;
	return 0;
}

/*
 * --passes splits at ',' (passes) and ':' (options) outside double
 * quotes, braces and angle brackets, so a value holding either is
 * written key="a:b,c" (inside quotes \" and \\ stand for " and \), and
 * NAME{k=v,k2=v2} and NAME<k=v;k2=v2> (LLVM's spelling) keep their
 * options together. A '<' opens only after a name, before any ':' or
 * '=' (in a value it is a character), and the first '>' closes it.
 * Returns the next piece of *s up to sep, NUL-terminated, and moves *s
 * past it (NULL after the last); sets *open_quote when a quote is left
 * open.
 */

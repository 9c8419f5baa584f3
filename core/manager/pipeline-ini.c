/*
 * core/manager/pipeline-ini.c - reading a pipeline from an INI file with inih.
 *
 * Debian's inih is built without INI_HANDLER_LINENO and without
 * INI_CALL_HANDLER_ON_NEW_SECTION, so the handler learns neither the
 * line nor where a section starts. We feed inih through our own line
 * reader instead: it counts lines and sees every section header, so a
 * repeated [pass] starts a new stage and an empty one is not lost. The
 * handler runs for the line the reader returned last.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <ini.h>
#include <qopt/pass.h>
#include "manager/pipeline.h"
#include "manager/pipeline-internal.h"
#include <qopt/file.h>

struct ini_state {
	struct pm_pipeline *p;
	FILE *f;
	int line;
	int indented;		/* current line starts with blank space */
	int in_global;		/* inside [qopt] */
	int stage;		/* index of the current stage, -1 before any */
	int bad;
	char *buf;
	size_t cap;
	char *cont;		/* the value continued lines extend... */
	size_t cont_len, cont_cap;	/* ...its length and room */
};

static char *skip_blank(char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	return s;
}

static void rtrim(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' ||
		     s[n - 1] == '\r' || s[n - 1] == '\n'))
		s[--n] = 0;
}

static void section_start(struct ini_state *st, char *s)
{
	char *end = strchr(s + 1, ']');
	char *name;

	if (!end) {
		pm_pl_error(st->p, st->line, "section header without ']'");
		st->bad++;
		return;
	}
	*end = 0;
	name = skip_blank(s + 1);
	rtrim(name);
	if (!*name) {
		pm_pl_error(st->p, st->line, "empty section name");
		st->bad++;
		return;
	}
	st->in_global = !strcmp(name, "qopt");
	if (st->in_global)
		return;
	if (!pm_pl_add_stage(st->p, name, st->line)) {
		st->bad++;
		return;
	}
	st->stage = (int)st->p->nstages - 1;
}

/* Looks at a raw line before inih does: sections, syntax errors. */
static void scan_line(struct ini_state *st, const char *line)
{
	char tmp[INI_MAX_LINE + 1];
	char *s;

	snprintf(tmp, sizeof(tmp), "%s", line);
	s = tmp;
	if (st->line == 1 && !strncmp(s, "\xEF\xBB\xBF", 3))
		s += 3;
	st->indented = *s == ' ' || *s == '\t';
	s = skip_blank(s);
	rtrim(s);
	/* An indented line continues the previous value (inih's
	 * multi-line values); inih itself rejects one without a key. */
	if (!*s || *s == ';' || *s == '#' || st->indented)
		return;
	if (*s == '[') {
		section_start(st, s);
		return;
	}
	if (!strpbrk(s, "=:")) {
		pm_pl_error(st->p, st->line,
			      "expected 'option = value' or '[pass]', got '%s'",
			      s);
		st->bad++;
	}
}

static char *reader(char *str, int num, void *stream)
{
	struct ini_state *st = stream;
	ssize_t n = getline(&st->buf, &st->cap, st->f);

	if (n < 0)
		return NULL;
	st->line++;
	if (n >= num) {
		pm_pl_error(st->p, st->line,
			      "line too long (at most %d characters)", num - 2);
		st->bad++;
		/* Hand inih a comment so the rest of the line is not
		 * parsed as something else. */
		snprintf(str, num, ";\n");
		return str;
	}
	memcpy(str, st->buf, n + 1);
	scan_line(st, str);
	return str;
}

static int stage_option(struct ini_state *st, const char *section,
			const char *key, const char *value)
{
	struct pm_stage *s = &st->p->stages[st->stage];
	struct pm_rawopt *last;
	size_t i;
	char *joined;

	/* inih's multi-line values: an indented line continues the
	 * previous key; for a list that means more items. */
	last = s->nraw ? &s->raw[s->nraw - 1] : NULL;
	if (last && st->indented && !strcmp(last->key, key)) {
		/* Grown geometrically: a list of 100,000 lines must not
		 * copy the whole value once per line. */
		size_t have = last->value == st->cont ? st->cont_len :
			      strlen(last->value);
		size_t need = have + strlen(value) + 2;

		joined = last->value;
		if (last->value != st->cont || need > st->cont_cap) {
			size_t cap = need * 2;

			joined = realloc(last->value, cap);
			if (!joined)
				return 1;
			st->cont_cap = cap;
		}
		joined[have] = ',';
		memcpy(joined + have + 1, value, strlen(value) + 1);
		last->value = st->cont = joined;
		st->cont_len = need - 1;
		return 0;
	}
	for (i = 0; i < s->nraw; i++) {
		if (!strcmp(s->raw[i].key, key)) {
			pm_pl_error(st->p, st->line,
				      "option '%s' given twice in [%s] (first at line %d)",
				      key, section, s->raw[i].line);
			return 1;
		}
	}
	return pm_pl_add_raw(&s->raw, &s->nraw, key, value, st->line) < 0;
}

static int handler(void *user, const char *section, const char *key,
		   const char *value)
{
	struct ini_state *st = user;

	if (!*section) {
		pm_pl_error(st->p, st->line,
			      "option '%s' outside of any [pass] section", key);
		st->bad++;
		return 1;
	}
	if (st->in_global) {
		st->bad += pm_pl_global(st->p, key, value, st->line);
		return 1;
	}
	if (st->stage < 0)
		return 1;
	st->bad += stage_option(st, section, key, value);
	/* We report our own errors with better messages; 1 keeps inih
	 * from adding a bare line number on top. */
	return 1;
}

static int set_location(struct pm_pipeline *p, const char *path)
{
	char real[PATH_MAX];
	char *copy;

	p->file = strdup(path);
	if (!realpath(path, real))
		return -1;
	copy = strdup(real);
	if (!copy || !p->file) {
		free(copy);
		return -1;
	}
	p->dir = strdup(dirname(copy));
	free(copy);
	return p->dir ? 0 : -1;
}

/* The INI of st->f (closed here): the number of problems. */
static int parse_stream(struct ini_state *st)
{
	struct pm_pipeline *p = st->p;
	int rc = ini_parse_stream(reader, st, handler, st);

	fclose(st->f);
	free(st->buf);
	if (rc > 0 && !st->bad) {
		pm_pl_error(p, rc, "syntax error");
		st->bad++;
	}
	if (rc < 0 && !st->bad) {
		pm_pl_error(p, 0, "cannot parse pipeline (error %d)", rc);
		st->bad++;
	}
	if (!p->nstages && !st->bad) {
		pm_pl_error(p, 0, "no passes: expected a [pass] section");
		st->bad++;
	}
	return st->bad;
}

int pm_pipeline_parse_ini(struct pm_pipeline *p, const char *path)
{
	struct ini_state st = { .p = p, .stage = -1 };
	const char *kind;
	struct stat sb;
	int fd;

	fd = qir_open_regular(path, 0, &sb, &kind);
	st.f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!st.f && fd >= 0)
		close(fd);
	if (!st.f || set_location(p, path) < 0) {
		if (!p->file)
			p->file = strdup(path);
		if (kind)
			pm_pl_error(p, 0, "cannot read pipeline: it is %s, not a regular file",
				      kind);
		else
			pm_pl_error(p, 0, "cannot read pipeline: %s",
				      strerror(errno));
		if (st.f)
			fclose(st.f);
		return 1;
	}
	return parse_stream(&st);
}

/* Text has no folder of its own: [qopt] paths start from the current
 * one, as a relative --load does. */
int pm_pipeline_parse_ini_text(struct pm_pipeline *p, const char *text,
			       const char *name)
{
	struct ini_state st = { .p = p, .stage = -1 };
	char cwd[PATH_MAX];

	p->file = strdup(name ? name : "<string>");
	if (!p->file || !getcwd(cwd, sizeof(cwd)) || !(p->dir = strdup(cwd))) {
		pm_pl_error(p, 0, "cannot read pipeline: %s", strerror(errno));
		return 1;
	}
	/* fmemopen of an empty buffer fails; an empty pipeline is one
	 * without passes, said below. */
	st.f = fmemopen((void *)(*text ? text : "\n"),
			*text ? strlen(text) : 1, "r");
	if (!st.f) {
		pm_pl_error(p, 0, "cannot read pipeline: %s", strerror(errno));
		return 1;
	}
	return parse_stream(&st);
}

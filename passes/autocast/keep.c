/*
 * passes/autocast/keep.c - the nodes a measurement chose to keep FLOAT
 * (`keep_file = FILE`, written by `qopt autocast-tune`). The pass runs
 * no model: ONNX Runtime is the CLI's, which measures the fake form
 * against FLOAT and writes the nodes whose storage in the low type
 * added the error, each with the figure that made it choose the node.
 *
 * The file: a first line "qopt-autocast-keep 1", then one node a line,
 * "NAME<TAB>REASON" (NAME the node's name, or its first output's when
 * it has none); lines starting with '#' are comments.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autocast.h"

#define KEEP_MAGIC "qopt-autocast-keep 1"

void autocast_keep_free(struct autocast_cfg *cfg)
{
	for (size_t i = 0; i < cfg->nmeasured; i++) {
		free(cfg->measured[i].name);
		free(cfg->measured[i].why);
	}
	free(cfg->measured);
	cfg->measured = NULL;
	cfg->nmeasured = 0;
}

static int add(struct autocast_cfg *cfg, const char *name, const char *why,
	       size_t line)
{
	struct autocast_kept *k = realloc(cfg->measured, (cfg->nmeasured + 1) *
					  sizeof(*k));

	if (!k)
		return -1;
	cfg->measured = k;
	k += cfg->nmeasured;
	k->name = strdup(name);
	k->why = strdup(why);
	k->line = line;
	k->used = 0;
	if (!k->name || !k->why) {
		free(k->name);
		free(k->why);
		return -1;
	}
	cfg->nmeasured++;
	return 0;
}

/* One line (its newline cut): a node, a comment, or malformed (said). */
static int parse_line(struct autocast_cfg *cfg, const char *path, char *s,
		      size_t line)
{
	char *tab = strchr(s, '\t');

	if (!*s || *s == '#')
		return 0;
	if (!tab || tab == s || !tab[1]) {
		qopt_error(cfg->ctx, "keep file '%s': line %zu: not "
			   "'NODE<TAB>REASON'", path, line);
		return -1;
	}
	*tab = 0;
	if (add(cfg, s, tab + 1, line)) {
		qopt_error(cfg->ctx, "out of memory");
		return -1;
	}
	return 0;
}

int autocast_keep_load(struct autocast_cfg *cfg, const char *path)
{
	char buf[4096];
	size_t line = 0;
	FILE *f;
	int rc = 0;

	if (!path || !*path)
		return 0;
	f = fopen(path, "r");
	if (!f) {
		qopt_error(cfg->ctx, "keep file '%s': %s", path,
			   strerror(errno));
		return -1;
	}
	while (rc == 0 && fgets(buf, sizeof(buf), f)) {
		size_t n = strlen(buf);

		line++;
		if (n && buf[n - 1] == '\n')
			buf[--n] = 0;
		else if (!feof(f)) {
			qopt_error(cfg->ctx, "keep file '%s': line %zu is "
				   "longer than %zu bytes", path, line,
				   sizeof(buf) - 2);
			rc = -1;
			break;
		}
		if (line == 1) {
			if (strcmp(buf, KEEP_MAGIC)) {
				qopt_error(cfg->ctx, "keep file '%s': not a "
					   "keep file of qopt autocast-tune "
					   "(its first line is not '%s')",
					   path, KEEP_MAGIC);
				rc = -1;
			}
			continue;
		}
		rc = parse_line(cfg, path, buf, line);
	}
	if (rc == 0 && line == 0) {
		qopt_error(cfg->ctx, "keep file '%s' is empty (not a keep "
			   "file of qopt autocast-tune)", path);
		rc = -1;
	}
	fclose(f);
	if (rc)
		autocast_keep_free(cfg);
	return rc;
}

struct autocast_kept *autocast_keep_find(struct autocast_cfg *cfg,
					 const qir_node *n)
{
	const char *out = n->noutputs && n->outputs[0] ? n->outputs[0]->name :
			  NULL;

	for (size_t i = 0; i < cfg->nmeasured; i++) {
		struct autocast_kept *k = &cfg->measured[i];

		if (n->name[0] ? !strcmp(k->name, n->name) :
		    out && !strcmp(k->name, out))
			return k;
	}
	return NULL;
}

int autocast_keep_check(struct autocast_cfg *cfg, const char *path)
{
	for (size_t i = 0; i < cfg->nmeasured; i++)
		if (!cfg->measured[i].used) {
			qopt_error(cfg->ctx, "keep file '%s': line %zu: no "
				   "node '%s' computes in FLOAT in this model "
				   "(the file was made for another model)",
				   path, cfg->measured[i].line,
				   cfg->measured[i].name);
			return -1;
		}
	return 0;
}

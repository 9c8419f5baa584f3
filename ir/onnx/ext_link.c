/*
 * ir/onnx/ext_link.c - a saved model that refers to its input's external
 * data in place (qir_save_opts.link_external).
 *
 * The models qopt hands to ONNX Runtime for calibration are throwaway
 * copies in a private temporary folder; copying gigabytes of unchanged
 * weights into each costs as much as ONNX Runtime's own run, and as
 * much disk. A tensor whose bytes are still its input data file's is
 * written as a reference to that file instead, through a hard link
 * beside the output: a location must stay inside the model's folder
 * (ONNX Runtime and qopt's own loader refuse an absolute path, and a
 * symlink resolves outside). The link is checked to be the file mapped
 * at load (device and inode); where none can be made (another file
 * system, a file system without hard links) the bytes are copied.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "onnx/onnx_io.h"

/* "<data name>.in", then "<data name>.in2", ...: the caller's folder
 * is private, so the names are known in advance to whoever removes it. */
static char *link_name(const char *base, size_t k)
{
	size_t n = strlen(base) + 32;
	char *s = malloc(n);

	if (s && k == 0)
		snprintf(s, n, "%s.in", base);
	else if (s)
		snprintf(s, n, "%s.in%zu", base, k + 1);
	return s;
}

static int make_link(const ir_mapping *src, const char *path)
{
	struct stat st;

	if (link(src->path, path) < 0)
		return -1;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_dev == src->dev && st.st_ino == src->ino)
		return 0;
	unlink(path);	/* the path names another file since the load */
	return -1;
}

const char *ir_ext_link(struct ir_ext_links *l, const ir_mapping *src)
{
	struct ir_ext_link *grown;
	char *name, *path;
	size_t n;

	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].src == src)
			return l->v[i].name;
	if (l->failed)
		return NULL;
	name = link_name(l->base, l->n);
	n = strlen(l->dir) + (name ? strlen(name) : 0) + 2;
	path = name ? malloc(n) : NULL;
	grown = path ? realloc(l->v, (l->n + 1) * sizeof(*l->v)) : NULL;
	if (grown)
		l->v = grown;
	if (path)
		snprintf(path, n, "%s/%s", l->dir, name);
	if (!grown || make_link(src, path) < 0) {
		/* Copied instead, this tensor and the rest: one name
		 * stays unused, so the sequence has no gap. */
		l->failed = 1;
		free(name);
		free(path);
		return NULL;
	}
	l->v[l->n].src = src;
	l->v[l->n].name = name;
	l->v[l->n++].path = path;
	return name;
}

void ir_ext_links_done(struct ir_ext_links *l, int remove)
{
	for (size_t i = 0; i < l->n; i++) {
		if (remove)
			unlink(l->v[i].path);
		free(l->v[i].name);
		free(l->v[i].path);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

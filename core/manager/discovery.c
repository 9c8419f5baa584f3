/*
 * core/manager/discovery.c - where the built-in passes are.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/pass.h>
#include "manager/registry.h"

/* 1 when this program runs from the build tree it was built in. */
static int in_build_tree(void)
{
	char exe[PATH_MAX], top[PATH_MAX];
	const char *dir = QOPT_BUILDDIR;
	size_t n;

	if (!realpath("/proc/self/exe", exe))
		return 0;
	/* The build folder may be reached through a symlink. */
	if (realpath(QOPT_BUILDDIR, top))
		dir = top;
	n = strlen(dir);
	return !strncmp(exe, dir, n) && exe[n] == '/';
}

void pm_use_build_tree_modules(void)
{
	if (in_build_tree())
		setenv("QOPT_CUDA_MODULE", QOPT_BUILD_CUDA_MODULE, 0);
}

const char *pm_build_tree(void)
{
	return in_build_tree() ? QOPT_BUILDDIR : NULL;
}

/* A qopt installed with DESTDIR=D runs from D QOPT_BINDIR: its passes
 * are those in D QOPT_PKGLIBDIR, never what is installed in the
 * configured prefix (another version, or nothing). Elsewhere: NULL. */
static const char *staged_pass_dir(char *dir, size_t len)
{
	char exe[PATH_MAX];
	const char *tail = QOPT_BINDIR "/qopt";
	size_t n, t = strlen(tail);

	if (!realpath("/proc/self/exe", exe))
		return NULL;
	n = strlen(exe);
	if (n <= t || strcmp(exe + n - t, tail) ||
	    (size_t)snprintf(dir, len, "%.*s%s/passes", (int)(n - t), exe,
			     QOPT_PKGLIBDIR) >= len)
		return NULL;
	return dir;
}

/* QOPT_PKGLIBDIR, QOPT_BINDIR, QOPT_BUILDDIR and QOPT_BUILD_PASSDIR
 * come from Makefile.am. An uninstalled qopt (the libtool wrapper runs
 * the real binary from .libs/) must use the passes it was built with,
 * never an older installed copy. */
const char *pm_builtin_pass_dir(char *buf, size_t len)
{
	const char *staged;

	if (in_build_tree())
		return QOPT_BUILD_PASSDIR;
	staged = staged_pass_dir(buf, len);
	return staged ? staged : QOPT_PKGLIBDIR "/passes";
}

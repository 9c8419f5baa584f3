/*
 * core/cli/discovery.c - where the qopt program's built-in passes and
 * CUDA module are: its build tree when it runs uninstalled from it, the
 * DESTDIR it was staged into, else the installed folders. The
 * program's business, not the library's: libqopt holds no build-tree
 * path, and a program embedding it names its own folders.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"

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

void cli_use_build_tree_modules(void)
{
	if (in_build_tree())
		setenv("QOPT_CUDA_MODULE", QOPT_BUILD_CUDA_MODULE, 0);
}

const char *cli_build_tree(void)
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
const char *cli_builtin_pass_dir(char *buf, size_t len)
{
	const char *staged;

	if (in_build_tree())
		return QOPT_BUILD_PASSDIR;
	staged = staged_pass_dir(buf, len);
	return staged ? staged : QOPT_PKGLIBDIR "/passes";
}

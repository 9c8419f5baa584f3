/*
 * core/discovery.c - where the built-in passes are.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/pass.h>
#include "core.h"

/* QOPT_PKGLIBDIR, QOPT_BUILDDIR and QOPT_BUILD_PASSDIR come from
 * Makefile.am. An uninstalled qopt (the libtool wrapper runs the real
 * binary from .libs/) must use the passes it was built with, never an
 * older installed copy. */
const char *pm_builtin_pass_dir(void)
{
	char exe[PATH_MAX], top[PATH_MAX];
	const char *dir = QOPT_BUILDDIR;
	size_t n;

	if (!realpath("/proc/self/exe", exe))
		return QOPT_PKGLIBDIR "/passes";
	/* The build folder may be reached through a symlink. */
	if (realpath(QOPT_BUILDDIR, top))
		dir = top;
	n = strlen(dir);
	if (!strncmp(exe, dir, n) && exe[n] == '/')
		return QOPT_BUILD_PASSDIR;
	return QOPT_PKGLIBDIR "/passes";
}

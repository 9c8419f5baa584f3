/*
 * base/version.c - the running libqopt's release and plugin ABI.
 */
#include <qopt/version.h>

#include "config.h"

/* configure and the header must agree on the release. */
_Static_assert(sizeof(PACKAGE_VERSION) == sizeof(QOPT_VERSION_STRING),
	       "AC_INIT version and QOPT_VERSION_STRING differ");

const char *qopt_version(void)
{
	return QOPT_VERSION_STRING;
}

void qopt_abi_version(unsigned *major, unsigned *minor)
{
	if (major)
		*major = QOPT_ABI_MAJOR;
	if (minor)
		*minor = QOPT_ABI_MINOR;
}

/*
 * kernels/error.c - names of the QK_E* codes: they are qopt_status codes,
 * named once, in base/status.c (below the kernels).
 */
#include "internal.h"

const char *qk_strerror(qopt_status code)
{
	return qopt_status_str(code);
}

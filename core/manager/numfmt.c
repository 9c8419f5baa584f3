/*
 * core/manager/numfmt.c - shortest round-tripping text of a double
 * (base/json-text.h).
 */
#include "base/json-text.h"
#include "manager/numfmt.h"

void pm_fmt_double(char *buf, size_t n, double x)
{
	base_fmt_double(buf, n, x);
}

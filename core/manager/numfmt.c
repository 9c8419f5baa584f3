/*
 * core/manager/numfmt.c - shortest round-tripping text of a double.
 */
#include <stdio.h>
#include <stdlib.h>
#include "manager/numfmt.h"

void pm_fmt_double(char *buf, size_t n, double x)
{
	int prec;

	for (prec = 1; prec < 17; prec++) {
		snprintf(buf, n, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			return;
	}
	snprintf(buf, n, "%.17g", x);
}

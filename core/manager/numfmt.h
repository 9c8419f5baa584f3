/*
 * core/manager/numfmt.h - doubles as text that reads back to the same
 * value: option ranges in --help-pass and the calibration file's
 * numbers use one rule.
 */
#ifndef PM_NUMFMT_H
#define PM_NUMFMT_H

#include <stddef.h>

/* The shortest %g form of x (1 to 17 significant digits) that strtod
 * turns back into x, into buf (n bytes, always terminated). */
void pm_fmt_double(char *buf, size_t n, double x);

#endif

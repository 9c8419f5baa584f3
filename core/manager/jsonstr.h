/*
 * core/manager/jsonstr.h - a C string as a JSON string, every byte kept.
 */
#ifndef QOPT_PM_JSONSTR_H
#define QOPT_PM_JSONSTR_H

#include <stdio.h>

/* s as a JSON string (NULL as ""). Valid UTF-8 is copied; each byte
 * that is not part of valid UTF-8 is written as the lone surrogate
 * \udcXX (XX the byte, 80..ff), the scheme Python calls
 * surrogateescape: no valid text can produce one, so a reader restores
 * the bytes exactly (core/calib/calib-read.c does). Control bytes,
 * '"' and '\\' are escaped. */
void pm_json_str(FILE *f, const char *s);

#endif

/*
 * core/manager/jsonstr.h - a C string as a JSON string, every byte kept.
 */
#ifndef QOPT_PM_JSONSTR_H
#define QOPT_PM_JSONSTR_H

#include <stdio.h>

/* base_json_str (base/json-text.h): every byte kept. */
void pm_json_str(FILE *f, const char *s);

#endif

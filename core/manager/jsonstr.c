/*
 * core/manager/jsonstr.c - the manager's name for the one JSON string
 * writer of qopt's files (base/json-text.h): the calibration job and
 * --stats-json.
 */
#include "base/json-text.h"
#include "manager/jsonstr.h"

void pm_json_str(FILE *f, const char *s)
{
	base_json_str(f, s);
}

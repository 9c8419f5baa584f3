/*
 * core/manager/pipeline-globals.c - the [qopt] section: settings of the run
 * that a pipeline file may carry (the command line wins over them).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/pass.h>
#include "manager/pipeline.h"
#include "manager/pipeline-internal.h"

static const char *const global_keys[] = {
	"plugin_path", "load", "verify_each", "strict", "device",
	"external_threshold", "external_name", "all_inline", "max_opset",
	"allow_upgrade",
};
#define NKEYS (sizeof(global_keys) / sizeof(global_keys[0]))

/* Relative paths in a pipeline file are relative to that file. */
static char *resolve_path(const struct pm_pipeline *p, const char *s)
{
	char *out;

	if (s[0] == '/' || !p->dir)
		return strdup(s);
	out = malloc(strlen(p->dir) + strlen(s) + 2);
	if (out)
		sprintf(out, "%s/%s", p->dir, s);
	return out;
}

/* plugin_path takes ':' like QOPT_PLUGIN_PATH, or ','. */
static int add_paths(const struct pm_pipeline *p, char ***v, size_t *n,
		     const char *value, const char *seps)
{
	char *copy = strdup(value), *save = NULL, *tok;
	char **grown;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, seps, &save); tok;
	     tok = strtok_r(NULL, seps, &save)) {
		while (*tok == ' ')
			tok++;
		if (!*tok)
			continue;
		grown = realloc(*v, (*n + 1) * sizeof(*grown));
		if (!grown)
			break;
		*v = grown;
		grown[*n] = resolve_path(p, tok);
		if (grown[*n])
			(*n)++;
	}
	free(copy);
	return 0;
}

static int set_bool(struct pm_pipeline *p, int *dst, const char *key,
		    const char *value, int line)
{
	if (pm_parse_bool(value, dst) < 0) {
		pm_pl_error(p, line,
			      "[qopt] %s expects a bool (yes/no, true/false, on/off, 1/0), got '%s'",
			      key, value);
		return 1;
	}
	return 0;
}

static int set_bytes(struct pm_pipeline *p, const char *value, int line)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(value, &end, 10);
	if (!*value || *end || errno || v < 0) {
		pm_pl_error(p, line,
			      "[qopt] external_threshold expects a byte count, got '%s'",
			      value);
		return 1;
	}
	p->g.external_threshold = v;
	return 0;
}

static int set_max_opset(struct pm_pipeline *p, const char *value, int line)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(value, &end, 10);
	if (!*value || *end || errno || v < 1 || v > 1000) {
		pm_pl_error(p, line,
			      "[qopt] max_opset expects an opset number, got '%s'",
			      value);
		return 1;
	}
	p->g.max_opset = v;
	return 0;
}

static int set_string(char **dst, const char *value)
{
	free(*dst);
	*dst = strdup(value);
	return *dst ? 0 : 1;
}

int pm_pl_global(struct pm_pipeline *p, const char *key,
		   const char *value, int line)
{
	char dym[PM_DID_YOU_MEAN_SIZE];
	struct pm_globals *g = &p->g;

	if (pm_pl_add_raw(&p->global_raw, &p->nglobal, key, value, line) < 0)
		return 1;
	if (!strcmp(key, "plugin_path"))
		return add_paths(p, &g->plugin_path, &g->nplugin_path, value,
				 ":,") < 0;
	if (!strcmp(key, "load"))
		return add_paths(p, &g->load, &g->nload, value, ",") < 0;
	if (!strcmp(key, "verify_each"))
		return set_bool(p, &g->verify_each, key, value, line);
	if (!strcmp(key, "strict"))
		return set_bool(p, &g->strict, key, value, line);
	if (!strcmp(key, "all_inline"))
		return set_bool(p, &g->all_inline, key, value, line);
	if (!strcmp(key, "external_threshold"))
		return set_bytes(p, value, line);
	if (!strcmp(key, "max_opset"))
		return set_max_opset(p, value, line);
	if (!strcmp(key, "allow_upgrade"))
		return set_bool(p, &g->allow_upgrade, key, value, line);
	if (!strcmp(key, "external_name"))
		return set_string(&g->external_name, value);
	if (!strcmp(key, "device")) {
		if (qk_device_from_name(value) < 0) {
			pm_pl_error(p, line,
				      "[qopt] device expects cpu, cuda or auto, got '%s'",
				      value);
			return 1;
		}
		return set_string(&g->device, value);
	}
	pm_pl_error(p, line, "unknown setting '%s' in [qopt]%s", key,
		      pm_did_you_mean(key, global_keys, NKEYS, dym,
				      sizeof(dym)));
	return 1;
}

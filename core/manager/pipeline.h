/*
 * core/manager/pipeline.h - private to core/manager: a pipeline as parsed
 * (pipeline-ini.c, pipeline.c, pipeline-globals.c), resolved against
 * a registry (pipeline.c, pipeline-expand.c) and printed back
 * (pipeline-print.c).
 */
#ifndef QOPT_PM_PIPELINE_H
#define QOPT_PM_PIPELINE_H

#include <stdio.h>
#include "manager/options.h"
#include "manager/registry.h"

/* ---- pipelines (core/manager/pipeline.c, pipeline-ini.c,
 * pipeline-print.c) ---- */
struct pm_rawopt {
	char *key, *value;	/* owned */
	/* --passes: the value with each ';' outside quotes turned into
	 * ',', the list separator, for an option of type list (owned; NULL
	 * when it has no such ';'). Other types take value as written. */
	char *list;
	int line;
};

/* The text o gives an option of type spec->type. */
static inline const char *pm_rawopt_text(const struct pm_rawopt *o,
					 const qopt_option_spec *spec)
{
	return o->list && spec->type == QOPT_OPT_LIST ? o->list : o->value;
}

struct pm_stage {
	char *name;		/* owned */
	int line;		/* 0 for --passes */
	struct pm_rawopt *raw;
	size_t nraw;
	/* A step of a named pipeline (pm_pipeline_resolve expands it):
	 * the name the user wrote (owned), else NULL. Stages of one
	 * expansion share group (1-based) and the pipeline's flags. */
	char *from;
	size_t group;
	unsigned from_flags;
	/* after pm_pipeline_resolve: */
	const struct pm_pass *pass;
	struct pm_value *vals; /* one per option spec of the pass */
};

/* [qopt] settings; -1 / NULL = not given. */
struct pm_globals {
	char **plugin_path;	/* absolute or relative to the INI's folder */
	size_t nplugin_path;
	char **load;
	size_t nload;
	int verify_each;
	int strict;
	char *device;
	int64_t external_threshold;
	char *external_name;
	int all_inline;
	/* Opset policy, the same for every pass (qopt_policy_*()). */
	int64_t max_opset;	/* -1: no limit */
	int allow_upgrade;	/* -1: not given (yes) */
};

struct pm_pipeline {
	pm_session *s;		/* where its problems are reported */
	char *file;		/* name for messages: the INI path or "--passes" */
	char *dir;		/* folder relative [qopt] paths start from */
	struct pm_stage *stages;
	size_t nstages;
	struct pm_rawopt *global_raw; /* [qopt] keys as written */
	size_t nglobal;
	struct pm_globals g;
	unsigned nerrors;	/* problems reported so far (pm_pl_error) */
	/* Of those, problems of a plugin's pipeline table found while
	 * expanding it (not the user's to fix). */
	unsigned nplugin_errors;
	unsigned nunknown;	/* of those, unknown passes */
};

void pm_pipeline_init(struct pm_pipeline *p, pm_session *s);
void pm_pipeline_free(struct pm_pipeline *p);
/* Syntax only (passes are not known yet): sections, keys, [qopt].
 * Prints every problem as "qopt: FILE:LINE: ..."; returns the number
 * of problems (0 = fine). */
int pm_pipeline_parse_ini(struct pm_pipeline *p, const char *path);
/* The same from INI text; name stands for the file in messages and
 * relative paths start from the current folder. */
int pm_pipeline_parse_ini_text(struct pm_pipeline *p, const char *text,
			       const char *name);
/* One stage with options kv (key, value, ..., NULL), values as INI
 * writes them: QM_OK, QM_USAGE after a message, QM_FAIL out of
 * memory. */
int pm_pipeline_add_stage(struct pm_pipeline *p, const char *pass,
			  const char *const *kv);
/* "name[:key=val...][,name...]"; list items inside use ';'. */
int pm_pipeline_parse_inline(struct pm_pipeline *p, const char *spec);
/* Checks stages against the registry, parses every value. Prints
 * problems; returns their number. */
int pm_pipeline_resolve(struct pm_pipeline *p,
			  const struct pm_registry *r);
/* INI text that parses back to the same pipeline. */
/* Prints p as INI that reads back to it; -1 (nothing printed) with the
 * reason in why[n] when a value cannot be written so. */
int pm_pipeline_print(const struct pm_pipeline *p, FILE *f, char *why,
		      size_t n);

#endif /* QOPT_PM_PIPELINE_H */

/*
 * core/manager/options.h - private to core/manager: a pass option's value, parsed
 * from its text by its spec (options.c).
 */
#ifndef QOPT_PM_OPTIONS_H
#define QOPT_PM_OPTIONS_H

#include <stdint.h>
#include <qopt/pass.h>

/* ---- option values (core/manager/options.c) ---- */
struct pm_value {
	int set;		/* given by the pipeline (not the default) */
	int present;		/* set or defaulted */
	char *text;		/* canonical text (owned), NULL if !present */
	int b;
	int64_t i;
	double f;
	char **items;		/* QOPT_OPT_LIST, owned */
	size_t nitems;
};

const char *pm_opt_type_name(int type);
/* Parses text as spec's type into *v (cleared first). On failure
 * returns -1 with a reason ("expects an integer, got 'x'") in why. */
int pm_value_parse(const qopt_option_spec *spec, const char *text,
		     struct pm_value *v, char *why, size_t n);
void pm_value_clear(struct pm_value *v);
/* What spec accepts beyond its type ("one of: real, fake", "range: 1 to
 * 64") into buf; 0 when nothing more. */
int pm_option_accepts(const qopt_option_spec *spec, char *buf, size_t n);
int pm_parse_bool(const char *s, int *out);

#endif /* QOPT_PM_OPTIONS_H */

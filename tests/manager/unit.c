/*
 * tests/manager/unit.c - unit tests of core helpers: edit distance and
 * suggestions, option value parsing and canonical text.
 */
#include <string.h>
#include <qopt/pass.h>
#include "manager/run.h"
#include "../lib/tap.h"

static int parses(int type, const char *text, const char *canon)
{
	qopt_option_spec spec = { .name = "o", .type = (qopt_opt_type)type };
	struct pm_value v = { 0 };
	char why[256];
	int ok = pm_value_parse(&spec, text, &v, why, sizeof(why)) == 0 &&
		 canon && !strcmp(v.text, canon);

	if (!canon)
		ok = pm_value_parse(&spec, text, &v, why, sizeof(why)) < 0;
	pm_value_clear(&v);
	return ok;
}

/* A bisect point that cannot be recorded (the point list cannot grow)
 * stops the pass and the rewrite and marks the run failed, instead of
 * leaving a hole that would make `qopt bisect` blame the wrong rewrite. */
static void lost_points(void)
{
	struct pm_stage_result res[1];
	struct pm_run r;
	struct qopt_ctx ctx;

	memset(res, 0, sizeof(res));
	memset(&r, 0, sizeof(r));
	memset(&ctx, 0, sizeof(ctx));
	r.res = res;
	r.o.record_points = 1;
	r.o.bisect_limit = -1;
	/* Full, and too big to double: record() fails without allocating. */
	r.npoints = r.cappoints = SIZE_MAX / 2 / sizeof(struct pm_point) + 1;
	tap_ok(pm_gate_pass(&r, 0) == 0 && r.lost_record,
	       "unrecordable pass point: the pass does not run, the run fails");
	r.lost_record = 0;
	ctx.run = &r;
	ctx.res = res;
	tap_ok(pm_gate_rewrite(&ctx, "x") == 0 && r.lost_record &&
	       res[0].rewrites == 0,
	       "unrecordable rewrite point: the rewrite is refused, the run fails");
	tap_ok(pm_gate_rewrite(&ctx, "y") == 0,
	       "after a lost point no rewrite goes ahead");
	r.npoints = r.cappoints = 0;
}

int main(void)
{
	static const char *const opts[] = { "block_size", "exclude", "axis" };
	struct pm_value v = { 0 };
	qopt_option_spec list = { .name = "l", .type = QOPT_OPT_LIST };
	char why[256], dym[PM_DID_YOU_MEAN_SIZE];

	tap_ok(pm_edit_distance("kitten", "sitting") == 3, "levenshtein");
	tap_ok(pm_edit_distance("blcok", "block") == 1,
	       "a transposition costs 1");
	tap_ok(pm_edit_distance("", "abc") == 3, "empty string");
	TAP_IS_STR(pm_suggest("blocksize", opts, 3), "block_size",
		   "suggests block_size for blocksize");
	tap_ok(pm_suggest("zzzzzz", opts, 3) == NULL,
	       "no suggestion for something unrelated");
	TAP_IS_STR(pm_did_you_mean("exlcude", opts, 3, dym, sizeof(dym)),
		   " (did you mean 'exclude'?)", "did-you-mean text");

	tap_ok(parses(QOPT_OPT_BOOL, "On", "yes"), "bool On");
	tap_ok(parses(QOPT_OPT_BOOL, "0", "no"), "bool 0");
	tap_ok(parses(QOPT_OPT_BOOL, "maybe", NULL), "bool maybe refused");
	tap_ok(parses(QOPT_OPT_INT, "-12", "-12"), "int -12");
	tap_ok(parses(QOPT_OPT_INT, "12abc", NULL), "int 12abc refused");
	tap_ok(parses(QOPT_OPT_INT, "99999999999999999999", NULL),
	       "int overflow refused");
	tap_ok(parses(QOPT_OPT_INT, "", NULL), "empty int refused");
	tap_ok(parses(QOPT_OPT_FLOAT, "0.1", "0.1"),
	       "float keeps the shortest exact text");
	tap_ok(parses(QOPT_OPT_FLOAT, "1e3", "1e+03"), "float 1e3");
	tap_ok(parses(QOPT_OPT_FLOAT, "nan", NULL), "float nan refused");
	tap_ok(parses(QOPT_OPT_STRING, " as is ", " as is "),
	       "string kept verbatim");
	tap_ok(parses(QOPT_OPT_LIST, " a, b ,,c ", "a,b,c"),
	       "list items trimmed, empty ones dropped");

	tap_ok(pm_value_parse(&list, "x,y", &v, why, sizeof(why)) == 0 &&
	       v.nitems == 2 && !strcmp(v.items[1], "y"), "list items");
	pm_value_parse(&list, "", &v, why, sizeof(why));
	tap_ok(v.nitems == 0 && v.present, "empty list is present, 0 items");
	pm_value_clear(&v);
	lost_points();
	return tap_done();
}

/*
 * core/cli/cmd-autocast-tune.c - `qopt autocast-tune`: which nodes
 * autocast keeps FLOAT, chosen by measured error (docs/autocast.md).
 *
 *   qopt autocast-tune MODEL.onnx --data DIR -o KEEP.txt
 *        [--to float16|bfloat16] [--max-error X] [--min-cosine C]
 *        [--rounds N] [--option KEY=VALUE]... [--ort-timeout S]
 *
 * Each round runs autocast's fake form (every tensor the real model
 * stores low rounded through the low type, as TensorRT stores it) with
 * the keep list so far, and one ONNX Runtime process measures every
 * FLOAT tensor of it against the FLOAT model over the samples (the
 * FLOAT model's tensors computed once, in the first round). Where
 * a node's output is further from FLOAT than the inputs it read, the
 * node amplified the low type's error: the worst one, with the
 * producers of its rounded inputs (so that it reads them unrounded),
 * is kept FLOAT for the next round, and kept only if the outputs'
 * error fell. It stops when the outputs' error (the plan's normalised
 * MSE, and the cosine when asked) is within the target. The keep file
 * it writes is autocast's keep_file option. The pass itself runs no
 * model: passes see only the public headers, and ONNX Runtime is the
 * CLI's (tune-run.c).
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli/tune.h"
#include "calib/calib-ort.h"

#define ME "qopt autocast-tune"
/* A unit is kept only when FLOAT it lowers the outputs' error by this
 * share at least: below, the gain is the samples' noise, not the unit. */
#define TUNE_GAIN 0.02

static const char usage_text[] =
"usage: qopt autocast-tune MODEL.onnx --data DIR -o KEEP.txt\n"
"         [--to float16|bfloat16] [--max-error X] [--min-cosine C]\n"
"         [--rounds N] [--option KEY=VALUE]... [--ort-timeout S]\n"
"  the nodes autocast keeps FLOAT, chosen by the error the low type adds,\n"
"  measured in ONNX Runtime on its fake form over the samples in DIR;\n"
"  KEEP.txt is autocast's keep_file (docs/autocast.md)\n"
"  --max-error X   the outputs' normalised MSE to reach, 0 < X < 1\n"
"                  (default 1e-4)\n"
"  --min-cosine C  and their mean cosine to FLOAT, 0 < C <= 1\n"
"  --rounds N      measurements after the first, 1..64 (default 8)\n"
"  --option K=V    an autocast option for every round (data_max=512)\n"
"  --ort-timeout S bound on each ONNX Runtime run, seconds (0: none;\n"
"                  also QOPT_ORT_TIMEOUT; default sized for the model\n"
"                  and samples)\n";

static int usage(qm_session *s, const char *fmt, const char *arg)
{
	qm_say(s, QOPT_LOG_ERROR, ME ": error: ");
	qm_say(s, QOPT_LOG_ERROR, fmt, arg);
	qm_say(s, QOPT_LOG_ERROR, "\nTry 'qopt autocast-tune --help'.\n");
	return QOPT_EXIT_USAGE;
}

static int number(qm_session *s, const char *opt, const char *arg,
		  double lo, double hi, int hi_in, double *out)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(arg, &end);
	if (!*arg || *end || errno || !(x > lo) ||
	    !(hi_in ? x <= hi : x < hi)) {
		qm_say(s, QOPT_LOG_ERROR, ME ": error: %s '%s': not a number "
		       "in (%g, %g%c\n", opt, arg, lo, hi, hi_in ? ']' : ')');
		return usage(s, "%s", "a target out of range");
	}
	*out = x;
	return 0;
}

static int add_opt(struct tune *t, const char *kv)
{
	const char **g;

	if (!strchr(kv, '=') || kv[0] == '=' || strchr(kv, '\n'))
		return usage(t->s, "--option '%s': not KEY=VALUE", kv);
	g = realloc(t->opts, (t->nopts + 1) * sizeof(*g));
	if (!g)
		return QOPT_EXIT_FAIL;
	t->opts = g;
	t->opts[t->nopts++] = kv;
	return 0;
}

/* One option at argv[*i]; its value, when it takes one, at argv[*i+1]. */
static int parse_one(struct tune *t, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
	static const char *const with_value[] = { "--data", "-o", "--output",
		"--to", "--max-error", "--min-cosine", "--rounds", "--option",
		"--ort-timeout" };
	long r;

	for (size_t k = 0; k < sizeof(with_value) / sizeof(*with_value); k++)
		if (!strcmp(a, with_value[k]) && !v)
			return usage(t->s, "%s needs a value", a);
	if (!strcmp(a, "--data"))
		t->data = v;
	else if (!strcmp(a, "-o") || !strcmp(a, "--output"))
		t->output = v;
	else if (!strcmp(a, "--to")) {
		if (strcmp(v, "float16") && strcmp(v, "bfloat16"))
			return usage(t->s, "--to '%s': float16 or bfloat16", v);
		t->to = v;
	} else if (!strcmp(a, "--max-error"))
		return number(t->s, a, v, 0, 1, 0, &t->max_error) ? 2 :
		       (++*i, 0);
	else if (!strcmp(a, "--min-cosine"))
		return number(t->s, a, v, 0, 1, 1, &t->min_cosine) ? 2 :
		       (++*i, 0);
	else if (!strcmp(a, "--rounds")) {
		if (cli_parse_uint(v, 1, 64, &r))
			return usage(t->s, "--rounds '%s': 1 to 64", v);
		t->rounds = r;
	} else if (!strcmp(a, "--option")) {
		if (add_opt(t, v))
			return QOPT_EXIT_USAGE;
	} else if (!strcmp(a, "--ort-timeout")) {
		/* through the environment, as qopt plan: the bound of the
		 * node script and of the qopt calibrate child */
		if (calib_ort_timeout_parse(v, &r) < 0)
			return usage(t->s, "--ort-timeout takes seconds from 0 "
				     "(no bound) to 31536000, got '%s'", v);
		if (setenv("QOPT_ORT_TIMEOUT", v, 1) < 0)
			return QOPT_EXIT_FAIL;
	} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
		t->quiet = 1;
		return 0;
	} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
		t->verbose++;
		return 0;
	} else if (a[0] == '-' && a[1])
		return usage(t->s, "unknown option '%s'", a);
	else if (t->input)
		return usage(t->s, "one model only ('%s' too)", a);
	else {
		t->input = a;
		return 0;
	}
	++*i;
	return 0;
}

static int parse(struct tune *t, int argc, char **argv)
{
	struct stat st;
	char why[256];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return -1;
		}
		if (parse_one(t, argc, argv, &i))
			return QOPT_EXIT_USAGE;
	}
	if (!t->input)
		return usage(t->s, "%s", "no model given");
	if (!t->data)
		return usage(t->s, "%s", "no samples: --data DIR (the error is "
			     "measured over them)");
	if (!t->output)
		return usage(t->s, "%s", "no keep file: -o KEEP.txt");
	/* a malformed QOPT_ORT_TIMEOUT refused before any child runs */
	if (calib_ort_timeout(-1, 0, 1, why, sizeof(why)) < 0)
		return usage(t->s, "%s", why);
	if (stat(t->data, &st) < 0) {
		qm_say(t->s, QOPT_LOG_ERROR, ME ": error: --data %s: %s\n",
		       t->data, strerror(errno));
		return QOPT_EXIT_FAIL;
	}
	if (!S_ISDIR(st.st_mode)) {
		qm_say(t->s, QOPT_LOG_ERROR, ME ": error: --data %s: not a "
		       "folder\n", t->data);
		return QOPT_EXIT_FAIL;
	}
	return 0;
}

static int keep_add(struct tune *t, const char *name, const char *why)
{
	char **k = realloc(t->keep, (t->nkeep + 1) * sizeof(*k)), **w;

	if (!k)
		return -1;
	t->keep = k;
	w = realloc(t->why, (t->nkeep + 1) * sizeof(*w));
	if (!w)
		return -1;
	t->why = w;
	k[t->nkeep] = strdup(name);
	w[t->nkeep] = strdup(why);
	if (!k[t->nkeep] || !w[t->nkeep]) {
		free(k[t->nkeep]);
		free(w[t->nkeep]);
		return -1;
	}
	t->nkeep++;
	return 0;
}

static int kept(const struct tune *t, const char *name, size_t from)
{
	for (size_t i = from; i < t->nkeep; i++)
		if (!strcmp(t->keep[i], name))
			return 1;
	return 0;
}

static double err_of(const struct tune_probe *p, const qir_value *v)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->val[i] == v)
			return p->nmse[i];
	return 0;	/* a weight, a graph input: read exact */
}

static int measured(const struct tune_probe *p, const qir_value *v)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->val[i] == v)
			return 1;
	return 0;
}

/* The error node n adds: its outputs' against the worst input it
 * read; NAN when it has no measured output or read an Inf. */
static double added(const struct tune_probe *p, const qir_node *n)
{
	double out = -1, in = 0;

	for (size_t i = 0; i < n->noutputs; i++)
		if (n->outputs[i] && measured(p, n->outputs[i]))
			out = fmax(out, err_of(p, n->outputs[i]));
	if (out < 0)
		return NAN;
	for (size_t i = 0; i < n->ninputs; i++)
		if (n->inputs[i])
			in = fmax(in, err_of(p, n->inputs[i]));
	if (!isfinite(in))
		return NAN;	/* the error came from above */
	return isnan(out) ? INFINITY : out - in;
}

/* What a round may keep FLOAT: a node that amplifies the error of the
 * inputs it read (with the producers of its rounded inputs, so it reads
 * them unrounded), or a tensor whose storage in the low type adds the
 * error (its producer and every reader: stored FLOAT, never rounded). */
struct pick {
	qir_node *n;		/* an amplifier, or NULL */
	qir_value *v;		/* a stored tensor (rounded), or NULL */
	double by;
};

static int keepable(const struct tune *t, const qir_node *n,
		    char *const *rejected, size_t nrej)
{
	const char *name = tune_node_name(n);

	if (qir_node_is(n, "Cast") || qir_node_is(n, "Constant") || !*name ||
	    kept(t, name, 0))
		return 0;
	for (size_t i = 0; i < nrej; i++)
		if (!strcmp(rejected[i], name))
			return 0;
	return 1;
}

/* The error v's storage adds: rounded against unrounded. */
static double stored(const struct tune_probe *p, size_t i)
{
	qir_value *x = tune_rounded_from(p->val[i]);
	double e = err_of(p, x);

	if (x == p->val[i] || !isfinite(e))
		return NAN;
	return isfinite(p->nmse[i]) ? p->nmse[i] - e : INFINITY;
}

/* The name the rounds remember a stored tensor by. */
static const char *pick_name(const struct pick *k)
{
	return k->n ? tune_node_name(k->n) : tune_rounded_from(k->v)->name;
}

/* The most error one unit adds, or k->by 0 when none is left. */
static void worst(const struct tune *t, const struct tune_probe *p,
		  char *const *rejected, size_t nrej, struct pick *k)
{
	qir_node *n;

	memset(k, 0, sizeof(*k));
	qir_graph_for_each_node(p->fake->graph, n) {
		double a = keepable(t, n, rejected, nrej) ?
			   added(p, n) : NAN;

		if (a > k->by) {
			k->by = a;
			k->n = n;
		}
	}
	for (size_t i = 0; i < p->n; i++) {
		double a = stored(p, i);
		const char *x = tune_rounded_from(p->val[i])->name;
		int seen = 0;

		for (size_t j = 0; j < nrej && !seen; j++)
			seen = !strcmp(rejected[j], x);
		if (!seen && a > k->by) {
			k->by = a;
			k->n = NULL;
			k->v = p->val[i];
		}
	}
}

static int meets(const struct tune *t, const struct tune_probe *p)
{
	return p->out_nmse <= t->max_error &&
	       (t->min_cosine <= 0 || p->out_cosine >= t->min_cosine);
}

/* Keeps n and the producers of its rounded inputs (the unit's first
 * entry at t->nkeep on entry). */
static int keep_unit(struct tune *t, qir_node *n, double by)
{
	char why[512];
	const char *name = tune_node_name(n);

	snprintf(why, sizeof(why), "measured: its output is %.3g further "
		 "from FLOAT (normalised MSE) than its inputs in %s",
		 by, strcmp(t->to, "float16") ? "BFLOAT16" : "FLOAT16");
	if (keep_add(t, name, why))
		return -1;
	for (size_t i = 0; i < n->ninputs; i++) {
		qir_value *v = n->inputs[i], *x;
		qir_node *pr;

		if (!v || (x = tune_rounded_from(v)) == v || !(pr = x->producer) ||
		    qir_node_is(pr, "Constant") || !*tune_node_name(pr) ||
		    kept(t, tune_node_name(pr), 0))
			continue;
		snprintf(why, sizeof(why), "measured: kept with '%s', which "
			 "amplifies the rounding of '%s' (its output %.3g "
			 "further from FLOAT than its inputs)", name, x->name,
			 by);
		if (keep_add(t, tune_node_name(pr), why))
			return -1;
	}
	return 0;
}

/* Keeps the producer of the tensor v rounds and every node reading it. */
static int keep_stored(struct tune *t, qir_value *v, double by)
{
	qir_value *x = tune_rounded_from(v);
	char why[512];
	size_t i;

	snprintf(why, sizeof(why), "measured: storing '%s' in %s adds %.3g "
		 "to its distance from FLOAT (normalised MSE); it is made "
		 "and read in FLOAT", x->name,
		 strcmp(t->to, "float16") ? "BFLOAT16" : "FLOAT16", by);
	if (x->producer && !qir_node_is(x->producer, "Constant") &&
	    *tune_node_name(x->producer) &&
	    !kept(t, tune_node_name(x->producer), 0) &&
	    keep_add(t, tune_node_name(x->producer), why))
		return -1;
	for (i = 0; i < v->nuses; i++) {
		const char *name = tune_node_name(v->uses[i].node);

		if (*name && !kept(t, name, 0) && keep_add(t, name, why))
			return -1;
	}
	return 0;
}

static void drop_from(struct tune *t, size_t from)
{
	while (t->nkeep > from) {
		t->nkeep--;
		free(t->keep[t->nkeep]);
		free(t->why[t->nkeep]);
	}
}

static int write_keep(struct tune *t)
{
	qm_outfile *o;
	qir_error err = { 0 };
	FILE *f;

	o = qm_outfile_open(t->output, &f, &err);
	if (!o) {
		qm_say(t->s, QOPT_LOG_ERROR, ME ": error: %s: %s\n",
		       t->output, err.msg);
		return -1;
	}
	fprintf(f, "qopt-autocast-keep 1\n# %s, to %s, %ld sample(s)\n",
		t->input, t->to, t->samples);
	for (size_t i = 0; i < t->nkeep; i++)
		fprintf(f, "%s\t%s\n", t->keep[i], t->why[i]);
	if (qm_outfile_commit(o, &err)) {
		qm_say(t->s, QOPT_LOG_ERROR, ME ": error: %s: %s\n",
		       t->output, err.msg);
		return -1;
	}
	return 0;
}

static void say_round(struct tune *t, long r, const struct tune_probe *p,
		      const char *what)
{
	if (!t->quiet)
		qm_say(t->s, QOPT_LOG_INFO, ME ": round %ld: outputs' "
		       "normalised MSE %.6g, cosine %.6f%s%s\n", r,
		       p->out_nmse, p->out_cosine, *what ? ": " : "", what);
}

/* A node in the unit the names a[from..) can hold no TAB or newline
 * (the keep file's separators). */
static int names_ok(struct tune *t, size_t from)
{
	for (size_t i = from; i < t->nkeep; i++)
		if (strpbrk(t->keep[i], "\t\n")) {
			qm_say(t->s, QOPT_LOG_ERROR, ME ": error: node '%s': a "
			       "name with a TAB or newline cannot be kept in "
			       "a keep file\n", t->keep[i]);
			return 0;
		}
	return 1;
}

/* The error the unit at from took away, in its first entry's reason. */
static int note_drop(struct tune *t, size_t from, const struct tune_probe *p,
		     const struct tune_probe *q)
{
	char *w = NULL;

	if (asprintf(&w, "%s; FLOAT it lowered the outputs' error from %.3g "
		     "to %.3g", t->why[from], p->out_nmse, q->out_nmse) < 0)
		return -1;
	free(t->why[from]);
	t->why[from] = w;
	return 0;
}

/* The rounds: keep the worst amplifier, measure, keep it only if the
 * outputs' error fell. 0 target met, 1 not met, -1 failed (said). */
static int rounds(struct tune *t, const char *ref)
{
	struct tune_probe p, q;
	char **rej = NULL, msg[1024];
	size_t nrej = 0;
	int rc = -1;

	if (tune_measure(t, ref, &p))
		return -1;
	say_round(t, 0, &p, t->nkeep ? "" : "nothing kept by measure");
	for (long r = 1; r <= t->rounds && !meets(t, &p); r++) {
		size_t from = t->nkeep;
		struct pick k;
		char **g;

		worst(t, &p, rej, nrej, &k);
		if (!(k.by > 0)) {
			qm_say(t->s, QOPT_LOG_INFO, ME ": no node left that "
			       "adds error\n");
			break;
		}
		if ((k.n ? keep_unit(t, k.n, k.by) : keep_stored(t, k.v, k.by)) ||
		    !names_ok(t, from) ||
		    !(g = realloc(rej, (nrej + 1) * sizeof(*g))) ||
		    !(g[nrej] = strdup(pick_name(&k))))
			goto out;
		rej = g;
		nrej++;	/* never again, kept or not */
		if (tune_measure(t, ref, &q))
			goto out;
		if (q.out_nmse < p.out_nmse * (1 - TUNE_GAIN) ||
		    (!isfinite(p.out_nmse) && isfinite(q.out_nmse))) {
			snprintf(msg, sizeof(msg), "kept %s '%s' FLOAT (%zu "
				 "node(s)): the outputs' error %.3g -> %.3g",
				 k.n ? "node" : "tensor", pick_name(&k),
				 t->nkeep - from,
				 p.out_nmse, q.out_nmse);
			if (note_drop(t, from, &p, &q))
				goto out;
			tune_probe_free(&p);
			p = q;
		} else {
			snprintf(msg, sizeof(msg), "%s '%s' FLOAT did not "
				 "lower the outputs' error (%.3g -> %.3g): not "
				 "kept", k.n ? "node" : "tensor", pick_name(&k),
				 p.out_nmse, q.out_nmse);
			drop_from(t, from);
			tune_probe_free(&q);
		}
		say_round(t, r, &p, msg);
	}
	rc = !meets(t, &p);
	if (rc)
		qm_say(t->s, QOPT_LOG_ERROR, ME ": error: the target (normalised "
		       "MSE <= %g%s) is not reached: %.3g with %zu node(s) kept "
		       "FLOAT; the keep file holds them (more --rounds, or a "
		       "looser target)\n", t->max_error, t->min_cosine > 0 ?
		       ", cosine" : "", p.out_nmse, t->nkeep);
out:
	for (size_t i = 0; i < nrej; i++)
		free(rej[i]);
	free(rej);
	tune_probe_free(&p);
	return rc;
}

static void tune_free(struct tune *t)
{
	if (t->ref)
		qir_model_free(t->ref);
	drop_from(t, 0);
	free(t->keep);
	free(t->why);
	free(t->opts);
}

/* The FLOAT model runs in the first measurement only (its tensors are
 * cached): its session count is 1 however many rounds ran. */
static void say_cost(struct tune *t)
{
	qm_say(t->s, QOPT_LOG_INFO, ME ": %zu node(s) kept FLOAT; cost: %ld "
	       "ONNX Runtime session(s) over %ld sample(s): %ld calibration, "
	       "%ld FLOAT reference (%ld run(s)), %ld fake model (%ld "
	       "run(s)); %ld qopt run(s), %.1f s\n", t->nkeep,
	       t->calib_runs + t->ref_sessions + t->fake_sessions, t->samples,
	       t->calib_runs, t->ref_sessions, t->ref_runs, t->fake_sessions,
	       t->fake_runs, t->qopt_runs, qm_now() - t->t0);
}

static int run(struct tune *t)
{
	char ref[4200];
	int rc;

	if (tune_ref(t, ref, sizeof(ref)))
		return QOPT_EXIT_FAIL;
	rc = rounds(t, ref);
	if (rc >= 0 && write_keep(t))
		rc = -1;
	if (rc >= 0 && !t->quiet) {
		say_cost(t);
		for (size_t i = 0; i < t->nkeep; i++)
			qm_say(t->s, QOPT_LOG_INFO, ME ": kept '%s': %s\n",
			       t->keep[i], t->why[i]);
	}
	return rc ? QOPT_EXIT_FAIL : QOPT_EXIT_OK;
}

int cmd_autocast_tune(qm_session *s, int argc, char **argv)
{
	struct tune t = { .s = s, .to = "float16", .max_error = 1e-4,
			  .rounds = 8 };
	const char *tmp = getenv("TMPDIR");
	int rc;

	t.t0 = qm_now();
	rc = parse(&t, argc, argv);
	if (rc) {
		tune_free(&t);
		return rc < 0 ? QOPT_EXIT_OK : rc;
	}
	snprintf(t.tmp, sizeof(t.tmp), "%s/qopt-autocast-tune-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(t.tmp)) {
		qm_say(s, QOPT_LOG_ERROR, ME ": error: cannot make a temporary "
		       "folder: %s\n", strerror(errno));
		tune_free(&t);
		return QOPT_EXIT_FAIL;
	}
	qm_guard_folder(t.tmp);
	rc = run(&t);
	qm_remove_folder(t.tmp);
	qm_guard_folder(NULL);
	tune_free(&t);
	return rc;
}

/*
 * core/cli/tune-run.c - the children of `qopt autocast-tune`: qopt
 * itself runs autocast in fake mode (the same code and messages as
 * `qopt -p` would, calibration included), and one node process per
 * measurement (tools/qopt-autocast-tune.js) runs the fake model over
 * the samples with every FLOAT tensor a graph output and returns each
 * tensor's error against FLOAT (tune.h). The FLOAT model is the same
 * every round: the first process runs it and caches its tensors in the
 * private temporary folder (ref-N.bin, one per sample), the later ones
 * read them back, so it runs in ONNX Runtime once per invocation. Each
 * process is bounded (--ort-timeout, QOPT_ORT_TIMEOUT, else sized for
 * the models and samples).
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "cli/tune.h"
#include "cli/ort-child.h"
#include "cli/spawn.h"

#define ME "qopt autocast-tune"
/* tools/qopt-autocast-tune.js: the error is said */
#define SCRIPT_SAID 3

static int say_err(struct tune *t, const char *what, const char *path)
{
	qm_say(t->s, QOPT_LOG_ERROR, ME ": error: %s %s: %s\n", what, path,
	       strerror(errno));
	return -1;
}

const char *tune_node_name(const qir_node *n)
{
	if (n->name[0])
		return n->name;
	return n->noutputs && n->outputs[0] ? n->outputs[0]->name : "";
}

qir_value *tune_rounded_from(qir_value *v)
{
	qir_node *back = v->producer, *down;

	if (!back || !qir_node_is(back, "Cast") || back->ninputs != 1 ||
	    !back->inputs[0] || qir_node_attr_dtype(back, "to") != QIR_FLOAT)
		return v;
	down = back->inputs[0]->producer;
	if (!down || !qir_node_is(down, "Cast") || down->ninputs != 1 ||
	    !down->inputs[0] ||
	    (qir_node_attr_dtype(down, "to") != QIR_FLOAT16 &&
	     qir_node_attr_dtype(down, "to") != QIR_BFLOAT16))
		return v;
	return down->inputs[0];
}

static int float_made(const qir_node *n, const qir_value *v)
{
	return v && v->dtype == QIR_FLOAT && !qir_node_is(n, "Constant") &&
	       !qir_node_is(n, "ConstantOfShape");
}

static int save(struct tune *t, qir_model *m, const char *path)
{
	qir_save_opts so = QIR_SAVE_OPTS_INIT;
	qir_error err = { 0 };

	so.link_external = 1;
	if (qir_model_save(m, path, &so, &err) < 0) {
		qm_say(t->s, QOPT_LOG_ERROR, ME ": error: cannot write %s: "
		       "%s\n", path, err.msg);
		return -1;
	}
	return 0;
}

/* The log's lines, said: the child's own errors. */
static void relay(struct tune *t, const char *log)
{
	char line[2048];
	FILE *f = fopen(log, "r");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "error") || t->verbose)
			qm_say(t->s, QOPT_LOG_ERROR, "%s", line);
	if (f)
		fclose(f);
}

/* Autocast's activation ranges over the samples, once: every fake
 * model takes them (its magnitude rules, data_max). */
static int calibrate(struct tune *t)
{
	char self[4096], out[4200], log[4200], pass[64];
	const char *argv[12];
	int rc;

	snprintf(out, sizeof(out), "%s/ranges.calib", t->tmp);
	snprintf(log, sizeof(log), "%s/calibrate.log", t->tmp);
	snprintf(pass, sizeof(pass), "autocast:to=%s", t->to);
	if (cli_self_path(self, sizeof(self)) < 0)
		return say_err(t, "cannot find", "/proc/self/exe");
	argv[0] = self;
	argv[1] = "calibrate";
	argv[2] = t->input;
	argv[3] = "--data";
	argv[4] = t->data;
	argv[5] = "--passes";
	argv[6] = pass;
	argv[7] = "-o";
	argv[8] = out;
	argv[9] = NULL;
	rc = cli_spawn(t->s, ME, argv, log, t->tmp, 0);
	t->calib_runs++;
	if (rc) {
		relay(t, log);
		qm_say(t->s, QOPT_LOG_ERROR, ME ": error: the activation "
		       "ranges of %s over %s could not be measured (exit "
		       "status %d)\n", t->input, t->data, rc);
		return -1;
	}
	return 0;
}

int tune_ref(struct tune *t, char *path, size_t n)
{
	qir_model *m;
	qir_node *nd;
	int rc = 0;

	if (!(m = cli_load(t->s, t->input)))
		return -1;
	if (calibrate(t)) {
		qir_model_free(m);
		return -1;
	}
	snprintf(path, n, "%s/ref.onnx", t->tmp);
	qir_graph_for_each_node(m->graph, nd)
		for (size_t i = 0; i < nd->noutputs && !rc; i++)
			if (float_made(nd, nd->outputs[i]) &&
			    !nd->outputs[i]->is_output &&
			    qir_graph_add_output(m->graph, nd->outputs[i]))
				rc = -1;
	if (rc)
		qm_say(t->s, QOPT_LOG_ERROR, ME ": error: out of memory\n");
	else
		rc = save(t, m, path);
	qir_model_free(m);
	/* as saved: the fake tensors are matched to what the file holds */
	if (!rc && !(t->ref = cli_load(t->s, path)))
		rc = -1;
	return rc;
}

/* The pipeline of the fake model: [autocast] in fake mode with the
 * keep list so far and the user's --option lines. */
static int write_pipeline(struct tune *t, const char *ini, const char *keep)
{
	FILE *f = fopen(ini, "w");
	size_t i;

	if (!f)
		return say_err(t, "cannot write", ini);
	fprintf(f, "[autocast]\nmode = fake\nto = %s\nkeep_file = %s\n"
		"calibration = %s/ranges.calib\n", t->to, keep, t->tmp);
	for (i = 0; i < t->nopts; i++) {
		const char *eq = strchr(t->opts[i], '=');

		fprintf(f, "%.*s = %s\n", (int)(eq - t->opts[i]), t->opts[i],
			eq + 1);
	}
	if (fclose(f))
		return say_err(t, "cannot write", ini);
	f = fopen(keep, "w");
	if (!f)
		return say_err(t, "cannot write", keep);
	fprintf(f, "qopt-autocast-keep 1\n");
	for (i = 0; i < t->nkeep; i++)
		fprintf(f, "%s\t%s\n", t->keep[i], t->why[i]);
	if (fclose(f))
		return say_err(t, "cannot write", keep);
	return 0;
}

static int make_fake(struct tune *t, const char *fake)
{
	char self[4096], ini[4200], keep[4200], log[4200];
	const char *argv[12];
	size_t k = 0;
	int rc;

	snprintf(ini, sizeof(ini), "%s/autocast.ini", t->tmp);
	snprintf(keep, sizeof(keep), "%s/keep.txt", t->tmp);
	snprintf(log, sizeof(log), "%s/qopt.log", t->tmp);
	if (cli_self_path(self, sizeof(self)) < 0)
		return say_err(t, "cannot find", "/proc/self/exe");
	if (write_pipeline(t, ini, keep))
		return -1;
	argv[k++] = self;
	argv[k++] = "-p";
	argv[k++] = ini;
	argv[k++] = "--no-summary";
	argv[k++] = t->input;
	argv[k++] = "-o";
	argv[k++] = fake;
	argv[k] = NULL;
	rc = cli_spawn(t->s, ME, argv, log, t->tmp, 0);
	t->qopt_runs++;
	if (rc) {
		relay(t, log);
		qm_say(t->s, QOPT_LOG_ERROR, ME ": error: autocast's fake "
		       "model of %s could not be made (exit status %d)\n",
		       t->input, rc);
		return -1;
	}
	return 0;
}

/* The fake model's FLOAT tensors that stand for one of the FLOAT
 * model's, exposed as graph outputs; their list in p. */
static int expose(qir_model *ref, struct tune_probe *p)
{
	qir_node *nd;
	size_t cap = 0;

	qir_graph_for_each_node(p->fake->graph, nd)
		for (size_t i = 0; i < nd->noutputs; i++) {
			qir_value *v = nd->outputs[i], *r, **g;

			if (!float_made(nd, v))
				continue;
			r = qir_graph_find_value(ref->graph,
						 tune_rounded_from(v)->name);
			if (!r || r->dtype != QIR_FLOAT)
				continue;
			if (p->n == cap) {
				cap = cap ? 2 * cap : 64;
				g = realloc(p->val, cap * sizeof(*g));
				if (!g)
					return -1;
				p->val = g;
			}
			p->val[p->n++] = v;
			if (!v->is_output &&
			    qir_graph_add_output(p->fake->graph, v))
				return -1;
		}
	return 0;
}

static int write_job(struct tune *t, const char *job, const char *ref,
		     const char *probe, const char *result,
		     const struct tune_probe *p, char *const *outs, size_t nout)
{
	FILE *f = fopen(job, "w");
	char cache[4200];
	size_t i;

	snprintf(cache, sizeof(cache), "%s/ref", t->tmp);
	if (!f)
		return say_err(t, "cannot write", job);
	fprintf(f, "{\"model\": ");
	qm_json_str(f, t->input);
	fprintf(f, ",\n \"ref\": ");
	qm_json_str(f, ref);
	fprintf(f, ",\n \"fake\": ");
	qm_json_str(f, probe);
	fprintf(f, ",\n \"data\": ");
	qm_json_str(f, t->data);
	fprintf(f, ",\n \"result\": ");
	qm_json_str(f, result);
	fprintf(f, ",\n \"cache\": ");
	qm_json_str(f, cache);
	fprintf(f, ",\n \"reference\": \"%s\"", t->ref_cached ? "cached" : "run");
	fprintf(f, ",\n \"verbose\": %d,\n \"outputs\": [", t->verbose > 0);
	for (i = 0; i < nout; i++) {
		fprintf(f, "%s", i ? ", " : "");
		qm_json_str(f, outs[i]);
	}
	fprintf(f, "],\n \"pairs\": [");
	for (i = 0; i < p->n; i++) {
		fprintf(f, "%s\n  [", i ? "," : "");
		qm_json_str(f, p->val[i]->name);
		fprintf(f, ", ");
		qm_json_str(f, tune_rounded_from(p->val[i])->name);
		fputc(']', f);
	}
	fprintf(f, "]}\n");
	if (fclose(f))
		return say_err(t, "cannot write", job);
	return 0;
}

/* What the script ran (its FLOAT model's sessions and runs, the fake
 * model's), "NMSE" per pair, then "NMSE COSINE" of the outputs. */
static int read_result(struct tune *t, const char *result,
		       struct tune_probe *p)
{
	FILE *f = fopen(result, "r");
	long rs, rr, fs, fr;
	char word[64];
	size_t i;
	int rc = -1;

	p->nmse = calloc(p->n ? p->n : 1, sizeof(*p->nmse));
	if (!f || !p->nmse)
		goto out;
	if (fscanf(f, "qopt-autocast-tune-result 2 samples %ld reference "
		   "%ld %ld fake %ld %ld", &t->samples, &rs, &rr, &fs,
		   &fr) != 5)
		goto out;
	t->ref_sessions += rs;
	t->ref_runs += rr;
	t->fake_sessions += fs;
	t->fake_runs += fr;
	for (i = 0; i < p->n; i++) {
		if (fscanf(f, "%63s", word) != 1)
			goto out;
		p->nmse[i] = strtod(word, NULL);	/* "inf", "nan" too */
	}
	if (fscanf(f, "%63s", word) != 1)
		goto out;
	p->out_nmse = strtod(word, NULL);
	if (fscanf(f, "%63s", word) != 1)
		goto out;
	p->out_cosine = strtod(word, NULL);
	rc = 0;
out:
	if (f)
		fclose(f);
	if (rc)
		qm_say(t->s, QOPT_LOG_ERROR, ME ": error: the ONNX Runtime "
		       "script left no result that can be read\n");
	return rc;
}

static int run_script(struct tune *t, const char *job, const char *ref,
		      const char *probe)
{
	const char *node = getenv("QOPT_NODE"), *argv[4];
	char *script = cli_launcher_path("QOPT_AUTOCAST_TUNE_ORT", "qopt-autocast-tune-ort"), why[256];
	long timeout;
	int rc;

	if (!node || !*node)
		node = strcmp(QOPT_CONFIGURED_NODE, "no") ?
		       QOPT_CONFIGURED_NODE : "node";
	timeout = calib_ort_timeout(-1, calib_model_bytes(ref) +
				  calib_model_bytes(probe),
				  calib_count_samples(t->data, 0), why,
				  sizeof(why));
	if (!script || timeout < 0) {
		qm_say(t->s, QOPT_LOG_ERROR, ME ": error: %s\n",
		       script ? why : "out of memory");
		free(script);
		return -1;
	}
	argv[0] = node;
	argv[1] = script;
	argv[2] = job;
	argv[3] = NULL;
	rc = cli_spawn(t->s, ME, argv, NULL, t->tmp, timeout);
	if (rc == -2)
		qm_say(t->s, QOPT_LOG_ERROR, ME ": error: ONNX Runtime did "
		       "not finish within %ld s (--ort-timeout, "
		       "QOPT_ORT_TIMEOUT): %s %s ended (SIGTERM, then "
		       "SIGKILL)\n", timeout, node, script);
	else if (rc && rc != SCRIPT_SAID)
		qm_say(t->s, QOPT_LOG_ERROR, ME ": error: %s %s failed (exit "
		       "status %d); install node and ONNX Runtime with "
		       "./tools/install-deps.sh, or set QOPT_NODE\n", node,
		       script, rc);
	free(script);
	return rc ? -1 : 0;
}

/* The fake model's graph outputs (before the probe adds its own). */
static char **output_names(qir_graph *g, size_t *n)
{
	char **v = calloc(g->noutputs ? g->noutputs : 1, sizeof(*v));

	*n = 0;
	for (size_t i = 0; v && i < g->noutputs; i++)
		if (g->outputs[i]->dtype == QIR_FLOAT)
			v[(*n)++] = g->outputs[i]->name;
	return v;
}

int tune_measure(struct tune *t, const char *ref, struct tune_probe *p)
{
	char fake[4200], probe[4200], job[4200], result[4200];
	char **outs = NULL;
	size_t nout = 0;
	int rc = -1;

	memset(p, 0, sizeof(*p));
	snprintf(fake, sizeof(fake), "%s/fake.onnx", t->tmp);
	snprintf(probe, sizeof(probe), "%s/probe.onnx", t->tmp);
	snprintf(job, sizeof(job), "%s/job.json", t->tmp);
	snprintf(result, sizeof(result), "%s/result.txt", t->tmp);
	if (make_fake(t, fake) || !(p->fake = cli_load(t->s, fake)))
		goto out;
	outs = output_names(p->fake->graph, &nout);
	if (!outs || expose(t->ref, p)) {
		qm_say(t->s, QOPT_LOG_ERROR, ME ": error: out of memory\n");
		goto out;
	}
	if (save(t, p->fake, probe) ||
	    write_job(t, job, ref, probe, result, p, outs, nout) ||
	    run_script(t, job, ref, probe) || read_result(t, result, p))
		goto out;
	t->ref_cached = 1;
	rc = 0;
out:
	free(outs);
	unlink(result);
	if (rc)
		tune_probe_free(p);
	return rc;
}

void tune_probe_free(struct tune_probe *p)
{
	if (p->fake)
		qir_model_free(p->fake);
	free(p->val);
	free(p->nmse);
	memset(p, 0, sizeof(*p));
}

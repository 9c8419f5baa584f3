/*
 * core/plan/plan-candidates.c - each format of --formats on each layer
 * alone: the format's pass with include = the layer (and the others
 * excluded), --strict, so a pass that cannot take the layer says why
 * and the format falls back to the next one; the models measured in one
 * job (plan-measure.c). plan.h.
 */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "plan/plan.h"

void plan_progress(struct plan *p, const char *what, size_t done,
		     size_t total)
{
	char bar[160];
	int w = 30, k = (int)(w * done / (total ? total : 1));

	if (p->quiet || !isatty(2))
		return;
	snprintf(bar, sizeof(bar), "\rqopt plan: %s [%.*s%*s] %zu/%zu%s",
		 what, k, "##############################", w - k, "", done,
		 total, done == total ? "\n" : "");
	qm_say(p->s, QM_LOG_PROGRESS, "%s", bar);
}

/* ':exclude="A";"B"...' for every candidate layer but l (malloc'd; the
 * caller frees it), or NULL when out of memory. The other layers are
 * left out on purpose: without them named, a pass's coverage check
 * takes the weights of a repeated structure (torch's onnx::MatMul_*)
 * that the include misses for an expert forgotten by mistake, which
 * --strict turns into an error. */
static char *others_excluded(const struct plan *p, const struct plan_layer *l)
{
	size_t n = 1, k = 0, i;
	char *s;

	for (i = 0; i < p->nlayers; i++)
		n += strlen(p->layers[i].key) + 3;
	s = malloc(n + sizeof(":exclude="));
	if (!s)
		return NULL;
	for (i = 0; i < p->nlayers; i++) {
		if (&p->layers[i] == l)
			continue;
		k += (size_t)sprintf(s + k, "%s\"%s\"", k ? ";" : ":exclude=",
				     p->layers[i].key);
	}
	s[k] = 0;
	return s;
}

/* The pass spec of format k on layer l alone (malloc'd), or NULL. */
static char *candidate_spec(const struct plan *p, const struct plan_layer *l,
			    int k, const char *calib)
{
	const struct plan_format *pf = &plan_formats[k];
	const struct plan_format *nv = &plan_formats[PF_NVFP4];
	char *ex = others_excluded(p, l), *s;
	size_t n;

	if (!ex)
		return NULL;
	n = 2 * strlen(ex) + 2 * strlen(l->key) + strlen(calib) + 1024;
	s = malloc(n);
	if (s && (k == PF_FP8 || k == PF_INT8))
		snprintf(s, n, "%s:calibration=\"%s\":include=\"%s\"%s",
			 pf->pass, calib, l->key, ex);
	else if (s && k == PF_W4A4)
		snprintf(s, n, "%s:%s:calibration=\"%s\":include=\"%s\"%s",
			 pf->pass, pf->options, calib, l->key, ex);
	else if (s && k == PF_HNVFP4)
		snprintf(s, n, "%s:%s:include=\"%s\"%s,%s:%s:include=\"%s\"%s",
			 pf->pass, pf->options, l->key, ex, nv->pass,
			 nv->options, l->key, ex);
	else if (s)
		snprintf(s, n, "%s:%s:include=\"%s\"%s", pf->pass,
			 pf->options, l->key, ex);
	free(ex);
	return s;
}

static int w4a4_held(struct plan *p, const struct plan_log *log,
		     char *why, size_t n)
{
	long w = plan_stat(log, "linear inputs W4A4");

	if (w < 0) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: the candidate's "
		       "run left no counters to read\n");
		return -1;
	}
	if (w > 0)
		return 1;
	if (plan_log_line(log, "activation of node", why, n) < 0)
		snprintf(why, n, "nvfp4 left the activation in float (no "
			 "reason given)");
	return 0;
}

/* The pass of format k on layer l alone, into file, as `qopt --strict
 * -q --passes SPEC INPUT -o FILE` would run it; w4a4 not quiet (the
 * reason an activation stays float is an info line) and with the
 * counters, which say whether it did. */
static int candidate(struct plan *p, struct plan_layer *l, int k,
		     const char *calib, const char *file)
{
	char *passes = candidate_spec(p, l, k, calib), why[1024];
	struct plan_log log = { 0 };
	int rc;

	if (!passes)
		return -1;
	rc = plan_step_passes(p, passes, p->input, file, PLAN_STEP_STRICT |
			      PLAN_STEP_LINK |
			      (k == PF_W4A4 ? PLAN_STEP_STATS : PLAN_STEP_QUIET),
			      &log);
	free(passes);
	if (!rc && k == PF_W4A4) {
		rc = w4a4_held(p, &log, why, sizeof(why));
		rc = rc < 0 ? -1 : !rc;
	} else if (rc > 0) {
		plan_log_reason(&log, why, sizeof(why));
	}
	plan_log_free(&log);
	if (rc < 0)
		return -1;
	if (rc) {
		l->why[k] = strdup(why);
		return l->why[k] ? 0 : -1;
	}
	l->holds[k] = 1;
	return 0;
}

/* What a format cannot take, known before running it. */
static const char *known_refusal(const struct plan_layer *l, int k)
{
	int conv = !strncmp(l->op, "Conv", 4);

	if (k == PF_NVFP4 && conv)
		return "TensorRT has no NVFP4 convolution (nvfp4-weights "
		       "target = tensorrt)";
	if (k == PF_W4A4 && conv)
		return "TensorRT has no NVFP4 convolution (nvfp4 target = "
		       "tensorrt; its activations take MatMul and Gemm only)";
	if (k == PF_MXFP8 && conv)
		return "mxfp8 takes MatMul and Gemm only";
	if (k == PF_HNVFP4 && conv)
		return "hadamard-rotate takes MatMul and Gemm only";
	return NULL;
}

int plan_make_candidates(struct plan *p, const char *calib,
			   char ***files, size_t *nfiles)
{
	size_t i, j, done = 0, total = 0;

	for (j = 0; j < p->nfmt; j++)
		total += p->fmt[j] != PF_NONE;
	total *= p->nlayers;
	*files = calloc(total ? total : 1, sizeof(**files));
	if (!*files)
		return -1;
	for (i = 0; i < p->nlayers; i++)
		for (j = 0; j < p->nfmt; j++) {
			struct plan_layer *l = &p->layers[i];
			int k = p->fmt[j];
			char file[4200];
			const char *no;

			if (k == PF_NONE)
				continue;
			plan_progress(p, "quantizing", ++done, total);
			if ((no = known_refusal(l, k))) {
				l->why[k] = strdup(no);
				if (!l->why[k])
					return -1;
				continue;
			}
			snprintf(file, sizeof(file), "%s/c%zu.onnx", p->tmp,
				 *nfiles);
			if (candidate(p, l, k, calib, file) < 0)
				return -1;
			if (!l->holds[k])
				continue;
			l->cand[k] = (int)*nfiles;
			(*files)[(*nfiles)++] = strdup(file);
			if (!(*files)[*nfiles - 1])
				return -1;
		}
	return 0;
}

int plan_measure_candidates(struct plan *p, char **files, size_t n)
{
	double *v = calloc(3 * (n ? n : 1), sizeof(*v));
	size_t i;
	int k;

	if (!v)
		return -1;
	if (plan_measure(p, (const char *const *)files, n, v, v + n,
			 v + 2 * n) < 0) {
		free(v);
		return -1;
	}
	for (i = 0; i < p->nlayers; i++)
		for (k = 0; k < PF_COUNT; k++) {
			struct plan_layer *l = &p->layers[i];
			int c = l->cand[k];

			if (c < 0)
				continue;
			l->score[k] = v[c];
			l->cosine[k] = v[n + c];
			l->top1[k] = v[2 * n + c];
			/* a model that computes NaN is no choice, whatever
			 * the loss allowed: the format falls back */
			if (isfinite(v[c]))
				continue;
			l->holds[k] = 0;
			l->cand[k] = -1;
			l->why[k] = strdup("its model's outputs held NaN or Inf "
					   "in ONNX Runtime");
			if (!l->why[k]) {
				free(v);
				return -1;
			}
		}
	free(v);
	return 0;
}

/* The links qir_save_opts.link_external makes beside a candidate's data
 * file, as qopt/ir.h names them: "<data>.in", "<data>.in2", ... one per
 * data file of the input. */
static void drop_links(const char *data)
{
	size_t n = strlen(data) + 32;
	char *name = malloc(n);

	for (size_t k = 1; name; k++) {
		if (k == 1)
			snprintf(name, n, "%s.in", data);
		else
			snprintf(name, n, "%s.in%zu", data, k);
		if (unlink(name) < 0)
			break;
	}
	free(name);
}

void plan_drop_candidates(char **files, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		/* the candidates' sessions save with the default data name */
		char *data = qir_model_data_path(files[i], NULL);

		if (data) {
			drop_links(data);
			unlink(data);
		}
		free(data);
		unlink(files[i]);
		free(files[i]);
	}
	free(files);
}

/*
 * core/plan/plan-write.c - what `qopt plan` writes: the INI pipeline (a
 * section per pass, fp8 first and w4a4's nvfp4 second since each one's
 * calibration file is checked against the hash of the model it
 * receives, each with the include list of the layers it takes and every
 * layer's scores as comments), the JSON report, and copies through
 * qm_outfile (plan.h).
 */
#include "config.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plan/plan.h"

/* Sections in pipeline order: fp8's calibration file is checked
 * against the input model's hash, so fp8 sees the model first; w4a4's
 * (nvfp4, activations = yes) against the model fp8 makes, calibrated
 * on it (cmd-plan.c), so it comes second: a first step in ONNX
 * Runtime's form, whose output can be calibrated, and the one whose
 * mode = real for TensorRT invalidates no later file. The others read
 * no calibration and take disjoint include lists after them, but for
 * hadamard+nvfp4, whose layers both hadamard-rotate (its activation
 * rotated online, fold = no, so no other layer changes) and then
 * nvfp4-weights take. */
struct plan_section {
	int fmt;		/* the format whose pass and options it has */
	unsigned picks;		/* the formats whose layers it includes */
};
static const struct plan_section section_order[] = {
	{ PF_FP8, 1u << PF_FP8 },
	{ PF_INT8, 1u << PF_INT8 },
	{ PF_W4A4, 1u << PF_W4A4 },
	{ PF_HNVFP4, 1u << PF_HNVFP4 },
	{ PF_NVFP4, 1u << PF_NVFP4 | 1u << PF_HNVFP4 },
	{ PF_MXFP8, 1u << PF_MXFP8 },
};

static void score_text(const struct plan_layer *l, int f, char *buf,
		       size_t n)
{
	if (f == PF_NONE)
		snprintf(buf, n, "0");
	else if (!l->holds[f])
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.3g", l->score[f]);
}

/* text as comment lines of at most COMMENT_MAX bytes (the INI reader
 * takes lines of up to 198): the first after "#   ", the others after
 * "#       ", cut at a blank where there is one, never inside a UTF-8
 * sequence. */
#define COMMENT_MAX 160

static void comment(FILE *f, const char *text)
{
	const char *lead = "#   ";

	while (*text) {
		size_t room = COMMENT_MAX - strlen(lead), n = strlen(text), k;

		if (n > room) {
			for (k = room; k > room / 2 && text[k] != ' '; k--)
				;
			if (text[k] != ' ')
				for (k = room; k > 1 &&
				     ((unsigned char)text[k] & 0xc0) == 0x80; k--)
					;
			n = k;
		}
		fprintf(f, "%s%.*s\n", lead, (int)n, text);
		text += n;
		while (*text == ' ')
			text++;
		lead = "#       ";
	}
}

/* "# NODE (Op, N params): fp8 1.2e-04, nvfp4 -, none 0 [fallback]" */
static void layer_comment(FILE *f, const struct plan *p,
			  const struct plan_layer *l)
{
	char t[64], *text = NULL;
	size_t i, n = 0;
	FILE *m = open_memstream(&text, &n);

	if (!m) {
		fputs("#   (out of memory)\n", f);
		return;
	}
	fprintf(m, "%s (%s, %lld params, %s):", l->node, l->op,
		(long long)l->params, plan_formats[l->pick].name);
	for (i = 0; i < p->nfmt; i++) {
		score_text(l, p->fmt[i], t, sizeof(t));
		fprintf(m, "%s %s %s", i ? "," : "", plan_formats[p->fmt[i]].name,
			t);
	}
	if (l->fallback)
		fprintf(m, " [%s]", l->fallback);
	if (fclose(m) == 0)
		comment(f, text);
	else
		fputs("#   (out of memory)\n", f);
	free(text);
}

static void section(FILE *f, const struct plan *p,
		    const struct plan_section *sec)
{
	const struct plan_format *pf = &plan_formats[sec->fmt];
	const char *o;
	size_t i, k = 0;

#define TAKES(l) (sec->picks >> (l)->pick & 1u)
	for (i = 0; i < p->nlayers; i++)
		k += TAKES(&p->layers[i]);
	if (!k)
		return;
	fprintf(f, "\n# %s%s: %zu layer%s; the score of each format per "
		"layer:\n", pf->pass, sec->fmt == PF_W4A4 ? " (w4a4: NVFP4 "
		"weights and activations)" : "", k, k == 1 ? "" : "s");
	for (i = 0; i < p->nlayers; i++)
		if (TAKES(&p->layers[i]))
			layer_comment(f, p, &p->layers[i]);
	if ((sec->fmt == PF_W4A4 && (*p->calib_name || *p->int8_calib_name)) ||
	    (sec->fmt == PF_INT8 && *p->calib_name))
		fprintf(f, "# its calibration file is for the model the sections "
			"above make (that model's hash),\n# measured on it: "
			"after an edit above, calibrate again (or drop the\n# "
			"calibration lines and give qopt -p --calibration-data "
			"DIR)\n");
	fprintf(f, "[%s]\n", pf->pass);
	if (sec->fmt == PF_FP8)
		fprintf(f, "calibration = %s\n", p->calib_name);
	if (sec->fmt == PF_W4A4)
		fprintf(f, "calibration = %s\n", p->w4a4_calib_name);
	if (sec->fmt == PF_INT8)
		fprintf(f, "calibration = %s\n", p->int8_calib_name);
	for (o = pf->options; o && *o;) {	/* "k=v:k=v" -> lines */
		size_t n = strcspn(o, ":"), eq = strcspn(o, "=");

		fprintf(f, "%.*s = %.*s\n", (int)eq, o, (int)(n - eq - 1),
			o + eq + 1);
		o += n + (o[n] == ':');
	}
	for (i = 0, k = 0; i < p->nlayers; i++)
		if (TAKES(&p->layers[i]))
			fprintf(f, k++ ? "    %s\n" : "include = %s\n",
				p->layers[i].key);
	/* the other layers are left out on purpose: said, so that the
	 * pass's coverage check (--strict) does not take a repeated
	 * structure the include covers in part for a forgotten member */
	for (i = 0, k = 0; i < p->nlayers; i++)
		if (!TAKES(&p->layers[i]))
			fprintf(f, k++ ? "    %s\n" : "exclude = %s\n",
				p->layers[i].key);
#undef TAKES
}

static int ini_text(const struct plan *p, FILE *f)
{
	char model[1024], data[1024], head[2200];
	size_t i, k = 0;

	/* paths as every message shows them (a newline must not end the
	 * comment), wrapped: a long path must not make a line the INI
	 * reader refuses */
	qir_escape_text(model, sizeof(model), p->input);
	qir_escape_text(data, sizeof(data), p->data);
	snprintf(head, sizeof(head), "qopt plan: a format per layer of %s, "
		 "chosen by measurement in ONNX Runtime over %ld sample%s of "
		 "%s.", model, p->samples, p->samples == 1 ? "" : "s", data);
	comment(f, head);
	fprintf(f, "#   qopt -p THIS.ini MODEL.onnx -o OUT.onnx\n");
	fprintf(f, "# formats:");
	for (i = 0; i < p->nfmt; i++)
		fprintf(f, "%s%s", i ? "," : " ", plan_formats[p->fmt[i]].name);
	if (p->budget >= 0)
		fprintf(f, "; budget: at most %.4g effective bits\n", p->budget);
	else
		fprintf(f, "; budget: summed score at most %.4g\n", p->max_loss);
	fprintf(f, "# %zu layers, %lld weights: %.4f effective bits; summed "
		"score %.4g predicted, %.4g measured (the plan's model)\n",
		p->nlayers, (long long)p->total_params, p->bits, p->predicted,
		p->measured);
	if (p->float_params)
		fprintf(f, "# %lld of those weights are in layers left out of "
			"the plan (float: 16 bits)\n",
			(long long)p->float_params);
	fprintf(f, "# A layer's score: the mean squared error of the model's "
		"outputs with that\n# layer alone quantized, over the float "
		"output's variance (0: exact; -: the\n# format cannot hold it)."
		" nvfp4 and mxfp8 are in their fake forms (mode = fake),\n# "
		"which ONNX Runtime runs; mode = real gives TensorRT's.\n");
	if (*p->w4a4_calib_name)
		fprintf(f, "# w4a4 (nvfp4, activations = yes) counts as nvfp4's "
			"4.5 bits per weight.\n");
	/* before_fmt: the steps whose output a later file is measured on */
	for (i = 0; i < sizeof(section_order) / sizeof(*section_order) &&
	     section_order[i].fmt != p->before_fmt; i++)
		section(f, p, &section_order[i]);
	for (i = 0; i < p->nlayers && p->before_fmt == PF_NONE; i++)
		if (p->layers[i].pick == PF_NONE) {
			if (!k++)
				fprintf(f, "\n# kept in float (none%s%s):\n",
					p->autocast ? ": " : "",
					p->autocast ? p->autocast : "");
			layer_comment(f, p, &p->layers[i]);
		}
	if (p->before_fmt == PF_NONE && p->max_float >= 0)
		fprintf(f, "\n# --max-float-layers %ld: %zu layer%s float, %zu "
			"taken off none by the bound\n", p->max_float, k,
			k == 1 ? "" : "s", p->forced);
	if (p->before_fmt == PF_NONE && p->autocast)
		fprintf(f, "\n# TensorRT 11 builds strongly typed networks: "
			"what the sections above leave\n# float computes in "
			"%s (autocast, docs/autocast.md); cast-fold then types\n"
			"# the Q/DQ scales in it\n[autocast]\nto = %s\n\n"
			"[cast-fold]\n", p->autocast, p->autocast);
	return ferror(f) ? -1 : 0;
}

typedef int text_fn(const struct plan *p, FILE *f, const void *arg);

/* Writes text(p, f, arg) to path atomically; 0 or -1 (said). */
static int write_atomic(const struct plan *p, const char *path,
			text_fn *text, const void *arg)
{
	qir_error err = { 0 };
	FILE *f = NULL;
	qm_outfile *o = qm_outfile_open(path, &f, &err);

	if (!o) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: %s: error: %s\n", path,
		       err.msg);
		return -1;
	}
	if (text(p, f, arg) < 0) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: %s: error: cannot "
		       "write it\n", path);
		qm_outfile_abort(o);
		return -1;
	}
	if (qm_outfile_commit(o, &err) < 0) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: %s: error: %s\n", path,
		       err.msg);
		return -1;
	}
	return 0;
}

static int ini_fn(const struct plan *p, FILE *f, const void *arg)
{
	(void)arg;
	return ini_text(p, f);
}

int plan_write_ini(const struct plan *p, const char *path)
{
	return write_atomic(p, path, ini_fn, NULL);
}

/* What text(p, f) writes, in memory (malloc'd), or NULL. */
static char *in_memory(const struct plan *p, int (*text)(const struct plan *,
							  FILE *))
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	int rc;

	if (!f)
		return NULL;
	rc = text(p, f);
	if (fclose(f) || rc < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *plan_ini_text(const struct plan *p)
{
	return in_memory(p, ini_text);
}

static void json_num(FILE *f, double x)
{
	char buf[64];

	if (!isfinite(x)) {
		fputs("null", f);
		return;
	}
	qm_fmt_double(buf, sizeof(buf), x);
	fputs(buf, f);
}

static void json_layer(FILE *f, const struct plan *p,
		       const struct plan_layer *l)
{
	size_t i;

	fprintf(f, "    {\"node\": ");
	qm_json_str(f, l->node);
	fprintf(f, ", \"op\": ");
	qm_json_str(f, l->op);
	fprintf(f, ", \"weight\": ");
	qm_json_str(f, l->weight);
	fprintf(f, ", \"params\": %lld,\n     \"formats\": {",
		(long long)l->params);
	for (i = 0; i < p->nfmt; i++) {
		int k = p->fmt[i];

		fprintf(f, "%s\"%s\": ", i ? ", " : "", plan_formats[k].name);
		if (k == PF_NONE) {
			fputs("{\"score\": 0, \"cosine\": 1, \"top1\": 1}", f);
		} else if (!l->holds[k]) {
			fputs("{\"holds\": false, \"why\": ", f);
			qm_json_str(f, l->why[k] ? l->why[k] : "");
			fputc('}', f);
		} else {
			fputs("{\"score\": ", f);
			json_num(f, l->score[k]);
			fputs(", \"cosine\": ", f);
			json_num(f, l->cosine[k]);
			fputs(", \"top1\": ", f);
			json_num(f, l->top1[k]);
			fputc('}', f);
		}
	}
	fprintf(f, "},\n     \"chosen\": \"%s\", \"bits\": %g, \"reason\": ",
		plan_formats[l->pick].name, plan_formats[l->pick].bits);
	qm_json_str(f, l->fallback ? l->fallback : "the solver's choice");
	fputc('}', f);
}

static int json_text(const struct plan *p, FILE *f)
{
	size_t i;

	fprintf(f, "{\"model\": ");
	qm_json_str(f, p->input);
	fprintf(f, ",\n  \"data\": ");
	qm_json_str(f, p->data);
	fprintf(f, ",\n  \"formats\": [");
	for (i = 0; i < p->nfmt; i++)
		fprintf(f, "%s\"%s\"", i ? ", " : "", plan_formats[p->fmt[i]].name);
	fprintf(f, "],\n  \"score\": \"output MSE / float output variance, "
		"mean over samples and outputs\",\n  \"budget_bits\": ");
	json_num(f, p->budget >= 0 ? p->budget : NAN);
	fprintf(f, ", \"max_loss\": ");
	json_num(f, p->max_loss >= 0 ? p->max_loss : NAN);
	fprintf(f, ",\n  \"autocast\": ");
	if (p->autocast)
		qm_json_str(f, p->autocast);
	else
		fprintf(f, "null");
	fprintf(f, ", \"max_float_layers\": ");
	if (p->max_float >= 0)
		fprintf(f, "%ld", p->max_float);
	else
		fprintf(f, "null");
	fprintf(f, ", \"forced_off_float\": %zu", p->forced);
	fprintf(f, ",\n  \"samples\": %ld, \"ort_sessions\": %zu, "
		"\"solver_unit_bits\": ", p->samples, p->sessions);
	json_num(f, p->unit / 4.0);
	/* the files beside the INI, each for the model its pass receives */
	fprintf(f, ",\n  \"calibration_files\": {");
	if (*p->calib_name) {
		fprintf(f, "\"fp8\": ");
		qm_json_str(f, p->calib_name);
	}
	if (*p->int8_calib_name) {
		fprintf(f, "%s\"int8\": ", *p->calib_name ? ", " : "");
		qm_json_str(f, p->int8_calib_name);
	}
	if (*p->w4a4_calib_name) {
		fprintf(f, "%s\"w4a4\": ", *p->calib_name ||
			*p->int8_calib_name ? ", " : "");
		qm_json_str(f, p->w4a4_calib_name);
	}
	fprintf(f, "}");
	fprintf(f, ",\n  \"total_params\": %lld, \"left_out_params\": %lld, "
		"\"effective_bits\": ", (long long)p->total_params,
		(long long)p->float_params);
	json_num(f, p->bits);
	fprintf(f, ",\n  \"predicted_score\": ");
	json_num(f, p->predicted);
	fprintf(f, ", \"measured_score\": ");
	json_num(f, p->measured);
	fprintf(f, ", \"measured_cosine\": ");
	json_num(f, p->measured_cos);
	fprintf(f, ", \"measured_top1\": ");
	json_num(f, p->measured_top1);
	fprintf(f, ",\n  \"layers\": [\n");
	for (i = 0; i < p->nlayers; i++) {
		json_layer(f, p, &p->layers[i]);
		fputs(i + 1 < p->nlayers ? ",\n" : "\n", f);
	}
	fprintf(f, "  ]}\n");
	return ferror(f) ? -1 : 0;
}

static int json_fn(const struct plan *p, FILE *f, const void *arg)
{
	(void)arg;
	return json_text(p, f);
}

int plan_write_json(const struct plan *p, const char *path)
{
	return write_atomic(p, path, json_fn, NULL);
}

char *plan_json_text(const struct plan *p)
{
	return in_memory(p, json_text);
}

static int copy_fn(const struct plan *p, FILE *out, const void *arg)
{
	FILE *in = fopen(arg, "rb");
	char buf[65536];
	size_t n;

	(void)p;
	if (!in)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			break;
	n = ferror(in) || ferror(out);
	fclose(in);
	return n ? -1 : 0;
}

int plan_copy(const struct plan *p, const char *src, const char *dst)
{
	return write_atomic(p, dst, copy_fn, src);
}

static int text_fn_put(const struct plan *p, FILE *out, const void *arg)
{
	(void)p;
	return fputs(arg, out) < 0 ? -1 : 0;
}

int plan_write_text(const struct plan *p, const char *path, const char *text)
{
	return write_atomic(p, path, text_fn_put, text);
}

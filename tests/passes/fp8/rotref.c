/*
 * tests/passes/fp8/rotref.c - the eager reference for fp8-mha's
 * weight_mode = fake with rotate = rotate_back, computed another way
 * than the pass's deferred recipe (no pass, no recipe, no writer): in
 * FP32, R W with qk_hadamard along the stored axis KAXIS (blocks of
 * K & -K), the scale amax(R W)/448 per tensor or per slice of the Q
 * scale's axis by plain loops (1 where 0), the E4M3FN codes and their
 * values with the kernels, R again, one rounding to W's type.
 *
 * rotref IN.onnx OUT.onnx KAXIS: every initializer W_fq_rot of OUT must
 * equal the reference for W (an initializer of IN read by a
 * QuantizeLinear), byte for byte. Prints one line per weight; exit 0
 * when all match and there is at least one, 1 otherwise.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qopt/qopt.h>

#define SUFFIX "_fq_rot"

/* The QuantizeLinear of m's main graph reading name, or NULL. */
static qir_node *quantizer(qir_model *m, const char *name)
{
	qir_node *n;

	qir_graph_for_each_node(m->graph, n)
		if (!strcmp(n->op_type, "QuantizeLinear") && n->ninputs > 1 &&
		    !strcmp(n->inputs[0]->name, name))
			return n;
	return NULL;
}

/* The scales as the reference lays them: one, or one per index of the
 * Q's axis (amax over every other axis). */
static void ref_scales(const float *x, const qir_tensor *w, int qaxis,
		       size_t nscales, float *s)
{
	size_t i, numel = qir_tensor_numel(w), inner = 1, axis;
	int d;

	for (i = 0; i < nscales; i++)
		s[i] = 0;
	for (d = qaxis + 1; d < w->rank; d++)
		inner *= (size_t)w->dims[d];
	axis = nscales > 1 ? (size_t)w->dims[qaxis] : 1;
	for (i = 0; i < numel; i++) {
		size_t a = nscales > 1 ? (i / inner) % axis : 0;

		s[a] = fmaxf(s[a], fabsf(x[i]));
	}
	for (i = 0; i < nscales; i++) {
		s[i] /= 448.0f;
		if (!(s[i] > 0))
			s[i] = 1;
	}
}

/* R fq(R W) into dst (W's type), or a kernel code. */
static int reference(qir_tensor *w, const void *src, int kaxis, int qaxis,
		     size_t nscales, void *dst)
{
	size_t numel = qir_tensor_numel(w), outer = 1, k, inner = 1;
	float *x = malloc(numel * sizeof(*x) + 1);
	float *s = malloc(nscales * sizeof(*s) + 1);
	uint8_t *codes = malloc(numel + 1);
	qk_qlayout lay = { 1, 1, numel, QK_SCALE_TENSOR, 0 };
	int d, rc = QK_ENOMEM;

	if (!x || !s || !codes)
		goto out;
	for (d = 0; d < kaxis; d++)
		outer *= (size_t)w->dims[d];
	k = (size_t)w->dims[kaxis];
	for (d = kaxis + 1; d < w->rank; d++)
		inner *= (size_t)w->dims[d];
	if (nscales > 1) {
		lay.mode = QK_SCALE_AXIS;
		lay.outer = 1;
		for (d = 0; d < qaxis; d++)
			lay.outer *= (size_t)w->dims[d];
		lay.axis = (size_t)w->dims[qaxis];
		lay.inner = numel / lay.outer / lay.axis;
	}
	rc = qk_convert(NULL, QIR_FLOAT, x, w->dtype, src, numel);
	if (!rc)
		rc = qk_hadamard(NULL, QIR_FLOAT, x, outer, k, inner, k & -k);
	if (rc)
		goto out;
	ref_scales(x, w, qaxis, nscales, s);
	rc = qk_fp8_quantize(NULL, QIR_FLOAT8E4M3FN, codes, QIR_FLOAT, x, s,
			     &lay, 1);
	if (!rc)
		rc = qk_fp8_dequantize(NULL, QIR_FLOAT, x, QIR_FLOAT8E4M3FN,
				       codes, s, &lay);
	if (!rc)
		rc = qk_hadamard(NULL, QIR_FLOAT, x, outer, k, inner, k & -k);
	if (!rc)
		rc = qk_convert(NULL, w->dtype, dst, QIR_FLOAT, x, numel);
out:
	free(x);
	free(s);
	free(codes);
	return rc;
}

/* 0 when out's tensor ft equals the reference for its weight in in. */
static int check_one(qir_model *in, qir_tensor *ft, int kaxis)
{
	char name[512];
	size_t len = strlen(ft->name) - strlen(SUFFIX), i;
	qir_value *wv;
	qir_node *q;
	qir_tensor *w, *st;
	const void *src, *got;
	void *want;
	qir_error err = { 0 };
	int qaxis, rc;

	snprintf(name, sizeof(name), "%.*s", (int)len, ft->name);
	wv = qir_graph_find_value(in->graph, name);
	q = quantizer(in, name);
	w = wv ? wv->init : NULL;
	st = q ? qir_value_const(q->inputs[1]) : NULL;
	if (!w || !st || w->nbytes != ft->nbytes || w->rank < 1) {
		printf("%s: no weight '%s' behind a Q with a constant scale "
		       "in the input\n", ft->name, name);
		return 1;
	}
	qaxis = (int)qir_node_attr_int(q, "axis", 1);
	qaxis = qaxis < 0 ? qaxis + w->rank : qaxis;
	src = qir_tensor_data(w, &err);
	got = qir_tensor_data(ft, &err);
	want = malloc(w->nbytes);
	rc = !src || !got || !want ||
	     reference(w, src, kaxis, qaxis, qir_tensor_numel(st), want);
	if (rc) {
		printf("%s: cannot compute the reference\n", ft->name);
	} else {
		for (i = 0; i < w->nbytes &&
		     ((const uint8_t *)got)[i] == ((uint8_t *)want)[i]; i++)
			;
		rc = i < w->nbytes;
		printf("%s: %s (%llu bytes, %llu scales, K axis %d)\n",
		       ft->name, rc ? "differs" : "equal",
		       (unsigned long long)w->nbytes,
		       (unsigned long long)qir_tensor_numel(st), kaxis);
	}
	free(want);
	return rc;
}

int main(int argc, char **argv)
{
	qir_model *in = NULL, *out = NULL;
	qir_error err = { 0 };
	qir_value *v;
	size_t i, ls = strlen(SUFFIX);
	int bad = 0, n = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: rotref IN.onnx OUT.onnx KAXIS\n");
		return 2;
	}
	if (qir_model_load(argv[1], NULL, &in, &err) ||
	    qir_model_load(argv[2], NULL, &out, &err)) {
		fprintf(stderr, "rotref: %s\n", err.msg);
		qir_model_free(in);
		return 2;
	}
	for (i = 0; i < out->graph->ninits; i++) {
		v = out->graph->inits[i];
		if (strlen(v->name) <= ls ||
		    strcmp(v->name + strlen(v->name) - ls, SUFFIX))
			continue;
		n++;
		bad += check_one(in, v->init, atoi(argv[3]));
	}
	if (!n)
		printf("no initializer named *%s in %s\n", SUFFIX, argv[2]);
	qir_model_free(in);
	qir_model_free(out);
	return bad || !n;
}

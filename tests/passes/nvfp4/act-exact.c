/*
 * tests/passes/nvfp4/act-exact.c - the fake form of nvfp4 activations against
 * the CPU kernel (qk_nvfp4_quantize_gscale + qk_nvfp4_dequantize),
 * which defines TensorRT's dynamic NVFP4 quantization here.
 *
 *   nvfp4-act-exact gen DIR ROWS  model.onnx (opset 17), calib.json,
 *                                 and per input x_T_C.f32 (what ORT is
 *                                 fed) and ref_T_C.f32 (the kernel's
 *                                 dequantized values, widened)
 *   nvfp4-act-exact expose IN OUT every MatMul's input A, Cast to
 *                                 FLOAT, replaces its output as the
 *                                 graph output q_NAME
 *
 * T is the activation's type (FLOAT, FLOAT16, BFLOAT16: the graph
 * input is FLOAT and Cast to T, so ORT's node binding needs no BF16
 * tensor); C the case: "rand" (amax 3.7, random values over 2^-30 ..
 * 2^8 of it), "ties" (amax 2688: g = 1, blocks of exact E2M1 ties and
 * scales of every E4M3 code, subnormal ones included), "small" (amax
 * 1e-30: g held at FLT_MIN, scales that round to 0). Every case mixes
 * in zero blocks (+0 and -0), blocks over the calibrated amax
 * (saturation to 448 * 6), +-inf, and subnormal floats.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qopt/qopt.h>

#define K 64

static const int types[3] = { QIR_FLOAT, QIR_FLOAT16, QIR_BFLOAT16 };
static const char *const tnames[3] = { "f32", "f16", "bf16" };
static const char *const cases[3] = { "rand", "ties", "small" };
static const float amaxes[3] = { 3.7f, 2688.0f, 1e-30f };

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static float unit(void)	/* [0, 1) */
{
	return (float)(next() & 0xffffff) / 16777216.0f;
}

static float e4m3_value(unsigned code)	/* positive codes 1..126 */
{
	unsigned e = code >> 3, m = code & 7;

	return e ? ldexpf(1.0f + (float)m / 8.0f, (int)e - 7) :
		   ldexpf((float)m / 8.0f, -6);
}

/* One block of 16 of case c into x. */
static void block(int c, float amax, float *x)
{
	static const float ties[] = { 0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f,
				      5.0f, 0.5f, 1.0f, 3.0f, 6.0f, 0.1f };
	unsigned kind = next() % 16, j;
	float g = amax / 2688.0f;

	if (kind == 0) {	/* zero block, signed zeros */
		for (j = 0; j < 16; j++)
			x[j] = next() & 1 ? -0.0f : 0.0f;
		return;
	}
	if (kind == 1) {	/* saturation: up to 40x the amax */
		for (j = 0; j < 16; j++)
			x[j] = (unit() * 80.0f - 40.0f) * amax;
		x[next() % 16] = next() & 1 ? 2688.0f * 10 * g : -2688.0f * g;
		return;
	}
	if (kind == 2) {	/* an infinity among finite values */
		for (j = 0; j < 16; j++)
			x[j] = (unit() * 2.0f - 1.0f) * amax;
		x[next() % 16] = next() & 1 ? INFINITY : -INFINITY;
		return;
	}
	if (kind == 3) {	/* subnormal floats */
		for (j = 0; j < 16; j++)
			x[j] = ldexpf(unit() - 0.5f, -126 - (int)(next() % 20));
		return;
	}
	if (kind < 9 && c == 1) {
		/* exact ties: S = e4m3(code) (g = 1), the block's max 6 S
		 * so that the scale is that very code */
		float s = e4m3_value(1 + next() % 126);

		for (j = 0; j < 16; j++)
			x[j] = (next() & 1 ? -1.0f : 1.0f) *
			       ties[next() % 12] * s;
		x[next() % 16] = 6.0f * s;
		return;
	}
	/* random magnitudes, 2^-30 .. 2^8 times the amax */
	{
		float scale = ldexpf(amax, -(int)(next() % 38) + 8);

		for (j = 0; j < 16; j++)
			x[j] = (unit() * 2.0f - 1.0f) * scale;
	}
}

static int write_file(const char *dir, const char *what, const char *t,
		      const char *c, const void *p, size_t n)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s_%s_%s.f32", dir, what, t, c);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "cannot write %s\n", path);
		return -1;
	}
	return 0;
}

/* x rounded to type dt and back (what the graph's Cast feeds), the
 * kernel's result widened to float into ref. */
static int reference(qk_ctx *qk, int dt, float amax, float *x, float *ref,
		     size_t rows)
{
	size_t n = rows * K, es = dt == QIR_FLOAT ? 4 : 2;
	void *xt = malloc(n * es), *yt = malloc(n * es);
	uint8_t *codes = malloc(n / 2), *scales = malloc(n / 16);
	float g = qk_nvfp4_gscale(amax);
	int rc = -1;

	if (!xt || !yt || !codes || !scales)
		goto out;
	if (qk_convert(qk, dt, xt, QIR_FLOAT, x, n) ||
	    qk_convert(qk, QIR_FLOAT, x, dt, xt, n))
		goto out;
	if (qk_nvfp4_quantize_gscale(qk, dt, xt, rows, K, 1, g, codes,
				     scales) ||
	    qk_nvfp4_dequantize(qk, codes, scales, g, rows, K, 1, dt, yt) ||
	    qk_convert(qk, QIR_FLOAT, ref, dt, yt, n))
		goto out;
	rc = 0;
out:
	free(xt);
	free(yt);
	free(codes);
	free(scales);
	return rc;
}

static qir_value *node(qir_graph *g, const char *op, const char *name,
		       qir_value *a, qir_value *b)
{
	qir_node *n = qir_node_new(g, op, NULL, name);

	if (!n || qir_node_add_input(n, a) || (b && qir_node_add_input(n, b)))
		return NULL;
	return qir_node_add_output(n, NULL, name);
}

static int gen(const char *dir, size_t rows)
{
	qir_error err = { 0 };
	qir_model *m = qir_model_new(8, 17, &err);
	qk_ctx *qk = qk_ctx_new(QK_DEVICE_CPU, 0);
	size_t n = rows * K, i;
	float *x = malloc(n * 4), *ref = malloc(n * 4);
	char path[1024], name[64];
	FILE *f;
	int t, c;

	if (!m || !qk || !x || !ref)
		return 1;
	snprintf(path, sizeof(path), "%s/calib.json", dir);
	for (t = 0; t < 3; t++)
		for (c = 0; c < 3; c++) {
			int64_t xd[2] = { (int64_t)rows, K }, wd[2] = { K, 16 };
			qir_value *xi, *a, *w, *y;
			qir_tensor *wt;
			qir_node *cast;

			snprintf(name, sizeof(name), "x_%s_%s", tnames[t], cases[c]);
			xi = qir_value_new(m->graph, name);
			if (!xi || qir_value_set_type(xi, QIR_FLOAT, 2, xd, &err) ||
			    qir_graph_add_input(m->graph, xi))
				goto fail;
			snprintf(name, sizeof(name), "a_%s_%s", tnames[t], cases[c]);
			a = node(m->graph, "Cast", name, xi, NULL);
			if (!a)
				goto fail;
			cast = a->producer;
			if (qir_node_set_attr_int(cast, "to", types[t]) ||
			    qir_value_set_type(a, types[t], 2, xd, &err))
				goto fail;
			snprintf(name, sizeof(name), "w_%s_%s", tnames[t], cases[c]);
			wt = qir_tensor_new(name, types[t], 2, wd, &err);
			if (!wt || !qir_tensor_mutable_data(wt, &err))
				goto fail;	/* zeros */
			w = qir_graph_add_initializer(m->graph, wt);
			snprintf(name, sizeof(name), "y_%s_%s", tnames[t], cases[c]);
			y = w ? node(m->graph, "MatMul", name, a, w) : NULL;
			if (!y || qir_graph_add_output(m->graph, y))
				goto fail;
			for (i = 0; i < n; i += 16)
				block(c, amaxes[c], x + i);
			if (reference(qk, types[t], amaxes[c], x, ref, rows) ||
			    write_file(dir, "x", tnames[t], cases[c], x, n * 4) ||
			    write_file(dir, "ref", tnames[t], cases[c], ref, n * 4))
				return 1;
		}
	snprintf(path, sizeof(path), "%s/model.onnx", dir);
	if (qir_model_save(m, path, NULL, &err))
		goto fail;
	/* the hash of the model as qopt will load it */
	qir_model_free(m);
	if (qir_model_load(path, NULL, &m, &err))
		goto fail;
	snprintf(path, sizeof(path), "%s/calib.json", dir);
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "{\"model_hash\": \"%016llx\", \"tensors\": {",
		(unsigned long long)qir_model_hash(m));
	for (t = 0; t < 3; t++)
		for (c = 0; c < 3; c++)
			fprintf(f, "%s\"a_%s_%s\": {\"amax\": %.9g}",
				t || c ? ", " : "", tnames[t], cases[c],
				(double)amaxes[c]);
	fprintf(f, "}}\n");
	fclose(f);
	qir_model_free(m);
	qk_ctx_free(qk);
	free(x);
	free(ref);
	return 0;
fail:
	fprintf(stderr, "gen: %s\n", err.msg[0] ? err.msg : "failed");
	return 1;
}

static int expose(const char *in, const char *out)
{
	qir_error err = { 0 };
	qir_model *m = NULL;
	qir_node *n;
	char name[256];
	size_t i;
	int k = 0;

	if (qir_model_load(in, NULL, &m, &err))
		goto fail;
	qir_graph_for_each_node(m->graph, n) {
		qir_value *q;

		if (!qir_node_is(n, "MatMul"))
			continue;
		snprintf(name, sizeof(name), "q_%s", n->name);
		q = node(m->graph, "Cast", name, n->inputs[0], NULL);
		if (!q || qir_node_set_attr_int(q->producer, "to", QIR_FLOAT))
			goto fail;
		/* q replaces the MatMul's output (ORT has no BF16 MatMul) */
		for (i = 0; i < m->graph->noutputs; i++)
			if (m->graph->outputs[i] == n->outputs[0] &&
			    qir_graph_set_output(m->graph, i, q))
				goto fail;
		k++;
	}
	qir_graph_remove_dead(m->graph);
	if (!k || qir_model_save(m, out, NULL, &err))
		goto fail;
	qir_model_free(m);
	return 0;
fail:
	fprintf(stderr, "expose: %s\n", err.msg[0] ? err.msg : "failed");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "gen"))
		return gen(argv[2], (size_t)strtoul(argv[3], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "expose"))
		return expose(argv[2], argv[3]);
	fprintf(stderr, "usage: nvfp4-act-exact gen DIR ROWS | expose IN OUT\n");
	return 2;
}

/*
 * tests/passes/support/coverage.c - the coverage accumulator
 * (passes/support/coverage.c) without a manager: group keys from weight
 * names, the groups and their order, counts per include pattern (the
 * targets' own refusals not held against a pattern), a name counted
 * once, sizes from a constant or a declared shape.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qopt/qopt.h>
#include "../../../passes/support/support.h"
#include "../../lib/tap.h"

static int key_is(const char *name, const char *want)
{
	char buf[256];

	ps_coverage_group_key(name, buf, sizeof(buf));
	if (strcmp(buf, want))
		tap_diag("key of '%s': '%s', want '%s'", name, buf, want);
	return !strcmp(buf, want);
}

static void keys(void)
{
	char small[8];

	tap_ok(key_is("model.layers.12.mlp.experts.3.w1.weight",
		      "model.layers.*.mlp.experts.*.w1.weight"),
	       "numbered parts become '*', the 1 of w1 stays");
	tap_ok(key_is("onnx::MatMul_1234", "onnx::MatMul_*") &&
	       key_is("/h.0/attn/c_attn/MatMul", "/h.*/attn/c_attn/MatMul"),
	       "a number after '_' or '.' is a part; '/' too");
	tap_ok(key_is("conv2d.weight", "conv2d.weight") &&
	       key_is("layer1.0.conv1", "layer1.*.conv1") &&
	       key_is("7", "*") && key_is("", ""),
	       "digits inside a word stay (conv2d, layer1); a lone number is '*'");
	ps_coverage_group_key("experts.123456.w", small, sizeof(small));
	tap_ok(!strcmp(small, "experts"), "truncated to fit, terminated");
}

static struct ps_skip skip_of(const struct ps_skip_kind *k, const char *why)
{
	struct ps_skip s = { .kind = k };

	snprintf(s.why, sizeof(s.why), "%s", why);
	return s;
}

static void groups_and_patterns(void)
{
	static const char *const pats[] = { "*experts.*", "*.attn.*" };
	struct ps_targets tg;
	struct ps_coverage c;
	struct ps_cov_group *g;
	struct ps_skip k16 = skip_of(&ps_skip_layout, "K = 40"),
		       notin = skip_of(&ps_skip_not_included, "none"),
		       small = skip_of(&ps_skip_below_min_size, "12 < 4096");
	uint64_t matched, quantized;
	size_t n = 0;
	char name[128];
	int rc;

	memset(&tg, 0, sizeof(tg));
	tg.include.option = "include";
	tg.include.pat = pats;
	tg.include.n = 2;
	tg.include.set = 1;
	ps_coverage_init(&c, &tg, "weight");
	/* 2 layers x 4 experts x w1, w2: layer 1 expert 3's w2 cannot be
	 * quantized; expert 2 of layer 0 (w1) is matched by no pattern */
	for (int l = 0; l < 2; l++)
		for (int e = 0; e < 4; e++)
			for (int w = 1; w <= 2; w++) {
				int bad = l == 1 && e == 3 && w == 2;
				int miss = l == 0 && e == 2 && w == 1;

				snprintf(name, sizeof(name), "layers.%d.experts."
					 "%d.w%d", l, e, w);
				ps_coverage_add(&c, name, 100, 400, miss ? -1 : 0,
						bad || miss ? NULL : "nvfp4",
						miss ? &notin : &k16);
			}
	ps_coverage_add(&c, "layers.0.experts.0.w1", 1, 1, -1, NULL, &k16);
	tap_ok(c.n == 16, "a name added twice is counted once (%zu)", c.n);
	ps_coverage_add(&c, "layers.0.attn.q", 12, 48, 1, NULL, &small);
	ps_coverage_add(&c, "layers.1.attn.q", 4096, 16384, 1, "fp8", NULL);
	ps_coverage_add(&c, "head", 1000, 4000, -1, "fp8", NULL);

	ps_coverage_pattern(&c, 0, &matched, &quantized);
	tap_ok(matched == 15 && quantized == 14, "pattern 0: 14 of 15 matched "
	       "quantized (%llu of %llu)", (unsigned long long)quantized,
	       (unsigned long long)matched);
	ps_coverage_pattern(&c, 1, &matched, &quantized);
	tap_ok(matched == 1 && quantized == 1, "pattern 1: below min_size is "
	       "the targets' choice, not held against it");

	rc = ps_coverage_groups(&c, &g, &n);
	tap_ok(rc == 0 && n == 3,
	       "three groups of more than one member (%zu); 'head' is alone", n);
	if (n == 3) {
		tap_ok(!strcmp(g[0].key, "layers.*.attn.q") &&
		       g[0].members == 2 && g[0].quantized == 1 &&
		       g[0].bytes == 16384 + 48 && g[0].missed == 0,
		       "all incomplete: the most bytes first (attn.q: 1 of 2, "
		       "bytes summed)");
		tap_ok(!strcmp(g[1].key, "layers.*.experts.*.w1") &&
		       g[1].members == 8 && g[1].quantized == 7 &&
		       g[1].missed == 1 &&
		       !strcmp(g[1].missed_name, "layers.0.experts.2.w1") &&
		       !strcmp(g[2].key, "layers.*.experts.*.w2") &&
		       g[2].quantized == 7 && g[2].missed == 0,
		       "equal bytes by name: %s %llu of %llu, missed %llu (%s); "
		       "then w2", g[1].key, (unsigned long long)g[1].quantized,
		       (unsigned long long)g[1].members,
		       (unsigned long long)g[1].missed,
		       g[1].missed_name ? g[1].missed_name : "-");
	}
	free(g);
	/* without a manager the report goes to stderr; it frees nothing */
	ps_coverage_report(NULL, &c);
	ps_coverage_fini(&c);
	tap_ok(c.n == 0 && !c.v, "fini frees the entries");
}

static void many(void)
{
	struct ps_coverage c;
	struct ps_cov_group *g;
	char name[64];
	size_t n;

	ps_coverage_init(&c, NULL, NULL);
	for (int i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "blocks.%d.fc%d.weight", i / 3,
			 i % 3);
		ps_coverage_add(&c, name, 16, 64, -1, "mxfp8", NULL);
	}
	for (int i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "blocks.%d.fc%d.weight", i / 3,
			 i % 3);
		ps_coverage_add(&c, name, 16, 64, -1, NULL, NULL);
	}
	tap_ok(c.n == 3000 && !c.oom, "3000 names, each once (%zu)", c.n);
	tap_ok(ps_coverage_groups(&c, &g, &n) == 0 && n == 3 &&
	       g[0].members == 1000 && g[0].quantized == 1000 &&
	       !strcmp(g[0].key, "blocks.*.fc0.weight"),
	       "fc0, fc1, fc2: three complete groups of 1000");
	free(g);
	ps_coverage_fini(&c);
}

static void sizes(void)
{
	qir_error err = { 0 };
	qir_model *m = qir_model_new(8, 17, &err);
	int64_t d[2] = { 3, 5 };
	qir_tensor *t = qir_tensor_new("w", QIR_FLOAT16, 2, d, &err);
	qir_value *w = t ? qir_graph_add_initializer(m->graph, t) : NULL;
	qir_value *x = qir_value_new(m->graph, "x");
	uint64_t numel, nbytes;

	ps_coverage_size(w, &numel, &nbytes);
	tap_ok(numel == 15 && nbytes == 30, "a constant: 15 FLOAT16, 30 bytes");
	qir_value_set_type(x, QIR_FLOAT, 2, d, NULL);
	ps_coverage_size(x, &numel, &nbytes);
	tap_ok(numel == 15 && nbytes == 60, "a declared shape: 60 bytes");
	d[1] = -1;
	qir_value_set_type(x, QIR_FLOAT, 2, d, NULL);
	ps_coverage_size(x, &numel, &nbytes);
	tap_ok(numel == 0 && nbytes == 0, "an unknown dimension: 0, 0");
	qir_model_free(m);
}

int main(void)
{
	keys();
	groups_and_patterns();
	many();
	sizes();
	return tap_done();
}

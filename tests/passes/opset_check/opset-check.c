/*
 * tests/passes/opset_check/opset-check.c - the opset-check pass through the qopt
 * binary: what it reports and why, `require`, and `upgrade` on graphs
 * holding every op whose definition changed (rewritten models checked
 * for structure, by `qopt verify`, and against the original in ONNX
 * Runtime: rtol 1e-6, the rewrites must not change the arithmetic).
 */
#include "../util.h"

static const int64_t d4[4] = { 2, 3, 4, 5 };

static qir_value *out_of(qir_node *n, int dtype, int rank,
			 const int64_t *dims)
{
	pu_output(n->outputs[0], dtype, rank, dims);
	return n->outputs[0];
}

/* ---- reporting ---- */

static void test_reasons(void)
{
	qir_model *m = qir_model_new(8, 17, NULL);
	qir_graph *g = m->graph;
	int64_t d8 = 8, d2 = 2, d82[2] = { 8, 2 };
	uint8_t b[16] = { 0 };
	uint16_t h = 0x3c00;
	float one = 1.0f;
	qir_value *xi = pu_input(g, "xi", QIR_INT8, 1, &d8);
	qir_value *s16 = pu_bytes(g, "s16", QIR_FLOAT16, 0, NULL, &h);
	qir_value *w4 = pu_bytes(g, "w4", QIR_INT4, 2, d82, b);
	qir_value *sb = pu_f32(g, "sb", 2, (int64_t[]){ 2, 2 },
			       (float[]){ 1, 1, 1, 1 });
	qir_value *f4 = pu_bytes(g, "f4", QIR_FLOAT4E2M1, 1, &d8, b);
	qir_value *e8 = pu_bytes(g, "e8", QIR_FLOAT8E8M0, 0, NULL, b);
	qir_value *s1 = pu_f32(g, "s1", 0, NULL, &one);
	qir_node *n;

	(void)d2;
	n = pu_node(g, "DequantizeLinear", "y16", xi, s16, NULL);
	out_of(n, QIR_FLOAT16, 1, &d8);
	n = pu_node(g, "DequantizeLinear", "yb", w4, sb, NULL);
	qir_node_set_attr_int(n, "axis", 1);
	qir_node_set_attr_int(n, "block_size", 1);
	out_of(n, QIR_FLOAT, 2, d82);
	n = pu_node(g, "DequantizeLinear", "yf4", f4, s1, NULL);
	qir_node_set_attr_int(n, "output_dtype", QIR_FLOAT);
	out_of(n, QIR_FLOAT, 1, &d8);
	n = pu_node(g, "DequantizeLinear", "ye8", xi, e8, NULL);
	out_of(n, QIR_FLOAT, 1, &d8);
	n = qir_node_new(g, "TRT_FP8QuantizeLinear", "trt", "trtq");
	qir_node_add_input(n, qir_graph_find_value(g, "yb"));
	qir_node_add_input(n, s1);
	qir_node_add_output(n, NULL, "yq8");
	out_of(n, QIR_FLOAT8E4M3FN, 2, d82);
	n = qir_node_new(g, "TRT_FP4DynamicQuantize", "trt", "trtfp4");
	qir_node_add_input(n, qir_graph_find_value(g, "yb"));
	qir_node_add_output(n, NULL, "yq4");
	out_of(n, QIR_FLOAT, 2, d82);
	qir_model_set_opset(m, "trt", 1);
	pu_save(m, "reasons.onnx");
	qir_model_free(m);

	tap_ok(pu_qopt("--passes opset-check", "reasons.onnx",
		       "reasons.out.onnx") == 0,
	       "report only: exit 0 (a warning) on a model needing more");
#define HAS(s, what) tap_ok(pu_log_has("reasons.out.onnx.log", s), what)
	HAS("ai.onnx opset 17, IR version 8", "reports declared opset and IR");
	HAS("needs opset 19: node 'y16' (DequantizeLinear) has a FLOAT16 "
	    "scale 's16'", "FLOAT16 scale -> 19, naming node and tensor");
	HAS("needs opset 21: node 'yb' (DequantizeLinear) uses block_size",
	    "block_size -> 21");
	HAS("needs opset 21: initializer 'w4' is INT4 (IR >= 10)",
	    "INT4 -> 21 and IR 10");
	HAS("needs opset 23: initializer 'f4' is FLOAT4E2M1 (IR >= 11)",
	    "FLOAT4E2M1 -> 23 and IR 11");
	HAS("needs opset 23: node 'yf4' (DequantizeLinear) sets output_dtype",
	    "DQ output_dtype -> 23");
	HAS("needs opset 24: node 'ye8' (DequantizeLinear) has a FLOAT8E8M0 "
	    "scale 'e8'", "FLOAT8E8M0 scale -> 24");
	HAS("needs opset 19: value 'yq8' is FLOAT8E4M3FN", "FP8 value -> 19");
	HAS("non-standard domain 'trt'", "non-standard domain reported");
	HAS("TensorRT custom op TRT_FP8QuantizeLinear x1; standard form: "
	    "QuantizeLinear (opset 19)", "TRT FP8 Q op and its standard form");
	HAS("TRT_FP4DynamicQuantize x1; standard form: none",
	    "TRT FP4 dynamic quantize: no standard form");
	HAS("needs opset 24 and IR version", "summary of what it needs");
#undef HAS
	tap_ok(pu_qopt("--passes opset-check:require=17", "reasons.onnx",
		       "reasons2.out.onnx") != 0 &&
	       !pu_exists("reasons2.out.onnx") &&
	       pu_log_has("reasons2.out.onnx.log", "but declares 17"),
	       "require: a model needing more than it declares fails, "
	       "no output");
}

static qir_model *plain_model(int opset)
{
	qir_model *m = qir_model_new(opset >= 19 ? 9 : 7, opset, NULL);
	qir_value *x = pu_input(m->graph, "x", QIR_FLOAT, 4, d4);
	qir_node *r = pu_node(m->graph, "Relu", "y", x, NULL);

	out_of(r, QIR_FLOAT, 4, d4);
	return m;
}

static void test_require(void)
{
	qir_model *m = plain_model(17);

	pu_save(m, "p17.onnx");
	qir_model_free(m);
	tap_ok(pu_qopt("--passes opset-check:require=19", "p17.onnx",
		       "p17a.onnx") != 0 && !pu_exists("p17a.onnx") &&
	       pu_log_has("p17a.onnx.log", "below the required 19"),
	       "require=19 on opset 17: fails, no output");
	tap_ok(pu_qopt("--passes opset-check:require=17", "p17.onnx",
		       "p17b.onnx") == 0 && pu_exists("p17b.onnx"),
	       "require=17 on opset 17: passes");
	tap_ok(pu_qopt("--passes opset-check:target=19", "p17.onnx",
		       "p17c.onnx") != 0 && !pu_exists("p17c.onnx"),
	       "target without upgrade: error");
	tap_ok(pu_qopt("--passes opset-check:upgrade=yes:target=13",
		       "p17.onnx", "p17d.onnx") != 0 &&
	       pu_log_has("p17d.onnx.log", "downgrading"),
	       "target below the declared opset: error");
	tap_ok(pu_qopt("--passes opset-check:upgrade=yes:target=26",
		       "p17.onnx", "p17e.onnx") != 0 &&
	       !pu_exists("p17e.onnx") &&
	       pu_log_has("p17e.onnx.log", "known only up to opset 25"),
	       "target beyond the known opsets (26): error, no output");
	tap_ok(pu_qopt("--passes opset-check:upgrade=yes:target=24",
		       "p17.onnx", "p17g.onnx") == 0 &&
	       (m = pu_load("p17g.onnx")) != NULL &&
	       qir_model_opset(m, "") == 24 && m->ir_version == 12,
	       "target=24: opset 24, IR 12");
	qir_model_free(m);
	m = NULL;
	tap_ok(pu_qopt("--passes opset-check:upgrade=yes:target=19,"
		       "cast-fold,opset-check:require=19", "p17.onnx",
		       "p17f.onnx") == 0,
	       "first and last in a pipeline: upgrade, then check");
}

/* ---- upgrade ---- */

static qir_node *attr_ints(qir_node *n, const char *name, size_t k, ...)
{
	int64_t v[8];
	va_list ap;
	size_t i;

	va_start(ap, k);
	for (i = 0; i < k; i++)
		v[i] = va_arg(ap, int64_t);
	va_end(ap);
	qir_node_set_attr_ints(n, name, v, k);
	return n;
}

/* Opset 9: one node of every op whose definition changes by 21. */
static qir_model *old_model(void)
{
	qir_model *m = qir_model_new(4, 9, NULL);
	qir_graph *g = m->graph;
	int64_t d3 = 3, d33[2] = { 3, 3 }, dup[4] = { 2, 3, 8, 10 };
	int64_t d1x[4] = { 1, 3, 4, 5 }, dsq[3] = { 3, 4, 5 };
	int64_t dsl[4] = { 2, 2, 2, 5 }, dtk[4] = { 2, 3, 4, 2 };
	int64_t dpad[4] = { 2, 3, 6, 7 }, ds1[4] = { 2, 1, 4, 5 };
	int64_t ds2[4] = { 2, 2, 4, 5 }, drs[3] = { 2, 4, 5 };
	int64_t drm[2] = { 2, 3 }, dfl[2] = { 6, 20 };
	float gam[3] = { 1, 2, 0.5f }, bet[3] = { 0, 0.1f, -0.2f };
	float mean[3] = { 0.1f, -0.1f, 0 }, var[3] = { 1, 0.5f, 2 };
	float upsc[4] = { 1, 1, 2, 2 }, upd[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	int64_t idx[9] = { 1, 0, 2, 0, 2, 1, 2, 1, 0 };
	qir_value *x = pu_input(g, "x", QIR_FLOAT, 4, d4);
	qir_value *x2 = pu_input(g, "x2", QIR_FLOAT, 2, d33);
	qir_node *n;

	n = pu_node(g, "Softmax", "sm1", x, NULL);
	qir_node_set_attr_int(n, "axis", 1);	/* 2-D coercion at 1 */
	out_of(n, QIR_FLOAT, 4, d4);
	n = pu_node(g, "LogSoftmax", "lsm", x, NULL);
	qir_node_set_attr_int(n, "axis", 3);	/* last axis: same */
	out_of(n, QIR_FLOAT, 4, d4);
	n = pu_node(g, "Hardmax", "hm", x, NULL);
	qir_node_set_attr_int(n, "axis", 2);
	out_of(n, QIR_FLOAT, 4, d4);
	n = pu_node(g, "Softmax", "sm2", x2, NULL);	/* default axis 1 */
	out_of(n, QIR_FLOAT, 2, d33);
	n = pu_node(g, "Slice", "sl", x, NULL);
	attr_ints(n, "starts", 2, (int64_t)0, (int64_t)1);
	attr_ints(n, "ends", 2, (int64_t)2, (int64_t)3);
	attr_ints(n, "axes", 2, (int64_t)1, (int64_t)2);
	out_of(n, QIR_FLOAT, 4, dsl);
	n = pu_node(g, "TopK", "tkv", x, NULL);
	qir_node_set_attr_int(n, "k", 2);
	qir_node_add_output(n, NULL, "tki");
	out_of(n, QIR_FLOAT, 4, dtk);
	pu_output(n->outputs[1], QIR_INT64, 4, dtk);
	n = pu_node(g, "Upsample", "upn", x,
		    pu_f32(g, "upscales", 1, (int64_t[]){ 4 }, upsc), NULL);
	out_of(n, QIR_FLOAT, 4, dup);
	n = pu_node(g, "Upsample", "upl", x, qir_graph_find_value(g,
		    "upscales"), NULL);
	qir_node_set_attr_string(n, "mode", "linear");
	out_of(n, QIR_FLOAT, 4, dup);
	n = pu_node(g, "Clip", "cl", x, NULL);
	qir_node_set_attr_float(n, "min", -0.5f);
	qir_node_set_attr_float(n, "max", 0.25f);
	out_of(n, QIR_FLOAT, 4, d4);
	n = pu_node(g, "Pad", "pd", x, NULL);
	attr_ints(n, "pads", 8, (int64_t)0, (int64_t)0, (int64_t)1,
		  (int64_t)2, (int64_t)0, (int64_t)0, (int64_t)1, (int64_t)0);
	qir_node_set_attr_float(n, "value", 0.75f);
	out_of(n, QIR_FLOAT, 4, dpad);
	n = pu_node(g, "Pad", "pr", x, NULL);
	attr_ints(n, "pads", 8, (int64_t)0, (int64_t)0, (int64_t)1,
		  (int64_t)1, (int64_t)0, (int64_t)0, (int64_t)1, (int64_t)1);
	qir_node_set_attr_string(n, "mode", "reflect");
	out_of(n, QIR_FLOAT, 4, (int64_t[]){ 2, 3, 6, 7 });
	n = pu_node(g, "Unsqueeze", "uq", x, NULL);
	attr_ints(n, "axes", 1, (int64_t)0);
	n = pu_node(g, "Squeeze", "sq", n->outputs[0], NULL);
	attr_ints(n, "axes", 1, (int64_t)0);
	out_of(n, QIR_FLOAT, 4, d4);
	n = pu_node(g, "Split", "sp1", x, NULL);
	qir_node_set_attr_int(n, "axis", 1);
	attr_ints(n, "split", 2, (int64_t)1, (int64_t)2);
	qir_node_add_output(n, NULL, "sp2");
	out_of(n, QIR_FLOAT, 4, ds1);
	pu_output(n->outputs[1], QIR_FLOAT, 4, ds2);
	n = pu_node(g, "Split", "se1", x2, NULL);	/* equal parts */
	qir_node_add_output(n, NULL, "se2");
	qir_node_add_output(n, NULL, "se3");
	out_of(n, QIR_FLOAT, 2, (int64_t[]){ 1, 3 });
	pu_output(n->outputs[1], QIR_FLOAT, 2, (int64_t[]){ 1, 3 });
	pu_output(n->outputs[2], QIR_FLOAT, 2, (int64_t[]){ 1, 3 });
	n = pu_node(g, "ReduceSum", "rs", x, NULL);
	attr_ints(n, "axes", 1, (int64_t)1);
	qir_node_set_attr_int(n, "keepdims", 0);
	out_of(n, QIR_FLOAT, 3, drs);
	n = pu_node(g, "ReduceMean", "rm", x, NULL);
	attr_ints(n, "axes", 2, (int64_t)2, (int64_t)3);
	qir_node_set_attr_int(n, "keepdims", 0);
	out_of(n, QIR_FLOAT, 2, drm);
	n = pu_node(g, "ReduceMax", "rx", x, NULL);	/* all axes */
	out_of(n, QIR_FLOAT, 4, (int64_t[]){ 1, 1, 1, 1 });
	n = pu_node(g, "Dropout", "dr", x, NULL);
	qir_node_set_attr_float(n, "ratio", 0.3f);
	out_of(n, QIR_FLOAT, 4, d4);
	n = pu_node(g, "BatchNormalization", "bn", x,
		    pu_f32(g, "gam", 1, &d3, gam), pu_f32(g, "bet", 1, &d3, bet),
		    pu_f32(g, "mean", 1, &d3, mean),
		    pu_f32(g, "var", 1, &d3, var), NULL);
	qir_node_set_attr_float(n, "epsilon", 1e-3f);
	out_of(n, QIR_FLOAT, 4, d4);
	n = pu_node(g, "Scatter", "sc", x2,
		    pu_bytes(g, "idx", QIR_INT64, 2, d33, idx),
		    pu_f32(g, "upd", 2, d33, upd), NULL);
	qir_node_set_attr_int(n, "axis", 0);
	out_of(n, QIR_FLOAT, 2, d33);
	n = pu_node(g, "Flatten", "fl", x, NULL);	/* no change */
	out_of(n, QIR_FLOAT, 2, dfl);
	(void)d1x;
	(void)dsq;
	return m;
}

static void check_upgraded(const char *file, int target)
{
	qir_model *o = pu_load(file);
	qir_node *n;
	int ok_inputs = 1;

	if (!tap_ok(o != NULL, "upgrade to %d: output loads", target))
		return;
	tap_ok(qir_model_opset(o, "") == target &&
	       o->ir_version == qir_opset_min_ir_version(target),
	       "upgrade to %d: opset %d, IR %lld", target,
	       (int)qir_model_opset(o, ""), (long long)o->ir_version);
	tap_ok(!pu_count(o, "Upsample") && pu_count(o, "Resize") == 2 &&
	       !pu_count(o, "Scatter") && pu_count(o, "ScatterElements") == 1,
	       "upgrade to %d: Upsample -> Resize, Scatter -> "
	       "ScatterElements", target);
	tap_ok(pu_count(o, "Flatten") == 3 && pu_count(o, "Reshape") == 2 &&
	       pu_count(o, "Shape") == 2,
	       "upgrade to %d: Softmax/Hardmax on a non-last axis wrapped in "
	       "Flatten/Reshape (the last-axis ones left alone)", target);
	qir_graph_for_each_node(o->graph, n) {
		const char *op = n->op_type;
		size_t want = 0;

		if (!strcmp(op, "Slice"))
			want = 4;
		else if (!strcmp(op, "TopK") || !strcmp(op, "Squeeze") ||
			 !strcmp(op, "Unsqueeze") || !strcmp(op, "Dropout") ||
			 !strcmp(op, "ReduceSum") || !strcmp(op, "ReduceMean"))
			want = 2;
		else if (!strcmp(op, "Clip") || !strcmp(op, "Resize"))
			want = 3;
		if (!strcmp(op, "Pad"))
			want = qir_node_attr(n, "mode") ? 2 : 3;
		if (!strcmp(op, "Split"))
			want = qir_node_attr(n, "num_outputs") ? 1 : 2;
		if (want && n->ninputs != want) {
			tap_diag("%s '%s' has %zu inputs, want %zu", op,
				 n->name, n->ninputs, want);
			ok_inputs = 0;
		}
		if (qir_node_attr(n, "axes") || qir_node_attr(n, "starts") ||
		    qir_node_attr(n, "k") || qir_node_attr(n, "ratio") ||
		    qir_node_attr(n, "pads") || qir_node_attr(n, "split") ||
		    (!strcmp(op, "Clip") && qir_node_attr(n, "min"))) {
			tap_diag("%s '%s' keeps an old attribute", op, n->name);
			ok_inputs = 0;
		}
	}
	tap_ok(ok_inputs, "upgrade to %d: attributes moved to inputs "
	       "(Slice, TopK, Clip, Pad, Squeeze, Unsqueeze, Split, "
	       "ReduceSum/Mean, Dropout)", target);
	n = pu_find(o, "Resize", 0);
	tap_ok(n && !strcmp(qir_node_attr_string(n,
			"coordinate_transformation_mode", ""), "asymmetric") &&
	       !strcmp(qir_node_attr_string(n, "nearest_mode", ""), "floor"),
	       "upgrade to %d: Resize keeps Upsample's sampling", target);
	qir_model_free(o);
	tap_ok(pu_sh("verify.log", "'%s' verify '%s'", pu_env("QOPT", "qopt"),
		     pu_path(file)) == 0, "upgrade to %d: qopt verify", target);
}

static void test_upgrade(void)
{
	qir_model *m = old_model();
	int t;

	pu_save(m, "old9.onnx");
	qir_model_free(m);
	for (t = 19; t <= 25; t += t == 21 ? 4 : 2) {
		char args[128], out[64];

		snprintf(args, sizeof(args), "--stats --passes "
			 "opset-check:upgrade=yes:target=%d", t);
		snprintf(out, sizeof(out), "old9.up%d.onnx", t);
		tap_ok(pu_qopt(args, "old9.onnx", out) == 0,
		       "upgrade 9 -> %d: qopt runs", t);
		check_upgraded(out, t);
		/* ONNX Runtime 1.30 runs opset 25 / IR 13 models. */
		snprintf(args, sizeof(args), "upgrade 9 -> %d: ORT outputs "
			 "match", t);
		pu_ort_same("old9.onnx", out, "--rtol 1e-6 --atol 1e-7", args);
	}
	tap_ok(pu_qopt("--passes opset-check:upgrade=yes", "old9.onnx",
		       "old9.same.onnx") == 0 &&
	       pu_log_has("old9.same.onnx.log", "declares all it needs"),
	       "upgrade without target on a model needing nothing more: "
	       "no change");
}

/* Legacy forms below opset 7. */
static void test_legacy(void)
{
	qir_model *m = qir_model_new(3, 3, NULL), *o;
	qir_graph *g = m->graph;
	int64_t d5 = 5;
	float bv[5] = { 1, 2, 3, 4, 5 };
	qir_value *x = pu_input(g, "x", QIR_FLOAT, 4, d4);
	qir_node *n, *c;

	n = pu_node(g, "Add", "a", x, pu_f32(g, "b", 1, &d5, bv), NULL);
	qir_node_set_attr_int(n, "broadcast", 1);
	c = pu_node(g, "Cast", "c", n->outputs[0], NULL);
	qir_node_set_attr_string(c, "to", "FLOAT16");
	out_of(c, QIR_FLOAT16, 4, d4);
	n = pu_node(g, "Concat", "cc", x, x, NULL);	/* axis 1 default */
	out_of(n, QIR_FLOAT, 4, (int64_t[]){ 2, 6, 4, 5 });
	n = pu_node(g, "Reshape", "r", x, NULL);
	attr_ints(n, "shape", 2, (int64_t)6, (int64_t)-1);
	out_of(n, QIR_FLOAT, 2, (int64_t[]){ 6, 20 });
	pu_save(m, "old3.onnx");
	qir_model_free(m);
	tap_ok(pu_qopt("--passes opset-check:upgrade=yes:target=19",
		       "old3.onnx", "old3.up.onnx") == 0,
	       "upgrade 3 -> 19: qopt runs");
	o = pu_load("old3.up.onnx");
	if (!tap_ok(o != NULL, "old3.up.onnx loads"))
		return;
	n = pu_find(o, "Add", 0);
	c = pu_find(o, "Cast", 0);
	tap_ok(n && !qir_node_attr(n, "broadcast"),
	       "Add-1 legacy broadcast dropped (trailing-aligned)");
	tap_ok(c && qir_node_attr(c, "to")->type == QIR_ATTR_INT &&
	       qir_node_attr_int(c, "to", 0) == QIR_FLOAT16,
	       "Cast-1 type name -> Cast-6 type number");
	n = pu_find(o, "Concat", 0);
	tap_ok(n && qir_node_attr_int(n, "axis", -1) == 1,
	       "Concat-1 default axis made explicit");
	n = pu_find(o, "Reshape", 0);
	tap_ok(n && n->ninputs == 2 && !qir_node_attr(n, "shape"),
	       "Reshape-1 shape attribute -> input");
	qir_model_free(o);
	pu_ort_same("old3.onnx", "old3.up.onnx", "--exact",
		    "upgrade 3 -> 19: ORT outputs match");
}

static void test_unsupported(void)
{
	qir_model *m = qir_model_new(3, 5, NULL);
	qir_graph *g = m->graph;
	qir_value *x = pu_input(g, "x", QIR_FLOAT, 4, d4);
	int64_t one = 2, ax = 1;
	qir_node *n = pu_node(g, "Tile", "t", x,
			      pu_bytes(g, "tiles", QIR_INT64, 0, NULL, &one),
			      pu_bytes(g, "axis", QIR_INT64, 0, NULL, &ax),
			      NULL);

	out_of(n, QIR_FLOAT, 4, (int64_t[]){ 2, 6, 4, 5 });
	pu_save(m, "tile1.onnx");
	qir_model_free(m);
	tap_ok(pu_qopt("--passes opset-check:upgrade=yes:target=13",
		       "tile1.onnx", "tile1.out.onnx") != 0 &&
	       !pu_exists("tile1.out.onnx") &&
	       pu_log_has("tile1.out.onnx.log", "from Tile-1 to Tile-6"),
	       "an op it cannot upgrade fails, naming the op and versions");

	m = qir_model_new(3, 6, NULL);
	g = m->graph;
	x = pu_input(g, "x", QIR_FLOAT, 4, d4);
	n = pu_node(g, "Mul", "mm", x,
		    pu_f32(g, "b3", 1, (int64_t[]){ 3 },
			   (float[]){ 1, 2, 3 }), NULL);
	qir_node_set_attr_int(n, "broadcast", 1);
	qir_node_set_attr_int(n, "axis", 1);
	out_of(n, QIR_FLOAT, 4, d4);
	pu_save(m, "bc6.onnx");
	qir_model_free(m);
	tap_ok(pu_qopt("--passes opset-check:upgrade=yes:target=13",
		       "bc6.onnx", "bc6.out.onnx") != 0 &&
	       pu_log_has("bc6.out.onnx.log", "not trailing-aligned"),
	       "legacy broadcast along a middle axis: refused");
}

int main(void)
{
	pu_init("passes-opset-check");
	test_reasons();
	test_require();
	test_upgrade();
	test_legacy();
	test_unsupported();
	return tap_done();
}

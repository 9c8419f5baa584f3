/*
 * tests/passes/cast_fold/cast-fold.c - the cast-fold pass on synthetic graphs,
 * through the qopt binary: every pattern, every negative case, and the
 * rewritten models against the originals in ONNX Runtime.
 *
 * Tolerances (ORT, seeded random inputs in [-1, 1)):
 *  - DQ -> Cast(FLOAT16): DQ now multiplies by the FLOAT16-rounded scale
 *    in FLOAT16 instead of rounding an FP32 product: rtol 2e-3
 *    (2 FLOAT16 ulps), atol 1e-3.
 *  - Cast -> Q: Q divides in FLOAT16; a value near a rounding boundary
 *    may land one quantum away: atol = one quantum (the scale, 0.05),
 *    rtol 0.
 *  - redundant casts: bitwise (--exact).
 */
#include "../util.h"

static const int64_t d28[2] = { 2, 8 };

/* x(FLOAT) -> Q(s, zp) -> DQ(sd, zp) -> d; extra(d) when extra. */
static qir_model *qdq_model(int opset, float dq_scale, int shared,
			    const char *cast_to_fp16_or_relu)
{
	qir_model *m = qir_model_new(opset >= 21 ? 10 : 9, opset, NULL);
	qir_graph *g = m->graph;
	float s = 0.05f;
	int8_t z = 0;
	qir_value *x = pu_input(g, "x", QIR_FLOAT, 2, d28);
	qir_value *sv = pu_f32(g, "s", 0, NULL, &s);
	qir_value *zp = pu_bytes(g, "zp", QIR_INT8, 0, NULL, &z);
	qir_value *sd = shared ? sv : pu_f32(g, "sd", 0, NULL, &dq_scale);
	qir_node *q = pu_node(g, "QuantizeLinear", "q", x, sv, zp, NULL);
	qir_node *dq = pu_node(g, "DequantizeLinear", "d", q->outputs[0], sd,
			       zp, NULL);
	qir_node *c = pu_node(g, "Cast", "y", dq->outputs[0], NULL);

	qir_node_set_attr_int(c, "to", QIR_FLOAT16);
	pu_output(c->outputs[0], QIR_FLOAT16, 2, d28);
	if (cast_to_fp16_or_relu) {
		qir_node *r = pu_node(g, "Relu", "y2", dq->outputs[0], NULL);

		pu_output(r->outputs[0], QIR_FLOAT, 2, d28);
	}
	return m;
}

static int init_dtype(qir_value *v)
{
	qir_tensor *t = v ? qir_value_const(v) : NULL;

	return t ? t->dtype : -1;
}

static void test_dq_cast(void)
{
	qir_model *m = qdq_model(19, 0.05f, 1, NULL), *o;
	qir_node *dq, *q;

	pu_save(m, "dqc.onnx");
	qir_model_free(m);
	tap_ok(pu_qopt("--stats --passes cast-fold", "dqc.onnx",
		       "dqc.out.onnx") == 0, "DQ->Cast: qopt runs");
	o = pu_load("dqc.out.onnx");
	if (!tap_ok(o != NULL, "dqc.out.onnx loads"))
		return;
	dq = pu_find(o, "DequantizeLinear", 0);
	q = pu_find(o, "QuantizeLinear", 0);
	tap_ok(pu_count(o, "Cast") == 0, "DQ->Cast: Cast removed");
	tap_ok(dq && init_dtype(dq->inputs[1]) == QIR_FLOAT16,
	       "DQ->Cast: DQ scale is FLOAT16");
	tap_ok(q && !strcmp(q->inputs[1]->name, "s") &&
	       init_dtype(q->inputs[1]) == QIR_FLOAT,
	       "DQ->Cast: the scale shared with Q is duplicated, Q's unchanged");
	tap_ok(o->graph->noutputs == 1 &&
	       !strcmp(o->graph->outputs[0]->name, "y") &&
	       o->graph->outputs[0]->dtype == QIR_FLOAT16 &&
	       o->graph->outputs[0]->producer == dq,
	       "DQ->Cast: output 'y' kept, FLOAT16, produced by the DQ");
	tap_ok(pu_log_has("dqc.out.onnx.log", "casts folded"),
	       "DQ->Cast: stats report the fold");
	qir_model_free(o);
	pu_ort_same("dqc.onnx", "dqc.out.onnx", "--rtol 2e-3 --atol 1e-3",
		    "DQ->Cast: ORT outputs match (rtol 2e-3)");
}

static void test_dq_other_consumer(void)
{
	qir_model *m = qdq_model(19, 0.05f, 0, "relu"), *o;
	qir_node *r;

	pu_save(m, "dqr.onnx");
	qir_model_free(m);
	tap_ok(pu_qopt("--passes cast-fold", "dqr.onnx", "dqr.out.onnx") == 0,
	       "DQ with another consumer: qopt runs");
	o = pu_load("dqr.out.onnx");
	if (!tap_ok(o != NULL, "dqr.out.onnx loads"))
		return;
	r = pu_find(o, "Relu", 0);
	tap_ok(pu_count(o, "Cast") == 0 &&
	       pu_count(o, "DequantizeLinear") == 2,
	       "DQ with another consumer: Cast folded into a copy of the DQ");
	tap_ok(r && r->inputs[0]->producer &&
	       init_dtype(r->inputs[0]->producer->inputs[1]) == QIR_FLOAT,
	       "DQ with another consumer: Relu still reads the FP32-scale DQ");
	qir_model_free(o);
	pu_ort_same("dqr.onnx", "dqr.out.onnx", "--rtol 2e-3 --atol 1e-3",
		    "DQ with another consumer: ORT outputs match");
}

static void test_opset18(void)
{
	qir_model *m = qdq_model(18, 0.05f, 0, NULL), *o;

	pu_save(m, "o18.onnx");
	qir_model_free(m);
	tap_ok(pu_qopt("--stats --passes cast-fold", "o18.onnx",
		       "o18.out.onnx") == 0, "opset 18: qopt runs");
	o = pu_load("o18.out.onnx");
	tap_ok(o && pu_count(o, "Cast") == 1 &&
	       init_dtype(pu_find(o, "DequantizeLinear", 0)->inputs[1]) ==
	       QIR_FLOAT, "opset 18: no change");
	tap_ok(pu_log_has("o18.out.onnx.log", "skipped (opset < 19)"),
	       "opset 18: stats note the skip");
	tap_ok(pu_log_has("o18.out.onnx.log", "warning: 1 Cast(s) next to "
			  "Q/DQ left alone: folding them needs opset >= 19"),
	       "opset 18: one warning says what was left and why");
	qir_model_free(o);
	tap_ok(pu_qopt("--strict --passes cast-fold", "o18.onnx",
		       "o18s.out.onnx") != 0 && !pu_exists("o18s.out.onnx") &&
	       pu_log_has("o18s.out.onnx.log", "opset >= 19"),
	       "opset 18 with --strict: the warning fails the run, no output");
}

static void test_unrepresentable(float scale, const char *what)
{
	qir_model *m = qdq_model(19, scale, 0, NULL), *o;

	pu_save(m, "big.onnx");
	qir_model_free(m);
	tap_ok(pu_qopt("--stats --passes cast-fold", "big.onnx",
		       "big.out.onnx") == 0, "%s: qopt runs", what);
	o = pu_load("big.out.onnx");
	tap_ok(o && pu_count(o, "Cast") == 1, "%s: not folded", what);
	tap_ok(pu_log_has("big.out.onnx.log", "scale 'sd'") &&
	       pu_log_has("big.out.onnx.log", "not representable"),
	       "%s: warning names the tensor, stats count the skip", what);
	qir_model_free(o);
}

/* x(FLOAT16) -> Cast(FLOAT) -> Q -> DQ -> y; relu: Cast also feeds a
 * Relu (then nothing may change). */
static qir_model *castq_model(int relu)
{
	qir_model *m = qir_model_new(9, 19, NULL);
	qir_graph *g = m->graph;
	float s = 0.05f;
	int8_t z = 0;
	qir_value *x = pu_input(g, "x", QIR_FLOAT16, 2, d28);
	qir_value *sv = pu_f32(g, "s", 0, NULL, &s);
	qir_value *sd = pu_f32(g, "sd", 0, NULL, &s);
	qir_value *zp = pu_bytes(g, "zp", QIR_INT8, 0, NULL, &z);
	qir_node *c = pu_node(g, "Cast", "xf", x, NULL);
	qir_node *q, *dq;

	qir_node_set_attr_int(c, "to", QIR_FLOAT);
	q = pu_node(g, "QuantizeLinear", "q", c->outputs[0], sv, zp, NULL);
	dq = pu_node(g, "DequantizeLinear", "y", q->outputs[0], sd, zp, NULL);
	pu_output(dq->outputs[0], QIR_FLOAT, 2, d28);
	if (relu) {
		qir_node *r = pu_node(g, "Relu", "y2", c->outputs[0], NULL);

		pu_output(r->outputs[0], QIR_FLOAT, 2, d28);
	}
	return m;
}

static void test_cast_q(void)
{
	qir_model *m = castq_model(0), *o;
	qir_node *q;

	pu_save(m, "cq.onnx");
	qir_model_free(m);
	tap_ok(pu_qopt("--passes cast-fold", "cq.onnx", "cq.out.onnx") == 0,
	       "Cast->Q: qopt runs");
	o = pu_load("cq.out.onnx");
	if (!tap_ok(o != NULL, "cq.out.onnx loads"))
		return;
	q = pu_find(o, "QuantizeLinear", 0);
	tap_ok(pu_count(o, "Cast") == 0, "Cast->Q: Cast removed");
	tap_ok(q && !strcmp(q->inputs[0]->name, "x") &&
	       init_dtype(q->inputs[1]) == QIR_FLOAT16,
	       "Cast->Q: Q reads the FLOAT16 input with a FLOAT16 scale");
	qir_model_free(o);
	pu_ort_same("cq.onnx", "cq.out.onnx", "--rtol 0 --atol 0.0501",
		    "Cast->Q: ORT outputs within one quantum");

	m = castq_model(1);
	pu_save(m, "cqr.onnx");
	qir_model_free(m);
	tap_ok(pu_qopt("--passes cast-fold", "cqr.onnx", "cqr.out.onnx") == 0,
	       "Cast with a non-Q consumer: qopt runs");
	o = pu_load("cqr.out.onnx");
	tap_ok(o && pu_count(o, "Cast") == 1 &&
	       init_dtype(pu_find(o, "QuantizeLinear", 0)->inputs[1]) ==
	       QIR_FLOAT, "Cast with a non-Q consumer: no change");
	qir_model_free(o);
}

/* NVFP4 weight: DQ(DQ(s8, g) -> block scales) -> Cast(FLOAT16) ->
 * MatMul. ORT cannot run FLOAT4E2M1: structure only. */
static void test_nvfp4_chain(float gval, int expect_fold)
{
	qir_model *m = qir_model_new(11, 23, NULL), *o;
	qir_graph *g = m->graph;
	int64_t dw[2] = { 4, 16 }, ds[2] = { 4, 1 }, dx[2] = { 2, 4 };
	int64_t dy[2] = { 2, 16 };
	uint8_t codes[32], s8[4] = { 0x38, 0x40, 0x30, 0x7e };
	qir_value *x = pu_input(g, "x", QIR_FLOAT16, 2, dx);
	qir_value *w, *s, *gv;
	qir_node *d1, *d2, *c, *mm;
	int i;

	for (i = 0; i < 32; i++)
		codes[i] = (uint8_t)(i * 37);
	w = pu_bytes(g, "w_f4", QIR_FLOAT4E2M1, 2, dw, codes);
	s = pu_bytes(g, "w_s8", QIR_FLOAT8E4M3FN, 2, ds, s8);
	gv = pu_f32(g, "g", 0, NULL, &gval);
	d1 = pu_node(g, "DequantizeLinear", "w_scale", s, gv, NULL);
	d2 = pu_node(g, "DequantizeLinear", "w_deq", w, d1->outputs[0], NULL);
	qir_node_set_attr_int(d2, "axis", 1);
	qir_node_set_attr_int(d2, "block_size", 16);
	c = pu_node(g, "Cast", "w_h", d2->outputs[0], NULL);
	qir_node_set_attr_int(c, "to", QIR_FLOAT16);
	mm = pu_node(g, "MatMul", "y", x, c->outputs[0], NULL);
	pu_output(mm->outputs[0], QIR_FLOAT16, 2, dy);
	pu_save(m, "nv.onnx");
	qir_model_free(m);
	tap_ok(pu_qopt("--stats --passes cast-fold", "nv.onnx",
		       "nv.out.onnx") == 0, "NVFP4 chain (g=%g): qopt runs",
	       (double)gval);
	o = pu_load("nv.out.onnx");
	if (!tap_ok(o != NULL, "nv.out.onnx loads"))
		return;
	d2 = pu_find(o, "MatMul", 0)->inputs[1]->producer;
	if (expect_fold) {
		d1 = d2 ? d2->inputs[1]->producer : NULL;
		tap_ok(pu_count(o, "Cast") == 0 && d2 &&
		       !strcmp(d2->op_type, "DequantizeLinear") &&
		       d2->outputs[0]->dtype == QIR_FLOAT16 &&
		       qir_node_attr_int(d2, "block_size", 0) == 16,
		       "NVFP4 chain: Cast gone, weight DQ outputs FLOAT16, "
		       "block_size kept");
		tap_ok(d1 && !strcmp(d1->op_type, "DequantizeLinear") &&
		       init_dtype(d1->inputs[1]) == QIR_FLOAT16 &&
		       init_dtype(d1->inputs[0]) == QIR_FLOAT8E4M3FN,
		       "NVFP4 chain: global scale FLOAT16, block scales "
		       "retyped through the first DQ");
		tap_ok(pu_count(o, "DequantizeLinear") == 2,
		       "NVFP4 chain: the FP32 chain is gone");
	} else {
		tap_ok(pu_count(o, "Cast") == 1,
		       "NVFP4 chain with g=%g: not folded", (double)gval);
		tap_ok(pu_log_has("nv.out.onnx.log", "not folded"),
		       "NVFP4 chain with g=%g: warned", (double)gval);
	}
	qir_model_free(o);
}

static void test_redundant(void)
{
	qir_model *m = qir_model_new(8, 13, NULL), *o;
	qir_graph *g = m->graph;
	int64_t d3 = 3;
	float cv[3] = { 1.5f, -2.0f, 3.0f };
	qir_value *x = pu_input(g, "x", QIR_FLOAT, 1, &d3);
	qir_value *h = pu_input(g, "h", QIR_FLOAT16, 1, &d3);
	qir_value *cst = pu_f32(g, "cst", 1, &d3, cv);
	qir_node *c1, *r, *c2, *c3, *c4, *add;

	c1 = pu_node(g, "Cast", "a", x, NULL);
	qir_node_set_attr_int(c1, "to", QIR_FLOAT);
	r = pu_node(g, "Relu", "y1", c1->outputs[0], NULL);
	pu_output(r->outputs[0], QIR_FLOAT, 1, &d3);
	c2 = pu_node(g, "Cast", "hf", h, NULL);
	qir_node_set_attr_int(c2, "to", QIR_FLOAT);
	c3 = pu_node(g, "Cast", "y2", c2->outputs[0], NULL);
	qir_node_set_attr_int(c3, "to", QIR_DOUBLE);
	pu_output(c3->outputs[0], QIR_DOUBLE, 1, &d3);
	pu_output(c2->outputs[0], QIR_FLOAT, 1, &d3);
	c4 = pu_node(g, "Cast", "ch", cst, NULL);
	qir_node_set_attr_int(c4, "to", QIR_FLOAT16);
	add = pu_node(g, "Add", "y4", h, c4->outputs[0], NULL);
	pu_output(add->outputs[0], QIR_FLOAT16, 1, &d3);
	pu_save(m, "red.onnx");
	qir_model_free(m);
	tap_ok(pu_qopt("--stats --passes cast-fold", "red.onnx",
		       "red.out.onnx") == 0, "redundant casts: qopt runs");
	o = pu_load("red.out.onnx");
	if (!tap_ok(o != NULL, "red.out.onnx loads"))
		return;
	r = pu_find(o, "Relu", 0);
	add = pu_find(o, "Add", 0);
	c3 = qir_graph_find_value(o->graph, "y2") ?
	     qir_graph_find_value(o->graph, "y2")->producer : NULL;
	tap_ok(r && !strcmp(r->inputs[0]->name, "x"),
	       "Cast to its own type removed");
	tap_ok(c3 && !strcmp(c3->op_type, "Cast") &&
	       !strcmp(c3->inputs[0]->name, "h"),
	       "Cast->Cast after a widening Cast reads the original");
	tap_ok(add && !add->inputs[1]->producer &&
	       init_dtype(add->inputs[1]) == QIR_FLOAT16,
	       "Cast of a constant folded into a FLOAT16 constant");
	tap_ok(pu_count(o, "Cast") == 2 &&
	       qir_graph_find_value(o->graph, "hf") &&
	       qir_graph_find_value(o->graph, "hf")->producer,
	       "the widening Cast stays for its other consumer");
	qir_model_free(o);
	pu_ort_same("red.onnx", "red.out.onnx", "--exact",
		    "redundant casts: ORT outputs bitwise equal");
	/* The bisect gate: limit 1 runs the pass but allows no rewrite;
	 * limit 2 allows exactly one. */
	tap_ok(pu_qopt("--bisect-limit 1 --passes cast-fold", "red.onnx",
		       "red1.out.onnx") == 0 &&
	       (o = pu_load("red1.out.onnx")) && pu_count(o, "Cast") == 4,
	       "--bisect-limit 1: no rewrite gets past the gate");
	qir_model_free(o);
	tap_ok(pu_qopt("--bisect-limit 2 --passes cast-fold", "red.onnx",
		       "red2.out.onnx") == 0 &&
	       (o = pu_load("red2.out.onnx")) && pu_count(o, "Cast") == 3,
	       "--bisect-limit 2: exactly one rewrite");
	qir_model_free(o);
}

/* The round cap says when it stopped the pass: one round on a chain
 * of two redundant Casts still rewrites, so the cap is hit. */
static void test_round_cap(void)
{
	qir_model *m = qir_model_new(8, 13, NULL);
	qir_graph *g = m->graph;
	int64_t d3 = 3;
	qir_value *x = pu_input(g, "x", QIR_FLOAT, 1, &d3);
	qir_node *c1, *c2;

	c1 = pu_node(g, "Cast", "c1", x, NULL);
	qir_node_set_attr_int(c1, "to", QIR_FLOAT);
	c2 = pu_node(g, "Cast", "c2", c1->outputs[0], NULL);
	qir_node_set_attr_int(c2, "to", QIR_FLOAT);
	pu_output(c2->outputs[0], QIR_FLOAT, 1, &d3);
	pu_save(m, "cap.onnx");
	qir_model_free(m);
	tap_ok(pu_qopt("--passes cast-fold:max_rounds=1", "cap.onnx",
		       "cap.out.onnx") == 0 &&
	       pu_log_has("cap.out.onnx.log", "stopped after 1 round(s)"),
	       "max_rounds=1: the cap is reported");
	tap_ok(pu_qopt("--strict --passes cast-fold:max_rounds=1", "cap.onnx",
		       "cap2.out.onnx") != 0 && !pu_exists("cap2.out.onnx"),
	       "max_rounds=1 with --strict: the cap fails the run");
	tap_ok(pu_qopt("--passes cast-fold", "cap.onnx", "cap3.out.onnx") == 0 &&
	       !pu_log_has("cap3.out.onnx.log", "stopped after"),
	       "default cap: no warning when the rounds run out of work");
	tap_ok(pu_qopt("--passes cast-fold:max_rounds=0", "cap.onnx",
		       "cap4.out.onnx") != 0 &&
	       pu_log_has("cap4.out.onnx.log", "option 'max_rounds' of pass 'cast-fold' is out of range: 0"),
	       "max_rounds=0 refused");
}

int main(void)
{
	pu_init("passes-cast-fold");
	test_round_cap();
	test_dq_cast();
	test_dq_other_consumer();
	test_cast_q();
	test_opset18();
	test_unrepresentable(1e6f, "scale overflowing FLOAT16");
	test_unrepresentable(1e-9f, "scale underflowing FLOAT16");
	test_nvfp4_chain(0.01f, 1);
	test_nvfp4_chain(1e-9f, 0);
	test_redundant();
	return tap_done();
}

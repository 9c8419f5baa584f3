/*
 * fuzz/fuzz-passes.c - libFuzzer target: every built-in pass on a
 * fuzzed model, through the pass manager as qopt runs a pipeline. The
 * passes are linked in (fuzz/local.mk compiles their sources with
 * coverage, each entry function renamed) and registered as tables.
 *
 * A model that loads and verifies goes through each pipeline below, on
 * a fresh load each time (a pipeline changes the model). A pass may
 * refuse the model (an error); it may not crash, hang, trip a
 * sanitizer, or succeed and leave a model that does not verify, save
 * and reload.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <qopt/ir.h>
#include "manager/run.h"

/* QOPT_PLUGIN's entry function of each pass, renamed (fuzz/local.mk). */
const qopt_plugin_info *fuzz_entry_cast_fold(void);
const qopt_plugin_info *fuzz_entry_opset_check(void);
const qopt_plugin_info *fuzz_entry_hadamard_rotate(void);
const qopt_plugin_info *fuzz_entry_nvfp4(void);
const qopt_plugin_info *fuzz_entry_fp8(void);
const qopt_plugin_info *fuzz_entry_infer_shapes(void);
const qopt_plugin_info *fuzz_entry_mxfp8(void);

/* Every pass in one pipeline with small thresholds (so that tiny
 * fuzzed weights are targets), the variants of the options that take
 * other code paths, and each weight pass alone (a failure early in a
 * pipeline would hide the later passes). */
static const char *const pipelines[] = {
	"infer-shapes,opset-check,cast-fold,hadamard-rotate:min_size=0,"
	"nvfp4-weights:min_size=0,fp8-mha",
	"hadamard-rotate:min_size=0:fold=no:quantizer=nvfp4:block_size=16,"
	"nvfp4-weights:min_size=0:mode=fake:rotate=rotate_back,"
	"fp8-mha:weight_mode=fake:rotate=rotate_back:weight_axis=yes",
	"hadamard-rotate:min_size=0:quantizer=fp8",
	"nvfp4-weights:min_size=0:op_types=MatMul;Gemm;Conv:target=ort",
	"fp8-mha",
	"cast-fold",
	"mxfp8:min_size=0",
	"mxfp8:min_size=0:mode=fake",
	"mxfp8:min_size=0:format=onnx:activations=no",
};
#define NPIPELINES (sizeof(pipelines) / sizeof(pipelines[0]))

static pm_session *session;
static struct pm_registry *reg;
static struct pm_pipeline pl[NPIPELINES];
static char out_path[256];

static void fail(const char *what, const char *spec, const qir_error *err)
{
	fprintf(stderr, "fuzz-passes: %s (%s): %s\n", what, spec,
		err ? err->msg : "");
	abort();
}

static void setup(void)
{
	static const qopt_plugin_info *(*const entries[])(void) = {
		fuzz_entry_cast_fold, fuzz_entry_opset_check,
		fuzz_entry_hadamard_rotate, fuzz_entry_nvfp4,
		fuzz_entry_fp8, fuzz_entry_infer_shapes,
		fuzz_entry_mxfp8,
	};
	qir_error err = { 0 };
	char name[32];

	/* Only errors: formatting every skip would be most of the time. */
	session = pm_session_new();
	if (!session)
		fail("out of memory", "", NULL);
	pm_msg_setup(session, QOPT_LOG_ERROR, 0);
	reg = pm_registry_new(session);
	if (!reg)
		fail("out of memory", "", NULL);
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		snprintf(name, sizeof(name), "built-in-%zu", i);
		if (pm_registry_add_table(reg, name, entries[i](), &err) < 0)
			fail("a built-in pass table is refused", name, &err);
	}
	for (size_t i = 0; i < NPIPELINES; i++) {
		pm_pipeline_init(&pl[i], session);
		if (pm_pipeline_parse_inline(&pl[i], pipelines[i]) ||
		    pm_pipeline_resolve(&pl[i], reg))
			fail("a pipeline does not resolve", pipelines[i], NULL);
	}
	snprintf(out_path, sizeof(out_path), "%s/qopt-fuzz-passes-%ld.onnx",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
		 (long)getpid());
}

/* What a successful run left must verify, save and load again. */
static void check_result(qir_model *m, const char *spec)
{
	qir_save_opts so = QIR_SAVE_OPTS_INIT;
	qir_error err = { 0 };
	qir_model *back = NULL;

	if (qir_verify(m, &err) < 0)
		fail("a pipeline succeeded but the IR does not verify", spec,
		     &err);
	so.all_inline = 1;
	if (qir_model_save(m, out_path, &so, &err) < 0) {
		if (err.code == QIR_EINVALID && strstr(err.msg, "2 GiB"))
			return;
		fail("a pipeline's result does not save", spec, &err);
	}
	if (qir_model_load(out_path, NULL, &back, &err) < 0)
		fail("a pipeline's result does not reload", spec, &err);
	if (qir_verify(back, &err) < 0)
		fail("a pipeline's reloaded result does not verify", spec, &err);
	qir_model_free(back);
	unlink(out_path);
}

static void run_one(const uint8_t *data, size_t size, size_t i)
{
	struct pm_run_opts o = { 0 };
	struct pm_run run;
	qir_error err = { 0 };
	qir_model *m = NULL;

	if (qir_model_load_buffer(data, size, NULL, &m, &err) < 0)
		return;
	o.bisect_limit = -1;
	o.device = QK_DEVICE_CPU;
	o.threads = 1;
	if (pm_run_init(&run, &pl[i], &o, &err) < 0)
		fail("the run does not start", pipelines[i], &err);
	if (pm_run_model(&run, m) == 0)
		check_result(m, pipelines[i]);
	pm_run_fini(&run);
	qir_model_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	qir_error err = { 0 };
	qir_model *m = NULL;
	int ok;

	if (!reg)
		setup();
	/* No folder: external data is refused, never read. */
	if (qir_model_load_buffer(data, size, NULL, &m, &err) < 0)
		return 0;
	ok = qir_verify(m, &err) == 0;
	qir_model_free(m);
	if (!ok)
		return 0;
	for (size_t i = 0; i < NPIPELINES; i++)
		run_one(data, size, i);
	return 0;
}

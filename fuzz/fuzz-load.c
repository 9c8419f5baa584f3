/*
 * fuzz/fuzz-load.c - libFuzzer target: the model loader, the verifier,
 * the writer and the loader again. Whatever the bytes, nothing may
 * crash, hang or trip a sanitizer; and a model that loaded and
 * verified must save, reload, verify and hash the same.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <qopt/ir.h>
#include <qopt/upgrade.h>

static char out_path[256];

/* One file per process, on tmpfs where there is one: the writer
 * fsyncs every save. */
static const char *scratch(void)
{
	if (!out_path[0]) {
		const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" :
				  getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

		snprintf(out_path, sizeof(out_path), "%s/qopt-fuzz-%ld.onnx",
			 dir, (long)getpid());
	}
	return out_path;
}

static void fail(const char *what, const qir_error *err)
{
	fprintf(stderr, "fuzz-load: %s: %s\n", what, err ? err->msg : "");
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	qir_error err = { 0 };
	qir_model *m = NULL, *back = NULL;
	qir_save_opts so = QIR_SAVE_OPTS_INIT;
	uint64_t h;

	/* No folder: external data is refused, never read. */
	if (qir_model_load_buffer(data, size, NULL, &m, &err) < 0)
		return 0;
	if (qir_verify(m, &err) < 0) {
		qir_model_free(m);
		return 0;
	}
	/* An IR version newer than libqopt knows is written as the newest
	 * it knows (ir/onnx/onnx_write.c): the model hashed is that one. */
	if (m->ir_version > qir_opset_min_ir_version(qir_upgrade_max_opset()))
		m->ir_version = qir_opset_min_ir_version(qir_upgrade_max_opset());
	h = qir_model_hash(m);
	so.all_inline = 1;
	if (qir_model_save(m, scratch(), &so, &err) < 0) {
		/* Too big for one protobuf is the one honest refusal. */
		if (err.code == QIR_EINVALID && strstr(err.msg, "2 GiB")) {
			qir_model_free(m);
			return 0;
		}
		fail("a verified model does not save", &err);
	}
	if (qir_model_load(scratch(), NULL, &back, &err) < 0)
		fail("a saved model does not reload", &err);
	if (qir_verify(back, &err) < 0)
		fail("a reloaded model does not verify", &err);
	if (qir_model_hash(back) != h)
		fail("the reloaded model hashes differently", NULL);
	qir_model_free(back);
	qir_model_free(m);
	unlink(scratch());
	return 0;
}

/*
 * tests/passes/util.h - helpers for the opset-check and cast-fold tests:
 * build small models with the IR API, run them through the qopt binary,
 * inspect the result, compare outputs in ONNX Runtime.
 */
#ifndef QOPT_TESTS_PASSES_UTIL_H
#define QOPT_TESTS_PASSES_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <qopt/qopt.h>
#include "../lib/tap.h"

static char pu_work[1024];

static inline const char *pu_env(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

static inline void pu_init(const char *name)
{
	char cmd[8192];

	snprintf(pu_work, sizeof(pu_work), "%s/tests/work/%s",
		 pu_env("top_builddir", "."), name);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", pu_work,
		 pu_work);
	if (system(cmd) != 0) {
		printf("Bail out! cannot create %s\n", pu_work);
		exit(1);
	}
}

static inline const char *pu_path(const char *file)
{
	static char buf[4][2048];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", pu_work, file);
	return buf[k];
}

static inline qir_value *pu_input(qir_graph *g, const char *name, int dtype,
			   int rank, const int64_t *dims)
{
	qir_value *v = qir_value_new(g, name);

	qir_value_set_type(v, dtype, rank, dims, NULL);
	qir_graph_add_input(g, v);
	return v;
}

static inline void pu_output(qir_value *v, int dtype, int rank, const int64_t *dims)
{
	qir_value_set_type(v, dtype, rank, dims, NULL);
	qir_graph_add_output(v->graph, v);
}

/* A FLOAT initializer holding vals. */
static inline qir_value *pu_f32(qir_graph *g, const char *name, int rank,
			 const int64_t *dims, const float *vals)
{
	qir_tensor *t = qir_tensor_new(name, QIR_FLOAT, rank, dims, NULL);

	memcpy(qir_tensor_mutable_data(t, NULL), vals, t->nbytes);
	return qir_graph_add_initializer(g, t);
}

static inline qir_value *pu_bytes(qir_graph *g, const char *name, int dtype,
			   int rank, const int64_t *dims, const void *bytes)
{
	qir_tensor *t = qir_tensor_new(name, dtype, rank, dims, NULL);

	if (bytes)
		memcpy(qir_tensor_mutable_data(t, NULL), bytes, t->nbytes);
	return qir_graph_add_initializer(g, t);
}

static inline qir_value *pu_i64(qir_graph *g, const char *name, size_t n,
			 const int64_t *vals)
{
	int64_t d = (int64_t)n;

	return pu_bytes(g, name, QIR_INT64, 1, &d, vals);
}

/* A node with the given inputs (NULL-terminated) and one output. */
static inline qir_node *pu_node(qir_graph *g, const char *op, const char *out,
			 ...)
{
	qir_node *n = qir_node_new(g, op, "", out);
	qir_value *v;
	va_list ap;

	va_start(ap, out);
	while ((v = va_arg(ap, qir_value *)) != NULL)
		qir_node_add_input(n, v);
	va_end(ap);
	qir_node_add_output(n, NULL, out);
	return n;
}

static inline int pu_save(qir_model *m, const char *file)
{
	qir_error err = { 0 };

	if (qir_model_save(m, pu_path(file), NULL, &err) < 0) {
		tap_diag("save %s: %s", file, err.msg);
		return -1;
	}
	return 0;
}

/* Runs a shell command; its output goes to file `log` in the work
 * folder. Returns the exit status. */
static inline int pu_sh(const char *log, const char *fmt, ...)
{
	char cmd[8192], full[12288];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	snprintf(full, sizeof(full), "(%s) >'%s' 2>&1", cmd, pu_path(log));
	st = system(full);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* qopt ARGS IN -o OUT; the log is OUT.log. */
static inline int pu_qopt(const char *args, const char *in, const char *out)
{
	char log[1024];

	snprintf(log, sizeof(log), "%s.log", out);
	unlink(pu_path(out));
	return pu_sh(log, "'%s' %s '%s' -o '%s'",
		     pu_env("QOPT", "./qopt"), args, pu_path(in),
		     pu_path(out));
}

static inline int pu_exists(const char *file)
{
	struct stat st;

	return stat(pu_path(file), &st) == 0;
}

/* 1 when the log `log` contains s. */
static inline int pu_log_has(const char *log, const char *s)
{
	FILE *f = fopen(pu_path(log), "r");
	char line[4096];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, s) != NULL;
	fclose(f);
	return found;
}

static inline qir_model *pu_load(const char *file)
{
	qir_error err = { 0 };
	qir_model *m = NULL;

	if (qir_model_load(pu_path(file), NULL, &m, &err) < 0) {
		tap_diag("load %s: %s", file, err.msg);
		return NULL;
	}
	return m;
}

struct pu_count {
	const char *op;
	int n;
};

static inline int pu_count_cb(qir_graph *g, void *arg)
{
	struct pu_count *c = arg;
	qir_node *n;

	qir_graph_for_each_node(g, n)
		if (!strcmp(n->op_type, c->op))
			c->n++;
	return 0;
}

/* Nodes of type op in every graph of m. */
static inline int pu_count(qir_model *m, const char *op)
{
	struct pu_count c = { op, 0 };

	qir_graph_walk(m->graph, pu_count_cb, &c);
	return c.n;
}

static inline qir_node *pu_find(qir_model *m, const char *op, int nth)
{
	qir_node *n;

	qir_graph_for_each_node(m->graph, n)
		if (!strcmp(n->op_type, op) && nth-- == 0)
			return n;
	return NULL;
}

/* Why ORT cannot be used, or NULL. */
static inline const char *pu_ort_missing(void)
{
	static char why[512];
	char p[4096];
	struct stat st;
	const char *node = pu_env("NODE", "no");

	if (!strcmp(node, "no"))
		return "node not found at configure time";
	snprintf(p, sizeof(p), "%s/node_modules/onnxruntime-node",
		 pu_env("QOPT_ORT_DIR", "tests/ort"));
	if (stat(p, &st) != 0) {
		snprintf(why, sizeof(why), "onnxruntime-node not installed "
			 "in %s", pu_env("QOPT_ORT_DIR", "tests/ort"));
		return why;
	}
	return NULL;
}

/* Compares a and b in ORT on seeded random inputs (run-compare.js).
 * One TAP line; SKIP when ORT is missing or cannot run a. */
static inline void pu_ort_same(const char *a, const char *b, const char *opts,
			const char *what)
{
	const char *why = pu_ort_missing();
	char log[1024];
	int rc;

	if (why) {
		tap_skip(why, "%s", what);
		return;
	}
	snprintf(log, sizeof(log), "%s.ort.log", b);
	rc = pu_sh(log, "'%s' '%s/tests/ort/run-compare.js' %s '%s' '%s'",
		   pu_env("NODE", "node"), pu_env("top_srcdir", "."),
		   opts ? opts : "", pu_path(a), pu_path(b));
	if (rc == 77) {
		tap_skip("ORT cannot run the original", "%s", what);
		return;
	}
	if (!tap_ok(rc == 0, "%s", what)) {
		FILE *f = fopen(pu_path(log), "r");
		char line[2048];

		while (f && fgets(line, sizeof(line), f))
			tap_diag("%s", strtok(line, "\n") ? line : "");
		if (f)
			fclose(f);
	}
}

#endif

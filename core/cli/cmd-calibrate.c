/*
 * core/cli/cmd-calibrate.c - `qopt calibrate`: activation ranges for
 * fp8-mha's calibrated Q/DQ placement.
 *
 * qopt owns the model side: it loads the model exactly as a pipeline
 * does (nodes sorted), takes qir_model_hash() of it (fp8-mha compares
 * the same hash, so a file made for another model or an edited one is
 * refused), picks the tensors fp8-mha may quantize (the non-constant
 * float inputs of MatMul, Gemm and Conv, Softmax outputs excepted: their
 * scale is fixed), and writes a copy of the model that exposes them as
 * graph outputs, since ONNX Runtime returns graph outputs only. The
 * runtime side (reading samples, running ORT, reducing to amax) is the
 * node script qopt-calibrate-ort, which writes the JSON file.
 */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "cli/cli.h"

struct calib_args {
	const char *model, *data, *output;
	const char **dims;	/* NAME=VALUE, for --random */
	size_t ndims;
	double percentile;	/* 100: plain max */
	long random, seed;
};

static int calib_usage(const char *msg, const char *arg)
{
	if (msg)
		fprintf(stderr, "qopt calibrate: error: %s%s%s\n", msg,
			arg ? " " : "", arg ? arg : "");
	fputs("usage: qopt calibrate MODEL.onnx --data DIR [-o CALIB.json] "
	      "[--percentile P]\n"
	      "       qopt calibrate MODEL.onnx --random N [--seed S] "
	      "[--dim NAME=VALUE]... (smoke test only)\n", stderr);
	return QOPT_EXIT_USAGE;
}

static int parse_number(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi))
		return -1;
	*out = v;
	return 0;
}

static int calib_parse(struct calib_args *a, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "data", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "percentile", required_argument, NULL, 'P' },
		{ "random", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "dim", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char **nd;
	double v;
	int ch;

	a->percentile = 100.0;
	a->seed = 1;
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":d:o:h", lo, NULL)) != -1) {
		switch (ch) {
		case 'd': a->data = optarg; break;
		case 'o': a->output = optarg; break;
		case 'P':
			if (parse_number(optarg, 50.0, 100.0, &a->percentile))
				return calib_usage("--percentile takes a number "
						   "from 50 to 100, got", optarg);
			break;
		case 'r':
			if (parse_number(optarg, 1, 1e6, &v) || v != (long)v)
				return calib_usage("--random takes a sample count "
						   "from 1 to 1000000, got", optarg);
			a->random = (long)v;
			break;
		case 's':
			if (parse_number(optarg, 0, 4294967295.0, &v) ||
			    v != (long)v)
				return calib_usage("--seed takes an integer from 0 "
						   "to 2^32-1, got", optarg);
			a->seed = (long)v;
			break;
		case 'D':
			if (!strchr(optarg, '=') || optarg[0] == '=' ||
			    parse_number(strchr(optarg, '=') + 1, 1, 1e9, &v) ||
			    v != (long)v)
				return calib_usage("--dim expects NAME=VALUE with a "
						   "positive integer VALUE, got",
						   optarg);
			nd = realloc(a->dims, (a->ndims + 1) * sizeof(*nd));
			if (!nd)
				return calib_usage("out of memory", NULL);
			a->dims = nd;
			a->dims[a->ndims++] = optarg;
			break;
		case 'h':
			calib_usage(NULL, NULL);
			return -1;
		case ':':
			return calib_usage("missing argument for", argv[optind - 1]);
		default:
			return calib_usage("unknown option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		a->model = argv[optind++];
	if (optind < argc)
		return calib_usage("unexpected argument", argv[optind]);
	if (!a->model || !*a->model)
		return calib_usage("no input model given", NULL);
	if (!!a->data == !!a->random)
		return calib_usage("give either --data DIR or --random N", NULL);
	if (a->ndims && !a->random)
		return calib_usage("--dim belongs to --random", NULL);
	if (a->output && !*a->output)
		return calib_usage("-o needs a file name, got ''", NULL);
	return 0;
}

/* ------------------------------------------------------------------ */
/* the job file: what the script needs, as JSON */

static void json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void json_value_type(FILE *f, const qir_value *v)
{
	int i;

	fprintf(f, "{\"name\": ");
	json_str(f, v->name);
	fprintf(f, ", \"elem\": %d, \"dtype\": ", v->dtype);
	json_str(f, v->dtype ? qir_dtype_name(v->dtype) : "UNDEFINED");
	fprintf(f, ", \"dims\": ");
	if (v->rank < 0) {
		fprintf(f, "null}");
		return;
	}
	fputc('[', f);
	for (i = 0; i < v->rank; i++) {
		if (i)
			fputs(", ", f);
		if (v->dims[i].value >= 0)
			fprintf(f, "%lld", (long long)v->dims[i].value);
		else if (v->dims[i].param)
			json_str(f, v->dims[i].param);
		else
			fputs("null", f);
	}
	fputs("]}", f);
}

static int is_float(int t)
{
	return t == QIR_FLOAT || t == QIR_FLOAT16 || t == QIR_BFLOAT16;
}

/* The activations fp8-mha may quantize (see the file comment). */
static int wanted(qir_value *v)
{
	qir_node *p = v ? v->producer : NULL;

	if (!v || qir_value_const(v))
		return 0;
	if (p && qir_node_is(p, "Softmax"))
		return 0;
	if (v->dtype && !is_float(v->dtype))
		return 0;
	return 1;
}

/* Fills *sel with the selected values (deduplicated, graph order). */
static int select_tensors(qir_model *m, qir_value ***sel, size_t *n)
{
	qir_node *node;
	qir_value **out = NULL, **grown;
	size_t i, k, cap = 0;

	*n = 0;
	qir_graph_for_each_node(m->graph, node) {
		size_t slots = qir_node_is(node, "Conv") ? 1 :
			qir_node_is(node, "MatMul") ||
			qir_node_is(node, "Gemm") ? 2 : 0;

		for (i = 0; i < slots && i < node->ninputs; i++) {
			qir_value *v = node->inputs[i];

			if (!wanted(v))
				continue;
			for (k = 0; k < *n && out[k] != v; k++)
				;
			if (k < *n)
				continue;
			if (*n == cap) {
				cap = cap ? 2 * cap : 16;
				grown = realloc(out, cap * sizeof(*out));
				if (!grown) {
					free(out);
					return -1;
				}
				out = grown;
			}
			out[(*n)++] = v;
		}
	}
	*sel = out;
	return 0;
}

static int write_job(const char *path, const struct calib_args *a,
		     qir_model *m, uint64_t hash, const char *probe,
		     qir_value **sel, size_t nsel, const char *out)
{
	FILE *f = fopen(path, "w");
	size_t i, k;
	int first = 1;

	if (!f)
		return -1;
	fprintf(f, "{\"model\": ");
	json_str(f, a->model);
	fprintf(f, ",\n \"probe\": ");
	json_str(f, probe);
	fprintf(f, ",\n \"output\": ");
	json_str(f, out);
	fprintf(f, ",\n \"model_hash\": \"%016llx\",\n \"percentile\": %.17g,\n",
		(unsigned long long)hash, a->percentile);
	if (a->data) {
		fprintf(f, " \"data\": ");
		json_str(f, a->data);
	} else {
		fprintf(f, " \"random\": %ld, \"seed\": %ld, \"dims\": {",
			a->random, a->seed);
		for (i = 0; i < a->ndims; i++) {
			const char *eq = strchr(a->dims[i], '=');
			char name[512];

			snprintf(name, sizeof(name), "%.*s",
				 (int)(eq - a->dims[i]), a->dims[i]);
			fprintf(f, "%s", i ? ", " : "");
			json_str(f, name);
			fprintf(f, ": %ld", strtol(eq + 1, NULL, 10));
		}
		fputc('}', f);
	}
	fprintf(f, ",\n \"inputs\": [");
	for (i = 0; i < m->graph->ninputs; i++) {
		qir_value *v = m->graph->inputs[i];

		if (v->init)
			continue;
		fputs(first ? "\n  " : ",\n  ", f);
		first = 0;
		json_value_type(f, v);
	}
	fprintf(f, "],\n \"tensors\": [");
	for (k = 0; k < nsel; k++) {
		fputs(k ? ",\n  " : "\n  ", f);
		json_value_type(f, sel[k]);
	}
	fprintf(f, "]}\n");
	if (ferror(f)) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/* ------------------------------------------------------------------ */
/* the script */

static const char *script_path(void)
{
	static char buf[4096];
	const char *env = getenv("QOPT_CALIBRATE_ORT");
	char *slash;
	ssize_t n;

	if (env && *env)
		return env;
	/* installed beside the qopt binary */
	n = readlink("/proc/self/exe", buf, sizeof(buf) - 32);
	if (n > 0) {
		buf[n] = 0;
		slash = strrchr(buf, '/');
		if (slash) {
			strcpy(slash + 1, "qopt-calibrate-ort");
			if (access(buf, R_OK) == 0)
				return buf;
		}
	}
	/* an uninstalled qopt: the build tree's copy */
	snprintf(buf, sizeof(buf), "%s/tools/qopt-calibrate-ort",
		 pm_build_tree() ? pm_build_tree() : ".");
	return buf;
}

/* What a stop signal (SIGTERM, SIGHUP, or SIGINT before the script
 * runs) must remove: the temporary folder and its files, after ending
 * the script. Written only outside the handler, which only kills,
 * waits, unlinks and re-raises. */
static char stop_dir[4096], stop_files[3][4200];
static volatile sig_atomic_t stop_armed;
static volatile pid_t stop_child;

static void on_stop_signal(int sig)
{
	pid_t c = stop_child;

	if (c > 0) {
		kill(c, SIGTERM);
		while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (stop_armed) {
		for (size_t i = 0; i < 3; i++)
			unlink(stop_files[i]);
		rmdir(stop_dir);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Arms (paths given) or disarms (NULL) the cleanup for the folder. */
static void guard_folder(const char *dir, const char *const files[3])
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	stop_armed = 0;
	if (!dir)
		return;
	snprintf(stop_dir, sizeof(stop_dir), "%s", dir);
	for (size_t i = 0; i < 3; i++)
		snprintf(stop_files[i], sizeof(stop_files[i]), "%s", files[i]);
	memset(&sa, 0, sizeof(sa));
	sigfillset(&sa.sa_mask);
	sa.sa_handler = on_stop_signal;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++) {
		struct sigaction old;

		/* ignored by whoever started us (nohup): stays ignored */
		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
	stop_armed = 1;
}

/* Like system(): while the script runs, qopt ignores the terminal's
 * SIGINT/SIGQUIT (the script gets them and dies), so qopt lives on to
 * remove its temporary folder; a SIGTERM or SIGHUP sent to qopt alone
 * ends the script first. */
static int run_script(const char *job)
{
	const char *node = getenv("QOPT_NODE");
	const char *script = script_path();
	struct sigaction ign, old_int, old_quit;
	pid_t pid;
	int st, rc;

	/* QOPT_NODE overrides the node configure found */
	if (!node || !*node)
		node = strcmp(QOPT_CONFIGURED_NODE, "no") ? QOPT_CONFIGURED_NODE :
			"node";
	fflush(NULL);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "qopt calibrate: error: fork: %s\n",
			strerror(errno));
		rc = -1;
		goto out;
	}
	if (!pid) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execlp(node, node, script, job, (char *)NULL);
		fprintf(stderr, "qopt calibrate: error: cannot run %s (%s): %s; "
			"install node with ./tools/install-deps.sh from qopt's "
			"source tree (Debian: apt-get install nodejs), or set "
			"QOPT_NODE to node's path\n", node, script,
			strerror(errno));
		_exit(127);
	}
	stop_child = pid;
	rc = 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			rc = -1;
			break;
		}
	stop_child = 0;
	if (!rc && WIFSIGNALED(st))
		fprintf(stderr, "qopt calibrate: error: %s ended by signal %d\n",
			script, WTERMSIG(st));
	if (!rc && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		rc = -1;
out:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	return rc;
}

static void default_output(const char *model, char *buf, size_t n)
{
	size_t len = strlen(model);

	if (len > 5 && !strcmp(model + len - 5, ".onnx"))
		len -= 5;
	snprintf(buf, n, "%.*s.calib.json", (int)len, model);
}

/* Writes the probe model and the job into a fresh temporary folder,
 * runs the script, and removes the folder: 0 when the script wrote the
 * calibration file. */
static int run_probe(const struct calib_args *a, qir_model *m, uint64_t hash,
		     qir_value **sel, size_t nsel, const char *out)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], probe[4200], job[4200], data[4200];
	qir_error err = { 0 };
	int rc = -1;

	snprintf(dir, sizeof(dir), "%s/qopt-calib-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "qopt calibrate: error: cannot make a "
			"temporary folder: %s\n", strerror(errno));
		return -1;
	}
	snprintf(probe, sizeof(probe), "%s/probe.onnx", dir);
	snprintf(data, sizeof(data), "%s/probe.onnx.data", dir);
	snprintf(job, sizeof(job), "%s/job.json", dir);
	{
		const char *const files[3] = { probe, data, job };

		guard_folder(dir, files);
	}
	if (qir_model_save(m, probe, NULL, &err) < 0)
		fprintf(stderr, "qopt calibrate: error: cannot write the probe "
			"model: %s\n", err.msg);
	else if (write_job(job, a, m, hash, probe, sel, nsel, out) < 0)
		fprintf(stderr, "qopt calibrate: error: cannot write %s: %s\n",
			job, strerror(errno));
	else
		rc = run_script(job);
	unlink(job);
	unlink(probe);
	unlink(data);
	rmdir(dir);
	guard_folder(NULL, NULL);
	return rc;
}

static int calibrate(const struct calib_args *a, qir_model *m)
{
	char outbuf[4096];
	const char *out = a->output;
	qir_value **sel = NULL;
	size_t nsel = 0, i;
	uint64_t hash = qir_model_hash(m);	/* before the outputs change */
	int rc = QOPT_EXIT_FAIL;

	if (!out) {
		default_output(a->model, outbuf, sizeof(outbuf));
		out = outbuf;
	}
	if (select_tensors(m, &sel, &nsel) < 0) {
		fprintf(stderr, "qopt calibrate: error: out of memory\n");
		return QOPT_EXIT_FAIL;
	}
	if (!nsel)
		fprintf(stderr, "qopt calibrate: %s: error: no MatMul, Gemm or "
			"Conv with a non-constant float input: nothing to "
			"calibrate\n", a->model);
	for (i = 0; i < nsel; i++)
		if (!sel[i]->is_input && !sel[i]->is_output &&
		    qir_graph_add_output(m->graph, sel[i]) < 0) {
			fprintf(stderr, "qopt calibrate: error: cannot expose "
				"'%s' as an output\n", sel[i]->name);
			break;
		}
	if (nsel && i == nsel && run_probe(a, m, hash, sel, nsel, out) == 0)
		rc = QOPT_EXIT_OK;
	free(sel);
	return rc;
}

int cmd_calibrate(int argc, char **argv)
{
	struct calib_args a;
	qir_model *m;
	int rc;

	memset(&a, 0, sizeof(a));
	rc = calib_parse(&a, argc, argv);
	if (rc) {
		free(a.dims);
		return rc < 0 ? QOPT_EXIT_OK : rc;
	}
	m = cli_load(a.model);
	if (!m) {
		free(a.dims);
		return QOPT_EXIT_FAIL;
	}
	rc = calibrate(&a, m);
	qir_model_free(m);
	free(a.dims);
	return rc;
}

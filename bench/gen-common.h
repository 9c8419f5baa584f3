/*
 * bench/gen-common.h - what the benchmark model generators share
 * (bench/nvfp4-gen.c, bench/fp8mha-gen.c): their command line, the
 * FLOAT16 input, the weights, the save with every weight external.
 */
#ifndef BENCH_GEN_COMMON_H
#define BENCH_GEN_COMMON_H

#include <qopt/qopt.h>

/* The width every weight reduces over. */
#define BENCH_K 4096

struct bench_gen {
	qir_model *m;
	qir_value *x;		/* input [1, BENCH_K], FLOAT16 */
	int count;		/* weights */
	int64_t rows;		/* the other side of each weight */
	uint32_t rng;
	qir_error err;
};

/* "PROG OUT.onnx TOTAL_MIB NWEIGHTS": the model (IR ir, opset opset)
 * with its input; rows chosen so count FLOAT16 weights of rows x K add
 * up to TOTAL_MIB. 0, or 2 on a bad command line (said), 1 on error. */
int bench_gen_start(struct bench_gen *g, int argc, char **argv, int ir,
		    int opset);
/* A new FLOAT16 initializer "layers.I.weight" of dims, values in
 * [-1, 1) from a fixed sequence; NULL with g->err set. */
qir_value *bench_gen_weight(struct bench_gen *g, int i, const int64_t dims[2]);
/* Saves to path with every tensor of 1 KiB and more external, frees
 * the model; 0, or 1 after printing why (prog names the generator). */
int bench_gen_finish(struct bench_gen *g, const char *path, const char *prog,
		     int failed);

#endif

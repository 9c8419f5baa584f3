/*
 * ir/onnx/onnx_io.h - shared by the ONNX reader and writer (onnx_*.c,
 * external.c, arena.c); private to the IR library.
 */
#ifndef QOPT_IR_ONNX_IO_H
#define QOPT_IR_ONNX_IO_H

#include "model/internal.h"
#include "file/atomic_file.h"
#include "file/code.h"
#include "file/dir_lock.h"
#include "file/open_regular.h"
#include "file/stops.h"
#include "file/write_all.h"
#include "ir/onnx/onnx.pb-c.h"

/* A single protobuf message may not exceed 2 GiB. */
#define QIR_PB_LIMIT ((uint64_t)INT32_MAX)
/* External data offsets are multiples of this (mmap friendly). */
#define QIR_EXT_ALIGN 4096u

/* protobuf C++'s default recursion limit: what ONNX Runtime loads. */
#define QIR_PB_MAX_DEPTH 100

/* ---- ir/onnx/onnx_scan.c: before unpacking ----------------------- */

/* Fails (QIR_EPARSE, with the byte offset) on messages nested deeper
 * than QIR_PB_MAX_DEPTH, field number 0 and NUL bytes in string
 * fields, anywhere in the ModelProto at buf. strict: any damage to the
 * wire format fails too (used on what the writer produced). */
int ir_pb_scan(const uint8_t *buf, size_t len, int strict, qir_error *err);

/* ---- ir/onnx/onnx_check.c: sizes a TensorProto claims ------------ */

/* Checks data_type and dims (known type, no negative dim, no
 * overflow) and sets *nbytes / *numel. what names the tensor. */
int ir_pb_tensor_size(const Onnx__TensorProto *tp, const char *what,
			uint64_t *numel, uint64_t *nbytes, qir_error *err);
/* Fails unless have == need, with "<field> has N bytes, T needs M". */
int ir_pb_check_len(const Onnx__TensorProto *tp, const char *what,
		      const char *field, uint64_t have, uint64_t need,
		      const char *unit, qir_error *err);

/* ---- ir/onnx/onnx_tensor.c: TensorProto -> qir_tensor ------------ */

struct ir_load_ctx {
	qir_model *model;
	const char *dir;	/* folder for external data, or NULL */
	const char *dir_real;	/* realpath(dir), computed on first use */
	char *dir_real_buf;
	int no_external;
	int links_ok;		/* qir_load_opts.links_ok */
};

/* Caller owns the result. Raw data is borrowed from tp (which must
 * live as long as the tensor); typed fields are converted into an
 * owned little-endian buffer; external data is checked and bound to
 * the model's shared mapping of its file. */
/* ir/onnx/onnx_sparse.c: every index of a sparse tensor addresses an
 * element of its dense shape. what names it in the message. */
int ir_sparse_check(const Onnx__SparseTensorProto *sp, const char *what,
		      qir_error *err);
qir_tensor *ir_tensor_from_pb(struct ir_load_ctx *ctx,
				const Onnx__TensorProto *tp, qir_error *err);

/* ---- ir/onnx/external.c: external data --------------------------- */

/* The shared mapping of location (relative to ctx->dir) after the
 * path-safety checks; registered in the model's priv maps list. */
ir_mapping *ir_ext_resolve(struct ir_load_ctx *ctx, const char *what,
			      const char *location, qir_error *err);
/* A relative location that stays inside its folder syntactically:
 * not empty, not absolute, no ".." component. */
int ir_ext_location_ok(const char *location);
void ir_ext_free_maps(qir_model *m);
/* 1 when path is one of the external data files m reads from (renaming
 * a new file over it would leave the source model pointing at bytes of
 * another layout). */
int ir_ext_is_source(qir_model *m, const char *path);

/* Data file written on save: tensors at aligned offsets. */
struct ir_ext_writer {
	struct fio_atomic_file file;
	const char *location;	/* as recorded in the model (borrowed) */
	uint64_t size;		/* laid out so far */
	int opened;
};

void ir_ext_writer_init(struct ir_ext_writer *w, const char *location);
/* Hard links beside the output to the input's external data files
 * (ir/onnx/ext_link.c), for qir_save_opts.link_external. */
struct ir_ext_link {
	const ir_mapping *src;
	char *name;		/* the location recorded in the model */
	char *path;
};
struct ir_ext_links {
	const char *dir;	/* the output's folder (borrowed) */
	const char *base;	/* the data file's name (borrowed) */
	struct ir_ext_link *v;
	size_t n;
	int failed;		/* a link could not be made: copy the rest */
};
/* The location of a link to src's file, made on first use; NULL when
 * none can be made (the bytes are then copied). */
const char *ir_ext_link(struct ir_ext_links *l, const ir_mapping *src);
/* Frees the list, removing the links first when remove is set (a save
 * that failed). */
void ir_ext_links_done(struct ir_ext_links *l, int remove);
/* Laid-out data file (ir/onnx/external.c, ir/onnx/data_fill.c): every
 * tensor's place is fixed first (ir_ext_writer_place), the file is
 * created at its final size (ir_ext_writer_create), then filled. */
/* The next 4096-aligned offset for len bytes; grows w->size. */
uint64_t ir_ext_writer_place(struct ir_ext_writer *w, uint64_t len);
/* Opens dir/location through a temporary file of w->size bytes. */
int ir_ext_writer_create(struct ir_ext_writer *w, const char *dir,
			   qir_error *err);

/* One tensor's bytes and where they go in the data file. */
struct ir_ext_piece {
	const void *data;	/* the bytes in memory (len of them) */
	uint64_t len;
	uint64_t off;		/* destination offset */
	/* data lies in a read-only file mapping: its pages are dropped
	 * once written. */
	int from_map;
	/* data are [src_off, +len) of this external data file (holes
	 * kept), or NULL. */
	const ir_mapping *src;
	uint64_t src_off;
	/* data are [fd_off, +len) of this open file (a spill file), or
	 * -1. */
	int fd;
	uint64_t fd_off;
	/* A deferred tensor (data NULL): its recipe is evaluated into
	 * the file, with every sibling output that is a piece too. */
	qir_tensor *deferred;
};

/* Writes every piece to out at its offset, in parallel (threads
 * workers, 0: one per online CPU), copying inside the kernel where the
 * bytes are in a file; path names out in messages. 0, or -1 with err
 * set. */
int ir_ext_fill(int out, const struct ir_ext_piece *pieces, size_t n,
		int threads, const char *path, qir_error *err);

/* ---- ir/onnx/onnx_layout.c: the .onnx laid out, then filled ------ */

/* Bytes fields of at least this many bytes that are not tensors' are
 * pieces too (written from memory); smaller ones are framing. */
#define QIR_LAYOUT_MIN (64u << 10)

/* Called for every append of the packer, in file order: 1 when
 * [data, +len) is a piece (*p filled as ir_ext_fill wants it, except
 * off and len), 0 when it is framing (copied now). */
typedef int (*ir_layout_piece_fn)(void *arg, const uint8_t *data,
				  size_t len, struct ir_ext_piece *p);
/* Writes msg, which packs to size bytes, to fd (a new empty file):
 * sized first, framing written at its offsets, pieces filled by
 * ir_ext_fill on threads workers. path names fd in messages. 0, or -1
 * with err set. */
int ir_layout_write(int fd, const ProtobufCMessage *msg, uint64_t size,
		    ir_layout_piece_fn fn, void *arg, int threads,
		    const char *path, qir_error *err);
/* Test hook (tests/ir/io-layout.c): 1 packs the .onnx through the
 * streaming writer instead, whose bytes the layout must equal. */
extern int ir_onnx_streamed;

/* ---- ir/onnx/arena.c: allocations of one save, freed together ---- */

struct ir_arena {
	struct ir_arena_block *head;
	int failed;		/* an allocation failed */
};

/* Zeroed memory owned by the arena; NULL (and a->failed) on failure. */
void *ir_arena_alloc(struct ir_arena *a, size_t size);
char *ir_arena_strdup(struct ir_arena *a, const char *s);
void ir_arena_free(struct ir_arena *a);

/* ---- ir/onnx/onnx_skeleton.c: large raw_data left in the loaded file ---- */

/* raw_data payloads of at least this many bytes stay in the source
 * buffer; smaller ones are cheaper copied than tracked. */
#define QIR_SKEL_MIN 4096u
/* A token: these 16 bytes, then the payload's index (8 bytes, little
 * endian). */
#define QIR_SKEL_MAGIC "\x8e\x3b\xd1\x5a\x07\xc2\x69\xf4" \
		       "\x2d\xb0\x96\x1e\x73\xe8\x4c\xa5"
#define QIR_SKEL_MAGIC_LEN 16
#define QIR_SKEL_TOKEN_LEN (QIR_SKEL_MAGIC_LEN + 8)

/* Where a replaced raw_data payload lies in the source buffer. */
struct ir_skel_span {
	size_t off;
	uint64_t len;
};

struct ir_skeleton {
	uint8_t *buf;		/* the rewritten message, len bytes */
	size_t len;
	struct ir_skel_span *spans;	/* token index -> payload */
	size_t nspans;
};

/* Rewrites the ModelProto at src into sk (caller frees with
 * ir_skel_free) with every large raw_data the reader turns into a
 * tensor replaced by a token. 0 (sk empty) when there is nothing to
 * replace, or src does not parse cleanly, or memory is short: the
 * caller then unpacks src itself, and protobuf-c reports any error. */
int ir_skel_build(const uint8_t *src, size_t len, struct ir_skeleton *sk);
/* After unpacking sk->buf: points each token's raw_data at its payload
 * in src (its original length), freeing the token. -1 when a token
 * does not resolve (the message must then be freed with
 * ir_pb_model_free and src unpacked as is). */
int ir_skel_resolve(Onnx__ModelProto *mp, const struct ir_skeleton *sk,
		      const uint8_t *src);
void ir_skel_free(struct ir_skeleton *sk);
/* Frees an unpacked message whose bytes fields may point into
 * [base, base + len) (those are left alone); base may be NULL. */
void ir_pb_model_free(Onnx__ModelProto *mp, const void *base, size_t len);
/* Writes len bytes to fd; with from_map, drops each written chunk's
 * pages (data must lie in a private read-only file mapping). */
int ir_write_streamed(int fd, const uint8_t *p, uint64_t len, int from_map);

/* ---- ir/onnx/onnx_read.c ----------------------------------------- */

/* Model priv release hook: frees the parsed message and the maps. */
void ir_onnx_release(qir_model *m);

#endif /* QOPT_IR_ONNX_IO_H */

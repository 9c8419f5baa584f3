/*
 * ir/file/code.h - what a call of the file layer (ir/file/) failed at.
 *
 * The file layer sits below the IR: it knows nothing of qir_error, so
 * each call returns one of these and writes the sentence a person reads
 * into a buffer its caller provides. The layer above maps the code to
 * its own (ir/model/outfile.c, ir_fail_file).
 */
#ifndef QOPT_IR_FILE_CODE_H
#define QOPT_IR_FILE_CODE_H

enum fio_code {
	FIO_OK = 0,
	FIO_EIO,	/* a system call failed; the message has strerror */
	FIO_EKIND,	/* the path is not a kind of file the call accepts */
	FIO_ETOOBIG,	/* the file is larger than the caller allows */
	FIO_ENOMEM,
};

#endif /* QOPT_IR_FILE_CODE_H */

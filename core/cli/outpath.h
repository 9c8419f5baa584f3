/*
 * core/cli/outpath.h - output path checks of the qopt command (binary only).
 */
#ifndef QOPT_OUTPATH_H
#define QOPT_OUTPATH_H

#include "manager/session-api.h"

/* Checks what opt (-o, --stats-json, ...) names before any work:
 * absent with an existing folder, a regular file or a symlink are
 * fine; /dev/null sets *discard; anything else prints a usage error
 * naming its kind and returns QOPT_EXIT_USAGE. */
int cli_outpath_check(qm_session *s, const char *opt, const char *path, int *discard);
/* 1 when a and b name one file (existing: device and inode; else the
 * same place once the folders are resolved). */
int cli_same_path(const char *a, const char *b);
/* Where the model saved at output puts its external data (as
 * qir_model_save names it); caller frees. */
char *cli_data_path(const char *output, const char *external_name);

#endif

/*
 * passes/mxfp8/export.h - export.c: ModelOpt's MXFP8 export.
 */
#ifndef QOPT_PASSES_MXFP8_EXPORT_H
#define QOPT_PASSES_MXFP8_EXPORT_H

#include "mxfp8.h"

/* The model's trt::TRT_MXFP8* nodes (ModelOpt's export): *found says
 * how many; converted or typed by mode and format. 0, or -1 after
 * qopt_error. */
int mxfp8_export(struct mxfp8_cfg *cfg, int *found, int *changed);

#endif

# core/calib: calibration as a library module (include/qopt/calib.h):
# the calibration file's reader and writer, the tensors' keys, range
# queries and merging. In libqopt, not the manager's archive: the passes
# (plugins, linked against libqopt only) read the file through it.
libqopt_la_SOURCES += \
	include/qopt/calib.h \
	core/calib/calib-internal.h \
	core/calib/calib.c \
	core/calib/calib-read.c \
	core/calib/calib-write.c \
	core/calib/calib-key.c \
	core/calib/calib-merge.c
# With the manager (compiled into libqopt, hidden; the qopt program
# links those objects): the If/Loop hoist of the probe model (an IR
# transform) and the sample files' checks, which only the command line
# calls yet.
QOPT_MANAGER_SOURCES += \
	core/calib/calib-hoist.h \
	core/calib/calib-hoist.c \
	core/calib/calib-samples.h \
	core/calib/calib-samples.c \
	core/calib/calib-npy.c \
	core/calib/calib-npz.c

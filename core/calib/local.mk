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
# transform), the sample files' checks, and measuring through a runner
# (the probe model, the job, the result; the bound on ORT's run).
QOPT_MANAGER_SOURCES += \
	core/calib/calib-run.h \
	core/calib/calib-run.c \
	core/calib/calib-job.h \
	core/calib/calib-job.c \
	core/calib/calib-ort.h \
	core/calib/calib-ort.c \
	core/calib/calib-ort-refuse.c \
	core/calib/calib-hoist.h \
	core/calib/calib-hoist.c \
	core/calib/calib-samples.h \
	core/calib/calib-samples.c \
	core/calib/calib-npy.c \
	core/calib/calib-npz.c
# libqopt's qopt_session_calibrate and qopt_session_calibration
# (exports, as session-pub.c: never a second copy in a program).
libqopt_la_SOURCES += core/calib/calib-session.c

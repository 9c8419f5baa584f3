# core/calib: calibration as a library module (include/qopt/calib.h):
# the calibration file's reader and writer, the tensors' keys, range
# queries and merging. In libqopt, not the manager's archive: the passes
# (plugins, linked against libqopt only) read the file through it. The
# manager's JSON string and number writers are compiled in with it (the
# file's bytes follow their rules; hidden, so no clash with the
# manager's copy in the qopt binary).
libqopt_la_SOURCES += \
	include/qopt/calib.h \
	core/calib/calib-internal.h \
	core/calib/calib.c \
	core/calib/calib-read.c \
	core/calib/calib-write.c \
	core/calib/calib-key.c \
	core/calib/calib-merge.c \
	core/manager/jsonstr.h \
	core/manager/jsonstr.c \
	core/manager/numfmt.h \
	core/manager/numfmt.c

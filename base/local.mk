# base: the library's vocabulary, below everything else in it (part of
# libqopt): the names of the qopt_status codes and the version query. It
# calls nothing of the kernels, the IR or core/ (tests/source/layers.sh).
libqopt_la_SOURCES += \
	base/utf8.h \
	base/status.c \
	base/version.c

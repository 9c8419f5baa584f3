# base: the library's vocabulary, below everything else in it (part of
# libqopt): the names of the qopt_status codes, the version query and the
# pass context API (each call forwards to the context's ops table, which
# the pass manager fills). It calls nothing of the kernels, the IR or
# core/ (tests/source/layers.sh).
libqopt_la_SOURCES += \
	base/ctx-ops.h \
	base/utf8.h \
	base/json-text.h \
	base/ctx-api.c \
	base/status.c \
	base/version.c

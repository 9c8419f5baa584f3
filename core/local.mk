# core: the pass context API (part of libqopt), the pass manager (a
# static library: plugin loader, pipelines, running passes) and the
# qopt command line (the binary).
libqopt_la_SOURCES += \
	core/ctx-ops.h \
	core/ctx-api.c \
	core/version.c

noinst_LTLIBRARIES += core/libpassmgr.la
core_libpassmgr_la_CFLAGS = $(AM_CFLAGS) $(INIH_CFLAGS)
core_libpassmgr_la_CPPFLAGS = $(AM_CPPFLAGS) $(QOPT_BUILD_CPPFLAGS)
core_libpassmgr_la_LIBADD = $(INIH_LIBS)
core_libpassmgr_la_SOURCES = \
	core/core.h \
	core/ctx-ops.h \
	core/pipeline-internal.h \
	core/log.c \
	core/suggest.c \
	core/options.c \
	core/loader.c \
	core/discovery.c \
	core/pipeline.c \
	core/pipeline-ini.c \
	core/pipeline-globals.c \
	core/pipeline-print.c \
	core/ctx.c \
	core/gate.c \
	core/progress.c \
	core/manager.c \
	core/report.c

qopt_SOURCES += \
	core/main.c \
	core/cli.h \
	core/cli.c \
	core/setup.c \
	core/cmd-run.c \
	core/cmd-model.c \
	core/bisect.c

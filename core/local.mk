# core: the pass manager (plugin loader, pipelines, running passes),
# part of libqopt behind <qopt/session.h> (core/manager/session-pub.c;
# of its qm_ functions libqopt exports only those the qopt program
# calls), and the qopt command line (the binary, over libqopt.so).

QOPT_MANAGER_SOURCES = \
	core/manager/session-api.h \
	core/manager/msg.h \
	core/manager/options.h \
	core/manager/registry.h \
	core/manager/pipeline.h \
	core/manager/run.h \
	core/manager/sys.h \
	core/manager/ctx-ops.h \
	core/manager/pipeline-internal.h \
	core/manager/session.h \
	core/manager/session.c \
	core/manager/api.c \
	core/manager/hooks.c \
	core/manager/log.c \
	core/manager/suggest.c \
	core/manager/options.c \
	core/manager/numfmt.h \
	core/manager/numfmt.c \
	core/manager/jsonstr.h \
	core/manager/jsonstr.c \
	core/manager/registry.c \
	core/manager/import.c \
	core/manager/loader.c \
	core/manager/plugin-symbols.c \
	core/manager/alias.c \
	core/manager/pipeline-stages.c \
	core/manager/pipeline.c \
	core/manager/pipeline-expand.c \
	core/manager/pipeline-graph.c \
	core/manager/pipeline-ini.c \
	core/manager/pipeline-globals.c \
	core/manager/pipeline-print.c \
	core/manager/ctx.c \
	core/manager/require-opset.c \
	core/manager/gate.c \
	core/manager/progress.c \
	core/manager/manager.c \
	core/manager/calib-query.c \
	core/manager/report.c \
	core/manager/outfile.c \
	core/manager/guard.c \
	core/manager/tmpdir.c
# The context API (ctx-api.c) and <qopt/session.h> (session-pub.c) are
# libqopt's exports: only there, never a second copy in a program.
libqopt_la_SOURCES += $(QOPT_MANAGER_SOURCES) core/manager/ctx-api.c \
	core/manager/session-pub.c
pkginclude_HEADERS += include/qopt/session.h
# The manager's white-box tests call qm_ functions the qopt program does
# not (libqopt exports only the program's: libqopt-private.sym): they
# link the manager's objects as libqopt compiled them.
QOPT_MANAGER_OBJECTS = $(foreach f,$(filter %.c,$(QOPT_MANAGER_SOURCES)),$(dir $(f))libqopt_la-$(notdir $(f:.c=.lo))) \
	$(INIH_LIBS)

qopt_CPPFLAGS = $(AM_CPPFLAGS) $(QOPT_BUILD_CPPFLAGS)

qopt_SOURCES += \
	core/cli/main.c \
	core/cli/discovery.c \
	core/cli/cli.h \
	core/cli/cli.c \
	core/cli/setup.c \
	core/cli/cmd-run.c \
	core/cli/summary.h \
	core/cli/summary.c \
	core/cli/cmd-model.c \
	core/cli/cmd-calibrate.c \
	core/cli/calib-runner.h \
	core/cli/calib-runner.c \
	core/cli/ort-child.h \
	core/cli/ort-child.c \
	core/cli/spawn.h \
	core/cli/spawn.c \
	core/cli/bisect.c \
	core/cli/outpath.h \
	core/cli/outpath.c \
	core/cli/cmd-plan.c \
	core/cli/plan-runner.h \
	core/cli/plan-runner.c \
	core/cli/tune.h \
	core/cli/cmd-autocast-tune.c \
	core/cli/tune-run.c
EXTRA_DIST += docs/plan.md

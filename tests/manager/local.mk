# tests of core/manager: the pass manager, plugin loader, pipelines,
# named pipelines, instrumentation (fragment of the top Makefile.am).

check_PROGRAMS += tests/manager/unit tests/manager/session tests/manager/hooks \
	tests/manager/misuse tests/manager/session-pub
# <qopt/session.h>'s refusals, through libqopt's exports only.
tests_manager_session_pub_SOURCES = tests/manager/session-pub.c tests/lib/tap.h
tests_manager_session_pub_LDADD = libqopt.la
tests_manager_misuse_SOURCES = tests/manager/misuse.c tests/lib/tap.h
tests_manager_misuse_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core
tests_manager_misuse_LDADD = $(QOPT_MANAGER_OBJECTS) libqopt.la
tests_manager_hooks_SOURCES = tests/manager/hooks.c tests/lib/tap.h
tests_manager_hooks_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core
tests_manager_hooks_LDADD = $(QOPT_MANAGER_OBJECTS) libqopt.la
tests_manager_session_SOURCES = tests/manager/session.c tests/lib/tap.h
tests_manager_session_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core
tests_manager_session_LDADD = $(QOPT_MANAGER_OBJECTS) libqopt.la
tests_manager_unit_SOURCES = tests/manager/unit.c tests/lib/tap.h
tests_manager_unit_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core
tests_manager_unit_LDADD = $(QOPT_MANAGER_OBJECTS) libqopt.la

MANAGER_SH = tests/manager/globals.sh tests/manager/plugins.sh \
	tests/manager/pipeline.sh tests/manager/instrument.sh \
	tests/manager/progress.sh tests/manager/alias.sh \
	tests/manager/order.sh tests/manager/input.sh \
	tests/manager/discovery.sh
TESTS += tests/manager/unit tests/manager/session tests/manager/hooks \
	tests/manager/misuse tests/manager/session-pub $(MANAGER_SH)
dist_check_SCRIPTS += $(MANAGER_SH)

# the calibration query and the one-command form's hand-over
# (core/manager/calib-query.c)
TESTS += tests/manager/calib-query.sh tests/manager/calib-forward.sh
EXTRA_DIST += tests/manager/calib-query.sh tests/manager/calib-forward.sh

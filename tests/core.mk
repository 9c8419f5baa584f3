# tests of core: the pass manager, plugin loader, pipelines, bisect,
# the qopt command line and the SDK example.

# Test plugins: shared modules (.so in tests/plugins/.libs) that are
# never installed.
CORE_TEST_PLUGIN_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
check_LTLIBRARIES += tests/plugins/good.la tests/plugins/counter.la \
	tests/plugins/bad-abi.la tests/plugins/no-entry.la \
	tests/plugins/dup.la tests/plugins/malformed.la \
	tests/plugins/abi1.la tests/plugins/newer-minor.la \
	tests/plugins/needs-newer.la tests/plugins/typed.la \
	tests/plugins/bad-enum.la tests/plugins/old-minor.la \
	tests/plugins/abi2.la tests/plugins/needs-symbol.la \
	tests/plugins/alias.la tests/plugins/alias-bad-when.la \
	tests/plugins/alias-dup.la tests/plugins/alias-big-step.la \
	tests/plugins/calib-one.la tests/plugins/bad-path.la
tests_plugins_calib_one_la_SOURCES = tests/plugins/calib-one.c
tests_plugins_calib_one_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_calib_one_la_LIBADD = libqopt.la
tests_plugins_good_la_SOURCES = tests/plugins/good.c
tests_plugins_good_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_good_la_LIBADD = libqopt.la
tests_plugins_counter_la_SOURCES = tests/plugins/counter.c
tests_plugins_counter_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_counter_la_LIBADD = libqopt.la
tests_plugins_bad_abi_la_SOURCES = tests/plugins/bad-abi.c
tests_plugins_bad_abi_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_bad_abi_la_LIBADD = libqopt.la
tests_plugins_no_entry_la_SOURCES = tests/plugins/no-entry.c
tests_plugins_no_entry_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_dup_la_SOURCES = tests/plugins/dup.c
tests_plugins_dup_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_dup_la_LIBADD = libqopt.la
tests_plugins_malformed_la_SOURCES = tests/plugins/malformed.c
tests_plugins_malformed_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_malformed_la_LIBADD = libqopt.la
tests_plugins_abi1_la_SOURCES = tests/plugins/abi1.c
tests_plugins_abi1_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_newer_minor_la_SOURCES = tests/plugins/newer-minor.c
tests_plugins_newer_minor_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_newer_minor_la_LIBADD = libqopt.la
tests_plugins_needs_newer_la_SOURCES = tests/plugins/needs-newer.c
tests_plugins_needs_newer_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_needs_newer_la_LIBADD = libqopt.la
tests_plugins_typed_la_SOURCES = tests/plugins/typed.c
tests_plugins_typed_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_typed_la_LIBADD = libqopt.la
tests_plugins_bad_enum_la_SOURCES = tests/plugins/bad-enum.c
tests_plugins_bad_enum_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_bad_enum_la_LIBADD = libqopt.la
tests_plugins_bad_path_la_SOURCES = tests/plugins/bad-enum.c
tests_plugins_bad_path_la_CPPFLAGS = $(AM_CPPFLAGS) -DBAD_PATH
tests_plugins_bad_path_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_bad_path_la_LIBADD = libqopt.la
tests_plugins_old_minor_la_SOURCES = tests/plugins/old-minor.c
tests_plugins_old_minor_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_old_minor_la_LIBADD = libqopt.la
tests_plugins_abi2_la_SOURCES = tests/plugins/abi2.c
tests_plugins_abi2_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_needs_symbol_la_SOURCES = tests/plugins/needs-symbol.c
tests_plugins_needs_symbol_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_needs_symbol_la_LIBADD = libqopt.la
# Named pipelines: one source, built as a good plugin and as three the
# loader must refuse or that clash with the first.
tests_plugins_alias_la_SOURCES = tests/plugins/alias.c
tests_plugins_alias_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_alias_la_LIBADD = libqopt.la
tests_plugins_alias_bad_when_la_SOURCES = tests/plugins/alias.c
tests_plugins_alias_bad_when_la_CPPFLAGS = $(AM_CPPFLAGS) -DALIAS_BAD_WHEN
tests_plugins_alias_bad_when_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_alias_bad_when_la_LIBADD = libqopt.la
tests_plugins_alias_dup_la_SOURCES = tests/plugins/alias.c
tests_plugins_alias_dup_la_CPPFLAGS = $(AM_CPPFLAGS) -DALIAS_DUP
tests_plugins_alias_dup_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_alias_dup_la_LIBADD = libqopt.la
tests_plugins_alias_big_step_la_SOURCES = tests/plugins/alias.c
tests_plugins_alias_big_step_la_CPPFLAGS = $(AM_CPPFLAGS) -DALIAS_BIG_STEP
tests_plugins_alias_big_step_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_alias_big_step_la_LIBADD = libqopt.la

check_PROGRAMS += tests/core-mkmodel tests/core-check tests/core-unit \
	tests/core-session tests/manager-hooks
tests_manager_hooks_SOURCES = tests/manager-hooks.c tests/tap.h
tests_manager_hooks_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core
tests_manager_hooks_LDADD = core/libpassmgr.la libqopt.la
tests_core_session_SOURCES = tests/core-session.c tests/tap.h
tests_core_session_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core
tests_core_session_LDADD = core/libpassmgr.la libqopt.la
tests_core_mkmodel_SOURCES = tests/core-mkmodel.c
tests_core_mkmodel_LDADD = libqopt.la
tests_core_check_SOURCES = tests/core-check.c
tests_core_check_LDADD = libqopt.la
tests_core_unit_SOURCES = tests/core-unit.c tests/tap.h
tests_core_unit_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core
tests_core_unit_LDADD = core/libpassmgr.la libqopt.la

TESTS += tests/core-unit tests/core-session tests/manager-hooks tests/manager-layers.sh tests/core-globals.sh tests/core-cli.sh tests/core-plugins.sh \
	tests/core-pipeline.sh tests/core-instrument.sh tests/core-bisect.sh \
	tests/core-sdk.sh tests/core-ortcheck.sh tests/core-progress.sh tests/core-completion.sh \
	tests/core-alias.sh tests/core-ortcheck-compare.sh
dist_check_SCRIPTS += tests/manager-layers.sh tests/core-globals.sh tests/core-cli.sh tests/core-plugins.sh \
	tests/core-pipeline.sh tests/core-instrument.sh tests/core-bisect.sh \
	tests/core-sdk.sh tests/core-ortcheck.sh tests/core-progress.sh tests/core-completion.sh \
	tests/core-alias.sh tests/core-ortcheck-compare.sh
EXTRA_DIST += tests/core-lib.sh tests/ortcheck-gen.py
EXTRA_DIST += plugins/example/Makefile plugins/example/example-rename.c

# `make install` relinks the built-in passes in place (libtool), which
# must not happen while other tests dlopen them: the SDK test runs last.
tests/core-sdk.log: $(filter-out tests/core-sdk.log,$(TEST_LOGS))

# the test plugins: shared modules (.so in tests/plugins/.libs) that
# are never installed (fragment of the top Makefile.am).
CORE_TEST_PLUGIN_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
check_LTLIBRARIES += tests/plugins/good.la tests/plugins/counter.la \
	tests/plugins/bad-abi.la tests/plugins/no-entry.la \
	tests/plugins/dup.la tests/plugins/malformed.la \
	tests/plugins/abi1.la tests/plugins/newer-minor.la \
	tests/plugins/newer-field.la \
	tests/plugins/needs-newer.la tests/plugins/typed.la \
	tests/plugins/bad-enum.la tests/plugins/old-minor.la \
	tests/plugins/abi2.la tests/plugins/abi3.la \
	tests/plugins/needs-symbol.la \
	tests/plugins/alias.la tests/plugins/alias-bad-when.la \
	tests/plugins/alias-dup.la tests/plugins/alias-big-step.la \
	tests/plugins/calib-one.la tests/plugins/calib-pipe.la \
	tests/plugins/bad-path.la \
	tests/plugins/bad-pow2.la tests/plugins/bad-required.la \
	tests/plugins/bad-flag.la
tests_plugins_calib_one_la_SOURCES = tests/plugins/calib-one.c
tests_plugins_calib_one_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_calib_one_la_LIBADD = libqopt.la
tests_plugins_calib_pipe_la_SOURCES = tests/plugins/calib-pipe.c
tests_plugins_calib_pipe_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_calib_pipe_la_LIBADD = libqopt.la
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
tests_plugins_newer_field_la_SOURCES = tests/plugins/newer-field.c
tests_plugins_newer_field_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_newer_field_la_LIBADD = libqopt.la
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
tests_plugins_bad_pow2_la_SOURCES = tests/plugins/bad-enum.c
tests_plugins_bad_pow2_la_CPPFLAGS = $(AM_CPPFLAGS) -DBAD_POW2
tests_plugins_bad_pow2_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_bad_pow2_la_LIBADD = libqopt.la
tests_plugins_bad_required_la_SOURCES = tests/plugins/bad-enum.c
tests_plugins_bad_required_la_CPPFLAGS = $(AM_CPPFLAGS) -DBAD_REQUIRED
tests_plugins_bad_required_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_bad_required_la_LIBADD = libqopt.la
tests_plugins_bad_flag_la_SOURCES = tests/plugins/bad-enum.c
tests_plugins_bad_flag_la_CPPFLAGS = $(AM_CPPFLAGS) -DBAD_FLAG
tests_plugins_bad_flag_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_bad_flag_la_LIBADD = libqopt.la
tests_plugins_old_minor_la_SOURCES = tests/plugins/old-minor.c
tests_plugins_old_minor_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_old_minor_la_LIBADD = libqopt.la
tests_plugins_abi2_la_SOURCES = tests/plugins/abi2.c
tests_plugins_abi3_la_SOURCES = tests/plugins/abi3.c
tests_plugins_abi3_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_abi3_la_LIBADD = libqopt.la
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


# t-reverse / t-cycle: node order restored after each pass
# (tests/manager/order.sh).
check_LTLIBRARIES += tests/plugins/reorder.la
tests_plugins_reorder_la_SOURCES = tests/plugins/reorder.c
tests_plugins_reorder_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_reorder_la_LIBADD = libqopt.la

# a misbehaving plugin (tests/hostile/)
check_LTLIBRARIES += tests/plugins/hostile.la
tests_plugins_hostile_la_SOURCES = tests/plugins/hostile.c
tests_plugins_hostile_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_hostile_la_LIBADD = libqopt.la
# a table claiming entries larger than this ABI's (issue 21 row 15)
check_LTLIBRARIES += tests/plugins/big-entry.la
tests_plugins_big_entry_la_SOURCES = tests/plugins/big-entry.c
tests_plugins_big_entry_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_big_entry_la_LIBADD = libqopt.la

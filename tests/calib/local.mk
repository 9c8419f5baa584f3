# tests/calib: core/calib (qopt/calib.h), through libqopt's exports only.
# The calibration file: writer -> reader over random files.
check_PROGRAMS += tests/calib/roundtrip
tests_calib_roundtrip_SOURCES = tests/calib/roundtrip.c tests/lib/tap.h
tests_calib_roundtrip_LDADD = libqopt.la -lm
TESTS += tests/calib/roundtrip
# Merging: max, samples, keys, dtypes; refusals leave dst unchanged.
check_PROGRAMS += tests/calib/merge
tests_calib_merge_SOURCES = tests/calib/merge.c tests/lib/tap.h
tests_calib_merge_LDADD = libqopt.la -lm
TESTS += tests/calib/merge
# The reader's bad input and what it keeps.
check_PROGRAMS += tests/calib/read
tests_calib_read_SOURCES = tests/calib/read.c tests/lib/tap.h
tests_calib_read_LDADD = libqopt.la -lm
TESTS += tests/calib/read

# tests of qopt calibrate and fp8-mha calibration = FILE (fragment of
# the top Makefile.am).
TESTS += tests/calib.sh tests/calib-query.sh
EXTRA_DIST += tests/calib.sh tests/calib-gen.py tests/calib-ort.js \
	tests/calib-query.sh
# calibrate under hostile input (issue 21)
TESTS += tests/calib-hostile.sh tests/calib-messages.sh
EXTRA_DIST += tests/calib-hostile.sh tests/calib-hostile.py \
	tests/calib-messages.sh tests/calib-messages.py
# the calibration file: writer (qopt calibrate) -> reader (fp8-mha)
# over random files.
check_PROGRAMS += tests/calib-roundtrip
tests_calib_roundtrip_SOURCES = tests/calib-roundtrip.c tests/tap.h \
	core/cli/calib-json.c core/cli/calib-json.h \
	passes/fp8_mha/calib_file.c passes/fp8_mha/calib.h
tests_calib_roundtrip_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/passes/fp8_mha
tests_calib_roundtrip_LDADD = core/libpassmgr.la libqopt.la -lm
TESTS += tests/calib-roundtrip

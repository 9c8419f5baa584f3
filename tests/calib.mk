# tests of qopt calibrate and fp8-mha calibration = FILE (fragment of
# the top Makefile.am).
TESTS += tests/calib.sh
EXTRA_DIST += tests/calib.sh tests/calib-gen.py tests/calib-ort.js

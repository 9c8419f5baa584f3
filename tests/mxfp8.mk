# tests of the MXFP8 kernel and the mxfp8 pass (fragment of the top Makefile.am).

check_PROGRAMS += tests/kernels-mxfp8
TESTS += tests/kernels-mxfp8
tests_kernels_mxfp8_SOURCES = tests/kernels-mxfp8.c tests/tap.h \
	tests/kernels-util.h
tests_kernels_mxfp8_LDADD = libqopt.la -lm

# The fake form in ONNX Runtime against the kernel, bit for bit.
check_PROGRAMS += tests/mxfp8-dump
tests_mxfp8_dump_SOURCES = tests/mxfp8-dump.c tests/kernels-util.h
tests_mxfp8_dump_LDADD = libqopt.la -lm
TESTS += tests/mxfp8-ort.sh
EXTRA_DIST += tests/mxfp8-ort.sh tests/mxfp8-ort.js tests/mxfp8-models.py

# The pass on plain models and ModelOpt-style exports; bad input.
TESTS += tests/mxfp8-pass.sh
EXTRA_DIST += tests/mxfp8-pass.sh tests/mxfp8-export.js

# The torch exports (tests/torch/models): real forms verified, the fake
# form's accuracy in ORT.
TESTS += tests/mxfp8-torch.sh
EXTRA_DIST += tests/mxfp8-torch.sh

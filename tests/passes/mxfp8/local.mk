# tests of the mxfp8 pass (fragment of the top Makefile.am).

# The fake form in ONNX Runtime against the kernel, bit for bit.
check_PROGRAMS += tests/passes/mxfp8/dump
tests_passes_mxfp8_dump_SOURCES = tests/passes/mxfp8/dump.c tests/kernels/util.h
tests_passes_mxfp8_dump_LDADD = libqopt.la -lm
TESTS += tests/passes/mxfp8/ort.sh
EXTRA_DIST += tests/passes/mxfp8/ort.sh tests/passes/mxfp8/ort.js \
	tests/passes/mxfp8/models.py

# The pass on plain models and ModelOpt-style exports; bad input.
TESTS += tests/passes/mxfp8/pass.sh
EXTRA_DIST += tests/passes/mxfp8/pass.sh tests/passes/mxfp8/export.js

# The torch exports (tests/torch/models): real forms verified, the fake
# form's accuracy in ORT.
TESTS += tests/passes/mxfp8/torch.sh
EXTRA_DIST += tests/passes/mxfp8/torch.sh

# mode = fake: deferred weights (no spill file), equal to the real
# form's codes times scales.
TESTS += tests/passes/mxfp8/fake.sh
EXTRA_DIST += tests/passes/mxfp8/fake.sh tests/passes/mxfp8/fake.py

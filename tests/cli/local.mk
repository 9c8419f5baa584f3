# tests of core/cli: the qopt command line, bisect, completion, bad
# models through the command, qopt calibrate (fragment of the top
# Makefile.am).

CLI_SH = tests/cli/cli.sh tests/cli/bisect.sh tests/cli/completion.sh \
	tests/cli/subcommand.sh
TESTS += $(CLI_SH)
dist_check_SCRIPTS += $(CLI_SH)
# bisect-check: the bisect test command of tests/cli/bisect.sh.
check_PROGRAMS += tests/cli/bisect-check
tests_cli_bisect_check_SOURCES = tests/cli/bisect-check.c
tests_cli_bisect_check_LDADD = libqopt.la

# io-errors.sh: every bad model io-mkbad writes, through the qopt
# command (run, verify, dump); save failures; --external-threshold.
check_PROGRAMS += tests/cli/io-mkbad
TESTS += tests/cli/io-errors.sh
EXTRA_DIST += tests/cli/io-errors.sh
tests_cli_io_mkbad_SOURCES = tests/cli/io-mkbad.c tests/lib/io-util.h
tests_cli_io_mkbad_LDADD = libqopt.la

# layout.sh: the output keeps the input's layout; every layout option
# loads; full disk and short data file leave nothing behind (issue 32).
TESTS += tests/cli/layout.sh
EXTRA_DIST += tests/cli/layout.sh tests/cli/layout-gen.py \
	tests/cli/layout-check.py

# qopt calibrate and fp8-mha calibration = FILE
TESTS += tests/cli/calib.sh
EXTRA_DIST += tests/cli/calib.sh tests/cli/calib-gen.py tests/cli/calib-ort.js
# one command from a float model: --calibration-data (issue 31)
TESTS += tests/cli/calib-inline.sh
EXTRA_DIST += tests/cli/calib-inline.sh
# calibration at ONNX Runtime's cost: no copy of the weights, the hash
# read once per process, old hashes taken (issue 40)
TESTS += tests/cli/calib-disk.sh
EXTRA_DIST += tests/cli/calib-disk.sh
# calibrate under hostile input (issue 21)
TESTS += tests/cli/calib-hostile.sh tests/cli/calib-messages.sh
EXTRA_DIST += tests/cli/calib-hostile.sh tests/cli/calib-hostile.py \
	tests/cli/calib-messages.sh tests/cli/calib-messages.py
# qopt calibrate --method (issue 42): the histogram math in node alone,
# and the methods through qopt and ORT (INT8 accuracy on an outlier).
TESTS += tests/cli/calib-method-hist.sh tests/cli/calib-method.sh
EXTRA_DIST += tests/cli/calib-method-hist.sh tests/cli/calib-method-hist.js \
	tests/cli/calib-method.sh tests/cli/calib-method-gen.py \
	tests/cli/calib-method-eval.js
# calibrate -q, the --dim warning once, missing-calibration hints (issue 39)
TESTS += tests/cli/calib-options.sh
EXTRA_DIST += tests/cli/calib-options.sh tests/cli/calib-options.py
# batched samples: --data FILE.npy / FILE.npz (issue 39)
TESTS += tests/cli/calib-batch.sh
EXTRA_DIST += tests/cli/calib-batch.sh tests/cli/calib-batch.py
# sub-graph tensors: scoped keys, an If inside a Loop refused (issue 39)
TESTS += tests/cli/calib-subgraph.sh
EXTRA_DIST += tests/cli/calib-subgraph.sh tests/cli/calib-subgraph.py
# the ONNX Runtime child: hangs refused or bounded, its files (issue 39)
TESTS += tests/cli/calib-ortchild.sh tests/cli/bisect-paths.sh
EXTRA_DIST += tests/cli/calib-ortchild.sh tests/cli/calib-ortchild.py \
	tests/cli/bisect-paths.sh
# the calibration file: writer (qopt calibrate) -> reader (fp8-mha)
# over random files.
check_PROGRAMS += tests/cli/calib-roundtrip
tests_cli_calib_roundtrip_SOURCES = tests/cli/calib-roundtrip.c tests/lib/tap.h \
	core/cli/calib-json.c core/cli/calib-json.h \
	passes/support/calib_file.c passes/support/calib_key.c passes/support/calib_file.h
tests_cli_calib_roundtrip_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/passes/support
tests_cli_calib_roundtrip_LDADD = $(QOPT_MANAGER_OBJECTS) libqopt.la -lm
TESTS += tests/cli/calib-roundtrip
# qopt plan: the knapsack solver against brute force (C), the command
# on the torch test models (ORT).
check_PROGRAMS += tests/cli/plan-knapsack
tests_cli_plan_knapsack_SOURCES = tests/cli/plan-knapsack.c tests/lib/tap.h \
	core/cli/plan-knapsack.c core/cli/plan-knapsack.h
tests_cli_plan_knapsack_LDADD = -lm
TESTS += tests/cli/plan-knapsack
TESTS += tests/cli/plan.sh
EXTRA_DIST += tests/cli/plan.sh tests/cli/plan-lib.sh
# the PP-OCRv4 recognizer's nvfp4,fp8,none plan against the uniform
# settings: make check-slow (52 ORT sessions over 8 images)
SLOW_TESTS += tests/cli/plan-ppocr.sh
EXTRA_DIST += tests/cli/plan-ppocr.sh
# qopt plan with w4a4 (nvfp4 activations = yes) beside fp8: two
# calibration files, the second for the model the first step makes.
TESTS += tests/cli/plan-w4a4.sh
EXTRA_DIST += tests/cli/plan-w4a4.sh
# qopt plan on hostile input: names, NaN, output collisions, budgets at
# the ends, a stop signal (small generated models).
TESTS += tests/cli/plan-hostile.sh
EXTRA_DIST += tests/cli/plan-hostile.sh tests/cli/plan-hostile.py
# qopt plan with int8 beside fp8: [int8]'s file for the model [fp8] makes
TESTS += tests/cli/plan-int8.sh
EXTRA_DIST += tests/cli/plan-int8.sh
# qopt plan --autocast / --max-float-layers (issue 41)
TESTS += tests/cli/plan-autocast.sh
EXTRA_DIST += tests/cli/plan-autocast.sh

# tests of python/, the qopt Python package (fragment of the top
# Makefile.am): the package without ONNX Runtime (package.sh: imports,
# bad input, the sample writer read by qopt calibrate, pip and make
# install), qopt.run against the qopt program (run.sh), qopt.plan
# against qopt plan (plan.sh).
PYTHON_SH = tests/python/package.sh tests/python/runner.sh \
	tests/python/run.sh tests/python/plan.sh
TESTS += $(PYTHON_SH)
dist_check_SCRIPTS += $(PYTHON_SH)
EXTRA_DIST += tests/python/common.sh tests/python/checks.py \
	tests/python/package.py \
	tests/python/runner.py tests/python/run.py tests/python/plan.py

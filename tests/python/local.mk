# tests of python/, the qopt Python package (fragment of the top
# Makefile.am): package.sh (imports, bad input, the sample writer read by
# qopt calibrate, pip and make install), runner.sh (the calibration
# runner with stand-ins for node), run.sh (qopt.run, calibrate, passes
# against the qopt program), plan.sh (qopt.plan against qopt plan).
PYTHON_SH = tests/python/package.sh tests/python/runner.sh \
	tests/python/run.sh tests/python/plan.sh
TESTS += $(PYTHON_SH)
dist_check_SCRIPTS += $(PYTHON_SH)
EXTRA_DIST += tests/python/common.sh tests/python/checks.py \
	tests/python/package.py \
	tests/python/runner.py tests/python/run.py tests/python/plan.py

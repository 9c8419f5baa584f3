# python/: the qopt Python package, ctypes over libqopt (docs/python.md).
# `make install` puts the modules into $(pkgpythondir) (AM_PATH_PYTHON in
# configure.ac: the site folder of the python3 configure found) with
# _paths.py naming this prefix's libqopt and ONNX Runtime launchers; pip
# installs the same modules from python/ (pyproject.toml), without
# _paths.py, and the package searches (python/qopt/_locate.py).
QOPT_PY_MODULES = python/qopt/__init__.py python/qopt/_version.py \
	python/qopt/errors.py python/qopt/_locate.py python/qopt/_capi.py \
	python/qopt/_diag.py python/qopt/_session.py python/qopt/_pipeline.py \
	python/qopt/_hooks.py python/qopt/_model.py python/qopt/_samples.py \
	python/qopt/_runner.py python/qopt/_run.py python/qopt/_calibrate.py \
	python/qopt/_plan.py python/qopt/_passes.py
EXTRA_DIST += $(QOPT_PY_MODULES) python/qopt/_paths.py.in \
	python/pyproject.toml python/README.md docs/python.md

if HAVE_PYTHON
pkgpython_PYTHON = $(QOPT_PY_MODULES)
nodist_pkgpython_PYTHON = python/qopt/_paths.py
noinst_DATA = python/qopt/_paths.py
endif
# The prefix's folders are known to make, not configure (they hold
# ${prefix}): the same sed as the ORT launchers (tools/local.mk).
python/qopt/_paths.py: $(top_srcdir)/python/qopt/_paths.py.in Makefile
	$(AM_V_GEN)$(MKDIR_P) python/qopt && \
	sed -e 's|[@]libdir[@]|$(libdir)|g' -e 's|[@]bindir[@]|$(bindir)|g' \
		-e 's|[@]QOPT_ABI_VERSION[@]|$(QOPT_ABI_VERSION)|g' \
		-e 's|[@]NODE[@]|$(NODE)|g' \
		<$(top_srcdir)/python/qopt/_paths.py.in >$@.tmp && mv $@.tmp $@
CLEANFILES += python/qopt/_paths.py
clean-local: clean-local-python
clean-local-python:
	-rm -rf python/qopt/__pycache__
.PHONY: clean-local-python

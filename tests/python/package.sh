#!/bin/sh
# tests/python/package.sh - the qopt Python package (python/,
# docs/python.md) without the session API: its version, loading libqopt,
# bad input refused with clear errors, the sample writer's folder read
# by `qopt calibrate --data` (the ranges NumPy gives), pip's offline
# install from the source tree into a temporary prefix (imported and,
# when libqopt has the session API, run), and `make install`'s modules
# and _paths.py.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/python/common.sh"
. "$top_srcdir/tests/ort/common.sh"
version=$(sed -n 's/^AC_INIT(\[qopt\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")

PYTHONPATH="$top_srcdir/tests/python:$PYTHONPATH" \
	py_checks "$top_srcdir/tests/python/package.py" "$version" "$W"

# The written samples as the qopt program reads them: x.npy and the
# input_1.pb TensorProto named "in/u", each tensor's amax NumPy's.
why=$(qopt_ort_missing)
if [ -n "$why" ]; then
	skip "qopt calibrate reads the writer's samples" "$why"
else
	QOPT_NODE=$NODE QOPT_CALIBRATE_ORT="$top_builddir/tools/qopt-calibrate-ort" \
	run "$QOPT" calibrate "$W/mm.onnx" --data "$W/samples" --passes fp8 \
		-o "$W/c.json"
	[ "$rc" = 0 ] && "$py" - "$W/c.json" "$W/expect.npy" >>"$W/err" 2>&1 <<'PY'
import json, sys
import numpy as np
t = json.load(open(sys.argv[1]))["tensors"]
want = np.load(sys.argv[2])
got = [t["x"]["amax"], t["in/u"]["amax"]]
assert got == [float(w) for w in want], (got, want)
PY
	ok $? "qopt calibrate --data reads the writer's samples: amax of x and in/u as NumPy's"
fi

# pip, offline, from a copy of the source tree (pip writes build/ and
# an egg-info into the folder it builds).
cp -R "$top_srcdir/python" "$W/src" && rm -rf "$W/src/qopt/_paths.py" &&
	"$py" -m pip install --no-build-isolation --no-index --no-deps \
		--disable-pip-version-check --prefix "$W/prefix" "$W/src" \
		>"$W/pip.log" 2>&1
r=$?
[ $r = 0 ] || sed 's/^/# pip: /' "$W/pip.log" | tail -n 20
ok $r "pip install --no-build-isolation --no-index installs the package into a prefix"
site=$(find "$W/prefix" -name __init__.py -path '*/qopt/__init__.py' | head -n1)
site=${site%/qopt/__init__.py}
run env PYTHONPATH="$site" "$py" -c '
import os, sys, qopt
assert qopt.__file__.startswith(sys.argv[1]), qopt.__file__
print(qopt.library_version()[0])' "$site"
t "the installed package imports from the prefix and loads libqopt" \
	test "$rc" = 0 -a -n "$site"
if [ -n "$(qopt_session_missing qopt_session_new qopt_session_run_file)" ]; then
	skip "the pip-installed package runs a pipeline" \
		"$(qopt_session_missing qopt_session_new qopt_session_run_file)"
else
	"$QOPT" -q --passes cast-fold "$W/mm.onnx" -o "$W/cli.onnx" 2>"$W/err" &&
	PYTHONPATH="$site" "$py" -c '
import sys, qopt
qopt.run(sys.argv[1], passes="cast-fold", output=sys.argv[2])' \
		"$W/mm.onnx" "$W/py.onnx" 2>>"$W/err" &&
		cmp "$W/cli.onnx" "$W/py.onnx" >>"$W/err" 2>&1
	ok $? "the pip-installed package runs cast-fold: the qopt program's bytes"
fi

# make install's Python part into a DESTDIR: every module, byte-compiled,
# and _paths.py naming this prefix's libqopt and launchers.
D="$W/destdir"
if make -C "$top_builddir" install-pkgpythonPYTHON \
	install-nodist_pkgpythonPYTHON DESTDIR="$D" >"$W/install.log" 2>&1; then
	paths=$(find "$D" -name _paths.py -path '*/qopt/*' | head -n1)
	libdir=$(sed -n 's/^libdir=//p' "$top_builddir/qopt.pc")
	prefix=$(sed -n 's/^prefix=//p' "$top_builddir/qopt.pc")
	libdir=$(echo "$libdir" | sed "s|\${prefix}|$prefix|; s|\${exec_prefix}|$prefix|")
	n_src=$(ls "$top_srcdir"/python/qopt/*.py | grep -vc '/_paths\.py$')
	n_inst=$(ls "$(dirname "$paths")"/*.py 2>/dev/null | grep -vc '/_paths\.py$')
	t "make install puts the package's $n_src modules and _paths.py in pkgpythondir" \
		test -n "$paths" -a "$n_src" = "$n_inst"
	t "_paths.py names the prefix's libqopt ($libdir/libqopt.so.4)" \
		grep -qF "LIBRARY = \"$libdir/libqopt.so.4\"" "$paths"
	run env -u QOPT_LIBRARY LD_LIBRARY_PATH="$top_builddir/.libs" \
		PYTHONPATH="$(dirname "$(dirname "$paths")")" "$py" -c '
import qopt, qopt._locate as l
print(qopt.__file__, l.library(), qopt.library_version()[0])'
	t "the installed package imports, and without the prefix's libqopt finds one by its soname" \
		test "$rc" = 0
else
	sed 's/^/# install: /' "$W/install.log" | tail -n 20
	ok 1 "make install-pkgpythonPYTHON DESTDIR=..."
fi
done_testing

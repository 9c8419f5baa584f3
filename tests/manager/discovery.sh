#!/bin/sh
# Plugin discovery: folders' plugins are opened when the run needs them;
# a shared object that is not a qopt plugin is skipped with a warning.
. "$top_srcdir/tests/lib/common.sh"
cd "$W" || exit 1

mkdir -p helper lazy
cp "$PL/good.so" helper/good.so
cp "$PL/no-entry.so" helper/libhelper.so
run "$QOPT" -L helper --passes t-opts m.onnx --dry-run
t "a helper library beside a plugin does not stop a run" \
	eval '[ $rc = 0 ] && has "t-opts: flag=0" "$W/err"'
run "$QOPT" -L helper --list-passes
t "--list-passes: the helper is skipped with a warning naming it" \
	eval '[ $rc = 0 ] && grep "warning" "$W/err" | grep -F "helper/libhelper.so" | grep -q "not a qopt plugin" && grep -q "^t-opts " "$W/out"'
run "$QOPT" --load helper/libhelper.so --list-passes
t "... but a file named with --load must be a plugin" \
	eval '[ $rc = 1 ] && has "not a qopt plugin" "$W/err"'

# The pass t-count lives in t-count.so; a broken plugin sits beside it.
cp "$PL/counter.so" lazy/t-count.so
cp "$PL/bad-abi.so" lazy/aaa-broken.so
run "$QOPT" -L lazy --passes t-count m.onnx --dry-run
t "only the plugin the pipeline needs is opened (NAME.so first)" \
	eval '[ $rc = 0 ] && ! has "aaa-broken.so" "$W/err"'
run "$QOPT" -L lazy m.onnx -o rt.onnx
t "a run without passes opens no folder plugin" \
	eval '[ $rc = 0 ] && ! has "aaa-broken.so" "$W/err"'
run "$QOPT" -L lazy --list-passes
t "--list-passes opens every plugin, and the broken one is refused" \
	eval '[ $rc = 1 ] && has "aaa-broken.so" "$W/err" && has "ABI version" "$W/err"'
run "$QOPT" -L lazy --passes t-cuont m.onnx --dry-run
t "an unknown pass opens the rest for suggestions (and reports them)" \
	eval '[ $rc != 0 ] && has "aaa-broken.so" "$W/err"'
done_testing

#!/bin/sh
# The progress bar: drawn on stderr when it is a terminal (a pseudo-
# terminal made by script(1) here), never when stderr is a file, and
# never with -q.
. "$top_srcdir/tests/lib/common.sh"
M="$top_srcdir/examples/mlp.onnx"
P="--passes nvfp4-weights:mode=fake:min_size=16"

run "$QOPT" $P "$M" -o "$W/file.onnx"
t "stderr is a file: no bar" eval '[ $rc = 0 ] && ! grep -q "\\[#*\\] *[0-9]*%" "$W/err" && ! grep -q "$(printf "\r")" "$W/err"'

if ! script -qec true /dev/null </dev/null >/dev/null 2>&1; then
	echo "ok $((n + 1)) - bar on a terminal # SKIP script(1) cannot make a pseudo-terminal here"
	n=$((n + 1))
	done_testing
	exit $?
fi
# script -e: its status is the command's; -c: the command; the typescript
# goes to /dev/null, the terminal's output to our stdout.
script -qec "'$QOPT' $P '$M' -o '$W/tty.onnx'" /dev/null </dev/null >"$W/tty" 2>&1
rc=$?
t "on a terminal: the bar reaches 100%" eval '[ $rc = 0 ] && grep -q "nvfp4-weights: \[#*\] 100%" "$W/tty"'
t "on a terminal: the bar redraws in place" grep -q "$(printf "\r")" "$W/tty"
script -qec "'$QOPT' -q $P '$M' -o '$W/quiet.onnx'" /dev/null </dev/null >"$W/quiet" 2>&1
t "-q on a terminal: no bar" eval '! grep -q "100%" "$W/quiet"'
t "the output is the same either way" cmp "$W/file.onnx" "$W/tty.onnx"
done_testing

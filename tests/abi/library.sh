#!/bin/sh
# libqopt as a library (<qopt/session.h>, docs/library.md): install into
# a scratch DESTDIR, build tests/abi/library-client.c out of tree with
# `pkg-config --cflags --libs qopt`, and run the pass manager in
# process: on a model in memory and on a path, with hooks added and
# removed, diagnostics with their pass; its outputs are the bytes the
# installed qopt writes for the same pipeline.
. "$top_srcdir/tests/lib/common.sh"

D=$(mktemp -d "${TMPDIR:-/tmp}/qopt-lib.XXXXXX") || exit 1
trap 'rm -rf "$D"' EXIT
if ! make -C "$top_builddir" install DESTDIR="$D" >"$W/install.log" 2>&1; then
	sed 's/^/# /' "$W/install.log" | tail -20
	echo "Bail out! make install DESTDIR failed"
	exit 1
fi
pc=$(find "$D" -name qopt.pc | head -1)
bin=$(find "$D" -path '*/bin/qopt' -type f | head -1)
passdir=$(find "$D" -path '*/qopt/passes' -type d | head -1)
t "make install puts qopt.pc, qopt/session.h and the passes in DESTDIR" \
	eval '[ -n "$pc" ] && [ -n "$bin" ] && [ -n "$passdir" ] && [ -n "$(find "$D" -path "*/include/qopt/session.h")" ]'
libdir=$(dirname "$(dirname "$pc")")
PKG_CONFIG_PATH=$(dirname "$pc")
PKG_CONFIG_SYSROOT_DIR=$D
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

flags=$(pkg-config --cflags --libs qopt)
# A sanitizer build's libqopt needs the ASan runtime first in the
# program: the client is built as the build's own programs are (and so
# is checked by the sanitizers too).
san=
[ "$QOPT_SANITIZED" = yes ] &&
	san="-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer"
run ${CC:-cc} -std=c11 -Wall -Wextra -Werror $san -o "$W/client" \
	"$top_srcdir/tests/abi/library-client.c" $flags
t "the client builds with pkg-config against the installed libqopt" \
	eval '[ $rc = 0 ] && [ -x "$W/client" ]'
L() { LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"; }
run L ldd "$W/client"
t "it runs on the installed libqopt.so.4" has "$libdir/libqopt.so.4" "$W/out"

cksum <"$W/m.onnx" >"$W/input.sum"
L "$W/client" "$passdir" "$PL/good.so" "$W/m.onnx" "$W" \
	>"$W/facts" 2>"$W/client.err"
crc=$?
sed 's/^/# /' "$W/facts"
t "the client ran to its end" test $crc = 0
fact() { grep -qx -- "$1" "$W/facts"; }

# The same pipeline by the installed qopt, for the bytes.
run L "$bin" --passes autocast "$W/m.onnx" -o "$W/cli.onnx"
t "the installed qopt runs autocast" test $rc = 0

t "in memory: the pipeline is set and runs" \
	eval 'fact "memory-pipeline 0" && fact "memory-run 0" && fact "save 0"'
t "in memory: the result is the bytes qopt --passes autocast writes" \
	cmp -s "$W/memory.onnx" "$W/cli.onnx"
t "a hook added runs before and after the pass, and hears the change" \
	fact "hook-kept 1 1 1"
t "a hook removed is not called" \
	eval 'fact "add-hooks 0 0" && fact "remove-hook 0" && fact "hook-removed 0 0"'
t "removing it again: QOPT_ENOTFOUND (15)" fact "remove-again 15"
t "the report is the --stats-json text, naming the pass" \
	eval 'fact "report 0" && fact "report-names-pass 1"'
t "a second pipeline on a session: QOPT_EUSAGE (6)" fact "second-pipeline 6"

t "on paths: add_pass with an option, then run_file" \
	eval 'fact "add-pass 0" && fact "path-run 0"'
t "on paths: the output is the bytes qopt writes" \
	cmp -s "$W/path.onnx" "$W/cli.onnx"
t "an output that is the input: QOPT_EUSAGE, the input untouched" \
	eval 'fact "same-path 6" && cksum <"$W/m.onnx" | cmp -s - "$W/input.sum"'

t "an unknown setting: QOPT_EUSAGE, and a diagnostic naming it" \
	eval 'fact "unknown-setting 6" && grep -q "^diag 0 6 - unknown setting .no_such." "$W/facts"'
t "the diag callback hears a pass's warning, with its pass" \
	fact "diag 1 0 t-warn planned warning for the test"
t "... and a pass's error, with its pass and QOPT_EPASS (16)" \
	fact "diag 0 16 t-fail planned failure for the test"
t "the failing run returns the pass's status and names it" \
	eval '[ "$(grep -c "^failing-run 16 t-fail$" "$W/facts")" = 2 ]'
t "an unknown pass: QOPT_EUSAGE, an error naming it; a run then refused" \
	eval 'fact "unknown-pass 6" && grep -q "^diag 0 6 - .*unknown pass .no-such-pass." "$W/facts" && fact "refused-run 6"'

# Without a callback the library prints what qopt prints.
run L "$bin" --load "$PL/good.so" --passes t-warn,t-fail "$W/m.onnx" --dry-run
grep '^qopt: t-' "$W/err" >"$W/cli-lines"
grep '^qopt: t-' "$W/client.err" >"$W/lib-lines"
sed 's/^/# qopt: /' "$W/cli-lines"
t "without a callback, the passes' messages are qopt's lines" \
	eval '[ -s "$W/cli-lines" ] && cmp -s "$W/cli-lines" "$W/lib-lines"'

# Calibration in process (<qopt/calib.h>): the client's own runner
# spawns node on the job libqopt writes; the ranges are the file the
# installed qopt calibrate writes, byte for byte, and the one-command
# form's model the bytes of qopt --calibration-data.
py=
for p in /usr/bin/python3 "$PYTHON3"; do
	if [ -x "$p" ] && "$p" -c 'import numpy, onnx' 2>/dev/null; then
		py=$p
		break
	fi
done
why=
case $NODE in ''|no) why="node not found at configure time";; esac
[ -d "$QOPT_ORT_DIR/node_modules/onnxruntime-node" ] ||
	why="ONNX Runtime not installed (tests/ort/setup.sh has not run)"
[ -n "$py" ] || why="no python3 with numpy and onnx"
C="$W/calib"
if [ -z "$why" ]; then
	mkdir -p "$C/tmp"
	"$py" "$top_srcdir/tests/cli/calib-gen.py" model exact "$C/e.onnx" &&
	"$py" "$top_srcdir/tests/cli/calib-gen.py" samples exact "$C/cal" 6 1 ||
		why="tests/cli/calib-gen.py failed"
fi
script="$top_builddir/tools/qopt-calibrate-ort"
pscript="$top_builddir/tools/qopt-plan-ort"
CL() { TMPDIR="$C/tmp" QOPT_NODE=$NODE QOPT_CALIBRATE_ORT=$script \
	QOPT_PLAN_ORT=$pscript L "$@"; }
if [ -z "$why" ]; then
	mkdir -p "$C/plan" "$C/cli-plan"
	CL "$W/client" "$passdir" "$PL/good.so" "$W/m.onnx" "$C" \
		"$C/e.onnx" "$C/cal" "$NODE" "$script" "$pscript" \
		>"$C/facts" 2>"$C/err"
	crc=$?
	sed 's/^/# /' "$C/facts"
	cfact() { grep -qx -- "$1" "$C/facts"; }
	run CL "$bin" calibrate -q "$C/e.onnx" --data "$C/cal" -o "$C/cli-calib.json"
	t "calibration: the client ran to its end; the installed qopt calibrate too" \
		eval '[ $crc = 0 ] && [ $rc = 0 ]'
	t "qopt_session_calibrate through the client's runner: QOPT_OK, bounded" \
		eval 'cfact "calibrate 0" && cfact "calibrate-runner-calls 1 bounded 1" && cfact "calibrate-count-positive 1"'
	t "its ranges' text is the file qopt calibrate writes, byte for byte" \
		eval 'cfact "calibrate-text 0" && cmp -s "$C/lib-calib.json" "$C/cli-calib.json"'
	t "no samples nor random: QOPT_EUSAGE (6), said" \
		eval 'cfact "calibrate-no-samples 6" && grep -q "^diag 0 6 - qopt_calib_opts: give samples or random" "$C/facts"'
	t "a pipeline whose passes read no calibration: QOPT_EUSAGE (6), said" \
		eval 'cfact "calibrate-nothing-to-measure 6" && grep -q "reads a calibration file: nothing to calibrate" "$C/err" "$C/facts"'
	t "a runner that fails: its status (QOPT_EINVALID, 3) and message, no ranges" \
		eval 'cfact "calibrate-runner-fails 3 out-null 1" && grep -q "client runner: .*/nonexistent/qopt-calibrate-ort failed" "$C/err" "$C/facts"'
	run CL "$bin" calibrate -q "$C/e.onnx" --random 3 --seed 7 -o "$C/cli-random.json"
	t "random samples with a seed: the file qopt calibrate --random 3 --seed 7 writes" \
		eval '[ $rc = 0 ] && cfact "calibrate-random 0" && cfact "calibrate-random-write 0" && cmp -s "$C/lib-random.json" "$C/cli-random.json"'
	for b in both dims-with-samples dims-malformed dims-zero method-unknown \
		percentile-range percentile-of-max; do
		t "qopt_calib_opts refused before the runner runs: $b (QOPT_EUSAGE)" \
			cfact "bad-opts $b 6 runner-calls 0"
	done
	t "... each refusal names the option" \
		eval '[ "$(grep -c "^diag 0 6 - qopt_calib_opts" "$C/facts")" -ge 8 ]'
	run CL "$bin" --passes fp8-mha "$C/e.onnx" --calibration-data "$C/cal" -o "$C/cli-fp8.onnx"
	t "qopt_session_calibration, then a run: the bytes of qopt --calibration-data" \
		eval '[ $rc = 0 ] && cfact "calibration 0" && cfact "calibrated-run 0 runner-calls-positive 1" && cmp -s "$C/lib-fp8.onnx" "$C/cli-fp8.onnx"'
	t "qopt_session_calibration twice on a session: QOPT_EUSAGE (6)" \
		cfact "calibration-again 6"
	# the plan in process (<qopt/plan.h>), against the installed qopt plan
	run CL "$bin" plan "$C/e.onnx" --data "$C/cal" --formats fp8,none \
		--effective-bits 12 -o "$C/cli-plan/p.ini"
	cp "$W/err" "$C/cli-plan.err"
	t "qopt_session_plan: QOPT_OK, one calibration and two measurements through the client's runner" \
		eval 'cfact "plan 0" && cfact "plan-runner-calls calibrate 1 measure 2" && cfact "plan-ncalib 1"'
	t "its INI and calibration file are those of the installed qopt plan, byte for byte" \
		eval '[ $rc = 0 ] && cmp -s "$C/plan/p.ini" "$C/cli-plan/p.ini" && cmp -s "$C/plan/p.calib.json" "$C/cli-plan/p.calib.json"'
	t "its summary is the line qopt plan prints (but for the INI's folder)" \
		eval 'grep "^qopt plan: " "$C/cli-plan.err" | sed "s/^qopt plan: /plan-summary /; s|/cli-plan/p.ini\$|/plan/p.ini|" | grep -qxF -f - "$C/facts"'
	t "an unknown format: QOPT_EUSAGE (6), said naming it" \
		eval 'cfact "plan-bad-format 6" && grep -q "^diag 0 6 - qopt_session_plan: unknown format .fp9." "$C/facts"'
	t "no temporary folder left by the library's runs" \
		eval '[ -z "$(ls -A "$C/tmp")" ]'
else
	for d in "qopt_session_calibrate, qopt_session_calibration and qopt_session_plan through the client's runner"; do
		skip "$d" "$why"
	done
fi

done_testing

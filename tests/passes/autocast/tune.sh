#!/bin/sh
# tests/passes/autocast/tune.sh - autocast's error-driven mode: `qopt
# autocast-tune` measures the fake form against FLOAT in ONNX Runtime
# and writes the keep_file the pass reads. On a model whose hot tensor
# overflows FLOAT16 it finds, from the error alone (the magnitude rule
# off), the two nodes the range rule keeps; on a learned model
# (charlm) it reaches the error the magnitude rules (AutoCast's
# data_max 512) give, and a tighter one, with no more FLOAT nodes than
# they keep. The FLOAT model runs in ONNX Runtime once per invocation
# (its tensors cached), however many rounds: the cost line counts the
# sessions the node processes say they opened. --ort-timeout and
# QOPT_ORT_TIMEOUT bound the node script (a stand-in deaf to SIGTERM,
# ended with its group and reaped) and the calibration child. The
# node scripts and the module they share (tools/qopt-ort-job.js) work
# installed. Bad input: targets out of range, a malformed bound, no
# samples, samples that do not fit, keep files that are not one or name
# another model's nodes.
. "$top_srcdir/tests/ort/common.sh"
qopt_need_py_onnx
qopt_need_ort
qopt_workdir autocast-tune
qopt_calib_env
QOPT_AUTOCAST_TUNE_ORT="$top_builddir/tools/qopt-autocast-tune-ort"
export QOPT_AUTOCAST_TUNE_ORT
M="$top_srcdir/tests/passes/autocast/models.py"
L="$top_srcdir/tests/torch/learned"

# float nodes kept FLOAT, from the pass's coverage line in log $1
kept_float() {
	sed -n 's/.*coverage: [0-9]* of [0-9]* float nodes .*, \([0-9]*\) kept FLOAT in .*/\1/p' "$1"
}
# the outputs' error of round 0, from autocast-tune's log $1
round0() {
	sed -n "s/.*round 0: outputs' normalised MSE \([^,]*\),.*/\1/p" "$1"
}

# ---- the overflow model, magnitude rule off: found by its error ----
"$py" "$M" act "$work/act.onnx" >"$work/log" 2>&1 &&
	mkdir -p "$work/d/s0" "$work/d/s1" &&
	"$py" -c '
import sys, numpy as np
for i in range(2):
    np.save(f"{sys.argv[1]}/d/s{i}/x.npy",
            (np.random.default_rng(i).standard_normal((2, 8)) * 3).astype(np.float32))
' "$work" >>"$work/log" 2>&1
check $? "overflow model and its samples"
"$QOPT" autocast-tune "$work/act.onnx" --data "$work/d" -o "$work/act.keep" \
	--option data_max=1e30 --max-error 1e-4 >"$work/t.log" 2>&1 &&
	grep -q "round 0: outputs' normalised MSE inf" "$work/t.log" &&
	grep -q "kept tensor 'h' FLOAT (2 node(s)): the outputs' error inf -> " "$work/t.log" &&
	grep -q "cost: 4 ONNX Runtime session(s) over 2 sample(s): 1 calibration, 1 FLOAT reference (2 run(s)), 2 fake model (4 run(s)); 2 qopt run(s)" "$work/t.log"
s=$?
cat "$work/t.log" >>"$work/log"
check $s "from the error alone: naive FLOAT16 is Inf, one round keeps the hot tensor's producer and reader, the cost said (the FLOAT model in 1 session)"
[ "$(grep -v '^#' "$work/act.keep" | cut -f1 | sort | tr '\n' ' ')" = \
  "mm_hot qopt-autocast-keep 1 scale_down " ]
check $? "... the keep file names mm_hot and scale_down, nothing else"
"$QOPT" --passes "autocast:mode=fake:data_max=1e30:keep_file=$work/act.keep" \
	"$work/act.onnx" -o "$work/act.tuned.onnx" >"$work/p.log" 2>&1 &&
	grep -q "node 'mm_hot' kept FLOAT (measured error): measured: storing 'h' in FLOAT16 adds inf" "$work/p.log" &&
	[ "$(kept_float "$work/p.log")" = 2 ] &&
	qopt_node "$top_srcdir/tests/ort/run-compare.js" --rtol 0.01 --atol 0.01 \
		"$work/act.onnx" "$work/act.tuned.onnx" >>"$work/log" 2>&1
check $? "... autocast with it keeps those 2 FLOAT, says why, and agrees with FLOAT in ORT"

# ---- a learned model: no more FLOAT nodes than the magnitude rules ----
"$QOPT" --passes autocast:mode=fake:data_max=512 --calibration-data "$L/charlm.calib" \
	"$L/charlm.onnx" -o "$work/cm.mag.onnx" >"$work/mag.log" 2>&1 &&
	"$QOPT" autocast-tune "$L/charlm.onnx" --data "$L/charlm.calib" \
		-o "$work/cm.mag.keep" --option data_max=512 --max-error 0.5 \
		>"$work/magt.log" 2>&1
check $? "charlm: the magnitude rules alone (data_max = 512), measured"
nmag=$(kept_float "$work/mag.log")
emag=$(round0 "$work/magt.log")
echo "# magnitude rules: $nmag FLOAT node(s), outputs' error $emag"
for target in "$emag" "$("$py" -c "print(0.95 * $emag)")"; do
	"$QOPT" autocast-tune "$L/charlm.onnx" --data "$L/charlm.calib" \
		-o "$work/cm.keep" --max-error "$target" --rounds 16 \
		>"$work/t.log" 2>&1 &&
		"$QOPT" --passes "autocast:mode=fake:keep_file=$work/cm.keep" \
			--calibration-data "$L/charlm.calib" "$L/charlm.onnx" \
			-o "$work/cm.onnx" >"$work/p.log" 2>&1
	s=$?
	ntune=$(kept_float "$work/p.log")
	echo "# target $target: $ntune FLOAT node(s): $(grep "round [0-9]*:" "$work/t.log" | tail -n1)"
	cat "$work/t.log" >>"$work/log"
	[ $s = 0 ] && [ -n "$nmag" ] && [ -n "$ntune" ] && [ "$ntune" -le "$nmag" ]
	check $? "charlm: error-driven reaches $target with no more FLOAT nodes than the magnitude rules ($ntune <= $nmag)"
	m=$(grep -c "round [0-9]*:" "$work/t.log")
	grep "cost: " "$work/t.log" | sed 's/^/# /'
	[ "$m" -gt 2 ] &&
		grep -q "cost: $((m + 2)) ONNX Runtime session(s) over 16 sample(s): 1 calibration, 1 FLOAT reference (16 run(s)), $m fake model ($((16 * m)) run(s)); $m qopt run(s)" "$work/t.log"
	check $? "... the FLOAT model ran in 1 session (16 runs) for the $m measurements, the fake ones in $m"
done

# ---- the bound on ONNX Runtime: --ort-timeout, QOPT_ORT_TIMEOUT ----
# A stand-in for the node script (or the calibration's) that never
# ends: it writes its pid and its child's, ignores SIGTERM and spins.
# The bounds only end a hang: the checks are on what happened, not on
# time. They are 3 s and more so that node has started the stand-in
# and it has written its pids before the bound ends it, on a loaded
# 2-core machine (the sanitizer run) too.
qopt_hang_js "$work/hang.js"
tmp_clean() {
	[ -z "$(ls -A "$work/tmp" | grep -v -e '^mat-debug-[0-9]*\.log$' -e '^\.ses$')" ]
}
hang_tune() {
	rm -f "$work/h.keep"
	"$QOPT" autocast-tune "$work/act.onnx" --data "$work/d" -o "$work/h.keep" \
		--option data_max=1e30 "$@" >"$work/h.log" 2>&1
}
HANG_PIDS="$work/p1" QOPT_AUTOCAST_TUNE_ORT="$work/hang.js" hang_tune --ort-timeout 4
[ $? = 1 ] && grep -q "qopt autocast-tune: error: ONNX Runtime did not finish within 4 s (--ort-timeout, QOPT_ORT_TIMEOUT): .* ended (SIGTERM, then SIGKILL)" "$work/h.log" &&
	[ ! -e "$work/h.keep" ] && qopt_gone "$work/p1" && tmp_clean
check $? "--ort-timeout 4 on a node script that never ends: exit 1, said, ended and reaped, no keep file, nothing left"
HANG_PIDS="$work/p2" QOPT_AUTOCAST_TUNE_ORT="$work/hang.js" QOPT_ORT_TIMEOUT=4 hang_tune
[ $? = 1 ] && grep -q "did not finish within 4 s" "$work/h.log" &&
	[ ! -e "$work/h.keep" ] && qopt_gone "$work/p2" && tmp_clean
check $? "QOPT_ORT_TIMEOUT=4 alone bounds it the same way"
HANG_PIDS="$work/p3" QOPT_AUTOCAST_TUNE_ORT="$work/hang.js" QOPT_ORT_TIMEOUT=600 hang_tune --ort-timeout 3
[ $? = 1 ] && grep -q "did not finish within 3 s" "$work/h.log" && qopt_gone "$work/p3"
check $? "--ort-timeout wins over QOPT_ORT_TIMEOUT"
HANG_PIDS="$work/p4" QOPT_CALIBRATE_ORT="$work/hang.js" hang_tune --ort-timeout 4
[ $? = 1 ] && grep -q "qopt calibrate: error: ONNX Runtime did not finish within 4 s" "$work/h.log" &&
	grep -q "qopt autocast-tune: error: the activation ranges of .* could not be measured" "$work/h.log" &&
	[ ! -e "$work/h.keep" ] && qopt_gone "$work/p4" && tmp_clean
check $? "... and the calibration child's node script, through qopt calibrate: ended, said, no keep file"
cat "$work/h.log" >>"$work/log"
hang_tune --ort-timeout 0 && cmp -s "$work/h.keep" "$work/act.keep"
check $? "--ort-timeout 0 (no bound): the same keep file"
for bad in -1 1.5 x 31536001 ''; do
	hang_tune --ort-timeout "$bad"
	[ $? = 2 ] && [ ! -e "$work/h.keep" ] &&
		grep -q "qopt autocast-tune: error: --ort-timeout takes seconds from 0 (no bound) to 31536000, got '$bad'" "$work/h.log"
	check $? "--ort-timeout '$bad': usage error naming it, no keep file"
done
QOPT_ORT_TIMEOUT=soon hang_tune
[ $? = 2 ] && [ ! -e "$work/h.keep" ] && tmp_clean &&
	grep -q "qopt autocast-tune: error: QOPT_ORT_TIMEOUT takes seconds from 0 (no bound) to 31536000, got 'soon'" "$work/h.log"
check $? "a malformed QOPT_ORT_TIMEOUT: usage error naming it, before any child runs"

# ---- installed: the scripts find the module they share ----
make -C "$top_builddir" install-ort-tools prefix="$work/inst" \
	ORT_NODE_DIR="$QOPT_ORT_DIR" NODE="$NODE" MAKEFLAGS= >"$work/i.log" 2>&1 &&
	[ -f "$work/inst/libexec/qopt/qopt-ort-job.js" ] &&
	[ -f "$work/inst/libexec/qopt/qopt-autocast-tune.js" ] &&
	[ -f "$work/inst/bin/qopt-autocast-tune-ort" ] && [ -f "$work/inst/bin/qopt-plan-ort" ]
check $? "make install-ort-tools installs qopt-ort-job.js beside the scripts"
rm -f "$work/i.keep"
QOPT_AUTOCAST_TUNE_ORT="$work/inst/bin/qopt-autocast-tune-ort" \
	"$QOPT" autocast-tune "$work/act.onnx" --data "$work/d" -o "$work/i.keep" \
	--option data_max=1e30 >>"$work/i.log" 2>&1 &&
	cmp -s "$work/i.keep" "$work/act.keep"
check $? "the installed qopt-autocast-tune-ort: the same keep file"
mkdir -p "$work/pb" "$work/pi" &&
	"$QOPT" plan "$work/act.onnx" --data "$work/d" --formats fp8,none \
	--effective-bits 8 -o "$work/pb/plan.ini" >>"$work/i.log" 2>&1 &&
	QOPT_PLAN_ORT="$work/inst/bin/qopt-plan-ort" \
	"$QOPT" plan "$work/act.onnx" --data "$work/d" --formats fp8,none \
	--effective-bits 8 -o "$work/pi/plan.ini" >>"$work/i.log" 2>&1 &&
	cmp -s "$work/pb/plan.ini" "$work/pi/plan.ini"
check $? "the installed qopt-plan-ort: the plan the build tree's makes"
make -C "$top_builddir" uninstall-ort-tools prefix="$work/inst" MAKEFLAGS= >>"$work/i.log" 2>&1 &&
	[ -z "$(ls -A "$work/inst/libexec/qopt")" ]
check $? "make uninstall-ort-tools removes them all"
cat "$work/i.log" >>"$work/log"

# ---- the FLOAT reference's cache, read by the node script alone ----
# (a job as tune-run.c writes it: the model stands for both forms)
job() { # job FILE DATA REFERENCE
	printf '{"model": "act", "ref": "%s", "fake": "%s", "data": "%s", "result": "%s", "cache": "%s", "reference": "%s", "verbose": 0, "outputs": ["y"], "pairs": [["y", "y"]]}\n' \
		"$work/act.onnx" "$work/act.onnx" "$2" "$work/c/result.txt" "$work/c/ref" "$3" >"$1"
}
mkdir -p "$work/c" && cp -r "$work/d" "$work/d2"
job "$work/c/run.json" "$work/d" run
job "$work/c/cached.json" "$work/d" cached
qopt_node "$QOPT_AUTOCAST_TUNE_ORT" "$work/c/run.json" >"$work/c.log" 2>&1 &&
	head -n1 "$work/c/result.txt" | grep -qx "qopt-autocast-tune-result 2 samples 2 reference 1 2 fake 1 2" &&
	[ -s "$work/c/ref-0.bin" ] && [ -s "$work/c/ref-1.bin" ] &&
	cp "$work/c/result.txt" "$work/c/run.txt" &&
	qopt_node "$QOPT_AUTOCAST_TUNE_ORT" "$work/c/cached.json" >>"$work/c.log" 2>&1 &&
	head -n1 "$work/c/result.txt" | grep -qx "qopt-autocast-tune-result 2 samples 2 reference 0 0 fake 1 2" &&
	[ "$(tail -n +2 "$work/c/result.txt")" = "$(tail -n +2 "$work/c/run.txt")" ] &&
	[ "$(sed -n 2p "$work/c/result.txt")" = 0 ]
check $? "the script: 'run' opens the FLOAT session and caches one file per sample; 'cached' opens none and measures the same"
job "$work/c/other.json" "$work/d2" cached
qopt_node "$QOPT_AUTOCAST_TUNE_ORT" "$work/c/other.json" >"$work/c.log" 2>&1
[ $? = 3 ] && grep -q "qopt autocast-tune: error: .*/c/ref-0.bin: the FLOAT model's cached tensors cannot be read: made for .*/d/s0, not .*/d2/s0" "$work/c.log"
check $? "... a cache made over other samples: refused naming the file and both folders"
head -c 100 "$work/c/ref-1.bin" >"$work/c/short" && mv "$work/c/short" "$work/c/ref-1.bin"
qopt_node "$QOPT_AUTOCAST_TUNE_ORT" "$work/c/cached.json" >"$work/c.log" 2>&1
[ $? = 3 ] && grep -q "ref-1.bin: the FLOAT model's cached tensors cannot be read" "$work/c.log"
check $? "... a cut cache file: refused naming it"
rm -f "$work/c/ref-"*
qopt_node "$QOPT_AUTOCAST_TUNE_ORT" "$work/c/cached.json" >"$work/c.log" 2>&1
[ $? = 3 ] && grep -q "ref-0.bin: the FLOAT model's cached tensors cannot be read: ENOENT" "$work/c.log"
check $? "... no cache: refused naming the file"
job "$work/c/bogus.json" "$work/d" bogus
qopt_node "$QOPT_AUTOCAST_TUNE_ORT" "$work/c/bogus.json" >"$work/c.log" 2>&1
[ $? = 3 ] && grep -q "bogus.json: reference 'bogus': not run or cached" "$work/c.log"
check $? "... a job whose reference is neither run nor cached: refused"
cat "$work/c.log" >>"$work/log"

# ---- --help and the bash completion agree ----
"$QOPT" autocast-tune --help | grep -o -- '--[a-z][a-z-]*' | sort -u >"$work/help-opts"
bash -c '. "$1"; COMP_WORDS=(qopt autocast-tune m.onnx --); COMP_CWORD=3; _qopt
	printf "%s\n" "${COMPREPLY[@]}"' _ "$top_srcdir/tools/qopt.bash-completion" |
	sort -u >"$work/comp-opts"
missing=$(comm -23 "$work/help-opts" "$work/comp-opts" | tr '\n' ' ')
grep -qx -- --ort-timeout "$work/help-opts" && [ -z "$missing" ]
check $? "every long option of autocast-tune --help completes, --ort-timeout too (missing: ${missing:-none})"

# ---- bad input ----
for bad in "--max-error 0" "--max-error 1" "--max-error -1e-3" "--max-error x" \
	   "--min-cosine 1.5" "--min-cosine 0" "--rounds 0" "--to float8"; do
	# shellcheck disable=SC2086
	"$QOPT" autocast-tune "$work/act.onnx" --data "$work/d" \
		-o "$work/bad.keep" $bad >"$work/log" 2>&1
	[ $? = 2 ] && [ ! -e "$work/bad.keep" ] &&
		grep -q "qopt autocast-tune: error: ${bad%% *}" "$work/log"
	check $? "$bad: usage error naming it, no keep file"
done
"$QOPT" autocast-tune "$work/act.onnx" -o "$work/bad.keep" >"$work/log" 2>&1
[ $? = 2 ] && [ ! -e "$work/bad.keep" ] && grep -q "no samples: --data DIR" "$work/log"
check $? "no samples: usage error, no keep file"
mkdir -p "$work/wrong/s0" && "$py" -c '
import sys, numpy as np
np.save(sys.argv[1], np.zeros((3, 5), np.float32))' "$work/wrong/s0/x.npy"
"$QOPT" autocast-tune "$work/act.onnx" --data "$work/wrong" -o "$work/bad.keep" \
	>"$work/log" 2>&1
[ $? = 1 ] && [ ! -e "$work/bad.keep" ] && grep -q "wrong/s0/x.npy" "$work/log"
check $? "samples that do not fit the model: exit 1 naming the file, no keep file"
printf 'qopt-autocast-keep 1\nno_such_node\tmeasured\n' >"$work/other.keep"
rm -f "$work/bad.onnx"
"$QOPT" --passes "autocast:keep_file=$work/other.keep" "$work/act.onnx" \
	-o "$work/bad.onnx" >"$work/log" 2>&1
[ $? = 1 ] && [ ! -e "$work/bad.onnx" ] &&
	grep -q "keep file '.*other.keep': line 2: no node 'no_such_node' computes in FLOAT" "$work/log"
check $? "a keep file naming a node the model lacks: exit 1 naming file, line and node"
printf 'mm_hot\tmeasured\n' >"$work/nomagic.keep"
rm -f "$work/bad.onnx"
"$QOPT" --passes "autocast:keep_file=$work/nomagic.keep" "$work/act.onnx" \
	-o "$work/bad.onnx" >"$work/log" 2>&1
[ $? = 1 ] && [ ! -e "$work/bad.onnx" ] && grep -q "not a keep file of qopt autocast-tune" "$work/log"
check $? "a file that is not a keep file: exit 1, no output"
printf 'qopt-autocast-keep 1\nmm_hot\n' >"$work/notab.keep"
rm -f "$work/bad.onnx"
"$QOPT" --passes "autocast:keep_file=$work/notab.keep" "$work/act.onnx" \
	-o "$work/bad.onnx" >"$work/log" 2>&1
[ $? = 1 ] && [ ! -e "$work/bad.onnx" ] && grep -q "notab.keep': line 2: not 'NODE<TAB>REASON'" "$work/log"
check $? "a keep line without its reason: exit 1 naming the line, no output"
rm -f "$work/bad.onnx"
"$QOPT" --passes "autocast:keep_file=$work/no-such.keep" "$work/act.onnx" \
	-o "$work/bad.onnx" >"$work/log" 2>&1
[ $? = 1 ] && [ ! -e "$work/bad.onnx" ] && grep -q "keep file '.*no-such.keep': No such file" "$work/log"
check $? "a keep file that cannot be read: exit 1 naming it, no output"
# (the test's own ORT runs leave ORT's files in TMPDIR: not counted)
left=$(ls -A "$work/tmp" | grep -v -e '^mat-debug-[0-9]*\.log$' -e '^\.ses$')
echo "# left: $left" >"$work/log"
[ -z "$left" ]
check $? "no temporary folder or file of autocast-tune left"
echo "1..$n"
[ "$failed" = 0 ]

#!/bin/sh
# tests/passes/fp8/steps.sh - fp8-mha is a named pipeline of single-purpose
# passes: --print-pipeline shows them with the options forwarded; the
# alias and the same passes written out give the same file; each step
# alone works from the model (no state handed between steps); bisect,
# --bisect-limit and --print-after stop between the steps.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_workdir fp8mha-steps

gen() {
	name=$1
	shift
	"$py" "$top_srcdir/tests/passes/fp8/gen.py" "$work/$name.onnx" "$@" ||
		{ echo "Bail out! cannot generate $name"; exit 1; }
}

. "$top_srcdir/tests/passes/fp8/lib.sh"

P=--passes
STEPS="fp8-calibrate-place fp8-custom-ops fp8-type-qdq fp8-compress-weights
fp8-move-transpose fp8-move-layout fp8-move-scale fp8-softmax-qdq fp8-report"
gen cus form=custom attn=sdpa blocks=2
gen gq form=std attn=gpt2 kv=repeat blocks=2

# ---- the expansion ----
"$QOPT" --print-pipeline $P fp8-mha >"$work/pp" 2>"$work/log"
got=$(grep '^\[' "$work/pp" | tr -d '[]' | tr '\n' ' ')
want=$(echo $STEPS)
[ "$got" = "$want " ] &&
	[ "$(grep -c "^; from pipeline 'fp8-mha'" "$work/pp")" = 9 ] ||
	echo "got: $got" >>"$work/log"
check $? "--print-pipeline: fp8-mha expands to the nine passes in order"

# section NAME FILE: the options printed under [NAME].
section() {
	sed -n "/^\[$1\]/,/^\$/p" "$2"
}
"$QOPT" --print-pipeline $P fp8-mha:move_scale=no:weight_mode=fake:rotate=rotate_back \
	>"$work/pp2" 2>"$work/log"
section fp8-move-scale "$work/pp2" | grep -qx "move_scale = no" &&
	! section fp8-move-transpose "$work/pp2" | grep -q "move_scale" &&
	[ "$(section fp8-report "$work/pp2" | grep -c =)" = 0 ] &&
	section fp8-compress-weights "$work/pp2" | grep -qx "weight_mode = fake" &&
	section fp8-compress-weights "$work/pp2" | grep -qx "rotate = rotate_back" &&
	section fp8-move-transpose "$work/pp2" | grep -qx "; move_transpose = yes (default)"
check $? "fp8-mha's options reach only the steps that read them (fp8-report none); a default equal to the step's own stays the step's default"

"$QOPT" --print-pipeline $P 'fp8-mha{compress_weights=no,weight_mode=fake}' \
	>"$work/pp4" 2>"$work/log"
section fp8-compress-weights "$work/pp4" | grep -qx "compress_weights = no" &&
	section fp8-compress-weights "$work/pp4" | grep -qx "weight_mode = fake"
check $? "fp8-mha{compress_weights=no,...}: the braces spelling reaches the steps too"

printf '[fp8-mha]\nsoftmax_qdq = no\n' >"$work/ns.ini"
"$QOPT" --print-pipeline -p "$work/ns.ini" >"$work/pp3" 2>"$work/log"
section fp8-softmax-qdq "$work/pp3" | grep -qx "softmax_qdq = no"
check $? "an [fp8-mha] INI section expands the same way"

# ---- the alias is the passes written out ----
list=$(echo $STEPS | tr ' ' ',')
for m in cus gq; do
	run $m ${m}a $P fp8-mha
	ra=$rc
	run $m ${m}s $P "$list"
	[ $ra = 0 ] && [ $rc = 0 ] &&
		cmp -s "$work/${m}a.onnx" "$work/${m}s.onnx"
	check $? "$m: fp8-mha and its nine passes written out give the same file"
done

# ---- each step alone ----
run cus c1 $P fp8-custom-ops
[ $rc = 0 ] && has c1 "30 custom Q converted" &&
	! grep -q "weights compressed" "$work/c1.log"
check $? "fp8-custom-ops alone converts the custom ops and nothing else"
run c1 c2 $P fp8-compress-weights
[ $rc = 0 ] && has c2 "12 weights compressed"
check $? "fp8-compress-weights alone, on fp8-custom-ops' output"
run gq r1 $P fp8-report
[ $rc = 0 ] && has r1 "attention: 0 of 2 blocks fusible" &&
	has r1 "not fusible: node 'b0_kT" &&
	"$QOPT" dump "$work/gq.onnx" >"$work/a.txt" 2>&1 &&
	"$QOPT" dump "$work/r1.onnx" >"$work/b.txt" 2>&1 &&
	cmp -s "$work/a.txt" "$work/b.txt"
check $? "fp8-report alone: finds the blocks and why they are not fusible from the model, changes nothing"
has r1 "(Q/DQ not moved below layout ops: fp8-move-layout not run, move_layout = no, or bisect)"
check $? "fp8-report alone names the pass that would move what is in the way"
run gq r2 $P fp8-report:move_layout=no
[ $rc = 2 ] && [ ! -e "$work/r2.onnx" ] &&
	has r2 "unknown option 'move_layout' for pass 'fp8-report' (it takes no options)"
check $? "fp8-report no longer takes another pass's switch: exit 2 naming it, nothing written"
printf '[fp8-report]\nsoftmax_qdq = no\n' >"$work/rep.ini"
"$QOPT" --print-pipeline -p "$work/rep.ini" >"$work/log" 2>&1
[ $? = 2 ] && grep -q "rep.ini:2: unknown option 'softmax_qdq' for pass 'fp8-report'" "$work/log"
check $? "... in an INI file too, naming file and line"
run cusa r3 $P fp8-report
[ $rc = 0 ] && has r3 "attention: 2 of 2 blocks fusible"
check $? "fp8-report on fp8-mha's output: fusible"

# ---- bisect, --bisect-limit, --print-after between the steps ----
"$QOPT" $P fp8-mha --print-after fp8-move-transpose "$work/cus.onnx" \
	-o "$work/pa.onnx" >"$work/pa.txt" 2>"$work/log"
[ $? = 0 ] &&
	grep -q "IR after fp8-move-transpose (pass 5, from fp8-mha)" "$work/pa.txt" &&
	! grep -q "IR after fp8-softmax-qdq" "$work/pa.txt" &&
	grep -q "_w_[0-9]*_fp8_T" "$work/pa.txt" &&
	! grep -q "softmax[0-9_a-z]*_fp8_scale" "$work/pa.txt"
check $? "--print-after fp8-move-transpose: the IR with FP8 weights and no Softmax Q/DQ yet"

"$QOPT" --verify-each --time-passes $P fp8-mha "$work/cus.onnx" -o /dev/null \
	>"$work/tp.txt" 2>&1
r=$?
for s in $STEPS; do
	grep -q "%  $s\$" "$work/tp.txt" || r=1
done
[ $r = 0 ] || cp "$work/tp.txt" "$work/log"
check $r "--verify-each and --time-passes: every step verified and timed on its own"

# The limit of the run up to fp8-move-transpose: bisect points counted
# from its log.
"$QOPT" --bisect-limit -1 $P fp8-mha "$work/cus.onnx" -o /dev/null \
	>"$work/bl.txt" 2>&1
last=$(grep -n "BISECT: running pass ([0-9]*) fp8-move-layout" "$work/bl.txt" |
	sed 's/.*(\([0-9]*\)).*/\1/')
lim=$((last - 1))
"$QOPT" --bisect-limit $lim $P fp8-mha "$work/cus.onnx" -o "$work/bl.onnx" \
	>"$work/bl2.txt" 2>&1
[ -n "$last" ] && grep -q "BISECT: running pass ([0-9]*) fp8-move-transpose" "$work/bl2.txt" &&
	grep -q "BISECT: NOT running pass ($last) fp8-move-layout" "$work/bl2.txt" &&
	grep -q "BISECT: NOT running pass ([0-9]*) fp8-softmax-qdq" "$work/bl2.txt" ||
	cp "$work/bl2.txt" "$work/log"
check $? "--bisect-limit stops between fp8-move-transpose and fp8-move-layout"

# qopt bisect names the first bad point: a test that calls any Softmax
# Q/DQ bad finds it in fp8-softmax-qdq, after every earlier step ran.
"$QOPT" bisect $P fp8-mha "$work/cus.onnx" -o "$work/bis" \
	--test "! '$QOPT' dump {} | grep -q 'softmax[0-9_a-z]*_fp8_scale'" \
	>"$work/bis.txt" 2>&1
[ $? = 0 ] && grep -q "fp8-softmax-qdq" "$work/bis.txt" &&
	grep -q "Q/DQ (scale 1/448) after Softmax" "$work/bis.txt" ||
	cp "$work/bis.txt" "$work/log"
check $? "qopt bisect: the first bad point is a rewrite of fp8-softmax-qdq"

# ---- fp8-type-qdq is idempotent ----
# Typing a DQ output an exporter declared with torch's symbolic dims
# ('..._dim_0') makes the shapes below it static: the pass works on
# fresh inference until nothing changes, so a second run finds nothing
# (it used to retype the Q/DQ of MQA/GQA exports from stale shapes).
for m in "$top_srcdir"/tests/torch/models/*_fp8_*.onnx \
	 "$work/cus.onnx" "$work/gq.onnx"; do
	b=$(basename "$m" .onnx)
	cp "$m" "$work/ty-$b.onnx"
	run ty-$b ty1-$b $P fp8-custom-ops,fp8-type-qdq
	r1=$rc
	run ty1-$b ty2-$b $P fp8-type-qdq
	[ $r1 = 0 ] && [ $rc = 0 ] &&
		has ty2-$b "fp8-type-qdq: done: no change" &&
		cmp -s "$work/ty1-$b.onnx" "$work/ty2-$b.onnx"
	check $? "$b: fp8-type-qdq run twice gives the same bytes"
done

echo "1..$n"
exit $failed

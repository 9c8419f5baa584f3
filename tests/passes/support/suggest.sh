#!/bin/sh
# tests/passes/support/suggest.sh - a target pattern that matches
# nothing names the nearest name the pass was offered: `include=lm_head`
# on GPT-2 (whose head is the node /lm_head/MatMul: a glob matches a
# whole name) said only "matches no weight" and exited 0. The literal
# part as a substring, or a typo within edit distance, is suggested;
# a pattern near nothing gets no suggestion (passes/support/suggest.c).
. "$top_srcdir/tests/lib/common.sh"
m="$top_srcdir/tests/torch/models/gpt2.onnx"
[ -f "$m" ] || { echo "1..0 # SKIP $m not there"; exit 0; }

run "$QOPT" "$m" -o "$W/o.onnx" --passes 'nvfp4-weights:include=lm_head'
t "include=lm_head: exit 0, warned with 'did you mean /lm_head/MatMul'" \
	eval '[ $rc = 0 ] && has "warning: include pattern '\''lm_head'\'' matches no weight (did you mean '\''/lm_head/MatMul'\''?)" "$W/err"'
run "$QOPT" "$m" -o "$W/o.onnx" --passes 'nvfp4-weights:include=/lm_haed/MatMul;zzzq'
t "a typo of a node name: the node suggested" \
	has "include pattern '/lm_haed/MatMul' matches no weight (did you mean '/lm_head/MatMul'?)" "$W/err"
t "a pattern near no name: warned, nothing suggested" \
	eval 'has "include pattern '\''zzzq'\'' matches no weight" "$W/err" && ! grep -q "'\''zzzq'\'' matches no weight (did you mean" "$W/err"'
run "$QOPT" "$m" -o "$W/o.onnx" --passes 'nvfp4-weights:exclude=*lm_haed*'
t "exclude: the same, its glob characters aside" \
	has "exclude pattern '*lm_haed*' matches no weight (did you mean '/lm_head/MatMul'?)" "$W/err"
run "$QOPT" "$m" -o "$W/strict.onnx" --strict --passes 'nvfp4-weights:include=lm_head'
t "--strict: the unmatched pattern fails the run, suggestion included" \
	eval '[ $rc != 0 ] && has "did you mean '\''/lm_head/MatMul'\''?" "$W/err" && [ ! -e "$W/strict.onnx" ]'
run "$QOPT" "$m" -o "$W/o.onnx" --passes 'nvfp4-weights:include=/lm_head/MatMul'
t "the suggested name works: the head's weight quantized, no warning" \
	eval '[ $rc = 0 ] && ! has "matches no" "$W/err" && has "quantized 1 of 9 weights" "$W/err"'
done_testing

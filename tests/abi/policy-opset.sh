#!/bin/sh
# Pipeline opset policy: [qopt] max_opset and allow_upgrade, read by
# every pass through qopt_policy_*() (nvfp4-weights' side is covered in
# tests/passes/nvfp4/structure.c, t_opset_check).
. "$top_srcdir/tests/lib/common.sh"
cd "$W" || exit 1

printf '[qopt]\nmax_opset = 18\n\n[opset-check]\nupgrade = yes\ntarget = 19\n' >max.ini
run "$QOPT" -p max.ini m.onnx -o max.onnx
t "opset-check: a target above [qopt] max_opset is refused naming it" \
	eval '[ $rc = 1 ] && has "upgrade = yes: need opset 19 but the pipeline has [qopt] max_opset = 18" "$W/err" && [ ! -e max.onnx ]'
printf '[qopt]\nmax_opset = 19\n\n[opset-check]\nupgrade = yes\ntarget = 19\n' >max19.ini
run "$QOPT" -p max19.ini m.onnx -o max19.onnx
t "opset-check: a target at max_opset runs" eval '[ $rc = 0 ] && [ -e max19.onnx ]'
printf '[qopt]\nallow_upgrade = no\n\n[opset-check]\nupgrade = yes\ntarget = 19\n' >no.ini
run "$QOPT" -p no.ini m.onnx -o no.onnx
t "opset-check: allow_upgrade = no refuses the upgrade naming it" \
	eval '[ $rc = 1 ] && has "[qopt] allow_upgrade = no" "$W/err" && [ ! -e no.onnx ]'
printf '[qopt]\nallow_upgrade = no\n\n[opset-check]\n' >check.ini
run "$QOPT" -p check.ini m.onnx -o check.onnx
t "... a check without upgrade is not affected" eval '[ $rc = 0 ]'

printf '[qopt]\nmax_opset = twenty\n' >bad.ini
run "$QOPT" -p bad.ini m.onnx -o bad.onnx
t "max_opset must be a number (exit 2, file:line)" \
	eval '[ $rc = 2 ] && has "bad.ini:2:" "$W/err" && has "max_opset expects an opset number" "$W/err"'
printf '[qopt]\nallow_upgrad = no\n' >typo.ini
run "$QOPT" -p typo.ini m.onnx -o typo.onnx
t "a misspelt policy key gets a suggestion" \
	eval '[ $rc = 2 ] && has "did you mean '\''allow_upgrade'\''" "$W/err"'

printf '[qopt]\nmax_opset = 21\nallow_upgrade = no\n\n[opset-check]\n' >p.ini
"$QOPT" -p p.ini --print-pipeline >p1.ini 2>"$W/err"
"$QOPT" -p p1.ini --print-pipeline >p2.ini 2>>"$W/err"
t "--print-pipeline keeps the policy and re-parses to the same" \
	eval 'grep -qx "max_opset = 21" p1.ini && grep -qx "allow_upgrade = no" p1.ini && cmp -s p1.ini p2.ini'
done_testing

#!/bin/sh
# A mistyped subcommand: `qopt calibrat m.onnx --data d` was read as a
# model named "calibrat" and failed with "unknown option '--data'".
# A first argument that is no file, has no '.' or '/' and is a typo of
# a subcommand is named as such, with the subcommand meant; exit 2. A
# file of that name is still a model.
. "$top_srcdir/tests/lib/common.sh"
cd "$W" || exit 1

for typo in calibrat:calibrate verfy:verify dupm:dump bisetc:bisect plna:plan; do
	word=${typo%%:*} meant=${typo#*:}
	run "$QOPT" "$word" m.onnx --data d
	t "'qopt $word': exit 2, did you mean '$meant'" \
		eval '[ $rc = 2 ] && has "unknown command '\''$word'\'' (did you mean '\''$meant'\''?)" "$W/err" && ! has "unknown option" "$W/err"'
done
run "$QOPT" calibrat
t "'qopt calibrat' alone: the same" \
	eval '[ $rc = 2 ] && has "did you mean '\''calibrate'\''?" "$W/err"'
run "$QOPT" zzzzzzzz
t "a word near no subcommand: a missing model, as before" \
	eval '[ $rc = 1 ] && has "cannot open '\''zzzzzzzz'\''" "$W/err" && ! has "did you mean" "$W/err"'
run "$QOPT" verfy.onnx
t "a path (with a '.') is a model, never a command" \
	eval '[ $rc = 1 ] && has "cannot open '\''verfy.onnx'\''" "$W/err" && ! has "did you mean" "$W/err"'
"$top_builddir/tests/lib/mkmodel" verfy 2>"$W/err" ||
	echo "Bail out! tests/lib/mkmodel cannot write a model: $(cat "$W/err")"
run "$QOPT" verfy -o out.onnx
t "a file named like a typo is a model" \
	eval '[ $rc = 0 ] && [ -s out.onnx ] && ! has "did you mean" "$W/err"'
done_testing

#!/bin/sh
# Options that say what they accept: enum words, list items from a set,
# number ranges, checked by the manager before any pass runs; and a
# plugin with the smallest option entries (ABI 2.0's size) read with its
# own sizes.
. "$top_srcdir/tests/lib/common.sh"
cd "$W" || exit 1
T="--load $PL/typed.so"

run "$QOPT" $T --help-pass t-typed
t "--help-pass lists the enum's words" \
	eval '[ $rc = 0 ] && grep -A1 "^  mode " "$W/out" | grep -q "one of: fast, exact"'
t "--help-pass shows a range" \
	eval 'grep -A1 "^  level " "$W/out" | grep -q "range: 1 to 9"'
t "--help-pass shows a one-sided range" \
	eval 'grep -A1 "^  ratio " "$W/out" | grep -q "range: at most 1"'
t "--help-pass lists a list's allowed items" \
	eval 'grep -A1 "^  ops " "$W/out" | grep -q "items: MatMul, Gemm"'

run "$QOPT" $T --passes 't-typed:mode=exact:level=9:ratio=1:ops=Gemm;MatMul' m.onnx --dry-run
t "good values reach the pass (enum index 1, bounds inclusive)" \
	eval '[ $rc = 0 ] && has "mode=exact(1) level=9 ratio=1 ops=2" "$W/err"'
run "$QOPT" $T --passes t-typed m.onnx --dry-run
t "defaults: enum index 0" \
	eval '[ $rc = 0 ] && has "mode=fast(0) level=3 ratio=0.5 ops=1" "$W/err"'

run "$QOPT" $T --passes 't-typed:mode=exsct' m.onnx --dry-run
t "enum typo: exit 2, the words and a suggestion" \
	eval '[ $rc = 2 ] && has "expects one of fast, exact, got '\''exsct'\'' (did you mean '\''exact'\''?)" "$W/err"'
t "... and the pass did not run" eval '! has "mode=" "$W/err"'
run "$QOPT" $T --passes 't-typed:level=0' m.onnx --dry-run
t "below min: exit 2 naming value and range" \
	eval '[ $rc = 2 ] && has "is out of range: 0 (range: 1 to 9)" "$W/err"'
run "$QOPT" $T --passes 't-typed:level=10' m.onnx --dry-run
t "above max: exit 2" eval '[ $rc = 2 ] && has "out of range: 10" "$W/err"'
run "$QOPT" $T --passes 't-typed:ratio=1.5' m.onnx --dry-run
t "float above max: exit 2" \
	eval '[ $rc = 2 ] && has "out of range: 1.5 (range: at most 1)" "$W/err"'
run "$QOPT" $T --passes 't-typed:ratio=-7' m.onnx --dry-run
t "no min: any low value" eval '[ $rc = 0 ] && has "ratio=-7" "$W/err"'
run "$QOPT" $T --passes 't-typed:ops=MatMul;Gem' m.onnx --dry-run
t "list item outside the set: exit 2 with a suggestion" \
	eval '[ $rc = 2 ] && has "got '\''Gem'\'' (did you mean '\''Gemm'\''?)" "$W/err"'
run "$QOPT" $T --help-pass t-typed
t "--help-pass shows a power-of-two option's rule" \
	eval 'grep -A1 "^  block " "$W/out" | grep -q "a power of two from 2, or 0"'
for b in 0 2 8 4096; do
	run "$QOPT" $T --passes "t-typed:block=$b" m.onnx --dry-run
	t "QOPT_OPT_POW2: block = $b is taken" eval '[ $rc = 0 ]'
done
for b in 1 3 6 -4; do
	run "$QOPT" $T --passes "t-typed:block=$b" m.onnx --dry-run
	t "QOPT_OPT_POW2: block = $b: exit 2 naming pass, option and value" \
		eval '[ $rc = 2 ] && has "option '\''block'\'' of pass '\''t-typed'\'' is not a power of two: $b (a power of two from 2, or 0)" "$W/err" && ! has "mode=" "$W/err"'
done
run "$QOPT" --load "$PL/bad-pow2.so" --list-passes
t "a float flagged QOPT_OPT_POW2: plugin refused naming pass and option" \
	eval '[ $rc = 1 ] && has "option '\''scale'\'' (float) cannot be a power of two (only an integer can)" "$W/err"'
run "$QOPT" $T --help-pass t-required
t "--help-pass marks a required option" \
	eval '[ $rc = 0 ] && grep -q "^  target  *string  *(required) what to work on" "$W/out"'
run "$QOPT" $T --passes t-required m.onnx --dry-run
t "QOPT_OPT_REQUIRED left out: exit 2 naming pass and option, the pass not run" \
	eval '[ $rc = 2 ] && has "pass '\''t-required'\'' needs option '\''target'\'' (what to work on)" "$W/err" && ! has "t-required: target=" "$W/err"'
printf '[t-required]\nlevel = 2\n' >req.ini
run "$QOPT" $T -p req.ini m.onnx --dry-run
t "... in an INI too, naming file and line" \
	eval '[ $rc = 2 ] && has "req.ini:1:" "$W/err" && has "needs option '\''target'\''" "$W/err"'
run "$QOPT" $T --passes t-required:target=conv m.onnx --dry-run
t "QOPT_OPT_REQUIRED given: the pass runs with it" \
	eval '[ $rc = 0 ] && has "target=conv" "$W/err"'
run "$QOPT" --load "$PL/bad-required.so" --list-passes
t "a required option with a default: plugin refused naming pass and option" \
	eval '[ $rc = 1 ] && has "option '\''target'\'' is required and has a default" "$W/err"'
run "$QOPT" --load "$PL/bad-flag.so" --list-passes
t "an option flag bit this qopt does not know: refused as needing a newer qopt" \
	eval '[ $rc = 1 ] && has "option '\''target'\'' sets option flags 0x100000 that this qopt" "$W/err" && has "upgrade qopt" "$W/err"'
printf '[t-typed]\n\nmode = quick\n' >bad.ini
run "$QOPT" $T -p bad.ini m.onnx --dry-run
t "INI: the error names file and line" \
	eval '[ $rc = 2 ] && has "bad.ini:3:" "$W/err" && has "expects one of fast, exact" "$W/err"'

run "$QOPT" --load "$PL/bad-enum.so" --list-passes
t "an enum without words: plugin refused naming pass and option" \
	eval '[ $rc = 1 ] && has "$PL/bad-enum.so" "$W/err" && has "enum option '\''mode'\'' lists no choices" "$W/err"'

run "$QOPT" --passes 'nvfp4-weights:mode=rael' m.onnx --dry-run
t "nvfp4-weights mode is checked by the manager" \
	eval '[ $rc = 2 ] && has "(did you mean '\''real'\''?)" "$W/err"'
run "$QOPT" --passes 'nvfp4-weights:block_size=32' m.onnx --dry-run
t "nvfp4-weights block_size range is checked by the manager" \
	eval '[ $rc = 2 ] && has "out of range: 32 (range: 16 to 16)" "$W/err"'
run "$QOPT" --passes 'nvfp4-weights:op_types=MatMul;Conv2d' m.onnx --dry-run
t "nvfp4-weights op_types items are checked by the manager" \
	eval '[ $rc = 2 ] && has "expects one of MatMul, Gemm, Conv, got '\''Conv2d'\''" "$W/err"'

run "$QOPT" --load "$PL/old-minor.so" --help-pass t-old-minor
t "a plugin with 2.0-sized (smaller) option entries loads" \
	eval '[ $rc = 0 ] && grep -q "^  level  *int  *default 7" "$W/out" && grep -q "^  name  *string default old" "$W/out"'
t "... with no ranges or words it never declared" \
	eval '! grep -q "range:\|one of:" "$W/out"'
run "$QOPT" --load "$PL/old-minor.so" --passes 't-old-minor:level=-5:name=x' m.onnx --dry-run
t "... and its options work" \
	eval '[ $rc = 0 ] && has "old plugin: level=-5 name=x" "$W/err"'
done_testing

#!/bin/sh
# Named pipelines (ABI 3.0): a name that expands to passes with options
# (forwarded, fixed, `when`), nested, seen step by step by bisect,
# --print-after, --stats-json and --time-passes; the plugin-table and
# user errors each with a message naming what is wrong.
. "$top_srcdir/tests/lib/common.sh"
A="--load $PL/alias.so"
cd "$W" || exit 1

run "$QOPT" $A --print-pipeline --passes 'al-both:tag=x:match=A;B'
t "--print-pipeline shows the steps, each with a comment naming the pipeline" \
	eval '[ $rc = 0 ] && [ "$(grep -c "^; from pipeline .al-both.$" out)" = 2 ] && has "[al-note]" out && has "[al-ren]" out'
t "a pipeline option reaches the step it is forwarded to, fixed options too" \
	eval 'sed -n "/^\[al-note\]/,/^\$/p" out | grep -qx "tag = x" && sed -n "/^\[al-note\]/,/^\$/p" out | grep -qx "n = 2" && grep -qx "match = A,B" out'
"$QOPT" $A --print-pipeline --passes 'al-both:tag=x:match=A;B' 2>/dev/null |
	grep -v '^; from' >printed.ini
run "$QOPT" $A --print-pipeline -p printed.ini
grep -v '^; from' out >reprinted.ini
t "the printed expansion parses back to the same passes and options" \
	eval '[ $rc = 0 ] && cmp -s printed.ini reprinted.ini'

run "$QOPT" $A --print-pipeline --passes 'al-both'
t "an option the user leaves alone is forwarded with the pipeline's default" \
	eval 'sed -n "/^\[al-note\]/,/^\$/p" out | grep -qx "tag = dflt"'
t "... and one without a default is not forwarded (the pass's default holds)" \
	eval 'sed -n "/^\[al-ren\]/,/^\$/p" out | grep -q "^; match = "'
run "$QOPT" $A --print-pipeline --passes 'al-same'
t "a default equal to the step's own is not forwarded: the step reads it as not set" \
	eval '[ $rc = 0 ] && sed -n "/^\[al-note\]/,/^\$/p" out | grep -q "^; tag = none"'
run "$QOPT" $A --passes 'al-same' m.onnx --dry-run --stats
t "... so qopt_opt_is_set is false in the step" \
	eval '[ $rc = 0 ] && has "al-note: 1 notes" err && ! has "tags given" err'
run "$QOPT" $A --passes 'al-same:tag=none' m.onnx --dry-run --stats
t "... and true when the user sets it, to the same value" \
	eval '[ $rc = 0 ] && has "al-note: 1 notes, 1 tags given" err'

run "$QOPT" $A --print-pipeline --passes 'al-both{tag=x,match=A;B},al-note{n=5}:tag=y'
t "--passes NAME{key=value,...} sets a pipeline's options like NAME:key=value" \
	eval '[ $rc = 0 ] && sed -n "/^\[al-note\]/,/^\$/p" out | grep -qx "tag = x" && grep -qx "match = A,B" out && grep -qx "n = 5" out && grep -qx "tag = y" out'
run "$QOPT" $A --print-pipeline --passes 'al-both{tag=x'
t "... a brace left open is a usage error" \
	eval '[ $rc = 2 ] && has "'\''{'\'' without a closing '\''}'\''" err'
run "$QOPT" $A --print-pipeline --passes 'al-both<tag=x;match=A,B>,al-note<n=5>:tag=y'
t "--passes NAME<key=value;...> (LLVM's spelling) sets options too" \
	eval '[ $rc = 0 ] && sed -n "/^\[al-note\]/,/^\$/p" out | grep -qx "tag = x" && grep -qx "match = A,B" out && grep -qx "n = 5" out && grep -qx "tag = y" out'
run "$QOPT" $A --print-pipeline --passes 'al-note<tag=a:b;n=3>,al-note:tag=a<b,al-note<>'
t "... ':' inside it is a character, '<' in a value is one, <> is no options" \
	eval '[ $rc = 0 ] && grep -qx "tag = a:b" out && grep -qx "n = 3" out && grep -qx "tag = a<b" out && [ "$(grep -c "^\[al-note\]" out)" = 3 ]'
for bad in 'al-both<tag=x' 'al-both<tag=x>junk' 'al-both<tag=x,al-note'; do
	run "$QOPT" $A --print-pipeline --passes "$bad"
	t "... '$bad': a '<' not closed at the end of the name is a usage error" \
		eval '[ $rc = 2 ] && has "'\''<'\'' without a closing '\''>'\'' at the end of '\''$bad'\''" err'
done
run "$QOPT" $A --print-pipeline --passes 'al-both<tag>'
t "... an option without '=' inside it is a usage error" \
	eval '[ $rc = 2 ] && has "expected key=value, got '\''tag'\''" err'
run "$QOPT" $A --print-pipeline --passes 'al-both{tag=x}<note=no>'
t "... so are both spellings on one name" \
	eval '[ $rc = 2 ] && has "options in both {...} and <...>" err'
run "$QOPT" $A --print-pipeline --passes '<n=1>'
t "... and options without a name" eval '[ $rc = 2 ] && has "empty pass name" err'

printf '[al-both]\nnote = no\nmatch = A\n' >when.ini
run "$QOPT" $A --print-pipeline -p when.ini
t "a step whose 'when' option is off is left out (INI section)" \
	eval '[ $rc = 0 ] && ! has "[al-note]" out && has "[al-ren]" out'

run "$QOPT" $A --passes 'al-outer:match=A' m.onnx --dry-run
t "a pipeline may name another: expanded recursively, fixed options apply inside" \
	eval '[ $rc = 0 ] && has "qopt: al-ren: done: 1 renamed" err && has "qopt: al-note: tag=outer n=1" err && ! has "tag=dflt" err'

run "$QOPT" $A --passes 'al-both:match=A;B' m.onnx --dry-run --bisect-limit=2
t "bisect numbers the steps as passes and stops between them" \
	eval 'has "BISECT: running pass (1) al-note" err && has "BISECT: NOT running pass (3) al-ren" err'
run "$QOPT" $A --passes 'al-both:match=A;B' m.onnx --dry-run --print-after al-note --print-after al-ren
t "--print-after prints after each step" \
	eval '[ $rc = 0 ] && has "; *** IR after al-note (pass 1, from al-both) ***" out && has "; *** IR after al-ren (pass 2, from al-both) ***" out'
run "$QOPT" $A --passes 'al-both:match=A;B' m.onnx --dry-run --print-after al-both
t "--print-after PIPELINE prints once, after its last step" \
	eval '[ $rc = 0 ] && [ "$(grep -c "IR after" out)" = 1 ] && has "IR after al-ren" out'
run "$QOPT" $A --passes 'al-both:match=A;B' m.onnx -o o.onnx --stats-json s.json --time-passes --verify-each
t "--stats-json names the pipeline each step came from" \
	eval '[ $rc = 0 ] && grep -q "\"pass\": \"al-note\", \"from\": \"al-both\"" s.json && grep -q "\"pass\": \"al-ren\", \"from\": \"al-both\"" s.json'
t "--time-passes times each step" \
	eval 'grep -q "%  al-note$" err && grep -q "%  al-ren$" err'

run "$QOPT" $A --passes 'al-both:note=no' m.onnx --dry-run
t "a pipeline with targets warns once, as itself, when no step changed anything" \
	eval '[ $rc = 0 ] && [ "$(grep -c "changed nothing" err)" = 1 ] && has "qopt: al-both: warning: changed nothing" err'
run "$QOPT" $A --passes 'al-both' m.onnx --dry-run
t "... and not when a step did (al-ren alone matching nothing does not warn)" \
	eval '[ $rc = 0 ] && ! has "changed nothing" err'
run "$QOPT" $A --passes 'al-both:note=no' m.onnx --dry-run --strict
t "... that warning fails the run under --strict" \
	eval '[ $rc = 1 ] && has "no output written" err'

run "$QOPT" $A --passes 'al-both:bogus=1' m.onnx --dry-run
t "an unknown option of a pipeline is a usage error naming it" \
	eval '[ $rc = 2 ] && has "unknown option '\''bogus'\'' for pipeline '\''al-both'\''" err'
printf '[al-both]\ntagg = 3\n' >typo.ini
run "$QOPT" $A -p typo.ini m.onnx --dry-run
t "... with file, line and a suggestion in an INI" \
	eval '[ $rc = 2 ] && has "typo.ini:2: unknown option '\''tagg'\'' for pipeline '\''al-both'\'' (did you mean '\''tag'\''?)" err'
run "$QOPT" $A --passes 'al-both:note=maybe' m.onnx --dry-run
t "a pipeline option is parsed as its type" \
	eval '[ $rc = 2 ] && has "option '\''note'\'' of pipeline '\''al-both'\''" err'

run "$QOPT" $A --passes al-loop-a m.onnx --dry-run
t "a pipeline expanding to itself is a plugin-table error showing the cycle" \
	eval '[ $rc = 1 ] && has "al-loop-a -> al-loop-b -> al-loop-a" err && has "alias.so: malformed plugin table: pipeline" err'
# Each of these took minutes when the graph was walked by expanding it
# (15 s: room for the sanitizer build on a loaded machine, far from that).
run timeout 15 "$QOPT" $A --passes al-self m.onnx --dry-run
t "a pipeline naming itself twice is a cycle, named at once" \
	eval '[ $rc = 1 ] && has "pipeline '\''al-self'\'' expands to itself: al-self -> al-self" err'
run timeout 15 "$QOPT" $A --help-pass al-self
t "... --help-pass on it answers at once" \
	eval '[ $rc = 0 ] && has "3. al-self" out'
run timeout 15 "$QOPT" $A --passes al-note,al-dag1 m.onnx --dry-run
t "a pipeline expanding to 2^30 passes is refused at once, naming it" \
	eval '[ $rc = 1 ] && has "pipeline '\''al-dag14'\'' expands to more than 65536 passes (expanding '\''al-dag1'\''): refused" err && ! has "expands to itself" err'
run timeout 15 "$QOPT" $A --help-pass al-dag1
t "... --help-pass on it answers at once" eval '[ $rc = 0 ]'
run timeout 15 "$QOPT" $A --print-pipeline --passes al-dag18
t "... 2^13 passes are expanded" \
	eval '[ $rc = 0 ] && [ "$(grep -c "^\[al-note\]" out)" = 8192 ]'
run timeout 15 "$QOPT" $A --passes al-nest1 m.onnx --dry-run
t "34 nested pipelines are too deep, not a cycle" \
	eval '[ $rc = 1 ] && has "pipeline '\''al-nest1'\'' nests pipelines more than 32 deep: al-nest1 -> al-nest2 -> " err && has "al-nest32 -> al-nest33" err && ! has "itself" err'
run timeout 15 "$QOPT" $A --passes al-nest2 m.onnx --dry-run
t "... and 33 too" eval '[ $rc = 1 ] && has "more than 32 deep" err'
run timeout 15 "$QOPT" $A --passes al-nest1,al-nest3 m.onnx --dry-run
t "... 32 are not (and reached first from deeper, the depth still counts)" \
	eval '[ $rc = 1 ] && [ "$(grep -c "more than 32 deep" err)" = 1 ]'
run timeout 15 "$QOPT" $A --passes al-nest3 m.onnx --dry-run
t "... 32 nested pipelines expand" eval '[ $rc = 0 ] && has "al-note: tag=none" err'
run "$QOPT" $A --passes al-ghost m.onnx --dry-run
t "a step naming an unknown pass names the pipeline and the step" \
	eval '[ $rc = 1 ] && has "pipeline '\''al-ghost'\'' step 2 ('\''al-missing'\''): no loaded plugin provides pass '\''al-missing'\''" err'
run "$QOPT" $A --passes al-badfwd m.onnx --dry-run
t "a forwarded option the step's pass does not take is the plugin's error" \
	eval '[ $rc = 1 ] && has "pipeline '\''al-badfwd'\'' step 1 ('\''al-ren'\''): forwards option '\''tag'\'', which '\''al-ren'\'' does not take" err'
run "$QOPT" $A --passes al-note m.onnx --dry-run
t "a broken pipeline of a plugin does not stop its passes" eval '[ $rc = 0 ]'

run "$QOPT" --load "$PL/alias-bad-when.so" --list-passes
t "'when' naming an option that is not a bool refuses the plugin at load" \
	eval '[ $rc = 1 ] && has "'\''when'\'' names '\''tag'\'', which is not a bool option of the pipeline" err'
run "$QOPT" $A --load "$PL/alias-dup.so" --list-passes
t "a pipeline named like a registered one is refused naming both plugins" \
	eval '[ $rc = 1 ] && has "alias-dup.so: pipeline '\''al-both'\'' is already registered by" err && has "alias.so (as a pipeline)" err'
run "$QOPT" --load "$PL/good.so" --load "$PL/alias-dup.so" --list-passes
t "a pipeline named like a registered pass is refused naming both plugins" \
	eval '[ $rc = 1 ] && has "alias-dup.so: pipeline '\''t-opts'\'' is already registered by $PL/good.so (as a pass)" err'
run "$QOPT" --load "$PL/alias-dup.so" --load "$PL/good.so" --list-passes
t "... and a pass named like a registered pipeline" \
	eval '[ $rc = 1 ] && has "good.so: pass '\''t-opts'\'' is already registered by $PL/alias-dup.so (as a pipeline)" err'
run "$QOPT" --load "$PL/alias-big-step.so" --list-passes
t "pipeline entries larger than this qopt knows are refused" \
	eval '[ $rc = 1 ] && has "malformed plugin table: pipeline entry sizes" err'

run "$QOPT" $A --list-passes
t "--list-passes lists pipelines with their steps" \
	eval '[ $rc = 0 ] && grep -q "^al-both .*(pipeline; " out && grep -q "= al-note \[if note\], al-ren$" out'
run "$QOPT" $A --help-pass al-both
t "--help-pass shows a pipeline's steps and options" \
	eval '[ $rc = 0 ] && has "1. al-note (if note); forwards tag; fixed n=2" out && grep -q "^  note  *bool" out'
run "$QOPT" $A --help-pass al-bth
t "suggestions include pipelines" eval '[ $rc = 2 ] && has "did you mean '\''al-both'\''" err'

done_testing

#!/bin/sh
# Instrumentation around passes: --verify-each, failures leave no
# output, --strict, "changed nothing", --stats(-json), --time-passes,
# --print-after(-all), --print-changed, --bisect-limit.
. "$top_srcdir/tests/lib/common.sh"
G="--load $PL/good.so --load $PL/counter.so"
cd "$W" || exit 1

run "$QOPT" $G --verify-each --passes t-count,t-break,t-count m.onnx -o o.onnx
t "--verify-each names the pass that broke the IR" \
	eval '[ $rc = 1 ] && has "qopt: t-break: error: the IR does not verify after this pass" "$W/err"'
t "... and writes no output" eval '[ ! -e o.onnx ]'
# t-count says "done" each time it runs: once before t-break, never after.
t "... and stops there: the pass after it never runs" \
	eval '[ $(grep -c "^qopt: t-count: done" "$W/err") = 1 ]'
run "$QOPT" $G --passes t-break m.onnx -o o.onnx
t "without --verify-each an invalid result is still not written" \
	eval '[ $rc = 1 ] && has "does not verify" "$W/err" && [ ! -e o.onnx ]'

run "$QOPT" $G --passes t-count,t-fail m.onnx -o o.onnx
t "a failing pass: its message, which pass, no output" \
	eval '[ $rc = 1 ] && has "qopt: t-fail: error: planned failure for the test" "$W/err" && has "pass '\''t-fail'\'' failed; no output written" "$W/err" && [ ! -e o.onnx ]'

run "$QOPT" $G --passes t-warn m.onnx -o o.onnx
t "a warning is a warning" eval '[ $rc = 0 ] && has "qopt: t-warn: warning: planned warning for the test" "$W/err" && [ -e o.onnx ]'
rm -f o.onnx
run "$QOPT" $G --strict --passes t-warn m.onnx -o o.onnx
t "--strict turns it into a failure, no output" \
	eval '[ $rc = 1 ] && has "qopt: t-warn: error: planned warning for the test [--strict]" "$W/err" && [ ! -e o.onnx ]'
printf '[qopt]\nstrict = yes\n[t-warn]\n' >strict.ini
run "$QOPT" $G -p strict.ini m.onnx -o o.onnx
t "[qopt] strict = yes does the same" eval '[ $rc = 1 ] && [ ! -e o.onnx ]'

run "$QOPT" $G --passes t-targets:match=nothing m.onnx -o o.onnx
t "a targeted pass that changed nothing warns" \
	eval '[ $rc = 0 ] && has "qopt: t-targets: warning: changed nothing" "$W/err"'
rm -f o.onnx
run "$QOPT" $G --strict --passes t-targets:match=nothing m.onnx -o o.onnx
t "... which fails under --strict" eval '[ $rc = 1 ] && [ ! -e o.onnx ]'
run "$QOPT" $G --strict --passes 't-targets:match=relu;add' m.onnx -o o.onnx --stats
t "a targeted pass that matched does not warn" \
	eval '[ $rc = 0 ] && ! has "changed nothing" "$W/err" && has "t-targets: 2 nodes tagged" "$W/err"'

run "$QOPT" $G --passes t-count:count=5,t-targets:match=relu,t-count:count=2:prefix=b m.onnx --dry-run --stats
t "--stats: counters per pass in first-use order" has "t-count[1]: 5 entries set" "$W/err"
t "--stats: repeated pass numbered" has "t-count[2]: 2 entries set" "$W/err"
t "--stats: kernel statistics" eval 'grep -q "^kernels: device [a-z]*, [0-9]* CPU calls, [0-9]* CUDA calls, [0-9]* CUDA fallbacks" "$W/err"'
run "$QOPT" $G --passes t-count:count=5 m.onnx --dry-run --stats-json s.json
t "--stats-json writes the counters" eval '[ $rc = 0 ] && grep -q "\"entries set\": 5" s.json && grep -q "\"rewrites\": 5" s.json'
# Without python3 these two are SKIPs that say so, not checks that vanish.
if ! [ -x /usr/bin/python3 ]; then
	skip "--stats-json is valid JSON" "no /usr/bin/python3"
	skip "--stats-json lists a pass's records" "no /usr/bin/python3"
else
	t "--stats-json is valid JSON" /usr/bin/python3 -c 'import json,sys; d=json.load(open("s.json")); sys.exit(0 if d["passes"][0]["pass"]=="t-count" else 1)'
	t "--stats-json lists a pass's records (qopt_record): strings escaped, a non-finite number null" /usr/bin/python3 -c 'import json,sys; r=json.load(open("s.json"))["passes"][0]["records"]; sys.exit(0 if r == [{"kind": "t-count run", "prefix": "count", "count": 5, "quote\"d\n": "back\\slash\t", "none": None}] else r)'
fi
run "$QOPT" $G --passes t-count:count=5,t-opts m.onnx --dry-run --time-passes
t "--time-passes prints a table with every pass and a total" \
	eval '[ $rc = 0 ] && has "pass execution time" "$W/err" && grep -q "%  t-count$" "$W/err" && grep -q "%  t-opts$" "$W/err" && grep -q "%  total$" "$W/err"'

run "$QOPT" $G --passes t-targets:match=zz,t-count:count=1,t-opts m.onnx --dry-run --print-after=t-count
t "--print-after prints the IR after that pass only" \
	eval '[ $(grep -c "^; \*\*\* IR after" "$W/out") = 1 ] && has "; *** IR after t-count (pass 2) ***" "$W/out" && has relu1 "$W/out"'
run "$QOPT" $G --passes t-targets:match=zz,t-count:count=1,t-opts m.onnx --dry-run --print-after-all
t "--print-after-all prints after every pass" eval '[ $(grep -c "^; \*\*\* IR after" "$W/out") = 3 ]'
run "$QOPT" $G --passes t-targets:match=zz,t-count:count=1 m.onnx --dry-run --print-changed
t "--print-changed skips a pass that changed nothing" \
	eval '[ $(grep -c "^; \*\*\* IR after" "$W/out") = 1 ] && has "IR after t-count" "$W/out"'
run "$QOPT" $G --passes t-lazy m.onnx --dry-run --print-changed
t "--print-changed trusts the model hash, not the pass's flag" \
	eval 'has "IR after t-lazy" "$W/out" && has "qopt: t-lazy: warning: changed the IR but reported no change" "$W/err"'
run "$QOPT" $G --passes t-count m.onnx --dry-run --print-after=t-cuont
t "--print-after of a pass not in the pipeline: exit 2" \
	eval '[ $rc = 2 ] && has "did you mean '\''t-count'\''" "$W/err"'

run "$QOPT" $G --passes t-count:count=3,t-count:count=2 m.onnx -o b.onnx --bisect-limit=3
t "--bisect-limit: numbered pass runs" has "BISECT: running pass (1) t-count" "$W/err"
t "--bisect-limit: rewrites share the counter" has "BISECT: running rewrite (3) t-count: set count.2" "$W/err"
t "--bisect-limit: points past the limit do not run" \
	eval 'has "BISECT: NOT running rewrite (4) t-count: set count.3" "$W/err" && has "BISECT: NOT running pass (5) t-count" "$W/err"'
"$top_builddir/tests/cli/bisect-check" b.onnx --meta >meta.txt 2>&1
t "--bisect-limit: the output has only the allowed rewrites" \
	eval '[ "$(cat meta.txt | tr "\n" " ")" = "count.1=ok count.2=ok " ]'
run "$QOPT" $G --passes t-count:count=3,t-count:count=2 m.onnx --dry-run --bisect-limit=-1
t "--bisect-limit=-1 runs everything and still numbers" \
	eval 'has "BISECT: running rewrite (7) t-count: set count.2" "$W/err" && ! has "NOT running" "$W/err"'
run "$QOPT" $G --passes t-count:count=3 m.onnx --dry-run
t "no BISECT lines without --bisect-limit" eval '! has BISECT "$W/err"'

run "$QOPT" $G --passes t-misuse:misuse=yes m.onnx -o o2.onnx
t "a pass reading an undeclared option fails" \
	eval '[ $rc = 1 ] && has "undeclared" "$W/err" && [ ! -e o2.onnx ]'
run "$QOPT" $G --passes t-misuse m.onnx --dry-run
t "progress draws nothing when stderr is not a terminal" eval '[ $rc = 0 ] && ! has "steps" "$W/err"'
run "$QOPT" $G -q --passes t-opts m.onnx --dry-run
t "-q hides informational messages" eval '[ $rc = 0 ] && ! has "t-opts:" "$W/err"'

done_testing

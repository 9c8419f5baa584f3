#!/bin/sh
# qopt bisect finds a planted bad rewrite among > 50 rewrites of a
# 3-pass pipeline within ceil(log2(points)) + 2 test runs, handles
# skips, and leaves last-good.onnx, first-bad.onnx and bisect.log.
. "$top_srcdir/tests/lib/common.sh"
G="--load $PL/counter.so"
CHECK="$top_builddir/tests/cli/bisect-check"
cd "$W" || exit 1

# Points: pass (1), a.1..a.20 (2-21), pass (22), b.1..b.20 (23-42) of
# which b.7 = (29) corrupts, pass (43), c.1..c.20 (44-63).
cat >p.ini <<'INI'
[t-count]
count = 20
prefix = a

[t-corrupt]
count = 20
prefix = b
bad = 7

[t-count]
count = 20
prefix = c
INI
run "$QOPT" $G -p p.ini m.onnx --dry-run --bisect-limit=-1
t "the pipeline has 63 points" eval 'has "BISECT: running rewrite (63) t-count: set c.20" "$W/err" && ! has "(64)" "$W/err"'

run "$QOPT" bisect $G -p p.ini m.onnx --test "'$CHECK' {}" -o "bis dir"
t "bisect succeeds" eval '[ $rc = 0 ]'
t "bisect names the planted rewrite and its pass run" \
	has "first bad point: (29) rewrite in pass run (22) t-corrupt: set b.7" "$W/out"
steps=$(wc -l <"bis dir/bisect.log")
t "at most ceil(log2(63)) + 2 = 8 test runs ($steps)" eval '[ "$steps" -le 8 ] && [ "$steps" -ge 3 ]'
t "bisect.log: one line per step with limit and result" \
	eval 'grep -qx "limit 63: bad" "bis dir/bisect.log" && grep -qx "limit 0: good" "bis dir/bisect.log" && grep -qx "limit 29: bad" "bis dir/bisect.log"'
t "last-good.onnx is good" "$CHECK" "bis dir/last-good.onnx"
t "first-bad.onnx is bad" eval '! "$CHECK" "bis dir/first-bad.onnx"'
"$CHECK" "bis dir/first-bad.onnx" --meta >meta.txt
t "first-bad.onnx stops right at the planted rewrite" \
	eval 'grep -qx "b.7=CORRUPT" meta.txt && ! grep -q "^b\.8=" meta.txt && [ $(wc -l <meta.txt) = 27 ]'
t "no candidate left behind" eval '[ ! -e "bis dir/candidate.onnx" ]'

# Exit 125 on the candidate with 25 entries (limit 27): a neighbour is
# tried instead.
run "$QOPT" bisect $G -p p.ini m.onnx --test "'$CHECK' {} 25" -o skip
t "bisect with a skipped candidate still finds the rewrite" \
	eval '[ $rc = 0 ] && has "first bad point: (29) rewrite in pass run (22) t-corrupt: set b.7" "$W/out"'
t "the skip is logged" grep -qx "limit 27: skip" skip/bisect.log

run "$QOPT" bisect $G -p p.ini m.onnx --test false -o f
t "a test failing on the unmodified model is an error" \
	eval '[ $rc = 1 ] && has "unmodified model is bad" "$W/err"'
run "$QOPT" bisect $G -p p.ini m.onnx --test true -o tr
t "a test passing on the optimized model is an error" \
	eval '[ $rc = 1 ] && has "nothing to bisect" "$W/err"'
run "$QOPT" bisect $G -p p.ini m.onnx
t "bisect without --test: exit 2" eval '[ $rc = 2 ]'

# A test that cannot run says nothing about the model: exit 2 naming
# the test, never "bad", and no step logged as bad.
run "$QOPT" bisect $G -p p.ini m.onnx --test "qopt-no-such-checker {}" -o nf
t "a test command not found (127): exit 2 naming the test" \
	eval '[ $rc = 2 ] && has "the test '"'"'qopt-no-such-checker" "$W/err" && has "exit 127" "$W/err" && ! has "is bad" "$W/err"'
t "... and nothing logged as bad" eval '! grep -q ": bad" nf/bisect.log'
printf 'not a program\n' >noexec.sh
chmod -x noexec.sh
run "$QOPT" bisect $G -p p.ini m.onnx --test "./noexec.sh {}" -o ne
t "a test that cannot be executed (126): exit 2" \
	eval '[ $rc = 2 ] && has "exit 126" "$W/err"'
run "$QOPT" bisect $G -p p.ini m.onnx --test 'kill -KILL $$' -o sig
t "a test killed by a signal: exit 2 naming the signal" \
	eval '[ $rc = 2 ] && has "killed by signal 9" "$W/err"'
# The same in the middle of the search: the third run (the first after
# the two endpoints) is killed; sh reports that as exit 128 + 15, which
# bisect reads as git bisect run does: above 127, the test broke.
cat >killer.sh <<SH
#!/bin/sh
echo run >>runs
[ \$(wc -l <runs) -lt 3 ] || kill -TERM \$\$
exec '$CHECK' "\$1"
SH
run "$QOPT" bisect $G -p p.ini m.onnx --test "sh killer.sh {}" -o mid
t "a test killed in the middle of the search: exit 2, not bad" \
	eval '[ $rc = 2 ] && has "exit 143" "$W/err" && [ $(wc -l <mid/bisect.log) = 2 ]'

# A bad pass run, not a rewrite: t-count after the corruption is fine,
# but a pass that corrupts with its first rewrite shows the pass too.
printf '[t-count]\ncount = 3\n[t-corrupt]\ncount = 1\nbad = 1\nprefix = z\n' >q.ini
run "$QOPT" bisect $G -p q.ini m.onnx --test "'$CHECK' {}" -o q
t "first bad rewrite right after its pass run" \
	has "first bad point: (6) rewrite in pass run (5) t-corrupt: set z.1" "$W/out"

# ---- failures that are not the test's (issue 28): exit 1 naming the file
# The candidate cannot be written (its folder removed after the second
# test run): a failure to write, not a usage error.
cat >rmdir.sh <<'SH'
#!/bin/sh
echo run >>rm-runs
"$CHECK" "$1"
r=$?
[ $(wc -l <rm-runs) -lt 2 ] || rm -rf gone
exit $r
SH
CHECK="$CHECK" run "$QOPT" bisect $G -p p.ini m.onnx --test "CHECK='$CHECK' sh rmdir.sh {}" -o gone
t "a candidate that cannot be written: exit 1 (got $rc)" [ "$rc" = 1 ]
t "... naming the candidate" has "gone/candidate.onnx: error: cannot write the candidate" "$W/err"

# The input removed after the second test run: the next candidate
# cannot be made; that is the input's fault, not the pipeline's.
cp m.onnx in.onnx
cat >rmin.sh <<'SH'
#!/bin/sh
echo run >>in-runs
[ $(wc -l <in-runs) -lt 2 ] || rm -f in.onnx
exec "$CHECK" "$1"
SH
run "$QOPT" bisect $G -p p.ini in.onnx --test "CHECK='$CHECK' sh rmin.sh {}" -o in
t "the input removed mid-bisect: exit 1 (got $rc)" [ "$rc" = 1 ]
t "... naming the input" has "cannot load the input 'in.onnx' again" "$W/err"
t "... not blamed on the pipeline" eval '! has "pipeline failed" "$W/err"'

# SIGTERM to qopt while a test runs: the test's processes (a background
# child included) are ended and waited for, the candidate removed, and
# qopt ends by SIGTERM.
cat >slow.sh <<'SH'
#!/bin/sh
sleep 300 &
echo $! >bg.pid
# qopt itself: the nearest ancestor that is it (the test may run under
# a wrapper shell or two).
p=$$
while [ "$p" -gt 1 ]; do
	case $(cat /proc/$p/comm) in
	qopt|lt-qopt) break ;;
	esac
	p=$(awk '/^PPid:/ { print $2 }' /proc/$p/status)
done
echo $$ >test.pid
echo $p >qopt.pid.tmp && mv qopt.pid.tmp qopt.pid
exec sleep 300
SH
rm -f bg.pid test.pid qopt.pid
"$QOPT" bisect $G -p p.ini m.onnx --test "sh slow.sh {}" -o slow 2>"$W/err" &
job=$!
i=0
while [ ! -s qopt.pid ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ -s qopt.pid ] && [ "$(cat qopt.pid)" -gt 1 ]; then
	kill -TERM "$(cat qopt.pid)"
	wait $job
	rc=$?
	# The child, reparented, may be a zombie a moment longer.
	i=0
	while kill -0 "$(cat bg.pid)" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	t "SIGTERM during a test: qopt ends by SIGTERM (got $rc)" [ "$rc" = 143 ]
	t "... the test is ended" eval '! kill -0 $(cat test.pid) 2>/dev/null'
	t "... and the child it started" eval '! kill -0 $(cat bg.pid) 2>/dev/null'
	t "... the candidate is removed" [ ! -e slow/candidate.onnx ]
	# leftovers of a qopt that failed to end them
	kill $(cat bg.pid) $(cat test.pid) 2>/dev/null
else
	kill $job 2>/dev/null
	wait $job
	for i in 1 2 3 4; do
		ok 1 "the test of the SIGTERM case never started"
	done
fi

done_testing

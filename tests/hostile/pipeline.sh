#!/bin/sh
# tests/hostile/pipeline.sh - huge pipeline files parse in linear time:
# 100,000 sections, and one list option continued over 100,000 lines,
# each within a time bound that a quadratic parser (over 60 s under
# ASan before) cannot meet.
. "$top_srcdir/tests/lib/common.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$PYTHON3

"$PY" -c '
import sys
with open(sys.argv[1], "w") as f:
    for i in range(100000):
        f.write("[cast-fold]\n")
with open(sys.argv[2], "w") as f:
    f.write("[nvfp4-weights]\ninclude = a0\n")
    for i in range(1, 100000):
        f.write("  a%d\n" % i)
' "$W/sections.ini" "$W/lines.ini"

run timeout 30 "$QOPT" --print-pipeline -p "$W/sections.ini"
t "100,000 sections: parsed within 30 s" [ "$rc" = 0 ]
t "100,000 sections: all printed" [ "$(grep -c '^\[cast-fold\]' "$W/out")" = 100000 ]
run timeout 30 "$QOPT" --print-pipeline -p "$W/lines.ini"
t "a list over 100,000 lines: parsed within 30 s" [ "$rc" = 0 ]
t "a list over 100,000 lines: every item kept, one a line (one line would not read back)" \
	eval 'grep -qx "    a99999" "$W/out" && [ "$(grep -c "^    a[0-9]*\$" "$W/out")" = 99999 ]'
t "a list over 100,000 lines: starts with the first" grep -qx "include = a0" "$W/out"

# 10,000 bad sections: the first 20 problems, then one line saying the
# rest are not shown (a compiler's error limit), and exit 2.
"$PY" -c '
import sys
with open(sys.argv[1], "w") as f:
    for i in range(10000):
        f.write("[no-such-pass-%d]\n" % i)
' "$W/bad.ini"
run timeout 30 "$QOPT" --print-pipeline -p "$W/bad.ini"
t "10,000 bad sections: exit 2" [ "$rc" = 2 ]
t "10,000 bad sections: the first problem named with its line" \
	has "bad.ini:1: unknown pass 'no-such-pass-0'" "$W/err"
t "10,000 bad sections: 20 shown, then one line for the rest" \
	eval '[ "$(grep -c "unknown pass" "$W/err")" = 20 ] && [ "$(wc -l <"$W/err")" -le 22 ] && has "more problems not shown (the first 20 are above)" "$W/err"'

# Text quoted from a pipeline file is escaped in messages.
printf '[cast-fold]\nx\033[31m\n' >"$W/ctl.ini"
run "$QOPT" --print-pipeline -p "$W/ctl.ini"
t "a pipeline line with ESC: exit 2" [ "$rc" = 2 ]
t "a pipeline line with ESC: quoted escaped" has "got 'x\x1b[31m'" "$W/err"

done_testing

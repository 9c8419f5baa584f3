#!/bin/sh
# tools/qopt.bash-completion: commands, options (every long option of
# --help), pass names from --list-passes, --passes lists, and
# qopt-ort-check's options.
. "$top_srcdir/tests/lib/common.sh"
command -v bash >/dev/null 2>&1 || { echo "1..0 # SKIP no bash"; exit 0; }
cd "$W" || exit 1
# complete WORDS...: COMPREPLY for the last word, one a line.
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
		case $1 in qopt-ort-check) _qopt_ort_check;; *) _qopt;; esac
		printf "%s\n" "${COMPREPLY[@]}"' _ \
		"$top_srcdir/tools/qopt.bash-completion" "$@"
}
complete_words "$QOPT" "" >out 2>"$W/err"
t "the commands" eval 'grep -qx bisect out && grep -qx calibrate out && grep -qx dump out && grep -qx verify out'
complete_words "$QOPT" --su >out 2>"$W/err"
t "options by prefix" eval 'grep -qx -- --summary out'
"$QOPT" --help | grep -o -- '--[a-z][a-z-]*' | sort -u >help-opts
complete_words "$QOPT" -- | sort -u >comp-opts
missing=$(comm -23 help-opts comp-opts | grep -Ev -- '--(data|random|seed|dim|percentile|formats|effective-bits|max-loss|json)$' | tr '\n' ' ')
t "every long option of --help completes (missing: ${missing:-none})" eval '[ -z "$missing" ]'
complete_words "$QOPT" --help-pass nv >out 2>"$W/err"
t "pass names from --list-passes" grep -qx nvfp4-weights out
complete_words "$QOPT" --passes opset-check,cast >out 2>"$W/err"
t "--passes completes the pass after the last comma" grep -qx opset-check,cast-fold out
complete_words "$QOPT" calibrate m.onnx --ra >out 2>"$W/err"
t "calibrate's options" grep -qx -- --random out
complete_words "$QOPT" calibrate m.onnx --qu >out 2>"$W/err"
t "calibrate's --quiet (issue 39)" grep -qx -- --quiet out
complete_words "$QOPT" plan m.onnx --eff >out 2>"$W/err"
t "plan's options" grep -qx -- --effective-bits out
complete_words "$QOPT" plan m.onnx --formats nvfp4,f >out 2>"$W/err"
t "--formats completes the format after the last comma" grep -qx nvfp4,fp8 out
# every format qopt plan knows (its error for an unknown one lists them)
"$QOPT" plan m.onnx --data "$W" --formats bogus --effective-bits 9 2>&1 |
	sed -n 's/.*(known: \(.*\)).*/\1/p' | tr -d ' ' | tr ',' '\n' | sort >known
complete_words "$QOPT" plan m.onnx --formats "" >out 2>"$W/err"
sort out >comp
t "--formats completes every format qopt plan knows ($(tr '\n' ' ' <known))" \
	eval '[ -s known ] && cmp -s known comp'
complete_words qopt-ort-check a.onnx b.onnx --js >out 2>"$W/err"
t "qopt-ort-check's options" grep -qx -- --json out
done_testing

#!/bin/sh
# INI pipelines and --passes: typed options, repeated sections, errors
# with file:line and suggestions, [qopt] settings, --print-pipeline.
. "$top_srcdir/tests/lib/common.sh"
G="--load $PL/good.so --load $PL/counter.so"
cd "$W" || exit 1

cat >p1.ini <<'INI'
; two runs of the same pass with different options
[t-opts]
block_size = 32
flag = on
ratio = 0.25
label = hello
names = a, b ,c

[t-count]
count = 3

[t-opts]
block_size = 2
INI
run "$QOPT" $G -p p1.ini m.onnx -o o1.onnx
t "a pipeline with typed options runs" eval '[ $rc = 0 ] && [ -s o1.onnx ]'
t "options reach the pass parsed and typed" \
	has "qopt: t-opts: flag=1 block_size=32 ratio=0.25 label=hello set=1 names=a|b|c" "$W/err"
t "a repeated section is a second stage with its own options (defaults elsewhere)" \
	has "qopt: t-opts: flag=0 block_size=2 ratio=0.5 label=(null) set=1 names=" "$W/err"
t "stages run in file order" \
	eval '[ "$(grep -n "t-opts: flag" "$W/err" | sed -n "1s/.*block_size=\([0-9]*\).*/\1/p;2s/.*block_size=\([0-9]*\).*/\1/p" | tr "\n" " ")" = "32 2 " ]'

printf '[t-opts]\n\n[t-count]\ncount=1\n' >p2.ini
run "$QOPT" $G -p p2.ini m.onnx --dry-run
t "an empty section still runs its pass with defaults" \
	has "qopt: t-opts: flag=0 block_size=16 ratio=0.5 label=(null) set=0 names=" "$W/err"

cat >bad1.ini <<'INI'
; line 1
[t-count]
count = 2

; line 5
[t-opts]
blocksize = 32
INI
run "$QOPT" $G -p bad1.ini m.onnx -o bad.onnx
t "unknown option: file:line, pass and suggestion; exit 2" \
	eval '[ $rc = 2 ] && has "qopt: bad1.ini:7: unknown option '\''blocksize'\'' for pass '\''t-opts'\'' (did you mean '\''block_size'\''?)" "$W/err"'
t "no output after a pipeline error" eval '[ ! -e bad.onnx ]'

printf '[t-count]\n\n[t-opst]\n' >bad2.ini
run "$QOPT" $G -p bad2.ini m.onnx -o bad.onnx
t "unknown pass: file:line and suggestion" \
	eval '[ $rc = 2 ] && has "qopt: bad2.ini:3: unknown pass '\''t-opst'\'' (did you mean '\''t-opts'\''?)" "$W/err"'

printf '[t-opts]\nblock_size = big\nflag = maybe\nratio = 1e999\n' >bad3.ini
run "$QOPT" $G -p bad3.ini m.onnx -o bad.onnx
t "wrong type int: file:line and the value" \
	has "qopt: bad3.ini:2: option 'block_size' of pass 't-opts' expects an integer, got 'big'" "$W/err"
t "wrong type bool (every error is reported)" \
	has "qopt: bad3.ini:3: option 'flag' of pass 't-opts' expects a bool" "$W/err"
t "wrong type float" has "qopt: bad3.ini:4: option 'ratio' of pass 't-opts' expects a number" "$W/err"

printf 'x = 1\n[t-opts]\nlabel = a\nlabel = b\nnot an option line\n[t-count\n' >bad4.ini
run "$QOPT" $G -p bad4.ini m.onnx -o bad.onnx
t "key before any section" has "bad4.ini:1: option 'x' outside of any [pass] section" "$W/err"
t "option given twice" has "bad4.ini:4: option 'label' given twice in [t-opts] (first at line 3)" "$W/err"
t "a line that is neither section nor option" has "bad4.ini:5: expected 'option = value'" "$W/err"
t "section without ]" has "bad4.ini:6: section header without ']'" "$W/err"

printf '[qopt]\nverify_eahc = yes\ndevice = gpu\n[t-opts]\n' >bad5.ini
run "$QOPT" $G -p bad5.ini m.onnx -o bad.onnx
t "[qopt]: unknown setting with suggestion" \
	has "bad5.ini:2: unknown setting 'verify_eahc' in [qopt] (did you mean 'verify_each'?)" "$W/err"
t "[qopt]: bad device" has "bad5.ini:3: [qopt] device expects cpu, cuda or auto" "$W/err"

mkdir -p sub/plugins
cp "$PL/counter.so" sub/plugins/
printf '[qopt]\nload = plugins/counter.so\nverify_each = yes\n\n[t-count]\ncount = 4\n' >sub/p6.ini
run "$QOPT" -p sub/p6.ini m.onnx --dry-run --stats
t "[qopt] load is relative to the pipeline file" \
	eval '[ $rc = 0 ] && has "t-count: 4 entries set" "$W/err"'

cat >p7.ini <<'INI'
[qopt]
plugin_path = sub/plugins
strict = no
external_threshold = 4096

[t-opts]
names = x,  y
ratio = 0.1
flag = true

[t-count]

[t-opts]
label = two words
INI
"$QOPT" --load "$PL/good.so" -p p7.ini --print-pipeline >print1.ini 2>"$W/err"
rc=$?
t "--print-pipeline prints INI" eval '[ $rc = 0 ] && grep -q "^\[t-count\]" print1.ini'
t "--print-pipeline shows canonical values and defaults as comments" \
	eval 'grep -qx "names = x,y" print1.ini && grep -qx "flag = yes" print1.ini && grep -qx "; block_size = 16 (default)" print1.ini'
(cd / && "$QOPT" --load "$PL/good.so" -p "$W/print1.ini" --print-pipeline) >print2.ini 2>"$W/err"
t "printed pipeline re-parses to the same pipeline" cmp -s print1.ini print2.ini

run "$QOPT" $G --passes 't-opts:block_size=8:names=x;y,t-count:count=1' m.onnx --dry-run
t "--passes with options (list items with ;)" \
	eval '[ $rc = 0 ] && has "t-opts: flag=0 block_size=8 ratio=0.5 label=(null) set=1 names=x|y" "$W/err"'
run "$QOPT" $G --passes 't-opts:label=c;d.json:names=x;y' m.onnx --dry-run
t "--passes: a ';' in a string value stays a ';' (only a list reads it as ',')" \
	eval '[ $rc = 0 ] && has "label=c;d.json set=0 names=x|y" "$W/err"'
run "$QOPT" $G --passes 't-opts{label=a;b,names=p;q}' m.onnx --dry-run
t "... in braces too" eval '[ $rc = 0 ] && has "label=a;b set=0 names=p|q" "$W/err"'
run "$QOPT" --load "$PL/alias.so" --passes 'al-both:tag=u;v:match=A;B' m.onnx --dry-run
t "... and in a pipeline's string option, handed to its step" \
	eval '[ $rc = 0 ] && has "al-note: tag=u;v n=2" "$W/err"'
run "$QOPT" $G --passes 't-opts,t-cuont' m.onnx --dry-run
t "--passes: unknown pass with suggestion" \
	eval '[ $rc = 2 ] && has "qopt: --passes: unknown pass '\''t-cuont'\'' (did you mean '\''t-count'\''?)" "$W/err"'
t "... and a note, once, that a plugin pass needs --load, -L or QOPT_PLUGIN_PATH" \
	eval '[ "$(grep -c "^qopt: note: .*--load FILE.so.*-L DIR.*QOPT_PLUGIN_PATH" "$W/err")" = 1 ]'
run "$QOPT" --passes 'al-note,t-nowhere' m.onnx --dry-run
t "an unloaded plugin's pass gets the note without a suggestion" \
	eval '[ $rc = 2 ] && has "unknown pass '\''al-note'\''" "$W/err" && has "--load FILE.so" "$W/err" && has "QOPT_PLUGIN_PATH" "$W/err" && [ "$(grep -c "qopt: note:" "$W/err")" = 1 ]'
run "$QOPT" --help-pass al-note
t "--help-pass of an unloaded plugin's pass gives the note too" \
	eval '[ $rc = 2 ] && has "--load FILE.so" "$W/err" && has "-L DIR" "$W/err"'
run "$QOPT" --load "$PL/alias.so" --passes al-ghost m.onnx --dry-run
t "... and a pipeline's step naming one" \
	eval '[ $rc = 1 ] && has "no loaded plugin provides pass '\''al-missing'\''" "$W/err" && has "QOPT_PLUGIN_PATH" "$W/err"'
run "$QOPT" $G --passes 't-opts:block_size' m.onnx --dry-run
t "--passes: key without value" eval '[ $rc = 2 ] && has "expected key=value" "$W/err"'

printf '[t-opts]\nnames = a,\n  b\nlabel = x\n' >ml.ini
run "$QOPT" $G -p ml.ini --print-pipeline
t "an indented line continues a list" eval '[ $rc = 0 ] && grep -qx "names = a,b" "$W/out"'
printf '[t-opts]\n  b\n' >ml2.ini
run "$QOPT" $G -p ml2.ini --print-pipeline
t "an indented line with nothing to continue is an error with its line" \
	eval '[ $rc = 2 ] && has "ml2.ini:2:" "$W/err"'

# --passes quoting: values holding ':' and ',' (PyTorch's onnx:: names).
run "$QOPT" --passes 'nvfp4-weights:include="onnx::MatMul_24*,w:x":exclude=a;b:mode=fake,opset-check' --print-pipeline
t "--passes: a quoted value keeps ':' and ',' (list items split at ',')" \
	eval '[ $rc = 0 ] && grep -qx "include = onnx::MatMul_24\*,w:x" "$W/out" && grep -qx "exclude = a,b" "$W/out" && grep -qx "mode = fake" "$W/out" && grep -qx "\[opset-check\]" "$W/out"'
run "$QOPT" --passes 'nvfp4-weights:include="a\"b\\c"' --print-pipeline
t "--passes: \\\" and \\\\ inside quotes" eval '[ $rc = 0 ] && grep -qx "include = a\"b\\\\c" "$W/out"'
run "$QOPT" --passes 'nvfp4-weights:include=onnx::MatMul_24*' --print-pipeline
t "--passes: an unquoted onnx:: name is refused, saying how to quote it" \
	eval '[ $rc = 2 ] && has "expected key=value, got '"'"'MatMul_24*'"'"' (quote a value" "$W/err"'
run "$QOPT" --passes 'nvfp4-weights:include="onnx::Ma' --print-pipeline
t "--passes: an unterminated quote is refused" \
	eval '[ $rc = 2 ] && has "unterminated" "$W/err"'

# One rule for relative paths: in a pipeline file, relative to its
# folder (as `load =` is); on --passes, relative to the current folder.
mkdir -p "$W/rel/sub" "$W/rel/cwd"
echo inside >"$W/rel/sub/data.txt"
echo outside >"$W/rel/cwd/data.txt"
printf '[t-path]\nfile = data.txt\nword = data.txt\n' >"$W/rel/sub/p.ini"
printf '[t-path]\nfile = nope.txt\n' >"$W/rel/sub/q.ini"
sub=$(cd "$W/rel/sub" && pwd -P)
(cd "$W/rel/cwd" && "$QOPT" --load "$PL/good.so" -p ../sub/p.ini "$W/m.onnx" --dry-run) >"$W/out" 2>"$W/err"
rc=$?
t "a relative path option in a pipeline file is relative to the file's folder" \
	eval '[ $rc = 0 ] && has "read '\''inside'\'' from $sub/data.txt; word=data.txt" "$W/err"'
(cd "$W/rel/cwd" && "$QOPT" --load "$PL/good.so" --passes t-path:file=data.txt "$W/m.onnx" --dry-run) >"$W/out" 2>"$W/err"
rc=$?
t "... on --passes, relative to the current folder" \
	eval '[ $rc = 0 ] && has "read '\''outside'\'' from data.txt" "$W/err"'
(cd "$W/rel/cwd" && "$QOPT" --load "$PL/good.so" -p ../sub/q.ini "$W/m.onnx" --dry-run) >"$W/out" 2>"$W/err"
rc=$?
t "... a missing one: the error names the path tried" \
	eval '[ $rc = 1 ] && has "cannot open '\''$sub/nope.txt'\''" "$W/err"'
(cd "$W/rel/cwd" && "$QOPT" --load "$PL/good.so" -p ../sub/p.ini --print-pipeline) >"$W/out" 2>"$W/err"
t "... --print-pipeline shows the path joined" \
	eval 'grep -qx "file = $sub/data.txt" "$W/out" && grep -qx "word = data.txt" "$W/out"'

# --print-pipeline: what it prints reads back to the same pipeline, or
# it prints nothing and says why (the INI reader has no quoting).
long=$(i=0; while [ $i -lt 60 ]; do printf 'item%03d;' $i; i=$((i + 1)); done)
run "$QOPT" $G --print-pipeline --passes "t-opts:names=$long:label=a;b"
cp "$W/out" "$W/rt1.ini"
run "$QOPT" $G --print-pipeline -p "$W/rt1.ini"
t "a list too long for one INI line is printed one item a line, and reads back the same" \
	eval '[ $rc = 0 ] && cmp -s "$W/rt1.ini" "$W/out" && grep -qx "names = item000" "$W/out" && grep -qx "    item059" "$W/out" && grep -qx "label = a;b" "$W/out"'
nl='
'
for v in '" x "' '"x "' "\"a${nl}b\"" '"a ;b"' "$(printf 'x%.0s' $(seq 250))"; do
	run "$QOPT" $G --print-pipeline --passes "t-opts:label=$v"
	t "a value INI cannot hold is refused, nothing printed ($(printf '%s' "$v" | head -c 12 | tr '\n' '~'))" \
		eval '[ $rc = 1 ] && [ ! -s "$W/out" ] && has "qopt: error: --print-pipeline: nothing printed: INI would not read back the same pipeline: option '\''label'\'' of pass '\''t-opts'\''" "$W/err"'
done

done_testing

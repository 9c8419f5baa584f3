#!/bin/sh
# tests/passes/support/coverage-moe.sh - coverage accounting
# (passes/support/coverage.c) in the weight passes on an MoE-style model
# (coverage-moe.onnx, made by coverage-moe.py): 2 layers of 8 experts
# (w1, w3, w2 each) and a router; layer 1 expert 5's w2 has K = 40, so
# it has no NVFP4 or MXFP8 form. The summary says what fraction was
# quantized, per format, per reason, per include pattern and per
# repeated structure ("model.layers.*.mlp.experts.*.w2.weight: 15 of 16
# quantized"); an include pattern that quantizes fewer than all it
# matches, or that misses an expert of a structure it quantized, is a
# warning naming the weights, so --strict fails with exit 1 and writes
# nothing; exclude leaves experts out on purpose.
. "$top_srcdir/tests/lib/common.sh"
M="$top_srcdir/tests/passes/support/coverage-moe.onnx"
ODD="model.layers.1.mlp.experts.5.w2.weight"

# q NAME PASSES [ARGS...]: qopt on the model into $W/NAME.onnx, stderr
# in $W/NAME.log, stats in $W/NAME.json, status in $rc.
q() {
	name=$1 passes=$2
	shift 2
	"$QOPT" --no-summary --stats-json "$W/$name.json" --passes "$passes" \
		"$@" "$M" -o "$W/$name.onnx" >"$W/out" 2>"$W/$name.log"
	rc=$?
	cp "$W/$name.log" "$W/err"
}
# counter JSON PASS NAME VALUE: the pass's counter NAME is VALUE
counter() {
	"$PYTHON3" - "$W/$1.json" "$2" "$3" "$4" >"$W/out" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = [p['stats'].get(sys.argv[3]) for p in d['passes'] if p['pass'] == sys.argv[2]]
assert got == [int(sys.argv[4])], (sys.argv[3], got)
PY
}

# nvfp4-weights: 48 expert weights matched, 47 quantized
q nv 'nvfp4-weights:include=*experts*:min_size=0'
t "nvfp4-weights: the run succeeds without --strict" [ "$rc" = 0 ]
t "the totals: quantized 47 of 50 weights, with bytes and share" \
	has "coverage: quantized 47 of 50 weights (" "$W/nv.log"
t "per format: nvfp4 47 weights" \
	has "coverage: nvfp4: 47 weights, " "$W/nv.log"
t "per reason: 1 left float for K, 2 not included (the routers)" \
	sh -c 'grep -qF "coverage: left float (K not a multiple of 16): 1 weight, 2.5 KiB" "$1" &&
	       grep -qF "coverage: left float (not included): 2 weights, 1.0 KiB" "$1"' sh "$W/nv.log"
t "per pattern: 47 of 48 matched, naming the weight left float and why" \
	has "include '*experts*': 47 of 48 matched weights quantized; 1 left float: $ODD (K not a multiple of 16: K = 40 (axis 0))" "$W/nv.log"
t "that is a warning" \
	sh -c 'grep -F "include '"'*experts*'"': 47 of 48" "$1" | grep -qi warn' sh "$W/nv.log"
t "per structure: w2 15 of 16, incomplete first" \
	sh -c 'grep "coverage: model\." "$1" | head -n 1 |
	       grep -qF "coverage: model.layers.*.mlp.experts.*.w2.weight: 15 of 16 quantized"' sh "$W/nv.log"
t "per structure: w1 and w3 16 of 16, the routers 0 of 2" \
	sh -c 'grep -qF "model.layers.*.mlp.experts.*.w1.weight: 16 of 16 quantized" "$1" &&
	       grep -qF "model.layers.*.mlp.experts.*.w3.weight: 16 of 16 quantized" "$1" &&
	       grep -qF "model.layers.*.mlp.gate.weight: 0 of 2 quantized" "$1"' sh "$W/nv.log"
t "counters: 50 candidates, 47 nvfp4, 3 float left" \
	sh -c 'for c in "candidate weights 50" "nvfp4 weights 47" "float weights left 3" \
		"weights quantized 47"; do
		set -- "$1" $c
		v=$(eval echo \${$#})
		k=$(echo "$c" | sed "s/ [0-9]*$//")
		"$PYTHON3" -c "
import json,sys
d=json.load(open(sys.argv[1]))
s=[p[\"stats\"] for p in d[\"passes\"] if p[\"pass\"]==\"nvfp4-weights\"][0]
assert s.get(sys.argv[2])==int(sys.argv[3]), (sys.argv[2], s)
" "$1" "$k" "$v" || exit 1
	done' sh "$W/nv.json"
counter nv nvfp4-weights "float bytes left" $((40 * 32 * 2 + 2 * 32 * 8 * 2))
ok $? "counters: float bytes left = the K = 40 w2 and the two routers, exactly"
"$PYTHON3" - "$W/nv.json" >"$W/out" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = [x for p in d['passes'] if p['pass'] == 'nvfp4-weights'
     for x in p['records']]
g = {x['group']: (x['members'], x['quantized']) for x in r
     if x['kind'] == 'coverage-group'}
assert g['model.layers.*.mlp.experts.*.w2.weight'] == (16, 15), g
assert len(g) == 4, g
p = [x for x in r if x['kind'] == 'coverage-pattern']
assert p == [{'kind': 'coverage-pattern', 'pattern': '*experts*',
              'matched': 48, 'quantized': 47}], p
PY
ok $? "--stats-json: a record per group and per pattern"

"$QOPT" --summary --passes 'nvfp4-weights:include=*experts*:min_size=0' "$M" \
	-o "$W/sum.onnx" >"$W/out" 2>"$W/err"
t "--summary: the pass's line carries the coverage counters" \
	sh -c 'grep -A3 "^passes:" "$1" | grep "nvfp4-weights .*changed" |
	       grep -F "50 candidate weights, 100864 candidate bytes, 47 nvfp4 weights, 97280 nvfp4 bytes, 3 float weights left, 3584 float bytes left" >/dev/null' sh "$W/err"

q nvs 'nvfp4-weights:include=*experts*:min_size=0' --strict
t "--strict: exit 1, nothing written" \
	sh -c '[ "$1" = 1 ] && [ ! -e "$2" ]' sh "$rc" "$W/nvs.onnx"
t "--strict: the error gives the pattern and the count" \
	has "include '*experts*': 47 of 48 matched weights quantized; 1 left float: $ODD" "$W/nvs.log"

# the same with expert 5 excluded on purpose: no warning
q nvx 'nvfp4-weights:include=*experts*:exclude=*experts.5.*:min_size=0' --strict
t "exclude leaves expert 5 out on purpose: --strict passes" [ "$rc" = 0 ]
t "... and the structure still says 14 of 16" \
	has "model.layers.*.mlp.experts.*.w2.weight: 14 of 16 quantized" "$W/nvx.log"

# a pattern that misses expert 5 of every layer
q miss 'nvfp4-weights:include=*experts.[0-46-7].*:min_size=0' --strict
t "a pattern that misses an expert: --strict fails, nothing written" \
	sh -c '[ "$1" = 1 ] && [ ! -e "$2" ]' sh "$rc" "$W/miss.onnx"
t "... naming the structure, the count and the expert missed" \
	has "model.layers.*.mlp.experts.*.w1.weight: 14 of 16 quantized; 2 matched by no include pattern: model.layers.0.mlp.experts.5.w1.weight, ..." "$W/miss.log"
t "... for each of w1, w2, w3" \
	sh -c '[ "$(grep -c "matched by no include pattern" "$1")" = 3 ]' sh "$W/miss.log"

# the default include (not written by the user): no pattern warning
q def 'nvfp4-weights:min_size=0' --strict
t "include not set: the K = 40 weight is said, --strict passes" \
	sh -c '[ "$1" = 0 ] && grep -qF "coverage: quantized 49 of 50 weights" "$2" &&
	       ! grep -q "matched weights quantized" "$2"' sh "$rc" "$W/def.log"

# mxfp8 (blocks of 32): the same weight, the same report
q mx 'mxfp8:include=*experts*:min_size=0:activations=no'
t "mxfp8: 47 of 50, the pattern's 47 of 48 naming the K = 40 weight" \
	sh -c 'grep -qF "coverage: quantized 47 of 50 weights" "$1" &&
	       grep -qF "coverage: mxfp8: 47 weights" "$1" &&
	       grep -qF "include '"'*experts*'"': 47 of 48 matched weights quantized; 1 left float: $2" "$1"' \
	sh "$W/mx.log" "$ODD"
q mxs 'mxfp8:include=*experts*:min_size=0:activations=no' --strict
t "mxfp8 --strict: exit 1" [ "$rc" = 1 ]

# hadamard-rotate: rotated or not
q hr 'hadamard-rotate:include=*experts*:min_size=0'
t "hadamard-rotate: every weight rotated or why not, per structure" \
	sh -c 'grep -qF "coverage: hadamard: " "$1" &&
	       grep -qF "coverage: model.layers.*.mlp.gate.weight: 0 of 2 rotated" "$1"' sh "$W/hr.log"

done_testing

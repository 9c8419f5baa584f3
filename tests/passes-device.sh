#!/bin/sh
# The weight passes give the same bytes with --device cpu and --device
# cuda: NVFP4 (real, its deferred codes; fake with rotate_back, through
# the run's kernels), fp8-mha's deferred FP8 codes stored transposed,
# hadamard-rotate's deferred rotation, on generated models in external
# data and on torch exports. Skipped where CUDA is not usable.
. "$top_srcdir/tests/core-lib.sh"

run "$QOPT" --device cuda "$W/m.onnx" -o "$W/probe.onnx"
if [ $rc != 0 ]; then
	echo "1..0 # SKIP no usable CUDA: $(head -n 1 "$W/err")"
	exit 0
fi

"$top_builddir/bench/nvfp4-gen" "$W/nv.onnx" 16 4 >/dev/null 2>"$W/err" &&
"$top_builddir/bench/fp8mha-gen" "$W/f8.onnx" 16 4 >/dev/null 2>>"$W/err" ||
	{ echo "Bail out! generators: $(cat "$W/err")"; exit 1; }
printf '[nvfp4-weights]\n' >"$W/real.ini"
printf '[nvfp4-weights]\nmode = fake\nrotate = rotate_back\n' >"$W/fake.ini"
M="$top_srcdir/tests/torch/models"

# same NAME MODEL QOPT-ARGS...: run on each device into its own folder
# (the data file's name is written into the model), then compare; the
# pass must have changed the model (else the test proves nothing).
same() {
	name=$1 model=$2
	shift 2
	for d in cpu cuda; do
		rm -rf "$W/$d" && mkdir "$W/$d" &&
		"$QOPT" -q --device "$d" --external-threshold 1024 "$@" \
			"$model" -o "$W/$d/out.onnx" 2>"$W/err" || return 1
	done
	rm -rf "$W/rt" && mkdir "$W/rt" &&
	"$QOPT" -q --external-threshold 1024 "$model" -o "$W/rt/out.onnx" \
		2>"$W/err" || return 1
	{ ! cmp -s "$W/rt/out.onnx" "$W/cpu/out.onnx" ||
	  { [ -e "$W/rt/out.onnx.data" ] &&
	    ! cmp -s "$W/rt/out.onnx.data" "$W/cpu/out.onnx.data"; }; } ||
		return 1
	cmp -s "$W/cpu/out.onnx" "$W/cuda/out.onnx" || return 1
	[ ! -e "$W/cpu/out.onnx.data" ] ||
		cmp -s "$W/cpu/out.onnx.data" "$W/cuda/out.onnx.data"
}

t "nvfp4-weights real: same bytes on cpu and cuda (generated, external data)" \
	same nvfp4-real "$W/nv.onnx" -p "$W/real.ini"
t "nvfp4-weights fake + rotate_back: same bytes (generated)" \
	same nvfp4-fake "$W/nv.onnx" -p "$W/fake.ini"
t "fp8-mha: FP8 codes stored transposed, same bytes (generated)" \
	same fp8 "$W/f8.onnx" --passes fp8-mha
t "hadamard-rotate: same bytes (generated)" \
	same had "$W/nv.onnx" --passes hadamard-rotate
t "nvfp4-weights real: same bytes (torch GQA export, FLOAT16)" \
	same nvfp4-gqa "$M/gqa_fp16.onnx" -p "$W/real.ini"
t "fp8-mha: same bytes (torch GPT-2 export with FP8 Q/DQ)" \
	same fp8-gpt2 "$M/gpt2_fp8_std.onnx" --passes fp8-mha
t "hadamard-rotate: same bytes (torch ViT export)" \
	same had-vit "$M/vit_sdpa.onnx" --passes hadamard-rotate
done_testing

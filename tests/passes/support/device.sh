#!/bin/sh
# The weight passes give the same bytes with --device cpu and --device
# cuda: NVFP4 (real, its deferred codes; fake with rotate_back, through
# the run's kernels), fp8-mha's deferred FP8 codes stored transposed,
# hadamard-rotate's deferred rotation, on generated models in external
# data and on torch exports. First, on any machine built with CUDA
# support, the same with tests/kernels/fake-cuda.c standing in for the
# module and failing every call (redone on the CPU) or, for the in-place
# Hadamard, failing after it wrote (the recipe starts again on the CPU).
# The real-GPU checks SKIP where CUDA is not usable.
. "$top_srcdir/tests/lib/common.sh"

"$top_builddir/bench/nvfp4-gen" "$W/nv.onnx" 16 4 >/dev/null 2>"$W/err" &&
"$top_builddir/bench/fp8mha-gen" "$W/f8.onnx" 16 4 >/dev/null 2>>"$W/err" ||
	{ echo "Bail out! generators: $(cat "$W/err")"; exit 1; }
printf '[nvfp4-weights]\n' >"$W/real.ini"
printf '[nvfp4-weights]\nmode = fake\nrotate = rotate_back\n' >"$W/fake.ini"
M="$top_srcdir/tests/torch/models"

# same DEVICE MODEL QOPT-ARGS...: run on the CPU and on DEVICE, each into
# its own folder (the data file's name is written into the model), then
# compare; the pass must have changed the model (else the test proves
# nothing).
same() {
	dev=$1 model=$2
	shift 2
	for d in cpu "$dev"; do
		rm -rf "$W/$d" && mkdir "$W/$d" &&
		"$QOPT" -q --device "${d%-fake}" --external-threshold 1024 \
			"$@" "$model" -o "$W/$d/out.onnx" 2>"$W/err" || return 1
	done
	rm -rf "$W/rt" && mkdir "$W/rt" &&
	"$QOPT" -q --external-threshold 1024 "$model" -o "$W/rt/out.onnx" \
		2>"$W/err" || return 1
	{ ! cmp -s "$W/rt/out.onnx" "$W/cpu/out.onnx" ||
	  { [ -e "$W/rt/out.onnx.data" ] &&
	    ! cmp -s "$W/rt/out.onnx.data" "$W/cpu/out.onnx.data"; }; } ||
		return 1
	cmp -s "$W/cpu/out.onnx" "$W/$dev/out.onnx" || return 1
	[ ! -e "$W/cpu/out.onnx.data" ] ||
		cmp -s "$W/cpu/out.onnx.data" "$W/$dev/out.onnx.data"
}

# ---- a CUDA module whose calls fail ----
fake="$top_builddir/tests/kernels/.libs/fake-cuda.so"
if QOPT_CUDA_MODULE=$fake "$QOPT" --device cuda "$W/m.onnx" \
	-o "$W/probe.onnx" 2>"$W/err"; then
	fk=
else
	fk=" # SKIP $(head -n 1 "$W/err")"
fi
# fsame MODEL QOPT-ARGS...: same() with the fake module answering $fmode.
fsame() {
	(export QOPT_CUDA_MODULE="$fake" FAKE_CUDA="$fmode"
	 same cuda-fake "$@")
}
# ftest DESCRIPTION MODE MODEL QOPT-ARGS...
ftest() {
	fdesc=$1 fmode=$2
	shift 2
	if [ -n "$fk" ]; then
		ok 0 "$fdesc$fk"
		return
	fi
	t "$fdesc" fsame "$@"
}
ftest "fake module, every call fails: nvfp4-weights' codes redone on the CPU, same bytes" \
	call "$W/nv.onnx" -p "$W/real.ini"
ftest "fake module, every call fails: fp8-mha's transposed codes redone on the CPU, same bytes" \
	call "$W/f8.onnx" --passes fp8-mha
ftest "fake module, the in-place Hadamard fails after writing: the rotation starts again on the CPU, same bytes" \
	clobber "$W/nv.onnx" --passes hadamard-rotate
if [ -n "$fk" ]; then
	ok 0 "a module table without a kernel is refused, naming it$fk"
else
	(export FAKE_CUDA_TABLE=incomplete QOPT_CUDA_MODULE="$fake"
	 "$QOPT" --device cuda "$W/m.onnx" -o "$W/inc.onnx" 2>"$W/err")
	rc=$?
	t "a module table without a kernel is refused, naming it (not called)" \
		eval '[ $rc = 1 ] && has "CUDA is not available: CUDA module has no fp8_quantize kernel" "$W/err" && [ ! -e "$W/inc.onnx" ]'
fi

# ---- the GPU ----
run "$QOPT" --device cuda "$W/m.onnx" -o "$W/probe.onnx"
gpu=
[ $rc = 0 ] || gpu=" # SKIP no usable CUDA: $(head -n 1 "$W/err")"
# gtest DESCRIPTION MODEL QOPT-ARGS...: same() on the real module.
gtest() {
	gdesc=$1
	shift
	if [ -n "$gpu" ]; then
		ok 0 "$gdesc$gpu"
		return
	fi
	t "$gdesc" same cuda "$@"
}
gtest "nvfp4-weights real: same bytes on cpu and cuda (generated, external data)" \
	"$W/nv.onnx" -p "$W/real.ini"
gtest "nvfp4-weights fake + rotate_back: same bytes (generated)" \
	"$W/nv.onnx" -p "$W/fake.ini"
gtest "fp8-mha: FP8 codes stored transposed, same bytes (generated)" \
	"$W/f8.onnx" --passes fp8-mha
gtest "hadamard-rotate: same bytes (generated)" \
	"$W/nv.onnx" --passes hadamard-rotate
gtest "nvfp4-weights real: same bytes (torch GQA export, FLOAT16)" \
	"$M/gqa_fp16.onnx" -p "$W/real.ini"
gtest "fp8-mha: same bytes (torch GPT-2 export with FP8 Q/DQ)" \
	"$M/gpt2_fp8_std.onnx" --passes fp8-mha
gtest "hadamard-rotate: same bytes (torch ViT export)" \
	"$M/vit_sdpa.onnx" --passes hadamard-rotate
done_testing

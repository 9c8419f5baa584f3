# tests on models exported by torch.onnx.export (fragment of the top
# Makefile.am). The models are made by tests/torch/gen-models.py (needs
# python3-torch) and committed, so make check does not need torch.
TESTS += tests/torch/models.sh
# ranks through shape vectors of known length: torch's cls_token.expand
# with a dynamic batch (vit-expand-gen.py writes vit_expand.onnx).
TESTS += tests/torch/vit-expand.sh
EXTRA_DIST += tests/torch/vit-expand.sh tests/torch/vit-expand-gen.py
dist_check_DATA += tests/torch/models/vit_expand.onnx
EXTRA_DIST += docs/test-models.md tests/torch/models.sh tests/torch/ort.js \
	tests/torch/check.py \
	tests/torch/gen-models.py
dist_check_DATA += \
	tests/torch/models/bert.calib/s00/attention_mask.npy \
	tests/torch/models/bert.calib/s00/input_ids.npy \
	tests/torch/models/bert.calib/s01/attention_mask.npy \
	tests/torch/models/bert.calib/s01/input_ids.npy \
	tests/torch/models/bert.calib/s02/attention_mask.npy \
	tests/torch/models/bert.calib/s02/input_ids.npy \
	tests/torch/models/bert.calib/s03/attention_mask.npy \
	tests/torch/models/bert.calib/s03/input_ids.npy \
	tests/torch/models/bert.held/s00/attention_mask.npy \
	tests/torch/models/bert.held/s00/input_ids.npy \
	tests/torch/models/bert.held/s01/attention_mask.npy \
	tests/torch/models/bert.held/s01/input_ids.npy \
	tests/torch/models/bert.held/s02/attention_mask.npy \
	tests/torch/models/bert.held/s02/input_ids.npy \
	tests/torch/models/bert.held/s03/attention_mask.npy \
	tests/torch/models/bert.held/s03/input_ids.npy \
	tests/torch/models/bert.onnx \
	tests/torch/models/gpt2.calib/s00/input_ids.npy \
	tests/torch/models/gpt2.calib/s01/input_ids.npy \
	tests/torch/models/gpt2.calib/s02/input_ids.npy \
	tests/torch/models/gpt2.calib/s03/input_ids.npy \
	tests/torch/models/gpt2.held/s00/input_ids.npy \
	tests/torch/models/gpt2.held/s01/input_ids.npy \
	tests/torch/models/gpt2.held/s02/input_ids.npy \
	tests/torch/models/gpt2.held/s03/input_ids.npy \
	tests/torch/models/gpt2.onnx \
	tests/torch/models/gpt2_fp8_std.onnx \
	tests/torch/models/gpt2_fp8_trt.onnx \
	tests/torch/models/gqa.calib/s00/input_ids.npy \
	tests/torch/models/gqa.calib/s01/input_ids.npy \
	tests/torch/models/gqa.calib/s02/input_ids.npy \
	tests/torch/models/gqa.calib/s03/input_ids.npy \
	tests/torch/models/gqa.held/s00/input_ids.npy \
	tests/torch/models/gqa.held/s01/input_ids.npy \
	tests/torch/models/gqa.held/s02/input_ids.npy \
	tests/torch/models/gqa.held/s03/input_ids.npy \
	tests/torch/models/gqa.onnx \
	tests/torch/models/gqa_fp16.calib/s00/input_ids.npy \
	tests/torch/models/gqa_fp16.calib/s01/input_ids.npy \
	tests/torch/models/gqa_fp16.calib/s02/input_ids.npy \
	tests/torch/models/gqa_fp16.calib/s03/input_ids.npy \
	tests/torch/models/gqa_fp16.held/s00/input_ids.npy \
	tests/torch/models/gqa_fp16.held/s01/input_ids.npy \
	tests/torch/models/gqa_fp16.held/s02/input_ids.npy \
	tests/torch/models/gqa_fp16.held/s03/input_ids.npy \
	tests/torch/models/gqa_fp16.onnx \
	tests/torch/models/gqa_fp8_std.onnx \
	tests/torch/models/gqa_fp8_trt.onnx \
	tests/torch/models/mha.calib/s00/x.npy \
	tests/torch/models/mha.calib/s01/x.npy \
	tests/torch/models/mha.calib/s02/x.npy \
	tests/torch/models/mha.calib/s03/x.npy \
	tests/torch/models/mha.held/s00/x.npy \
	tests/torch/models/mha.held/s01/x.npy \
	tests/torch/models/mha.held/s02/x.npy \
	tests/torch/models/mha.held/s03/x.npy \
	tests/torch/models/mha.onnx \
	tests/torch/models/shape_ops.onnx \
	tests/torch/models/control_flow.onnx \
	tests/torch/models/vit_div.calib/s00/pixel_values.npy \
	tests/torch/models/vit_div.calib/s01/pixel_values.npy \
	tests/torch/models/vit_div.calib/s02/pixel_values.npy \
	tests/torch/models/vit_div.calib/s03/pixel_values.npy \
	tests/torch/models/vit_div.held/s00/pixel_values.npy \
	tests/torch/models/vit_div.held/s01/pixel_values.npy \
	tests/torch/models/vit_div.held/s02/pixel_values.npy \
	tests/torch/models/vit_div.held/s03/pixel_values.npy \
	tests/torch/models/vit_div.onnx \
	tests/torch/models/vit_sdpa.calib/s00/pixel_values.npy \
	tests/torch/models/vit_sdpa.calib/s01/pixel_values.npy \
	tests/torch/models/vit_sdpa.calib/s02/pixel_values.npy \
	tests/torch/models/vit_sdpa.calib/s03/pixel_values.npy \
	tests/torch/models/vit_sdpa.held/s00/pixel_values.npy \
	tests/torch/models/vit_sdpa.held/s01/pixel_values.npy \
	tests/torch/models/vit_sdpa.held/s02/pixel_values.npy \
	tests/torch/models/vit_sdpa.held/s03/pixel_values.npy \
	tests/torch/models/vit_sdpa.onnx \
	tests/torch/models/vit_sdpa_fp8_std.onnx \
	tests/torch/models/vit_sdpa_fp8_trt.onnx
dist_check_DATA += \
	tests/torch/models/resnet_cnn.calib/s00/x.npy \
	tests/torch/models/resnet_cnn.calib/s01/x.npy \
	tests/torch/models/resnet_cnn.calib/s02/x.npy \
	tests/torch/models/resnet_cnn.calib/s03/x.npy \
	tests/torch/models/resnet_cnn.held/s00/x.npy \
	tests/torch/models/resnet_cnn.held/s01/x.npy \
	tests/torch/models/resnet_cnn.held/s02/x.npy \
	tests/torch/models/resnet_cnn.held/s03/x.npy \
	tests/torch/models/resnet_cnn.onnx \
	tests/torch/models/unet_cnn.calib/s00/x.npy \
	tests/torch/models/unet_cnn.calib/s01/x.npy \
	tests/torch/models/unet_cnn.calib/s02/x.npy \
	tests/torch/models/unet_cnn.calib/s03/x.npy \
	tests/torch/models/unet_cnn.held/s00/x.npy \
	tests/torch/models/unet_cnn.held/s01/x.npy \
	tests/torch/models/unet_cnn.held/s02/x.npy \
	tests/torch/models/unet_cnn.held/s03/x.npy \
	tests/torch/models/unet_cnn.onnx
# Models with learned weights (tests/torch/learned/gen.py trains them;
# committed): perplexity / top-1 per format (docs/accuracy.md).
TESTS += tests/torch/learned/accuracy.sh tests/torch/learned/plan.sh
EXTRA_DIST += tests/torch/learned/accuracy.sh tests/torch/learned/plan.sh \
	tests/torch/learned/accuracy.py tests/torch/learned/eval.js \
	tests/torch/learned/gen.py
dist_check_DATA += \
	tests/torch/learned/charlm.calib/s00/input_ids.npy \
	tests/torch/learned/charlm.calib/s01/input_ids.npy \
	tests/torch/learned/charlm.calib/s02/input_ids.npy \
	tests/torch/learned/charlm.calib/s03/input_ids.npy \
	tests/torch/learned/charlm.calib/s04/input_ids.npy \
	tests/torch/learned/charlm.calib/s05/input_ids.npy \
	tests/torch/learned/charlm.calib/s06/input_ids.npy \
	tests/torch/learned/charlm.calib/s07/input_ids.npy \
	tests/torch/learned/charlm.calib/s08/input_ids.npy \
	tests/torch/learned/charlm.calib/s09/input_ids.npy \
	tests/torch/learned/charlm.calib/s10/input_ids.npy \
	tests/torch/learned/charlm.calib/s11/input_ids.npy \
	tests/torch/learned/charlm.calib/s12/input_ids.npy \
	tests/torch/learned/charlm.calib/s13/input_ids.npy \
	tests/torch/learned/charlm.calib/s14/input_ids.npy \
	tests/torch/learned/charlm.calib/s15/input_ids.npy \
	tests/torch/learned/charlm.held/s00/input_ids.npy \
	tests/torch/learned/charlm.held/s01/input_ids.npy \
	tests/torch/learned/charlm.held/s02/input_ids.npy \
	tests/torch/learned/charlm.held/s03/input_ids.npy \
	tests/torch/learned/shapes_cnn.calib/s00/x.npy \
	tests/torch/learned/shapes_cnn.calib/s01/x.npy \
	tests/torch/learned/shapes_cnn.calib/s02/x.npy \
	tests/torch/learned/shapes_cnn.calib/s03/x.npy \
	tests/torch/learned/shapes_cnn.calib/s04/x.npy \
	tests/torch/learned/shapes_cnn.calib/s05/x.npy \
	tests/torch/learned/shapes_cnn.calib/s06/x.npy \
	tests/torch/learned/shapes_cnn.calib/s07/x.npy \
	tests/torch/learned/shapes_cnn.calib/s08/x.npy \
	tests/torch/learned/shapes_cnn.calib/s09/x.npy \
	tests/torch/learned/shapes_cnn.calib/s10/x.npy \
	tests/torch/learned/shapes_cnn.calib/s11/x.npy \
	tests/torch/learned/shapes_cnn.calib/s12/x.npy \
	tests/torch/learned/shapes_cnn.calib/s13/x.npy \
	tests/torch/learned/shapes_cnn.calib/s14/x.npy \
	tests/torch/learned/shapes_cnn.calib/s15/x.npy \
	tests/torch/learned/shapes_cnn.held/s00/x.npy \
	tests/torch/learned/shapes_cnn.held/s01/x.npy \
	tests/torch/learned/shapes_cnn.held/s02/x.npy \
	tests/torch/learned/shapes_cnn.held/s03/x.npy \
	tests/torch/learned/charlm.eval.npy \
	tests/torch/learned/charlm.onnx \
	tests/torch/learned/shapes_cnn.eval-labels.npy \
	tests/torch/learned/shapes_cnn.eval.npy \
	tests/torch/learned/shapes_cnn.onnx

# tests of what qopt accepts and refuses as ONNX (fragment of the top
# Makefile.am): python3-onnx builds the models, ONNX Runtime checks the
# accepted ones compute the same after a round trip.
TESTS += tests/validity.sh
dist_check_SCRIPTS += tests/validity.sh
EXTRA_DIST += tests/validity-models.py

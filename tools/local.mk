# tools: qopt-ort-check, the ONNX Runtime checker for `qopt bisect
# --test` (needs node and onnxruntime-node at run time).
bin_SCRIPTS = tools/qopt-ort-check
tools/qopt-ort-check: $(top_srcdir)/tools/qopt-ort-check.js
	$(AM_V_GEN)$(MKDIR_P) tools && cp $(top_srcdir)/tools/qopt-ort-check.js $@ && chmod +x $@
CLEANFILES += tools/qopt-ort-check
EXTRA_DIST += tools/qopt-ort-check.js
EXTRA_DIST += tools/qopt-port-abi1.py

# qopt-calibrate-ort: the ONNX Runtime half of `qopt calibrate` (qopt
# runs it; it shares qopt-ort-check's input readers).
bin_SCRIPTS += tools/qopt-calibrate-ort
tools/qopt-calibrate-ort: $(top_srcdir)/tools/qopt-calibrate.js
	$(AM_V_GEN)$(MKDIR_P) tools && cp $(top_srcdir)/tools/qopt-calibrate.js $@ && chmod +x $@
CLEANFILES += tools/qopt-calibrate-ort
EXTRA_DIST += tools/qopt-calibrate.js

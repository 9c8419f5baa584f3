# tests of what qopt accepts and refuses as ONNX (fragment of the top
# Makefile.am): python3-onnx builds the models, ONNX Runtime checks the
# accepted ones compute the same after a round trip.
TESTS += tests/validity.sh
dist_check_SCRIPTS += tests/validity.sh
EXTRA_DIST += tests/validity-models.py

# The opset rule table against the operator history (reaches into the
# IR library's private opset_upgrade.h).
check_PROGRAMS += tests/ir-opset-table
TESTS += tests/ir-opset-table
tests_ir_opset_table_SOURCES = tests/ir-opset-table.c tests/tap.h
tests_ir_opset_table_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ir
tests_ir_opset_table_LDADD = $(LIBQOPT_INTERNALS)

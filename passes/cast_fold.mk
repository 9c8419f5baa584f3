# cast-fold pass module: its own .so, linked against libqopt with the public
# headers only (qopt/qopt.h), exactly as a third-party plugin would be.
passes_LTLIBRARIES += passes/cast_fold.la
passes_cast_fold_la_SOURCES = \
	passes/cast_fold/cast_fold.h \
	passes/cast_fold/plugin.c \
	passes/cast_fold/qdq.c \
	passes/cast_fold/redundant.c \
	passes/cast_fold/util.c
passes_cast_fold_la_LDFLAGS = $(PASS_LDFLAGS)
passes_cast_fold_la_LIBADD = passes/libpass-support.la $(PASS_LIBADD) -lm

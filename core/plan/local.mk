# core/plan: the plan as a module of libqopt (above the manager and
# calibration, below the command line): the formats, the candidate
# layers, each format on each layer in sessions of this process, their
# measurement through the front end's runner, the multiple-choice
# knapsack and what a plan writes (the INI pipeline, the JSON report);
# <qopt/plan.h> its public side (plan-session.c). Only in libqopt: the
# qopt program calls it there (no copy in the manager's test programs).
pkginclude_HEADERS += include/qopt/plan.h
libqopt_la_SOURCES += \
	core/plan/plan.h \
	core/plan/plan-formats.c \
	core/plan/plan-layers.c \
	core/plan/plan-step.c \
	core/plan/plan-candidates.c \
	core/plan/plan-measure.c \
	core/plan/plan-knapsack.h \
	core/plan/plan-knapsack.c \
	core/plan/plan-solve.c \
	core/plan/plan-engine.c \
	core/plan/plan-write.c \
	core/plan/plan-session.c

# core/plan: the plan as a module (above the manager, below the command
# line): the formats, the multiple-choice knapsack and what a plan
# writes (the INI pipeline, the JSON report). With the manager
# (compiled into libqopt, hidden; the qopt program links those objects).
QOPT_MANAGER_SOURCES += \
	core/plan/plan.h \
	core/plan/plan-formats.c \
	core/plan/plan-knapsack.h \
	core/plan/plan-knapsack.c \
	core/plan/plan-write.c

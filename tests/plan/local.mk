# tests/plan: core/plan. The knapsack solver against brute force.
check_PROGRAMS += tests/plan/knapsack
tests_plan_knapsack_SOURCES = tests/plan/knapsack.c tests/lib/tap.h \
	core/plan/plan-knapsack.c core/plan/plan-knapsack.h
tests_plan_knapsack_LDADD = -lm
TESTS += tests/plan/knapsack

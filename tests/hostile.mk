# tests of hostile input and interrupted runs (issue: nothing crashes,
# hangs, or is destroyed): hand-made adversarial files, odd output
# paths, signals, misbehaving plugins.
TESTS += tests/hostile-load.sh tests/hostile-output.sh
dist_check_SCRIPTS += tests/hostile-load.sh tests/hostile-output.sh
EXTRA_DIST += tests/hostile-gen.py

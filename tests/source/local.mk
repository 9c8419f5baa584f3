# checks over the source tree itself (fragment of the top Makefile.am):
# layering of the library and of each pass, references in comments and
# docs.
SOURCE_SH = tests/source/layers.sh tests/source/docs-refs.sh \
	tests/source/comment-refs.sh tests/source/manager-layers.sh \
	tests/source/pass-layers.sh tests/source/pass-names.sh \
	tests/source/version.sh tests/source/docs-numbers.sh
TESTS += $(SOURCE_SH)
dist_check_SCRIPTS += $(SOURCE_SH)

#!/bin/sh
# The example in include/qopt/pass.h's header comment compiles as it is
# written with -Wall -Wextra -Werror, and the plugin it makes loads.
. "$top_srcdir/tests/lib/common.sh"
cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || { echo "1..0 # SKIP no C compiler ($cc)"; exit 0; }
{
	printf '#include <qopt/pass.h>\n'
	printf 'static int my_run(qopt_ctx *ctx, qir_model *m, int *changed)\n'
	printf '{ (void)ctx; (void)m; *changed = 0; return 0; }\n'
	sed -n '/^ \*	static const qopt_option_spec my_opts/,/^ \*	QOPT_PLUGIN(/s/^ \*	//p' \
		"$top_srcdir/include/qopt/pass.h"
} >"$W/example.c"
t "the example is in pass.h" grep -q 'QOPT_PLUGIN("my-plugin"' "$W/example.c"
run "$cc" -std=c11 -Wall -Wextra -Werror -shared -fPIC \
	-I"$top_srcdir/include" -I"$top_builddir/include" \
	"$W/example.c" -o "$W/example.so"
t "it compiles with -Wall -Wextra -Werror" eval '[ $rc = 0 ]'
run "$QOPT" --load "$W/example.so" --help-pass my-pass
t "the plugin it makes loads, with its option" \
	eval '[ $rc = 0 ] && has "block_size" "$W/out"'
done_testing

# tools: qopt's ONNX Runtime helpers. qopt-ort-check (the comparison
# tool and `qopt bisect --test` checker) and qopt-calibrate-ort (run by
# `qopt calibrate`) are small generated launchers; the JavaScript they
# run (with the sample readers both share, qopt-ort-lib.js, and what the
# job-file scripts of qopt plan and autocast-tune share, qopt-ort-job.js)
# lives in tools/ in the source tree and in $(pkglibexecdir) once
# installed, each script requiring the others from its own folder. Both
# launchers carry the onnxruntime-node folder configure recorded
# (--with-onnxruntime-node, or where tools/install-deps.sh puts it).
ORT_TOOLS_JS = tools/qopt-ort-check.js tools/qopt-calibrate.js \
	tools/qopt-ort-lib.js tools/qopt-plan.js tools/qopt-calib-hist.js \
	tools/qopt-autocast-tune.js tools/qopt-ort-job.js
ORT_LAUNCHERS = tools/qopt-ort-check tools/qopt-calibrate-ort \
	tools/qopt-plan-ort tools/qopt-autocast-tune-ort
EXTRA_DIST += $(ORT_TOOLS_JS) tools/qopt-ort-check.in \
	tools/qopt-calibrate-ort.in tools/qopt-plan-ort.in \
	tools/qopt-autocast-tune-ort.in \
	tools/qopt-port-abi1.py
nodist_noinst_SCRIPTS = $(ORT_LAUNCHERS)
CLEANFILES += $(ORT_LAUNCHERS)

# Template -> launcher (add -e 's|[@]jsdir[@]|DIR|g').
ORT_LAUNCHER_SED = sed -e 's|[@]NODE[@]|$(NODE)|g' \
	-e 's|[@]ORT_NODE_DIR[@]|$(ORT_NODE_DIR)|g'

# The build tree's launchers run the source tree's scripts.
tools/qopt-ort-check: $(top_srcdir)/tools/qopt-ort-check.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tools && \
	$(ORT_LAUNCHER_SED) -e 's|[@]jsdir[@]|$(abs_top_srcdir)/tools|g' <$(top_srcdir)/tools/qopt-ort-check.in >$@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@
tools/qopt-calibrate-ort: $(top_srcdir)/tools/qopt-calibrate-ort.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tools && \
	$(ORT_LAUNCHER_SED) -e 's|[@]jsdir[@]|$(abs_top_srcdir)/tools|g' <$(top_srcdir)/tools/qopt-calibrate-ort.in >$@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@
# qopt plan's (tools/qopt-plan.js).
tools/qopt-plan-ort: $(top_srcdir)/tools/qopt-plan-ort.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tools && \
	$(ORT_LAUNCHER_SED) -e 's|[@]jsdir[@]|$(abs_top_srcdir)/tools|g' <$(top_srcdir)/tools/qopt-plan-ort.in >$@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@
# qopt autocast-tune's (tools/qopt-autocast-tune.js).
tools/qopt-autocast-tune-ort: $(top_srcdir)/tools/qopt-autocast-tune-ort.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tools && \
	$(ORT_LAUNCHER_SED) -e 's|[@]jsdir[@]|$(abs_top_srcdir)/tools|g' <$(top_srcdir)/tools/qopt-autocast-tune-ort.in >$@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@

# Installed: the scripts in $(pkglibexecdir), launchers pointing there
# in $(bindir) (qopt calibrate finds qopt-calibrate-ort beside itself).
install-exec-local: install-ort-tools
uninstall-local: uninstall-ort-tools
install-ort-tools:
	$(MKDIR_P) '$(DESTDIR)$(pkglibexecdir)' '$(DESTDIR)$(bindir)'
	for f in $(ORT_TOOLS_JS); do \
		$(INSTALL_DATA) '$(top_srcdir)/'"$$f" '$(DESTDIR)$(pkglibexecdir)' || exit 1; \
	done
	for f in $(ORT_LAUNCHERS); do \
		$(ORT_LAUNCHER_SED) -e 's|[@]jsdir[@]|$(pkglibexecdir)|g' <'$(top_srcdir)/'"$$f.in" >"$$f.inst" && \
		$(INSTALL_SCRIPT) "$$f.inst" '$(DESTDIR)$(bindir)/'"$${f#tools/}" && \
		rm -f "$$f.inst" || exit 1; \
	done
uninstall-ort-tools:
	for f in $(ORT_TOOLS_JS); do rm -f '$(DESTDIR)$(pkglibexecdir)/'"$${f#tools/}"; done
	for f in $(ORT_LAUNCHERS); do rm -f '$(DESTDIR)$(bindir)/'"$${f#tools/}"; done
.PHONY: install-ort-tools uninstall-ort-tools

# Bash completion for qopt and qopt-ort-check (one file, installed under
# both command names, as bash-completion loads files by command name).
bashcompletiondir = $(datadir)/bash-completion/completions
EXTRA_DIST += tools/qopt.bash-completion
install-data-local: install-bash-completion
uninstall-local: uninstall-bash-completion
install-bash-completion:
	$(MKDIR_P) '$(DESTDIR)$(bashcompletiondir)'
	for c in qopt qopt-ort-check; do \
		$(INSTALL_DATA) '$(top_srcdir)/tools/qopt.bash-completion' \
			'$(DESTDIR)$(bashcompletiondir)/'"$$c" || exit 1; \
	done
uninstall-bash-completion:
	rm -f '$(DESTDIR)$(bashcompletiondir)/qopt' \
		'$(DESTDIR)$(bashcompletiondir)/qopt-ort-check'
.PHONY: install-bash-completion uninstall-bash-completion

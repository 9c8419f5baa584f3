#!/bin/sh
# tests/ort/setup.sh SRCDIR DESTDIR [NPM] [NODE]
#
# Installs tests/ort/package.json (ONNX Runtime for node, the PP-OCR
# models) into DESTDIR (the build tree's tests/ort, $QOPT_ORT_DIR).
# --ignore-scripts: onnxruntime-node's install script only fetches GPU
# add-ons and fails offline; the CPU library ships in the package.
#
# Never fails the build: when npm, node or the network is missing it
# writes the reason to DESTDIR/setup.log and exits 0, and the tests
# that need ORT SKIP with that reason. On success it writes
# DESTDIR/.stamp, so the install runs once per package.json change.
srcdir=${1:?usage: setup.sh SRCDIR DESTDIR [NPM] [NODE]}
dest=${2:?usage: setup.sh SRCDIR DESTDIR [NPM] [NODE]}
npm=${3:-npm}
node=${4:-node}
log="$dest/setup.log"

mkdir -p "$dest" || exit 0
rm -f "$dest/.stamp"

give_up() {
	echo "$*" >"$log"
	echo "tests/ort/setup.sh: $* (tests needing ONNX Runtime will SKIP)" >&2
	exit 0
}

case $npm in ''|no) give_up "npm not found at configure time";; esac
case $node in ''|no) give_up "node not found at configure time";; esac

# VPATH builds: npm works in the folder that holds package.json.
if ! cmp -s "$srcdir/tests/ort/package.json" "$dest/package.json"; then
	cp "$srcdir/tests/ort/package.json" "$dest/package.json" ||
		give_up "cannot copy package.json to $dest"
fi

echo "tests/ort/setup.sh: npm install in $dest" >&2
if ! (cd "$dest" && "$npm" install --ignore-scripts --no-audit --no-fund \
	--prefer-offline --loglevel=error) >"$log" 2>&1; then
	why=$(grep -m1 -i 'err' "$log" | cut -c1-200)
	give_up "npm install failed: ${why:-see $log}"
fi

# The package must load (native binding present for this platform).
if ! (cd "$dest" && "$node" -e "require('onnxruntime-node')") >"$log" 2>&1; then
	why=$(grep -m1 -i 'error' "$log" | cut -c1-200)
	give_up "onnxruntime-node does not load: ${why:-see $log}"
fi
echo "ok" >"$log"
date >"$dest/.stamp"
exit 0

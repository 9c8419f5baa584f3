#!/bin/sh
# Installs what building and testing qopt needs on Debian 12.
# Run as root (or through sudo). Idempotent.
set -eu
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
pkgs="build-essential autoconf automake libtool pkg-config
	libprotobuf-c-dev protobuf-c-compiler libinih-dev
	libonnx-testdata python3-onnx python3-numpy python3-pip
	python3-setuptools time procps
	clang libclang-rt-14-dev python3-pil fonts-dejavu-core"
# Node.js runs the ONNX Runtime test oracle; keep an existing install.
command -v node >/dev/null 2>&1 || pkgs="$pkgs nodejs"
command -v npm >/dev/null 2>&1 || pkgs="$pkgs npm"
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $pkgs

# onnxruntime-node for qopt calibrate, qopt-ort-check and qopt bisect's
# checks, at the version the tests pin (tests/ort/package.json), in
# ${QOPT_ORT_PREFIX:-/usr/local/lib/qopt-ort}: configure finds it there
# (or is told with --with-onnxruntime-node=DIR) and the installed tools
# carry the folder. --ignore-scripts: its install script only fetches
# GPU add-ons; the CPU library ships in the package.
here=$(cd "$(dirname "$0")" && pwd)
ort_dir=${QOPT_ORT_PREFIX:-/usr/local/lib/qopt-ort}
ort_version=$(sed -n 's/.*"onnxruntime-node": *"\([^"]*\)".*/\1/p' \
	"$here/../tests/ort/package.json")
[ -n "$ort_version" ] || {
	echo "install-deps.sh: no onnxruntime-node version in tests/ort/package.json" >&2
	exit 1
}
have=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' \
	"$ort_dir/node_modules/onnxruntime-node/package.json" 2>/dev/null | head -n1)
if [ "$have" != "$ort_version" ]; then
	$SUDO mkdir -p "$ort_dir"
	$SUDO npm install --prefix "$ort_dir" --ignore-scripts --no-audit \
		--no-fund --loglevel=error "onnxruntime-node@$ort_version"
fi
(cd "$ort_dir" && node -e "require('onnxruntime-node')") || {
	echo "install-deps.sh: onnxruntime-node in $ort_dir does not load" >&2
	exit 1
}
echo "install-deps.sh: onnxruntime-node $ort_version in $ort_dir"

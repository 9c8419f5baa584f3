#!/bin/sh
# Installs what building and testing qopt needs on Debian 12.
# Run as root (or through sudo). Idempotent.
set -eu
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
pkgs="build-essential autoconf automake libtool pkg-config
	libprotobuf-c-dev protobuf-c-compiler libinih-dev
	libonnx-testdata python3-onnx python3-numpy time procps
	clang libclang-rt-14-dev"
# Node.js runs the ONNX Runtime test oracle; keep an existing install.
command -v node >/dev/null 2>&1 || pkgs="$pkgs nodejs"
command -v npm >/dev/null 2>&1 || pkgs="$pkgs npm"
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $pkgs

#!/usr/bin/env bash
# Installs the Debian packages tlc needs to build and test, when they are missing. Idempotent.
set -euo pipefail
pkgs=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libcli11-dev libfmt-dev libspdlog-dev
      catch2 ninja-build ccache cmake g++ clang-format-22)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"

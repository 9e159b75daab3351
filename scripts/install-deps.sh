#!/usr/bin/env bash
# Installs the Debian packages tlc needs to build and test, when they are missing. Idempotent.
set -euo pipefail
pkgs=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libcli11-dev libfmt-dev libspdlog-dev
      catch2 ninja-build ccache cmake g++)
# Wanted but not required: the `format` test (scripts/check-format.sh) needs clang-format 22 and
# is skipped without it.
optional=(clang-format-22)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
optional_missing=()
for p in "${optional[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    optional_missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ] && [ ${#optional_missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
if [ ${#optional_missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${optional_missing[*]} (optional)"
  $SUDO apt-get install -y -q --no-install-recommends "${optional_missing[@]}" ||
    echo "install-deps: ${optional_missing[*]} not installed; the format test will be skipped"
fi

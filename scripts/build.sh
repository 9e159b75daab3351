#!/usr/bin/env bash
# Command (1): installs what tlc needs (when missing), builds tlc, and compiles every kernel in
# kernels/ into build/kernels/<name>.{fatbin,h,cpp,json}. Idempotent; re-running rebuilds only
# what changed. Usage: scripts/build.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
"$root/scripts/install-deps.sh"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build"
echo "tlc: $build/bin/tlc"
echo "kernels (fatbin + launcher .h/.cpp + manifest .json):"
ls -1 "$build"/kernels/*.fatbin

#!/usr/bin/env bash
# Command (2): builds what is missing (scripts/build.sh) and runs every test: lit suites, Catch2
# unit tests, and the GPU tests (label `gpu`; they report "skipped" where no GPU is present).
# Usage: scripts/test.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
"$root/scripts/build.sh" "$build"
ctest --test-dir "$build" --output-on-failure

#!/usr/bin/env bash
# Everything one GPU session checks, in one call on the GPU machine (from the repository root):
# the GPU tests and benchmarks (scripts/gpu-run.sh, with the copy roofline from peers.py),
# compute-sanitizer memcheck and racecheck on the tests, and the fatbins' contents (cuobjdump).
# Needs build/gpu-bin and build/kernels built here first: ninja -C build (scripts/build.sh).
set -u
OUT=${OUT:-/tmp/tlc-device}
mkdir -p "$OUT"
bindir=${1:-build/gpu-bin}
status=0

scripts/gpu-run.sh "$bindir" || status=1

{
  for t in "$bindir"/*_test; do
    for tool in memcheck racecheck; do
      echo "== compute-sanitizer --tool $tool $(basename "$t")"
      compute-sanitizer --tool "$tool" --error-exitcode 3 "$t" > "$OUT/sanitizer.txt" 2>&1
      rc=$?
      tail -3 "$OUT/sanitizer.txt"
      [ $rc -ne 0 ] && { echo "-- sanitizer $tool: exit $rc"; status=1; }
    done
  done
  for f in build/kernels/*.fatbin; do
    echo "== cuobjdump --list-elf --list-ptx $f"
    cuobjdump --list-elf --list-ptx "$f" || status=1
  done
  echo "== cuobjdump --dump-sass (vector_add, sm_90a)"
  cuobjdump --dump-sass build/kernels/vector_add.fatbin 2>&1 | grep -E "LDG|STG|Function" | head -12
} 2>&1 | tee "$OUT/device-check.log"
exit $status

#!/usr/bin/env bash
# Everything one GPU session checks, in one call on the GPU machine (from the repository root):
# the GPU tests and benchmarks (scripts/gpu-run.sh; peers.py measures the copy roofline, cuBLAS
# and cuDNN/flash attention in the same run), compute-sanitizer memcheck and racecheck on the
# smaller tests, and the fatbins' contents (cuobjdump). Build first, here: scripts/build.sh.
set -u
OUT=${OUT:-/tmp/tlc-device}
mkdir -p "$OUT"
bindir=${1:-build/gpu-bin}
status=0

PEERS_ARGS="--copy --gemm 4096x4096x4096 --attn 4x32x4096x128 --causal" scripts/gpu-run.sh "$bindir" || status=1

{
  for t in softmax_test transpose_test col_sum_test attention_test example_app_test; do
    [ -x "$bindir/$t" ] || continue
    for tool in memcheck racecheck; do
      compute-sanitizer --tool "$tool" --error-exitcode 3 "$bindir/$t" > "$OUT/sanitizer.txt" 2>&1
      rc=$?
      echo "== compute-sanitizer --tool $tool $t: exit $rc; $(tail -1 "$OUT/sanitizer.txt")"
      [ $rc -ne 0 ] && status=1
    done
  done
  for f in build/kernels/*.fatbin; do
    echo "== cuobjdump --list-elf --list-ptx $f"
    cuobjdump --list-elf --list-ptx "$f" || status=1
  done
} 2>&1 | tee "$OUT/device-check.log"
exit $status

#!/usr/bin/env bash
# Everything one GPU session checks, in one call on the GPU machine (from the repository root):
# the GPU tests and benchmarks (scripts/gpu-run.sh; peers.py measures the copy roofline, cuBLAS
# and cuDNN/flash attention in the same run), the differential tests (test/gpu/difftest),
# compute-sanitizer memcheck and racecheck on the smaller tests, and the fatbins' contents
# (cuobjdump). Build first, here: scripts/build.sh.
set -u
OUT=${OUT:-/tmp/tlc-device}
mkdir -p "$OUT"
bindir=${1:-build/gpu-bin}
status=0

# The GEMM sweep of bench_gemm (bench/RESULTS.md), attention and the copy roofline.
PEERS_ARGS="--copy --gemm 8192x8192x8192 --gemm 4096x4096x4096 --gemm 2048x2048x2048 \
--gemm 4096x4096x4104 --gemm 1000x1112x776 --attn 4x32x4096x128 --causal" \
  scripts/gpu-run.sh "$bindir" || status=1

# Differential tests (issue 17): every kernel of kernels/ and test/gpu/kernels, sm_90a and sm_80
# builds against --codegen=reference; then the bounded random-kernel campaign of build/campaign.
echo "== difftest: kernels (fast and sm_80 vs reference)"
test/gpu/difftest/run-kernels.sh "$bindir/tlc-difftest" build/difftest > "$OUT/difftest-kernels.log" 2>&1 ||
  status=1
grep -E "^==|FAIL|FATAL|reproduce|^difftest:|run-kernels" "$OUT/difftest-kernels.log" | tail -60
echo "== difftest: random-kernel campaign (build/campaign)"
test/gpu/difftest/campaign.sh run "$bindir/tlc-difftest" build/campaign 8 --max-elements 262144 \
  > "$OUT/difftest-campaign.log" 2>&1 || status=1
tail -40 "$OUT/difftest-campaign.log"

{
  for t in softmax_test norms_test transpose_test col_sum_test dequant_gemm_test "attention_test small" example_app_test "gemm_test small"; do
    [ -x "$bindir/${t%% *}" ] || continue
    for tool in memcheck racecheck; do
      compute-sanitizer --tool "$tool" --error-exitcode 3 $bindir/$t > "$OUT/sanitizer.txt" 2>&1
      rc=$?
      echo "== compute-sanitizer --tool $tool $t: exit $rc; $(tail -1 "$OUT/sanitizer.txt")"
      [ $rc -ne 0 ] && status=1
    done
  done
  for f in build/kernels/*.fatbin; do
    echo "== cuobjdump --list-elf --list-ptx $f"
    cuobjdump --list-elf --list-ptx "$f" || status=1
  done
  # The mma.sync strategy (gemm.tile for sm_90, in bench_gemm): shared-memory bank conflicts of
  # its ldmatrix reads and cp.async writes (issue: zero or near zero), tensor-pipe activity.
  if command -v ncu > /dev/null && [ -x "$bindir/bench_gemm" ]; then
    echo "== ncu: mma.sync gemm (sm_90 build) at 4096^3"
    ncu --clock-control none --kernel-name regex:'^gemm__[0-9]+$' -c 1 --metrics \
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,\
smsp__inst_executed_op_ldsm.sum,smsp__inst_executed_op_ldgsts.sum,\
sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active \
      "$bindir/bench_gemm" 4096 4096 4096 2>&1 | grep -E "gemm__|l1tex|smsp|sm__|ERR"
  fi
  # Attention on the register strategy (bench_tiles' first attention launch): tensor pipe,
  # registers, shared-memory bank conflicts.
  if command -v ncu > /dev/null && [ -x "$bindir/bench_tiles" ]; then
    echo "== ncu: attention (register strategy, mma.sync) B=4 H=32 S=4096 D=128"
    ncu --clock-control none --kernel-name regex:'^attention_fwd$' -c 1 --metrics \
l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,\
launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,\
sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active \
      "$bindir/bench_tiles" 2>&1 | grep -E "attention_fwd|l1tex|launch__|sm__|ERR"
  fi
  # The sm_90a GEMM entries run on Hopper's own units: wgmma (HGMMA) fed by TMA (UTMALDG).
  for f in build/kernels/gemm.fatbin build/kernels/gemm_bias_gelu.fatbin; do
    echo "== cuobjdump -sass $f: tensor-core and TMA instructions"
    cuobjdump -sass "$f" | grep -o "HGMMA[^ ]*\|UTMALDG[^ ]*" | sort | uniq -c
  done
} 2>&1 | tee "$OUT/device-check.log"
exit $status

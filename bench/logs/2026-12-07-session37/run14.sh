#!/bin/bash
# Session 37, call 4: gemm_bias_gelu.tile with the 128 x 192 configuration: gemm_test (the
# configuration forced on a ragged shape, 768 x 4096 x 4096 through the launcher's choice) and
# the differential test of gemm_bias_gelu.tile (every configuration, every build).
set -u
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p /tmp/c && tar xJf devcarry/carry38.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
( timeout 150 $B/gemm_test > $L/gemm_test.txt 2>&1; echo "gemm_test rc=$?" >> $L/summary.txt ) &
( DIFFTEST_JOBS=4 timeout 200 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest > $L/difftest-gemm_bias_gelu.txt 2>&1
  echo "difftest rc=$?" >> $L/summary.txt ) &
wait
sort $L/summary.txt | tr '\n' ' '; echo
grep -hE "FAIL|gelu" $L/gemm_test.txt | head -20
grep -E "run-kernels" $L/difftest-gemm_bias_gelu.txt; grep -c PASS $L/difftest-gemm_bias_gelu.txt
echo "total $(( $(date +%s) - T0 ))s"
